#!/usr/bin/python3
"""devharness export: one run's benchmark results as Bencher Metric Format JSON, CSV or
OpenMetrics text, from the results store, a result bundle or a bench JSON file.

usage: export.py [--store PATH | BUNDLE_DIR | BENCH.json] --format bmf|csv|openmetrics
                 [-o FILE] [--run ID|last]

The source is the results store (--store PATH, the default results/devharness.sqlite
when no source is named; docs/results.md "The store"), a result bundle folder (its
manifest.json and bench.json) or a Google Benchmark JSON file of `devharness bench`
(a manifest.json beside it names the run). From the store, --run picks the run: its
UUID, the first 8 or more digits of it (history's short run id) or "last" (the
default: the latest run that recorded benchmarks).

What a benchmark holds, the same from every source: its latency (the median real time
per iteration of its repetitions, with the first and third quartile by linear
interpolation, as `store import` records them), in nanoseconds converted from the run's
time_unit; its throughput, where the benchmark reports bytes_per_second: the median in
bytes per second (SI, as bench's bandwidth_unit context says); its repetitions; its
device (the `backend:id` part of its name) and whether it is a raw vendor-API twin (a
name part "raw" or "raw_*"). From a bundle, as `store import` does, rows naming no
device of the bundle are left out.

Formats (docs/results.md "Exports"):
  bmf          {"<benchmark>": {"latency": {"value": median ns, "lower_value": q1,
               "upper_value": q3}, "throughput": {"value": bytes/s}}}, Bencher's
               documented shape (docs/bmf.schema.json)
  csv          a header row, then one row per benchmark x measure (latency, throughput)
  openmetrics  gauges devharness_bench_latency_seconds (and _q1_seconds, _q3_seconds),
               devharness_bench_throughput_bytes_per_second, devharness_bench_repetitions
               labelled device, benchmark, kind (harness|twin), and an info metric
               devharness_run naming the run; ends with "# EOF"

With -o FILE the output is written to a temporary file beside FILE, then renamed;
without it, to standard output.

Exit: 0 written, 1 FILE cannot be written, 2 bad input (no such store or bundle, a file
that is neither, unknown format or run, a run with no benchmark results).
"""
import csv
import io
import json
import math
import os
import sys
import tempfile

import dh_store
from dh_args import OneLineParser, parse

FORMATS = ("bmf", "csv", "openmetrics")
CSV_HEADER = ("run_uuid", "started_at", "git_commit", "device", "stable_id", "benchmark", "kind", "measure",
              "median", "q1", "q3", "unit", "repetitions")


def quantile(v, q):
    """Quantile q of the sorted list v by linear interpolation, the formula of store
    import (store/import_bench.c), so a bundle exports the numbers its store run holds."""
    pos = q * (len(v) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def kind_of(name):
    """'twin' for a raw vendor-API twin (a name part "raw" or "raw_*"), else 'harness'."""
    return "twin" if any(p == "raw" or p.startswith("raw_") for p in name.split("/")) else "harness"


def bench_row(name, device, stable_id, median_ns, q1_ns, q3_ns, reps, bps):
    return {"benchmark": name, "device": device, "stable_id": stable_id, "kind": kind_of(name),
            "median_ns": median_ns, "q1_ns": q1_ns, "q3_ns": q3_ns, "repetitions": reps,
            "bytes_per_second": bps}


# ------------------------------------------------------------------ the store
def store_run(db, path, run):
    """The run row {run_id, uuid, started_at, git_commit} that `run` names ("last": the
    latest run with benchmark results). ValueError: no such run, or an ambiguous prefix."""
    if run == "last":
        rows = dh_store.query(db, path, """
            SELECT run_id, uuid, started_at, git_commit FROM runs r
            WHERE EXISTS (SELECT 1 FROM bench_values b WHERE b.run_id = r.run_id)
            ORDER BY started_at DESC, run_id DESC LIMIT 1""")
        if not rows:
            raise ValueError(f"{path}: no run recorded benchmark results")
        return dict(rows[0])
    if len(run) < 8:
        raise ValueError(f"--run {run!r}: give a run UUID, at least its first 8 digits, or last")
    rows = dh_store.query(db, path, "SELECT run_id, uuid, started_at, git_commit FROM runs "
                                    "WHERE uuid = ? OR substr(uuid, 1, ?) = ?", (run, len(run), run))
    exact = [r for r in rows if r["uuid"] == run]
    if exact:
        return dict(exact[0])
    if not rows:
        raise ValueError(f"{path}: no run {run!r} (devharness history names the runs)")
    if len(rows) > 1:
        raise ValueError(f"{path}: --run {run!r} names {len(rows)} runs; give more digits")
    return dict(rows[0])


def from_store(path, run):
    """(run, rows) of one run of the store: run {uuid, started_at, git_commit}, rows as
    bench_row, ordered by device spec and name."""
    db = dh_store.open_store(path)
    try:
        r = store_run(db, path, run)
        out = []
        for d in dh_store.devices(db, path):
            spec = dh_store.query(db, path, "SELECT spec FROM run_devices WHERE run_id = ? AND device_id = ?",
                                  (r["run_id"], d["device_id"]))
            res = dh_store.bench_results(db, path, d["device_id"], [r["run_id"]]).get(r["run_id"], {})
            for name, b in res.items():
                out.append(bench_row(name, spec[0]["spec"] if spec else d["spec"], d["stable_id"], b["median_ns"],
                                     b["q1_ns"], b["q3_ns"], b["repetitions"], b["bytes_per_second"]))
    finally:
        db.close()
    if not out:
        raise ValueError(f"{path}: run {r['uuid']} recorded no benchmark results")
    out.sort(key=lambda x: (x["device"], x["benchmark"]))
    return {k: r[k] for k in ("uuid", "started_at", "git_commit")}, out


# ------------------------------------------------------------ a bundle or a file
def from_file(source):
    """(run, rows) of a bundle folder or a bench JSON file (benchjson.load reads it)."""
    from benchjson import load
    if os.path.isdir(source):
        manifest_path, bench = os.path.join(source, "manifest.json"), os.path.join(source, "bench.json")
        if not os.path.isfile(manifest_path):
            raise ValueError(f"{source}: not a result bundle (no manifest.json)")
        if not os.path.isfile(bench):
            raise ValueError(f"{source}: the bundle holds no bench.json (no benchmarks were run)")
    elif os.path.isfile(source):
        bench, manifest_path = source, os.path.join(os.path.dirname(os.path.abspath(source)), "manifest.json")
    else:
        raise ValueError(f"{source}: no such bundle folder or bench JSON file")
    manifest = dh_store.read_manifest(manifest_path) if os.path.isfile(manifest_path) else None
    times, rates, ctx = load(bench)
    if manifest:
        ids = {d.get("spec"): d.get("stable_id", "") for d in manifest["devices"] if isinstance(d, dict)}
        dh = manifest.get("devharness") if isinstance(manifest.get("devharness"), dict) else {}
        run = {"uuid": str(manifest.get("run_uuid", "")), "started_at": str(manifest.get("started_at", "")),
               "git_commit": str(dh.get("git_commit", ""))}
    else:
        ids = {k[len("device."):]: "" for k in ctx if k.startswith("device.")}
        run = {"uuid": "", "started_at": str(ctx.get("date", "")), "git_commit": ""}
    out = []
    for name, t in times.items():
        spec = next((p for p in name.split("/") if p in ids), None)
        if spec is None and manifest:
            continue  # store import records only rows that name a device of the bundle
        t, bps = sorted(t), sorted(rates.get(name, []))
        out.append(bench_row(name, spec or "host", ids.get(spec, ""), quantile(t, 0.5), quantile(t, 0.25),
                             quantile(t, 0.75), len(t), quantile(bps, 0.5) if bps else None))
    if not out:
        raise ValueError(f"{bench}: no benchmark result{' names a device of the bundle' if manifest else ''}")
    out.sort(key=lambda x: (x["device"], x["benchmark"]))
    return run, out


# ------------------------------------------------------------------ formats
def bmf_key(r, rows):
    """The BMF benchmark key: the name, or name@device where two devices share a name."""
    return r["benchmark"] if sum(1 for x in rows if x["benchmark"] == r["benchmark"]) == 1 \
        else f"{r['benchmark']}@{r['device']}"


def to_bmf(run, rows):
    doc = {}
    for r in rows:
        m = {"latency": {"value": r["median_ns"], "lower_value": r["q1_ns"], "upper_value": r["q3_ns"]}}
        if r["bytes_per_second"] is not None:
            m["throughput"] = {"value": r["bytes_per_second"]}
        doc[bmf_key(r, rows)] = m
    return json.dumps(doc, indent=1, allow_nan=False) + "\n"


def to_csv(run, rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_HEADER)
    head = (run["uuid"], run["started_at"], run["git_commit"])
    for r in rows:
        ident = (r["device"], r["stable_id"], r["benchmark"], r["kind"])
        w.writerow(head + ident + ("latency", repr(r["median_ns"]), repr(r["q1_ns"]), repr(r["q3_ns"]), "ns",
                                   r["repetitions"]))
        if r["bytes_per_second"] is not None:
            w.writerow(head + ident + ("throughput", repr(r["bytes_per_second"]), "", "", "B/s", r["repetitions"]))
    return buf.getvalue()


def om_escape(v):
    """A label value escaped as the OpenMetrics text format says: backslash, double
    quote and line feed as \\\\, \\" and \\n."""
    return str(v).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def om_labels(**kv):
    return "{" + ",".join(f'{k}="{om_escape(v)}"' for k, v in kv.items()) + "}"


def om_family(lines, name, unit, help_text, samples):
    """One gauge family (TYPE, UNIT, HELP, then its samples); none when it has no sample."""
    if not samples:
        return
    lines.append(f"# TYPE {name} gauge")
    if unit:
        lines.append(f"# UNIT {name} {unit}")
    lines.append(f"# HELP {name} {help_text}")
    lines.extend(f"{name}{labels} {value!r}" for labels, value in samples)


def to_openmetrics(run, rows):
    lines = ["# TYPE devharness_run info",
             "# HELP devharness_run the run these benchmark results are from",
             "devharness_run_info" + om_labels(run_uuid=run["uuid"], started_at=run["started_at"],
                                               git_commit=run["git_commit"]) + " 1"]
    lab = [(r, om_labels(device=r["device"], benchmark=r["benchmark"], kind=r["kind"])) for r in rows]
    for suffix, key, what in (("", "median_ns", "median"), ("_q1", "q1_ns", "first quartile"),
                              ("_q3", "q3_ns", "third quartile")):
        om_family(lines, f"devharness_bench_latency{suffix}_seconds", "seconds",
                  f"{what} real time per iteration over the repetitions",
                  [(la, r[key] / 1e9) for r, la in lab])
    om_family(lines, "devharness_bench_throughput_bytes_per_second", "bytes_per_second",
              "median bytes_per_second over the repetitions (SI bytes)",
              [(la, float(r["bytes_per_second"])) for r, la in lab if r["bytes_per_second"] is not None])
    om_family(lines, "devharness_bench_repetitions", "", "repetitions measured",
              [(la, r["repetitions"]) for r, la in lab])
    lines.append("# EOF")
    return "\n".join(lines) + "\n"


def write(path, text):
    """text into path through a temporary file in its folder, renamed over it."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".export.", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def main(argv):
    ap = OneLineParser(prog="devharness export", description=__doc__.split("\n\n")[0],
                       epilog="exit: 0 written, 1 the -o file cannot be written, 2 usage or input error "
                              "(docs/results.md \"Exports\")")
    ap.add_argument("source", nargs="?", metavar="BUNDLE_DIR|BENCH.json",
                    help="a result bundle folder or a bench JSON file (instead of --store)")
    ap.add_argument("--store", default=None, metavar="PATH",
                    help=f"results store (the default source: {dh_store.DEFAULT_STORE})")
    ap.add_argument("--format", required=True, metavar="bmf|csv|openmetrics",
                    help="Bencher Metric Format JSON, CSV, or OpenMetrics text")
    ap.add_argument("-o", "--output", default=None, metavar="FILE", help="write to FILE (default: standard output)")
    ap.add_argument("--run", default="last", metavar="ID|last",
                    help="with the store: a run UUID, its first 8+ digits, or last (default: the latest run "
                         "with benchmark results)")
    a, status = parse(ap, argv)
    if a is None:
        return status
    if a.format not in FORMATS:
        print(f"devharness export: unknown format {a.format!r} (bmf, csv or openmetrics)", file=sys.stderr)
        return 2
    if a.source and a.store:
        print("devharness export: give a bundle or bench JSON, or --store, not both", file=sys.stderr)
        return 2
    if a.source and a.run != "last":
        print("devharness export: --run picks a run of the store; a bundle or bench JSON is one run",
              file=sys.stderr)
        return 2
    try:
        run, rows = from_file(a.source) if a.source else from_store(a.store or dh_store.DEFAULT_STORE, a.run)
    except ValueError as e:
        print(f"devharness export: {e}", file=sys.stderr)
        return 2
    text = {"bmf": to_bmf, "csv": to_csv, "openmetrics": to_openmetrics}[a.format](run, rows)
    if a.output is None:
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    try:
        write(a.output, text)
    except OSError as e:
        print(f"devharness export: cannot write {a.output!r}: {e.strerror}", file=sys.stderr)
        return 1
    print(f"devharness export: {a.output}: {len(rows)} benchmark(s) of run {run['uuid'] or '(no manifest)'} "
          f"as {a.format}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
