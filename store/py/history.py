#!/usr/bin/python3
"""devharness history: verdict timelines, flips, flaky clauses and benchmark change points
from the results store.

usage: history.py [--store PATH] [--device ID] [--clause GLOB] [--last N] [--json] [-q]

Reads the store (docs/results.md "The store") read-only. Per device (stable_id; --device
takes a stable_id or the spec of its latest run) and clause:
  - the verdict timeline of the last N runs that recorded the device's clauses, oldest
    first, one letter a run: P pass, F fail, S skip, X xfail, W waived, . not run;
  - flips: a clause whose verdict changed between two runs of the window, and what
    flipped since the previous run;
  - flaky: a clause whose verdict changed at least twice in the last 10 runs with the
    same devharness commit, driver version and target as the device's latest run. A
    flaky clause is marked FLAKY and never reported as a regression.
Per device and benchmark: the series of medians over the last --series runs, with
change points found by ruptures (PELT with the l2 cost, KernelCPD's linear kernel, on
log times scaled by the series' own run-to-run noise, docs/history.md); a change point
is reported only where it persists (at least 3 runs on each side, the runs before and
after differing by a Mann-Whitney U test at p < 0.01) and moves the median by at least
--min-effect.

Exit: 0 no new failure since the previous run, 1 a clause went from pass to fail since
the previous run and is not flaky, 2 bad input (missing or foreign store, bad option).
"""
import fnmatch
import json
import math
import statistics
import sys

import dh_store
from dh_args import OneLineParser, parse

FLAKY_WINDOW = 10
MIN_SEGMENT = 3


def letter(status, waived=False):
    """A run's letter in a timeline: W when a waiver decided the case (the store's waived
    column), else its status's first letter, capitalised (P pass, F fail, S skip, X xfail:
    dh_store.STATUSES, the store's status column); . when the run did not run it."""
    if status is None:
        return "."
    return "W" if waived else status[0].upper()


def changes(seq):
    """How many times consecutive recorded verdicts differ (runs not run are left out)."""
    seen = [v for v in seq if v is not None]
    return sum(1 for x, y in zip(seen, seen[1:]) if x != y)


def clause_history(db, path, dev, clause_glob, last):
    """The clause part of one device's history (see the module doc)."""
    runs = dh_store.clause_runs(db, path, dev["device_id"])
    if not runs:
        return None
    latest = runs[-1]
    ident = (latest["git_commit"], latest["driver_version"], latest["target"])
    same = [r for r in runs if (r["git_commit"], r["driver_version"], r["target"]) == ident]
    flaky_runs = same[-FLAKY_WINDOW:]
    window = runs[-last:]
    need = {r["run_id"] for r in window} | {r["run_id"] for r in flaky_runs}
    res = dh_store.clause_results(db, path, dev["device_id"], sorted(need))
    clauses = sorted({c for (_, c) in res if fnmatch.fnmatchcase(c, clause_glob)})
    out, since, failing = {}, [], 0
    for c in clauses:
        cases = [res.get((r["run_id"], c)) for r in window]
        tl = [k.status if k else None for k in cases]
        waived = [bool(k and k.waived) for k in cases]
        flaky = changes([k.status if k else None
                         for k in (res.get((r["run_id"], c)) for r in flaky_runs)]) >= 2
        flips = []
        prev = None
        for i, v in enumerate(tl):
            if v is None:
                continue
            if prev is not None and v != prev[1]:
                flips.append({"index": i, "run": window[i]["uuid"],
                              "started_at": window[i]["started_at"], "from": prev[1], "to": v})
            prev = (i, v)
        out[c] = {"timeline": tl, "waived": waived, "flaky": flaky, "flips": flips}
        if len(window) >= 2 and tl[-1] is not None and tl[-2] is not None and tl[-1] != tl[-2]:
            regression = tl[-2] == "pass" and tl[-1] == "fail" and not flaky
            failing += regression
            since.append({"clause": c, "from": tl[-2], "to": tl[-1], "flaky": flaky,
                          "regression": regression})
    return {"runs": [{k: r[k] for k in ("uuid", "started_at", "git_commit", "driver_version",
                                        "target")} for r in window],
            "clauses": out, "since_previous": since, "new_failures": failing}


def change_points(series, min_effect):
    """Indices i (0-based; the first run of the new level) where the series steps and
    stays: ruptures PELT (l2 cost) on log values scaled by the run-to-run noise, then kept only
    with >= MIN_SEGMENT runs on each side, a median change >= min_effect and the two
    sides different by Mann-Whitney U (p < 0.01)."""
    import numpy as np
    import ruptures
    from scipy.stats import mannwhitneyu
    n = len(series)
    if n < 2 * MIN_SEGMENT or min(series) <= 0:
        return []
    y = np.log(np.asarray(series, dtype=float))
    d = np.diff(y)
    sigma = float(np.median(np.abs(d - np.median(d)))) / 0.6745 / math.sqrt(2.0)
    sigma = max(sigma, 0.005)  # below 0.5 % run-to-run the scale is the timer's, not the device's
    z = (y / sigma).reshape(-1, 1)
    try:
        # KernelCPD with the linear kernel is the l2 cost, solved by PELT in ruptures' C
        # code (ruptures.Pelt(model="l2") finds the same breaks ~500x slower)
        bkps = ruptures.KernelCPD(kernel="linear", min_size=MIN_SEGMENT, jump=1).fit(z).predict(
            pen=3.0 * math.log(n) + 3.0)
    except ruptures.exceptions.BadSegmentationParameters:
        return []
    bounds = [0] + [int(b) for b in bkps]
    out = []
    for j in range(1, len(bounds) - 1):
        before = series[bounds[j - 1]:bounds[j]]
        after = series[bounds[j]:bounds[j + 1]]
        if len(before) < MIN_SEGMENT or len(after) < MIN_SEGMENT:
            continue
        mb, ma = statistics.median(before), statistics.median(after)
        # the two levels must differ beyond the noise too (two-sided Mann-Whitney U,
        # p < 0.01), not only by min_effect
        if abs(ma / mb - 1.0) >= min_effect and mannwhitneyu(before, after).pvalue < 0.01:
            out.append((bounds[j], mb, ma))
    return out


def bench_history(db, path, dev, runs_back, min_effect, bench_glob):
    """The benchmark part of one device's history: series and persisting change points."""
    runs = dh_store.bench_runs(db, path, dev["device_id"])[-runs_back:]
    if not runs:
        return []
    res = dh_store.bench_results(db, path, dev["device_id"], [r["run_id"] for r in runs])
    series = {}
    for i, r in enumerate(runs):
        for name, row in res.get(r["run_id"], {}).items():
            key = dh_store.respec(name, r["spec"], dev["spec"])
            series.setdefault(key, {"twin": row["twin"], "points": []})["points"].append(
                (i, row["median_ns"]))
    out = []
    for name in sorted(series):
        if not fnmatch.fnmatchcase(name, bench_glob):
            continue
        pts = series[name]["points"]
        values = [v for _, v in pts]
        cps = [{"index": pts[k][0], "run": runs[pts[k][0]]["uuid"],
                "started_at": runs[pts[k][0]]["started_at"], "before_ns": mb, "after_ns": ma,
                "change": ma / mb - 1.0} for k, mb, ma in change_points(values, min_effect)]
        out.append({"name": name, "twin": bool(series[name]["twin"]),
                    "runs": [runs[i]["uuid"] for i, _ in pts],
                    "started_at": [runs[i]["started_at"] for i, _ in pts],
                    "median_ns": values, "change_points": cps})
    return out


def analyze(store, device=None, clause="*", last=10, series=100, min_effect=0.05, bench="*"):
    """The whole history as one dict (what --json prints, what the dashboard draws)."""
    db = dh_store.open_store(store)
    try:
        devs = dh_store.devices(db, store, device)
        if device is not None and not devs:
            raise ValueError(f"{store}: no device {device!r} (a stable_id or the spec of its "
                             f"latest run)")
        out = []
        for dev in devs:
            entry = {k: dev[k] for k in ("stable_id", "spec", "backend", "name")}
            entry["clauses"] = clause_history(db, store, dev, clause, last)
            entry["benchmarks"] = bench_history(db, store, dev, series, min_effect, bench)
            out.append(entry)
        return {"store": store, "last": last, "devices": out}
    finally:
        db.close()


def print_text(h, quiet):
    say = (lambda *_: None) if quiet else print
    new_failures = flaky = cps = 0
    for d in h["devices"]:
        say(f"== {d['spec'] or '?'}  {d['backend']} {d['name']}  ({d['stable_id']})")
        ch = d["clauses"]
        if ch:
            say(f"  verdicts of the last {len(ch['runs'])} runs, oldest first "
                f"(P pass, F fail, S skip, X xfail, W waived, . not run):")
            width = max((len(c) for c in ch["clauses"]), default=10)
            for c, v in ch["clauses"].items():
                mark = "  FLAKY" if v["flaky"] else ""
                flips = "".join(f"  [{f['from']}->{f['to']} at run {f['index'] + 1}]"
                                for f in v["flips"]) if not v["flaky"] else ""
                tl = "".join(letter(x, w) for x, w in zip(v["timeline"], v["waived"]))
                say(f"    {c:<{width}}  {tl}{mark}{flips}")
            if ch["since_previous"]:
                say("  since the previous run:")
                for f in ch["since_previous"]:
                    tag = ("FLAKY, not a regression" if f["flaky"] else
                           "NEW FAILURE" if f["regression"] else "changed")
                    say(f"    {f['clause']}: {f['from']} -> {f['to']} ({tag})")
            else:
                say("  since the previous run: no verdict changed")
            new_failures += ch["new_failures"]
            flaky += sum(1 for v in ch["clauses"].values() if v["flaky"])
        for b in d["benchmarks"]:
            for cp in b["change_points"]:
                cps += 1
                say(f"  change point: {b['name']}{' (raw twin)' if b['twin'] else ''} at run "
                    f"{cp['index'] + 1} ({cp['started_at']}, {cp['run']}): "
                    f"{cp['before_ns']:.4g} ns -> {cp['after_ns']:.4g} ns ({cp['change'] * 100:+.1f}%)")
        nb = len(d["benchmarks"])
        say(f"  {nb} benchmark series, "
            f"{sum(len(b['change_points']) for b in d['benchmarks'])} persisting change point(s)")
    print(f"devharness history: {len(h['devices'])} device(s), {new_failures} new failure(s) since "
          f"the previous run, {flaky} flaky clause(s), {cps} change point(s)")
    return 1 if new_failures else 0


def main(argv):
    ap = OneLineParser(prog="devharness history", description=__doc__.split("\n\n")[0],
                       epilog="exit: 0 no new failure since the previous run, 1 a clause went from "
                              "pass to fail and is not flaky, 2 usage or input error")
    ap.add_argument("--store", default=dh_store.DEFAULT_STORE, metavar="PATH",
                    help=f"results store (default {dh_store.DEFAULT_STORE})")
    ap.add_argument("--device", default=None, metavar="ID",
                    help="one device: its stable_id or the spec of its latest run (sim:0)")
    ap.add_argument("--clause", default="*", metavar="GLOB", help="clauses matching GLOB (default *)")
    ap.add_argument("--bench", default="*", metavar="GLOB", help="benchmarks matching GLOB (default *)")
    ap.add_argument("--last", type=int, default=10, metavar="N",
                    help="runs in the verdict timeline (default 10)")
    ap.add_argument("--series", type=int, default=100, metavar="N",
                    help="runs in each benchmark series searched for change points (default 100)")
    ap.add_argument("--min-effect", type=float, default=0.05,
                    help="smallest change point reported, relative (default 0.05 = 5%%)")
    ap.add_argument("--json", action="store_true", help="print the history as JSON")
    ap.add_argument("-q", "--quiet", action="store_true", help="print only errors and the verdict line")
    a, status = parse(ap, argv)
    if a is None:
        return status
    if a.last < 2 or a.series < 2 or not (a.min_effect >= 0):
        print("devharness history: need --last >= 2, --series >= 2, --min-effect >= 0", file=sys.stderr)
        return 2
    try:
        import ruptures  # noqa: F401
    except ImportError:
        print("devharness history: ruptures is needed (the project venv has it: make deps; or set "
              "DEVHARNESS_PYTHON to a Python with ci/python-requirements.txt)", file=sys.stderr)
        return 2
    try:
        h = analyze(a.store, a.device, a.clause, a.last, a.series, a.min_effect, a.bench)
    except ValueError as e:
        print(f"devharness history: {e}", file=sys.stderr)
        return 2
    if a.json:
        json.dump(h, sys.stdout, indent=1)
        print()
        return 1 if any(d["clauses"] and d["clauses"]["new_failures"] for d in h["devices"]) else 0
    return print_text(h, a.quiet)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
