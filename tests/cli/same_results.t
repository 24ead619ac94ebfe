#!/usr/bin/python3
"""`devharness run --device sim:0` says what it said before: TAP, JUnit, bench JSON
(timings aside) and info JSON, normalised by tests/cli/same_results.py, equal to the
golden files in tests/cli/golden/run-sim0/. A change that means to alter them rewrites
the golden files (`tests/cli/same_results.py --write RESULTS/latest
tests/cli/golden/run-sim0`) in the same commit. The comparer is checked first: a
results folder with one verdict flipped must differ. Prints TAP. Needs $DEVHARNESS
(set by `make test`)."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import ok  # noqa: E402

dh = os.environ.get("DEVHARNESS", "")
if not dh or not os.path.exists(dh):
    print("1..0 # SKIP DEVHARNESS not set or missing")
    sys.exit(0)
here = os.path.dirname(os.path.abspath(__file__))
compare = os.path.join(here, "same_results.py")
golden = os.path.join(here, "golden", "run-sim0")
print("1..4")
tmp = tempfile.mkdtemp(prefix="dh-same-")
try:
    p = subprocess.run([dh, "run", "--device", "sim:0", "--output", tmp], capture_output=True, text=True,
                       timeout=300)
    ok(p.returncode == 0, "run --device sim:0: exit 0", p.stdout + p.stderr)
    latest = os.path.join(tmp, "latest")
    c = subprocess.run([sys.executable, compare, golden, latest], capture_output=True, text=True)
    ok(c.returncode == 0, "TAP, JUnit, bench JSON and info JSON equal the golden files", c.stdout + c.stderr,
       tail=80)
    flipped = os.path.join(tmp, "flipped")
    shutil.copytree(latest, flipped)
    tap = os.path.join(flipped, "conformance.tap")
    with open(tap) as f:
        text = f.read()
    with open(tap, "w") as f:
        f.write(text.replace("    ok 1 - ", "    not ok 1 - ", 1))
    c = subprocess.run([sys.executable, compare, latest, flipped], capture_output=True, text=True)
    ok(c.returncode == 1 and "DIFFERENT: conformance.tap" in c.stdout, "the comparer sees one flipped verdict",
       c.stdout + c.stderr)
    c = subprocess.run([sys.executable, compare, latest, os.path.join(tmp, "missing")], capture_output=True,
                       text=True)
    ok(c.returncode == 2, "a missing folder is exit 2", c.stdout + c.stderr)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
