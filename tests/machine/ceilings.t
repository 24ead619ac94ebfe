#!/usr/bin/python3
"""tests/machine/ceilings.t — every device's copy ceilings (docs/benchmarks.md "Ceilings"):
one quick copy run on sim:0 writes ceiling.sim:0.<dir> for h2d, d2h, d2d and bidir into
the context (sim's memory is host memory: a host memcpy measured in the run), the
summary's best copies are measured / ceiling with the same numbers in the JSON, every
bandwidth panel of the plot draws its ceiling (SVG group id ceiling-<dir>) and, where a
direction's ceiling is unknown, says "ceiling unknown: <reason>" in the panel instead;
--expect with a malformed floor is one usage error naming the file and the floor; a copy
run on every device here gives every bandwidth plot its ceilings or their reasons.
Prints TAP; needs $DEVHARNESS (set by `make test`)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import ok  # noqa: E402  (tests/taplib.py)

DIRS = ("h2d", "d2h", "d2d", "bidir")


def main():
    dh = os.environ.get("DEVHARNESS", "")
    if not dh or not os.path.exists(dh):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        return
    print("1..10")
    tmp = tempfile.mkdtemp(prefix="dh-ceil-")
    env = dict(os.environ, DEVHARNESS_SIM_DEVICES="1", DEVHARNESS_BENCH_MEMCPY_MIB="16")
    out = os.path.join(tmp, "bench.json")
    p = subprocess.run([dh, "bench", "--device", "sim:0", "--suite", "copy", "--quick", "--color", "never",
                        "--benchmark_filter=copy/[a-z0-9]+/(pageable|device)/sim:0/harness/1048576", "--out", out],
                       capture_output=True, text=True, timeout=300, env=env)
    ok(p.returncode == 0 and os.path.exists(out), "bench --device sim:0 --suite copy --quick ran",
       "exit %d\n%s%s" % (p.returncode, p.stdout[-1500:], p.stderr[-1500:]))
    doc = json.load(open(out)) if os.path.exists(out) else {}
    ctx = doc.get("context", {})
    vals = {d: ctx.get("ceiling.sim:0." + d, "") for d in DIRS}
    nums = {d: re.match(r"^([0-9.]+) GB/s: host memcpy measured in this run", v) for d, v in vals.items()}
    ok(all(nums.values()) and all(float(m.group(1)) > 0 for m in nums.values()),
       "context: ceiling.sim:0.{h2d,d2h,d2d,bidir} = a measured host memcpy in GB/s", json.dumps(vals, indent=1))
    best = doc.get("devharness_summary", {}).get("best_copy", [])
    good = [b for b in best if b.get("ceiling_GBps", 0) > 0 and
            abs(b["percent_of_ceiling"] - 100 * b["GBps"] / b["ceiling_GBps"]) < 1e-6 * b["percent_of_ceiling"]
            and nums.get(b["direction"]) and abs(b["ceiling_GBps"] - float(nums[b["direction"]].group(1))) < 0.006]
    ok(len(best) == 4 and len(good) == 4,
       "summary JSON: each direction's best copy with ceiling_GBps from the context and percent = 100 x GB/s / ceiling",
       json.dumps(best, indent=1))
    lines = [l for l in p.stdout.splitlines() if re.match(r"^  (h2d|d2h|d2d|bidir) +sim:0 ", l)]
    ok(len(lines) == 4 and all(re.search(r"GB/s / [0-9.]+ GB/s = +[0-9.]+ % of the ceiling, host memcpy", l)
                               for l in lines),
       "summary table (bench.txt): measured / ceiling = % of the ceiling, and what the ceiling is", "\n".join(lines))

    plots = os.path.join(tmp, "plots")
    q = subprocess.run([dh, "plot", out, "-o", plots, "-q", "--svg"], capture_output=True, text=True, timeout=300)
    svg = open(os.path.join(plots, "bandwidth_sim_0.svg")).read() if q.returncode == 0 else ""
    ok(all('id="ceiling-%s"' % d in svg for d in DIRS) and "ceiling-unknown" not in svg,
       "plot: every bandwidth panel of sim:0 draws its ceiling", q.stderr + str(re.findall(r'id="ceiling[^"]*"', svg)))
    ok(re.search(r"<!-- ceiling [0-9.]+ GB/s: host memcpy", svg) and re.search(r"<!-- .*best harness", svg),
       "plot: the ceiling's legend says what it is and the best harness point as % of it",
       str(re.findall(r"<!-- ceiling[^>]*", svg)[:4]))

    # a run whose context has no ceiling for d2d (the reason recorded instead)
    doc["context"]["ceiling.sim:0.d2d"] = "unknown: test reason 42"
    nod2d = os.path.join(tmp, "nod2d.json")
    json.dump(doc, open(nod2d, "w"))
    plots2 = os.path.join(tmp, "plots2")
    q = subprocess.run([dh, "plot", nod2d, "-o", plots2, "-q", "--svg"], capture_output=True, text=True, timeout=300)
    svg = open(os.path.join(plots2, "bandwidth_sim_0.svg")).read() if q.returncode == 0 else ""
    ok('id="ceiling-unknown-d2d"' in svg and 'id="ceiling-d2d"' not in svg and 'id="ceiling-h2d"' in svg
       and re.search(r"<!-- ceiling unknown: test reason 42", svg),
       "plot: a panel without a ceiling says 'ceiling unknown: <reason>' instead of a line",
       q.stderr + str(re.findall(r"<!-- ceiling[^>]*", svg)[:6]))

    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as f:
        f.write('{"kind": "sim", "expect": ["h2d pinned 256MiB >= 70%", "h2d pinned lots >= 1%"]}')
    r = subprocess.run([dh, "bench", "--device", "sim:0", "--suite", "copy", "--quick", "--expect", bad],
                       capture_output=True, text=True, timeout=300, env=env)
    err = r.stderr.strip().splitlines()
    ok(r.returncode == 2 and len([l for l in err if "--expect" in l]) == 1 and bad in r.stderr
       and "expect[1] 'h2d pinned lots >= 1%'" in r.stderr and "Run on (" not in r.stdout,
       "bench --expect with a malformed floor: exit 2, one line naming the file and expect[1], nothing measured",
       "exit %d\n%s" % (r.returncode, r.stderr))
    r = subprocess.run([dh, "bench", "--device", "sim:0", "--quick", "--expect", "nvidia/nonesuch"],
                       capture_output=True, text=True, timeout=300, env=env)
    ok(r.returncode == 2 and "--expect nvidia/nonesuch" in r.stderr and "nvidia/h100" in r.stderr,
       "bench --expect with an unknown tag: exit 2 naming it and the known tags", r.stderr)

    # every device here (cpu, sim, PoCL, lavapipe, tvm-cpu, ...): each bandwidth panel has its line or its note
    allout = os.path.join(tmp, "all.json")
    r = subprocess.run([dh, "bench", "--suite", "copy", "--quick", "--color", "never",
                        "--benchmark_filter=copy/(d2d/device|h2d/pageable)/[^/]+/harness/1048576", "--out", allout],
                       capture_output=True, text=True, timeout=600, env=env)
    plots3 = os.path.join(tmp, "plots3")
    q = subprocess.run([dh, "plot", allout, "-o", plots3, "-q", "--svg"], capture_output=True, text=True, timeout=300)
    svgs = sorted(f for f in os.listdir(plots3) if f.startswith("bandwidth_") and f.endswith(".svg")) \
        if q.returncode == 0 else []
    missing = []
    for f in svgs:
        text = open(os.path.join(plots3, f)).read()
        for d in ("h2d", "d2d"):
            if ('id="ceiling-%s"' % d not in text and
                    not ('id="ceiling-unknown-%s"' % d in text and "<!-- ceiling unknown: " in text)):
                missing.append("%s %s" % (f, d))
    ok(r.returncode == 0 and len(svgs) >= 2 and not missing,
       "every device's bandwidth plot (%d) draws each panel's ceiling or says 'ceiling unknown: <reason>'" % len(svgs),
       "exit %d/%d, missing: %s\n%s" % (r.returncode, q.returncode, missing, r.stderr[-1000:] + q.stderr[-1000:]))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
