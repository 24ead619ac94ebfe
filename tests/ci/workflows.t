#!/usr/bin/python3
"""tests/ci/workflows.t — the nightly pipelines (.github/workflows/nightly.yml,
.gitlab-ci.yml: one copy each, where GitHub and GitLab read them) parse as YAML, and
the jobs are the ones
docs/ci.md describes: a matrix over the runner labels cpu, pocl, lavapipe, nvidia-gpu
running `devharness run`, the benchmark repetitions and the regression gate, and
publishing TAP, JUnit and benchmark JSON. Prints TAP."""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
results = []


def check(ok, desc, diag=""):
    results.append((bool(ok), desc, diag))


try:
    import yaml
except ImportError:
    print("1..0 # SKIP python3-yaml is not installed")
    sys.exit(0)

LABELS = {"cpu", "pocl", "lavapipe", "nvidia-gpu"}
GITHUB, GITLAB = ".github/workflows/nightly.yml", ".gitlab-ci.yml"
docs = {}
for canon in (GITHUB, GITLAB):
    a = open(os.path.join(ROOT, canon), "rb").read()
    try:
        docs[canon] = yaml.safe_load(a)
        check(isinstance(docs[canon], dict), "%s parses as a YAML mapping" % canon)
    except yaml.YAMLError as e:
        check(False, "%s parses as YAML" % canon, str(e).splitlines()[0])
        docs[canon] = {}

stray = [os.path.join(root, f) for root, _, files in os.walk(os.path.join(ROOT, "ci"))
         for f in files if f.endswith((".yml", ".yaml"))]
check(not stray, "one copy of each pipeline: no YAML under ci/", " ".join(stray))

gh = docs[GITHUB]
job = (gh.get("jobs") or {}).get("conformance") or {}
matrix = ((job.get("strategy") or {}).get("matrix") or {}).get("include") or []
labels = {m.get("runner") for m in matrix}
check(labels == LABELS, "github: matrix runner labels are %s" % sorted(LABELS), "got %s" % sorted(labels))
gh_on = gh.get("on") or gh.get(True) or {}
check("schedule" in gh_on, "github: runs on a schedule (nightly)")
check("push" not in gh_on and "pull_request" not in gh_on,
      "github: only on schedule or on request (a push never queues a job for a GPU runner)", "on: %s" % sorted(gh_on))
reporter = [s for s in job.get("steps", []) if "action-junit-report" in str(s.get("uses", ""))]
check(reporter and "conformance.junit.xml" in str((reporter[0].get("with") or {}).get("report_paths", ""))
      and reporter[0].get("if") == "always()",
      "github: publishes conformance.junit.xml as a check run (mikepenz/action-junit-report), also after a failure")
check(gh.get("permissions") == {} and (job.get("permissions") or {}).get("checks") == "write"
      and all("permissions" in j for j in gh["jobs"].values()),
      "github: no permission at the top; each job asks for its own, the conformance job may write checks",
      "top %s, job %s" % (gh.get("permissions"), job.get("permissions")))
uses = [st.get("uses", "") for j in gh["jobs"].values() for st in j.get("steps", []) if st.get("uses")]
check(uses and all(re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", u) for u in uses),
      "github: every action pinned by a full commit SHA (%d uses)" % len(uses), "\n".join(uses))
steps = " ".join(str(s.get("run", "")) + " " + str(s.get("uses", "")) for s in job.get("steps", []))
for needle in ("ci/install-deps.sh", "devharness run", "--repetitions 9", "ci/regression-gate.sh",
               "upload-artifact"):
    check(needle in steps, "github: a step runs %s" % needle)
art = " ".join(str((s.get("with") or {}).get("path", "")) for s in job.get("steps", []))
for f in ("conformance.tap", "conformance.junit.xml", "bench.json"):
    check(f in art, "github: publishes %s" % f)

gl = docs[GITLAB]
tmpl = gl.get(".devharness-run") or {}
script = " ".join(tmpl.get("script", []))
for needle in ("ci/install-deps.sh", "devharness run", "--repetitions 9", "ci/regression-gate.sh"):
    check(needle in script, "gitlab: the job script runs %s" % needle)
reports = ((tmpl.get("artifacts") or {}).get("reports") or {}).get("junit", "")
check("conformance.junit.xml" in str(reports), "gitlab: publishes JUnit as a test report")
gjob = gl.get("conformance-and-bench") or {}
glabels = {m.get("RUNNER") for m in (gjob.get("parallel") or {}).get("matrix", [])}
check(glabels == LABELS, "gitlab: matrix runner tags are %s" % sorted(LABELS), "got %s" % sorted(glabels))
check(os.access(os.path.join(ROOT, "ci/regression-gate.sh"), os.X_OK), "ci/regression-gate.sh is executable")

print("1..%d" % len(results))
for i, (ok, desc, diag) in enumerate(results, 1):
    print("%s %d - %s" % ("ok" if ok else "not ok", i, desc))
    if diag and not ok:
        print("# " + diag)
