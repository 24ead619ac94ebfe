#!/usr/bin/env python3
"""bench/scripts/ratio_table.py — the harness/raw ratio table of docs/benchmarks.md, measured like for like.

Runs `devharness bench` RUNS times (default 3), each with REPS interleaved repetitions
(default 9), on each device (default cpu:0, sim:0, opencl:0, vulkan:0), restricted to copies of
4 B, 64 KiB, 1 MiB and 256 MiB and the launch round trip, and prints:

  * per device, per copy (direction / memory / twin), the harness/raw time ratio at
    each size: the median over the runs of each run's ratio (each run's ratio is the
    median harness time / median raw time over its REPS repetitions, as `devharness
    bench` writes it in devharness_summary.harness_raw_pairs), with the spread
    [min-max] over the runs; "raw" = the fastest use of the vendor API,
    "raw_released" = the twin under the harness's host-source contract;
  * the launch round trip ratio the same way;
  * the coefficient of variation of copies of 1 MiB and more (devharness_summary.copy_cv):
    median, max and how many are above 5 %, per device;
  * where each ratio misses the goal (<= 1.10 at 4 B, <= 1.05 from 64 KiB up and for
    the launch round trip, >= 0.95 everywhere).

Exit: 0 table printed (goals missed or not), 1 a bench run failed, 2 usage error.
Example: bench/scripts/ratio_table.py --devharness build/bin/devharness --out-dir /tmp/ratios
"""
import json
import os
import statistics
import subprocess
import sys

# dh_args.py is the command-line room's (cmdline/py/); this script runs from the checkout
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "cmdline", "py"))
from dh_args import OneLineParser  # noqa: E402

SIZES = [4, 65536, 1 << 20, 256 << 20]
SIZE_NAMES = {4: "4 B", 65536: "64 KiB", 1 << 20: "1 MiB", 256 << 20: "256 MiB"}
FILTER = r"^(copy/.*/(4|65536|1048576|268435456)/|launch/roundtrip/)"


def goal(size):
    """Upper bound of the ratio goal at a size (None = launch)."""
    return 1.10 if size == 4 else 1.05


def run_bench(exe, device, reps, min_time, out, extra):
    cmd = [exe, "bench", "--suite", "copy,launch", "--device", device,
           "--repetitions", str(reps), "--out", out,
           "--benchmark_filter=" + FILTER,
           f"--benchmark_min_time={min_time}"] + extra
    print("# " + " ".join(cmd), file=sys.stderr, flush=True)
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        print(f"ratio_table.py: {' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()[-400:]}",
              file=sys.stderr)
        return None
    with open(out) as f:
        return json.load(f)


def parse_pairs(doc):
    """{(key, size): ratio} with key = 'copy/h2d/pinned raw' or 'launch roundtrip raw'."""
    out = {}
    for p in doc.get("devharness_summary", {}).get("harness_raw_pairs", []):
        parts = p["harness"].split("/")
        twin = p.get("twin", "raw")
        if parts[0] == "copy" and len(parts) >= 6:
            out[(f"{parts[1]}/{parts[2]} vs {twin}", int(parts[5]))] = p["ratio"]
        elif parts[0] == "launch" and parts[1] == "roundtrip":
            out[(f"launch roundtrip vs {twin}", 0)] = p["ratio"]
    return out


def fmt(vals):
    if not vals:
        return "-"
    m = statistics.median(vals)
    return f"{m:.2f} [{min(vals):.2f}-{max(vals):.2f}]"


def main(argv):
    ap = OneLineParser(prog="ratio_table.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--devharness", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "bin", "devharness"))
    ap.add_argument("--devices", default="cpu:0,sim:0,opencl:0,vulkan:0")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--repetitions", type=int, default=9)
    ap.add_argument("--min-time", type=float, default=0.1,
                    help="--benchmark_min_time per repetition, seconds (default 0.1)")
    ap.add_argument("--out-dir", default=".", help="where the runs' JSON files go")
    ap.add_argument("--timing", default="auto", choices=["auto", "host", "device"])
    ap.add_argument("--no-run", action="store_true",
                    help="only print the table from the JSON files already in --out-dir")
    a = ap.parse_args(argv)
    if a.runs < 1 or a.repetitions < 2:
        ap.error("--runs must be >= 1 and --repetitions >= 2 (interleaved)")
    if not a.no_run and not os.access(a.devharness, os.X_OK):
        ap.error(f"--devharness {a.devharness}: not an executable")
    os.makedirs(a.out_dir, exist_ok=True)
    devices = [d for d in a.devices.split(",") if d]
    failed = False
    for dev in devices:
        runs = []
        for i in range(a.runs):
            out = os.path.join(a.out_dir, f"ratio-{dev.replace(':', '_')}-run{i}.json")
            if a.no_run:
                try:
                    with open(out) as f:
                        doc = json.load(f)
                except (OSError, ValueError) as e:
                    print(f"ratio_table.py: {out}: {e}", file=sys.stderr)
                    doc = None
            else:
                doc = run_bench(a.devharness, dev, a.repetitions, a.min_time, out,
                                ["--timing", a.timing])
            if doc is None:
                failed = True
                continue
            runs.append(doc)
        if not runs:
            continue
        pairs = [parse_pairs(d) for d in runs]
        keys = sorted({k for p in pairs for (k, _) in p})
        print(f"\n## {dev}: harness/raw time, median of {len(runs)} runs [min-max over runs], "
              f"each run the median of {a.repetitions} interleaved repetitions")
        print("| " + " | ".join(["copy"] + [SIZE_NAMES[s] for s in SIZES]) + " |")
        print("|" + "---|" * (len(SIZES) + 1))
        misses = []
        for k in keys:
            if k.startswith("launch"):
                continue
            cells = []
            for s in SIZES:
                vals = [p[(k, s)] for p in pairs if (k, s) in p]
                cells.append(fmt(vals))
                if vals:
                    m = statistics.median(vals)
                    if m > goal(s) or m < 0.95:
                        misses.append(f"{k} {SIZE_NAMES[s]} {m:.2f}")
            print(f"| {k} | " + " | ".join(cells) + " |")
        for k in keys:
            if k.startswith("launch"):
                vals = [p[(k, 0)] for p in pairs if (k, 0) in p]
                print(f"{k}: {fmt(vals)}")
                if vals and not 0.95 <= statistics.median(vals) <= 1.05:
                    misses.append(f"{k} {statistics.median(vals):.2f}")
        cvs = [c["cv"] for d in runs for c in d.get("devharness_summary", {}).get("copy_cv", [])]
        if cvs:
            print(f"CV of copies >= 1 MiB over {a.repetitions} repetitions ({len(cvs)} values, "
                  f"{len(runs)} runs): median {100 * statistics.median(cvs):.1f} %, max "
                  f"{100 * max(cvs):.1f} %, {sum(c > 0.05 for c in cvs)} above 5 %")
        else:
            print("CV of copies >= 1 MiB: none reported")
        print("goal missed (<= 1.10 at 4 B, <= 1.05 from 64 KiB and launch, >= 0.95): " +
              ("; ".join(misses) if misses else "none"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
