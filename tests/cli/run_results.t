#!/usr/bin/python3
"""`devharness run` results folder: exactly the documented files (README.md,
"Two commands"), no copy of the TAP stream, plot.log naming the final folder's files and
not the temporary .partial folder, bench.txt starting with Google Benchmark's context
header (no raw DEBUG warning, no "ERROR OCCURRED"), and the JUnit file valid for
xmllint against tests/conformance/junit-jenkins.xsd; the plots PNG only. One run on
sim:0, and one with --no-plots: the benchmarks without plots/ or plot.log, 3 steps; a
failing night (tests/conformance's faulty_attrtype backend) names its failed case after
the results line. Prints TAP.
Needs $DEVHARNESS (set by `make test`).
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok  # noqa: E402  (tests/taplib.py)


dh = os.environ.get("DEVHARNESS", "")
if not dh or not os.path.exists(dh):
    print("1..0 # SKIP DEVHARNESS not set or missing")
    sys.exit(0)
here = os.path.dirname(os.path.abspath(__file__))
print("1..10")
tmp = tempfile.mkdtemp(prefix="dh-run-")
p = subprocess.run([dh, "run", "--device", "sim:0", "--output", tmp], capture_output=True, text=True,
                   timeout=300)
ok(p.returncode == 0, "run --device sim:0: exit 0", p.stdout + p.stderr)
latest = os.path.join(tmp, "latest")
files = sorted(os.listdir(latest)) if os.path.isdir(latest) else []
want = ["bench.json", "bench.txt", "conformance.cases.json", "conformance.junit.xml", "conformance.summary.json",
        "conformance.tap", "health.json", "info.json", "info.txt", "manifest.json",
        "plot.log", "plots"]
ok(files == want, "results folder holds exactly the documented files", "got %s" % files)
log = open(os.path.join(latest, "plot.log")).read() if "plot.log" in files else ""
ok(log and ".partial" not in log and tmp not in log, "plot.log names no temporary .partial path", log)
txt = open(os.path.join(latest, "bench.txt")).read() if "bench.txt" in files else ""
ok(txt.lstrip()[:40] and "Run on (" in txt.split("----")[0] and "CPU Caches" in txt,
   "bench.txt starts with the context header", txt[:800])
ok("***WARNING*** Library was built as DEBUG" not in txt and "ERROR OCCURRED" not in txt
   and "***WARNING***" not in p.stderr, "no raw DEBUG warning or ERROR OCCURRED line", txt[:2000] + p.stderr)
ok("Run on (" not in p.stderr, "the context header is not on the terminal", p.stderr)
xmllint = shutil.which("xmllint")
if xmllint:
    v = subprocess.run([xmllint, "--noout", "--schema", os.path.join(here, "..", "conformance", "junit-jenkins.xsd"),
                        os.path.join(latest, "conformance.junit.xml")], capture_output=True, text=True)
    ok(v.returncode == 0, "conformance.junit.xml validates against the Jenkins xunit schema", v.stderr)
else:
    print("ok %d - JUnit schema check # SKIP xmllint not installed (libxml2-utils)" % (count() + 1))
pngs = sorted(os.listdir(os.path.join(latest, "plots"))) if "plots" in files else []
ok(pngs and all(f.endswith(".png") for f in pngs), "plots/ holds PNG charts only (SVG with plot --svg)", pngs)
tmp2 = tempfile.mkdtemp(prefix="dh-run-noplots-")
p = subprocess.run([dh, "run", "--device", "sim:0", "--output", tmp2, "--no-plots", "--no-store"],
                   capture_output=True, text=True, timeout=300)
files2 = sorted(os.listdir(os.path.join(tmp2, "latest"))) if os.path.isdir(os.path.join(tmp2, "latest")) else []
ok(p.returncode == 0 and "bench.json" in files2 and "plots" not in files2 and "plot.log" not in files2
   and "[3/3] bench" in p.stderr and "  plots " not in p.stdout and "[4/" not in p.stderr,
   "run --no-plots: exit 0, bench.json written, no plots/ or plot.log, 3 steps", (p.returncode, files2, p.stderr[-800:]))
shutil.rmtree(tmp2, ignore_errors=True)
faulty = os.path.join(os.environ.get("BUILD", "build"), "tests", "conformance", "libdevharness_faulty_attrtype.so")
if os.path.exists(faulty):
    tmp3 = tempfile.mkdtemp(prefix="dh-run-fail-")
    os.makedirs(os.path.join(tmp3, "plugins"))
    shutil.copy(faulty, os.path.join(tmp3, "plugins"))
    env = dict(os.environ, DEVHARNESS_PLUGIN_PATH=os.path.join(tmp3, "plugins"))
    p = subprocess.run([dh, "run", "--device", "faulty_attrtype:0", "--no-bench", "--no-store", "--output",
                        os.path.join(tmp3, "out")], capture_output=True, text=True, timeout=300, env=env)
    tail = p.stdout[p.stdout.find("\nresults: "):]
    ok(p.returncode == 1 and "conformance: 1 violation(s)" in tail and
       "\n  not ok faulty_attrtype:0 attr.types: attribute kind 9 has the wrong type\n" in tail,
       "a failing run names its failed case (device, clause, message) after the results line", p.stdout[-1500:])
    shutil.rmtree(tmp3, ignore_errors=True)
else:
    print("ok %d - failing run names its case # SKIP %s not built (make test builds it)" % (count() + 1, faulty))
shutil.rmtree(tmp, ignore_errors=True)
