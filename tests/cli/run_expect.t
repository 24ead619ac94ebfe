#!/usr/bin/python3
"""tests/cli/run_expect.t — `devharness run --expect FILE` (docs/benchmarks.md "Expected
performance"): on sim:0, a target whose floor no device can reach (500 % of the
ceiling) fails the run with exit 1 and a line naming the device, the floor, the measured
value, the ceiling and the floor's value; the results are still published (bench.json
with the verdicts, the plots); a floor the quick run did not measure (256 MiB) is a
skip, not a pass; a generous time budget passes. --expect with --no-bench is a usage
error. Prints TAP; needs $DEVHARNESS (set by `make test`)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import ok  # noqa: E402  (tests/taplib.py)


def main():
    dh = os.environ.get("DEVHARNESS", "")
    if not dh or not os.path.exists(dh):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        return
    print("1..7")
    tmp = tempfile.mkdtemp(prefix="dh-expect-")
    target = os.path.join(tmp, "impossible.json")
    with open(target, "w") as f:
        json.dump({"kind": "sim", "device_name": "devharness sim",
                   "expect": ["h2d pageable 1MiB >= 500%", "h2d pinned 256MiB >= 70%",
                              "launch/roundtrip <= 60000 ms"]}, f)
    env = dict(os.environ, DEVHARNESS_BENCH_MEMCPY_MIB="16")
    out = os.path.join(tmp, "results")
    p = subprocess.run([dh, "run", "--device", "sim:0", "--output", out, "--expect", target],
                       capture_output=True, text=True, timeout=600, env=env)
    line = [l for l in p.stderr.splitlines() if l.startswith("devharness run:") and "below its floor" in l]
    m = re.search(r"^devharness run: sim:0 below its floor 'h2d pageable 1MiB >= 500%': measured ([0-9.e+-]+) GB/s, "
                  r"ceiling ([0-9.e+-]+) GB/s \(host memcpy[^)]*\)+, floor ([0-9.e+-]+) GB/s \(500 % of the ceiling\)$",
                  line[0] if line else "")
    ok(p.returncode == 1 and len(line) == 1 and m,
       "run --expect with an impossible floor: exit 1, one line with the device, the floor, measured, ceiling and floor",
       "exit %d\n%s\n%s" % (p.returncode, p.stderr[-2000:], p.stdout[-1500:]))
    ok(m and float(m.group(1)) < float(m.group(3)) and abs(float(m.group(3)) - 5 * float(m.group(2))) <=
       0.01 * float(m.group(3)), "the floor is 500 % of the ceiling and above the measured value",
       line[0] if line else "")
    latest = os.path.join(out, "latest")
    bench = os.path.join(latest, "bench.json")
    ok(os.path.exists(bench) and os.path.isdir(os.path.join(latest, "plots")) and
       re.search(r"^  bench +BELOW FLOOR +exit 1", p.stdout, re.M),
       "results published (bench.json, plots/); the steps table says BELOW FLOOR", p.stdout[-1500:])
    exp = json.load(open(bench)).get("devharness_summary", {}).get("expect", {}) if os.path.exists(bench) else {}
    verdicts = [(c.get("floor"), c.get("verdict")) for c in exp.get("checks", [])]
    ok(verdicts == [("h2d pageable 1MiB >= 500%", "fail"), ("h2d pinned 256MiB >= 70%", "skip"),
                    ("launch/roundtrip <= 60000 ms", "pass")] and exp.get("failed") == 1,
       "bench.json: fail, skip (256 MiB not measured by a quick run), pass", json.dumps(exp, indent=1)[:3000])
    ok(re.search(r"^not ok 1 - expect sim:0: h2d pageable 1MiB >= 500%: measured .* below its floor$", p.stdout, re.M)
       and re.search(r"^ok 2 - expect sim:0: h2d pinned 256MiB >= 70% # SKIP not measured", p.stdout, re.M)
       and re.search(r"^ok 3 - expect sim:0: launch/roundtrip <= 60000 ms: measured [0-9.e+]+ us", p.stdout, re.M),
       "the run summary lists every verdict as a TAP line", p.stdout[-2500:])
    ok(re.search(r"^not ok 1 - expect sim:0: h2d pageable 1MiB >= 500%", open(os.path.join(latest, "bench.txt")).read(),
                 re.M) if os.path.exists(bench) else False, "bench.txt has the verdicts too", "")
    q = subprocess.run([dh, "run", "--output", out, "--no-bench", "--expect", target], capture_output=True,
                       text=True, timeout=60)
    ok(q.returncode == 2 and len(q.stderr.strip().splitlines()) == 1 and "--no-bench" in q.stderr,
       "run --expect --no-bench: usage error (exit 2), one line", q.stderr)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
