#!/usr/bin/python3
"""tests/bench/units.t — one bandwidth unit, SI GB/s = 10^9 bytes/s (docs/benchmarks.md):
for the same benchmark row the console table's bytes_per_second (k/s, M/s, G/s with SI
prefixes), bench.json's bytes_per_second and the summary's "best copy" GB/s are the
same number, and the table's context header says which unit it uses. A table printed
with Google Benchmark's own 1024-based prefixes (G/s = GiB/s) is 7 % off at G and
fails. Prints TAP; needs $DEVHARNESS (set by `make test`)."""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok  # noqa: E402  (tests/taplib.py)

SI = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def close(a, b, rel=0.005):
    return a > 0 and b > 0 and abs(a - b) <= rel * max(a, b)


def main():
    dh = os.environ.get("DEVHARNESS", "")
    if not dh or not os.path.exists(dh):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        return
    tmp = tempfile.mkdtemp(prefix="dh-units-")
    out = os.path.join(tmp, "bench.json")
    p = subprocess.run([dh, "bench", "--device", "sim:0", "--suite", "copy", "--quick", "--color", "never",
                        "--benchmark_filter=copy/(h2d|d2h)/pageable/sim:0/harness", "--out", out],
                       capture_output=True, text=True, timeout=300, env=dict(os.environ, DEVHARNESS_SIM_DEVICES="1"))
    text = p.stdout
    ok(p.returncode == 0 and os.path.exists(out), "bench --device sim:0 --suite copy --quick ran",
       "exit %d\n%s%s" % (p.returncode, text[-1500:], p.stderr[-1500:]))
    ok(re.search(r"^devharness\.bandwidth_unit: .*SI.*10\^9 bytes/s.*not GiB/s", text, re.M),
       "the table's context header names the unit (SI, G/s = 10^9 bytes/s)", text[:3000])
    ok(re.search(r"^== best copy per direction .*GB/s = 10\^9 bytes/s", text, re.M),
       "the summary's header names the unit (GB/s = 10^9 bytes/s)", text[-2000:])
    table = {m.group(1): float(m.group(2)) * SI[m.group(3)]
             for m in re.finditer(r"^(copy/\S+)\s.*?\bbytes_per_second=([0-9.]+)([kMGT]?)/s", text, re.M)}
    best = re.findall(r"^\s+(h2d|d2h)\s+sim:0\s+([0-9.]+) GB/s\s.*\((copy/\S+)\)\s*$", text, re.M)
    try:
        rows = {b["name"]: b["bytes_per_second"] for b in json.load(open(out))["benchmarks"]
                if "bytes_per_second" in b and b.get("run_type") == "iteration"}
    except (OSError, ValueError, KeyError):
        rows = {}
    ok(len(best) == 2, "the summary has a best copy line for h2d and d2h", text[-2000:])
    for d, gbps, name in best:
        gbps = float(gbps)
        t, j = table.get(name, 0.0), rows.get(name, 0.0)
        # the summary prints two decimals: below 1 GB/s (a loaded machine) its rounding
        # alone exceeds 0.5 %, so half its last digit is allowed too
        near = lambda x: close(x, gbps) or (x > 0 and abs(x - gbps) <= 0.00501)
        ok(near(t / 1e9) and near(j / 1e9),
           "%s: the same row, the same number: table %.4g GB/s, bench.json %.4g GB/s, summary %.2f GB/s"
           % (name, t / 1e9, j / 1e9, gbps),
           "table %r json %r summary %r (a table with 1024-based prefixes reads %.4g)" % (t, j, gbps, t / 1.073741824e9))
    print("1..%d" % count())


main()
