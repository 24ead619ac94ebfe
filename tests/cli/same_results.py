#!/usr/bin/python3
"""tests/cli/same_results.py — do two `devharness run` results folders say the same?

    same_results.py A B                 compare two results folders (or golden folders)
    same_results.py --write A GOLDEN    store A's normalised files in GOLDEN

Compares conformance.tap, conformance.junit.xml, bench.json and info.json after
removing what changes from run to run or machine to machine: timings and iteration
counts, dates, load, paths, host topology, available memory. What is left is the
behaviour: every clause and its verdict, every JUnit case, every benchmark's name and
shape, the bench context's keys and devharness's own descriptions, every backend,
device and attribute. A golden folder holds the normalised files (*.norm); either side
may be one. Prints a unified diff of each file that differs and exits 1, else 0.
Exit 2: a folder or file is missing or unreadable.

Used by tests/cli/same_results.t against tests/cli/golden/run-sim0 (a refactoring
keeps `devharness run --device sim:0` the same; a deliberate change rewrites the
golden files with --write and says so in its commit)."""
import difflib
import json
import os
import re
import sys

FILES = ("conformance.tap", "conformance.junit.xml", "bench.json", "info.json")

# bench.json context keys whose values depend on the machine, the time or the path
# of the build; their keys are compared, their values are not.
MACHINE_CONTEXT = {
    "date", "host_name", "executable", "num_cpus", "mhz_per_cpu", "cpu_scaling_enabled",
    "caches", "load_avg", "library_build_type", "devharness.call_module", "tvm_ffi.library",
    "devharness.helper_threads", "devharness.pinning", "devharness.buffers",
    "devharness.driver_threads", "ceiling.host_link",
}
# context keys of the measurement health (machine/health.h): load, clocks, the noisy verdict
MACHINE_PREFIXES = ("devharness.health.",)
GPU_HEALTH_KEY = re.compile(r"devharness\.health\.(before|after)\.gpu[0-9]+$")  # one per NVIDIA GPU
# benchmark fields that describe what ran (kept); every other field is a measurement
BENCH_SHAPE = ("name", "family_index", "per_family_instance_index", "run_name", "run_type",
               "repetitions", "repetition_index", "threads", "aggregate_name",
               "aggregate_unit", "time_unit", "label")


def norm_tap(text):
    text = re.sub(r" in [0-9.]+ s;", " in <s> s;", text)
    return re.sub(r"(duration(?:_ms)?: )[0-9.]+", r"\1<ms>", text)


def norm_junit(text):
    text = re.sub(r'\btime="[0-9.]+"', 'time="<s>"', text)
    text = re.sub(r'\btimestamp="[^"]*"', 'timestamp="<t>"', text)
    return re.sub(r'\bhostname="[^"]*"', 'hostname="<host>"', text)


def shape_of(value):
    """Numbers replaced by their type, recursively (the summary's figures)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return "<number>"
    if isinstance(value, list):
        return [shape_of(v) for v in value]
    return {k: shape_of(v) for k, v in value.items()}


def norm_bench(text):
    d = json.loads(text)
    ctx = {k: ("<machine>" if k in MACHINE_CONTEXT or k.startswith(MACHINE_PREFIXES) else v)
           for k, v in d.get("context", {}).items() if not GPU_HEALTH_KEY.match(k)}
    for k, v in ctx.items():  # ceiling.<device>.<dir>: "N GB/s: what"; the figure is a measurement
        if k.startswith("ceiling.") and isinstance(v, str):
            ctx[k] = re.sub(r"^[0-9.]+ GB/s:", "<GB/s> GB/s:", v)
    benches = [{k: b[k] for k in BENCH_SHAPE if k in b} for b in d.get("benchmarks", [])]
    out = {"context": ctx, "benchmarks": benches}
    if "devharness_summary" in d:
        summary = shape_of(d["devharness_summary"])
        for best in summary.get("best_copy", []):
            best["benchmark"] = "<the fastest of its direction>"  # pinned or pageable: a measurement
        if "health" in summary:  # snapshots and verdict of this machine at this time
            summary["health"] = "<machine>"
        out["devharness_summary"] = summary
    return json.dumps(out, indent=1, sort_keys=True) + "\n"


def norm_info(text):
    d = json.loads(text)
    d.pop("host", None)
    for b in d.get("backends", []):
        for dev in b.get("devices", []):
            attrs = dev.get("attributes", {})
            if "available_global_memory" in attrs:
                attrs["available_global_memory"] = "<bytes>"
    return json.dumps(d, indent=1, sort_keys=True) + "\n"


NORMALISE = {"conformance.tap": norm_tap, "conformance.junit.xml": norm_junit,
             "bench.json": norm_bench, "info.json": norm_info}


def load(folder):
    """{file: normalised text} of a results folder or a golden folder."""
    out = {}
    for name in FILES:
        golden = os.path.join(folder, name + ".norm")
        raw = os.path.join(folder, name)
        try:
            if os.path.exists(golden):
                with open(golden, encoding="utf-8") as f:
                    out[name] = f.read()
            else:
                with open(raw, encoding="utf-8") as f:
                    out[name] = NORMALISE[name](f.read())
        except (OSError, ValueError) as e:
            print(f"same_results: {raw}: {e}", file=sys.stderr)
            sys.exit(2)
    return out


def main(argv):
    if len(argv) == 3 and argv[0] == "--write":
        files = load(argv[1])
        os.makedirs(argv[2], exist_ok=True)
        for name, text in files.items():
            with open(os.path.join(argv[2], name + ".norm"), "w", encoding="utf-8") as f:
                f.write(text)
        return 0
    if len(argv) != 2 or argv[0].startswith("-"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    a, b = load(argv[0]), load(argv[1])
    differ = 0
    for name in FILES:
        if a[name] == b[name]:
            print(f"same: {name}")
            continue
        differ = 1
        print(f"DIFFERENT: {name}")
        sys.stdout.writelines(difflib.unified_diff(a[name].splitlines(True), b[name].splitlines(True),
                                                   f"{argv[0]}/{name}", f"{argv[1]}/{name}", n=2))
    return differ


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
