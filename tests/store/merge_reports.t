#!/usr/bin/python3
"""devharness merge writes the merged reports (docs/results.md "Shards"): three shards
of one conformance run on two devices (sim:0 and faulty_cpuhandle:0, a cpu backend
with one fault, so the run has failures) merged; the merged conformance.tap is what
`prove` counts as one test point per device x clause, with the same tests, failures
and skips as the unsharded run (and each point the same verdict); the merged JUnit
validates against both JUnit schemas of tests/conformance/ (xmllint) with every
(device, clause) testcase exactly once and the unsharded run's counts; the merged
summary has the unsharded totals; each shard's own TAP (flat layout, counted by prove)
and JUnit hold only its own cases. A merge without shard 2/3 reports that shard's cases
as failures. Prints TAP. Needs $DEVHARNESS and $BUILD (set by `make test`)."""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from taplib import count, ok, skip  # noqa: E402
from bundle_common import ROOT, cases, dh, require_devharness  # noqa: E402

require_devharness()
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
LIBS = [os.path.join(BUILD, "lib", "devharness", "libdevharness_sim.so"),
        os.path.join(BUILD, "tests", "conformance", "libdevharness_faulty_cpuhandle.so")]
SCHEMAS = [os.path.join(ROOT, "tests", "conformance", x) for x in ("junit-jenkins.xsd", "junit-generic.xsd")]
ENV = {"DEVHARNESS_SIM_DEVICES": "1"}
if not all(os.path.exists(l) for l in LIBS):
    print("1..0 # SKIP the sim and faulty_cpuhandle plugins are not built (make)")
    sys.exit(0)
SEL = [a for l in LIBS for a in ("--plugin", l)] + ["--tap-layout", "flat", "-q"]
POINT = re.compile(r"^(not ok|ok) \d+ - (\S+) (\S+?)(:| |$)(.*)$")
tmp = tempfile.mkdtemp(prefix="dh-mreports-")
B = lambda name: os.path.join(tmp, name)  # noqa: E731


PERL_COUNT = ("use TAP::Parser; local $/; my $p = TAP::Parser->new({tap => <STDIN>}); $p->run; "
              "printf \"%d %d %d %d\\n\", $p->tests_run, scalar($p->failed), scalar($p->skipped), $p->has_problems;")


def prove(path):
    """(tests, failed, skipped) of a TAP file as prove counts them (TAP::Parser, prove's
    parser: prove itself prints skips only next to a failure), checked against prove's
    own Tests= and verdict; and prove's output."""
    p = subprocess.run(["prove", "--exec", "cat", path], capture_output=True, text=True, timeout=120)
    out = p.stdout + p.stderr
    tests = re.search(r"Tests=(\d+)", out)
    with open(path) as f:
        q = subprocess.run(["perl", "-e", PERL_COUNT], stdin=f, capture_output=True, text=True, timeout=120)
    c = [int(x) for x in q.stdout.split()] if q.returncode == 0 and q.stdout.strip() else None
    if not c or not tests or int(tests.group(1)) != c[0] or (p.returncode != 0) != (c[3] != 0):
        return None, out + q.stderr
    return (c[0], c[1], c[2]), out


def points(path):
    """(device, clause) -> 'ok' / 'not ok' / 'skip' of each top-level test point, and
    how many points there were."""
    got, n = {}, 0
    for line in open(os.path.join(path)).read().splitlines():
        m = POINT.match(line)
        if m:
            n += 1
            got[(m.group(2), m.group(3))] = "skip" if "# SKIP" in line else m.group(1)
    return got, n


def junit_cases(path):
    """[(classname, name, 'fail' / 'skip' / 'pass')] of a JUnit file."""
    text = open(path).read()
    out = []
    for m in re.finditer(r'<testcase classname="([^"]*)" name="([^"]*)"[^>]*?(/>|>(.*?)</testcase>)', text, re.S):
        body = m.group(4) or ""
        out.append((m.group(1), m.group(2), "fail" if re.search(r"<(failure|error)\b", body)
                    else "skip" if "<skipped" in body else "pass"))
    return out


def totals(bundle):
    t = json.load(open(os.path.join(bundle, "conformance.summary.json")))
    return t["totals"], t["exit_code"], t["clauses"]


try:
    p = dh("conformance", *SEL, "--bundle", B("all"), env=ENV)
    t_all, ec_all, ncl = totals(B("all"))
    ok(p.returncode == 1 and t_all["devices"] == 2 and t_all["fail"] >= 1 and t_all["skip"] >= 1,
       "unsharded run on 2 devices: exit 1, %d clauses, %d fail, %d skip" % (ncl, t_all["fail"], t_all["skip"]),
       p.stdout + p.stderr)
    n_all = 2 * ncl
    want = (n_all, t_all["fail"], t_all["skip"] + t_all["xfail"])
    have_prove = shutil.which("prove") is not None
    if have_prove:
        got, out = prove(os.path.join(B("all"), "conformance.tap"))
        ok(got == want, "prove counts the unsharded TAP as %s (tests, failed, skipped)" % (want,),
           "got %s\n%s" % (got, out))
    for i in (1, 2, 3):
        p = dh("conformance", *SEL, "--shard", "%d/3" % i, "--bundle", B("s%d" % i), env=ENV)
        ok(p.returncode in (0, 1) and os.path.exists(os.path.join(B("s%d" % i), "manifest.json")),
           "--shard %d/3: a bundle" % i, p.stdout + p.stderr)
    # each shard's own reports: its cases alone
    own_total = 0
    for i in (1, 2, 3):
        own = {(c["device"], c["clause"]): c["status"] for c in cases(B("s%d" % i))["cases"]}
        own_total += len(own)
        tap = os.path.join(B("s%d" % i), "conformance.tap")
        pts, n = points(tap)
        ok(set(pts) == set(own) and n == len(own) and "in shard" not in open(tap).read(),
           "shard %d/3's TAP: its %d cases, each once, no other shard's case as a skip" % (i, len(own)),
           "points %d, extra %s, missing %s" % (n, set(pts) - set(own), set(own) - set(pts)))
        if have_prove:
            got, out = prove(tap)
            sw = (len(own), sum(s == "fail" for s in own.values()), sum(s in ("skip", "xfail") for s in own.values()))
            ok(got == sw, "prove counts shard %d/3's TAP as %s" % (i, sw), "got %s\n%s" % (got, out))
        names = [(c, n_) for c, n_, _ in junit_cases(os.path.join(B("s%d" % i), "conformance.junit.xml"))]
        ok(sorted(names) == sorted(own), "shard %d/3's JUnit: exactly its %d cases" % (i, len(own)),
           "got %d" % len(names))
    ok(own_total == n_all, "the shards' own cases add up to the unsharded run's %d" % n_all, str(own_total))
    # the merge and its reports
    p = dh("merge", B("s1"), B("s2"), B("s3"), "-o", B("merged"))
    ok(p.returncode == 0 and "reports: %d cases" % n_all in p.stdout, "merge s1 s2 s3: exit 0, reports of %d cases"
       % n_all, p.stdout + p.stderr)
    mtap = os.path.join(B("merged"), "conformance.tap")
    man = json.load(open(os.path.join(B("merged"), "manifest.json")))
    ok(all(f in man["files"] for f in ("conformance.tap", "conformance.junit.xml", "conformance.summary.json")),
       "the merged manifest lists the TAP, JUnit and summary", json.dumps(man["files"]))
    v = dh("verify", B("merged"))
    ok(v.returncode == 0, "verify of the merged bundle with its reports: exit 0", v.stdout + v.stderr)
    if have_prove:
        got, out = prove(mtap)
        ok(got == want, "prove counts the merged TAP as %s, one test point per device x clause, the unsharded "
           "run's failures and skips" % (want,), "got %s\n%s" % (got, out))
    else:
        skip("prove counts the merged TAP", "prove not installed (Debian perl)")
    pa, _ = points(os.path.join(B("all"), "conformance.tap"))
    pm, nm = points(mtap)
    ok(pm == pa and nm == n_all, "the merged TAP: every (device, clause) once, each with the unsharded verdict",
       "points %d, differ %s" % (nm, {k: (pa.get(k), pm.get(k)) for k in set(pa) | set(pm) if pa.get(k) != pm.get(k)}))
    mj = junit_cases(os.path.join(B("merged"), "conformance.junit.xml"))
    dup = [k for k, c in collections.Counter((c, n_) for c, n_, _ in mj).items() if c > 1]
    ok(len(mj) == n_all and not dup and sorted(mj) == sorted(junit_cases(os.path.join(B("all"), "conformance.junit.xml"))),
       "the merged JUnit: %d testcases, every name once, each with the unsharded verdict" % n_all,
       "got %d, repeated %s" % (len(mj), dup[:5]))
    if shutil.which("xmllint"):
        for xsd in SCHEMAS:
            r = subprocess.run(["xmllint", "--noout", "--schema", xsd, os.path.join(B("merged"), "conformance.junit.xml")],
                               capture_output=True, text=True, timeout=120)
            ok(r.returncode == 0, "the merged JUnit validates against tests/conformance/%s" % os.path.basename(xsd),
               r.stderr[-2000:])
    else:
        for xsd in SCHEMAS:
            skip("the merged JUnit against %s" % os.path.basename(xsd), "xmllint not installed (libxml2-utils)")
    t_m, ec_m, ncl_m = totals(B("merged"))
    keys = ("devices", "devices_failed", "pass", "fail", "skip", "xfail", "waived", "violations", "other_shards")
    ok({k: t_m[k] for k in keys} == {k: t_all[k] for k in keys} and ec_m == ec_all and ncl_m == ncl,
       "the merged summary: the unsharded totals and exit code %d" % ec_all,
       "merged %s\nall %s" % (t_m, t_all))
    # a shard missing: its cases are failures of the merged reports
    p = dh("merge", B("s1"), B("s3"), "-o", B("merged13"))
    missing = len(cases(B("s2"))["cases"])
    t13, ec13, _ = totals(B("merged13"))
    pts13, n13 = points(os.path.join(B("merged13"), "conformance.tap"))
    ok(p.returncode == 0 and n13 == n_all and t13["fail"] == t_all["fail"] - sum(
        c["status"] == "fail" for c in cases(B("s2"))["cases"]) + missing and ec13 == 1,
       "merge without shard 2/3: its %d cases are failures in the merged reports (exit 1 in the summary)" % missing,
       "points %d, %s, exit %d" % (n13, t13, ec13))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print("1..%d" % count())
