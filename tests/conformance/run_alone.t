#!/usr/bin/python3
"""conformance --jobs runs DC_RUN_ALONE clauses with no other case beside them
(conformance/clauses/check.h DC_RUN_ALONE, conformance/runner/case.c).

faulty_alone (tests/conformance/faulty_alone.c) is the sim with a detector: a read of
kAvailableGlobalMemory fails while another case process of the run is alive. Under
--jobs 4 the attr.available_* and mem.too_large* clauses (run alone) must pass, while
attr.types, which reads the same attribute beside other cases, fails: the cases did
run beside each other and the detector saw it. With --jobs 1 nothing fails. Prints
TAP; needs $DEVHARNESS and $BUILD (set by `make test`)."""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import ok  # noqa: E402

dh = os.environ.get("DEVHARNESS", "")
lib = os.path.join(os.environ.get("BUILD", "build"), "tests", "conformance", "libdevharness_faulty_alone.so")
if not dh or not os.path.exists(dh) or not os.path.exists(lib):
    print("1..0 # SKIP DEVHARNESS not set or %s not built" % lib)
    sys.exit(0)
ALONE = {"attr.available_le_total", "attr.available_drops", "attr.available_restored", "mem.too_large",
         "mem.too_large_kind"}
FILTER = "attr.*,mem.sizes_*,mem.too_large*"
print("1..4")
with tempfile.TemporaryDirectory(prefix="dh-alone-") as tmp:
    env = dict(os.environ, DH_ALONE_LOCK=os.path.join(tmp, "lock"))

    def run(jobs):
        p = subprocess.run([dh, "conformance", "--plugin", lib, "--device", "faulty_alone:0", "--jobs", str(jobs),
                            "--filter", FILTER, "--timeout", "30"], env=env, capture_output=True, text=True,
                           timeout=300)
        failed = set(re.findall(r"^    not ok \d+ - (\S+)", p.stdout, re.M))
        ran = set(re.findall(r"^    (?:not )?ok \d+ - (\S+)", p.stdout, re.M))
        return p, failed, ran

    # Whether attr.types overlaps another case is up to the scheduler (a loaded machine,
    # e.g. prove -j, may start the next case only after it): up to 3 runs until it does.
    # The run-alone clauses must hold on every run.
    runs = []
    for _ in range(3):
        runs.append(run(4))
        if "attr.types" in runs[-1][1]:
            break
    ok(all(ALONE <= ran for _, _, ran in runs), "--jobs 4: the run-alone clauses ran in each of %d run(s)"
       % len(runs), "\n".join(p.stdout + p.stderr for p, _, _ in runs))
    bad = [sorted(failed & ALONE) for _, failed, _ in runs if failed & ALONE]
    ok(not bad, "--jobs 4: no run-alone clause saw another case beside it (failed: %s)" % (bad or "none"),
       "\n".join(p.stdout for p, _, _ in runs))
    ok("attr.types" in runs[-1][1], "--jobs 4: attr.types, not run alone, saw cases beside it in %d run(s) "
       "(the detector works)" % len(runs), runs[-1][0].stdout)
    p, failed, ran = run(1)
    ok(p.returncode == 0 and not failed, "--jobs 1: every clause passes (exit %d, failed: %s)"
       % (p.returncode, ", ".join(sorted(failed)) or "none"), p.stdout + p.stderr)
