#!/usr/bin/python3
"""devharness history: what changed in the latest run against the previous one (new
failures first, fixed, flaky, stepped benchmarks; at most 40 lines), or with --all every
verdict timeline, flip, flaky clause and benchmark change point, from the results store.

usage: history.py [--store PATH] [--device ID] [--clause GLOB] [--last N] [--all] [--json] [-q]

By default it prints what changed in the latest run against the previous one, at most 40
lines: a header naming both runs (UTC date, short commit, short run id), then the new
failures (clause, devices, message), the fixed clauses, other verdict changes, the flaky
clauses, the benchmarks that stepped within the window (size, change in %, the nights
by date and commit), and one line counting what did not change; lists that do not fit
end with "... and N more (--all)". --all prints the whole analysis below per device.
Runs are named by date, commit and short run id, never by their place in the window.
The store records no pipeline or night id: each recorded run (each shard) is one run.

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
import collections
import datetime
import fnmatch
import json
import math
import re
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
                              "started_at": window[i]["started_at"],
                              "git_commit": window[i]["git_commit"], "from": prev[1], "to": v})
            prev = (i, v)
        out[c] = {"timeline": tl, "waived": waived, "flaky": flaky, "flips": flips}
        if len(window) >= 2 and tl[-1] is not None and tl[-2] is not None and tl[-1] != tl[-2]:
            regression = tl[-2] == "pass" and tl[-1] == "fail" and not flaky
            failing += regression
            since.append({"clause": c, "from": tl[-2], "to": tl[-1], "flaky": flaky,
                          "regression": regression,
                          "message": cases[-1].message if cases[-1] else ""})
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
                "started_at": runs[pts[k][0]]["started_at"],
                "git_commit": runs[pts[k][0]]["git_commit"],
                "before_run": runs[pts[k - 1][0]]["uuid"],
                "before_started_at": runs[pts[k - 1][0]]["started_at"],
                "before_git_commit": runs[pts[k - 1][0]]["git_commit"],
                "before_ns": mb, "after_ns": ma,
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


def utc(started_at):
    """'2026-11-12 02:00 UTC' from a run's started_at (ISO 8601, as the manifest had it)."""
    try:
        t = datetime.datetime.fromisoformat(started_at.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return str(started_at)
    if t.tzinfo is not None:
        t = t.astimezone(datetime.timezone.utc)
    return t.strftime("%Y-%m-%d %H:%M UTC")


class RunNames:
    """Runs named by their UTC date, short commit and short run id ('2026-11-12 bbbbbbb
    0000000c'), never by their position in a window: the short id is the shortest prefix
    (at least 8 characters) of the run UUID that tells every run of the report apart."""

    def __init__(self, h):
        uuids = set()
        for d in h["devices"]:
            if d["clauses"]:
                uuids.update(r["uuid"] for r in d["clauses"]["runs"])
            for b in d["benchmarks"]:
                for cp in b["change_points"]:
                    uuids.update((cp["run"], cp["before_run"]))
        self.width = next((n for n in range(8, 37) if len({u[:n] for u in uuids}) == len(uuids)), 36)

    def short(self, uuid):
        return uuid[:self.width]

    def __call__(self, started_at, commit, uuid):
        return f"{utc(started_at)[:10]} {(commit or '?')[:7]} {self.short(uuid)}"

    def run(self, r):
        return self(r["started_at"], r["git_commit"], r["uuid"])


def print_timeline(h, quiet):
    """--all: per device every clause's verdict timeline, its flips, what changed since
    the previous run and the change points."""
    say = (lambda *_: None) if quiet else (lambda line: print(term(line)))
    name = RunNames(h)
    for d in h["devices"]:
        say(f"== {d['spec'] or '?'}  {d['backend']} {d['name']}  ({d['stable_id']})")
        ch = d["clauses"]
        if ch:
            say(f"  verdicts of the last {len(ch['runs'])} runs, oldest first, "
                f"{name.run(ch['runs'][0])} to {name.run(ch['runs'][-1])} "
                f"(P pass, F fail, S skip, X xfail, W waived, . not run):")
            width = min(max((len(c) for c in ch["clauses"]), default=10), NAME_WIDTH)
            for c, v in ch["clauses"].items():
                mark = "  FLAKY" if v["flaky"] else ""
                flips = "".join(f"  [{f['from']}->{f['to']} on "
                                f"{name(f['started_at'], f['git_commit'], f['run'])}]"
                                for f in v["flips"]) if not v["flaky"] else ""
                tl = "".join(letter(x, w) for x, w in zip(v["timeline"], v["waived"]))
                say(f"    {cut(c):<{width}}  {tl}{mark}{flips}")
            if ch["since_previous"]:
                say(f"  since the previous run ({name.run(ch['runs'][-2])} to "
                    f"{name.run(ch['runs'][-1])}):")
                for f in ch["since_previous"]:
                    tag = ("FLAKY, not a regression" if f["flaky"] else
                           "NEW FAILURE" if f["regression"] else "changed")
                    say(f"    {f['clause']}: {f['from']} -> {f['to']} ({tag})")
            else:
                say("  since the previous run: no verdict changed")
        for b in d["benchmarks"]:
            for cp in b["change_points"]:
                say(f"  change point: {b['name']}{' (raw twin)' if b['twin'] else ''} from "
                    f"{name(cp['started_at'], cp['git_commit'], cp['run'])} (after "
                    f"{name(cp['before_started_at'], cp['before_git_commit'], cp['before_run'])}): "
                    f"{cp['before_ns']:.4g} ns -> {cp['after_ns']:.4g} ns ({cp['change'] * 100:+.1f}%)")
        nb = len(d["benchmarks"])
        say(f"  {nb} benchmark series, "
            f"{sum(len(b['change_points']) for b in d['benchmarks'])} persisting change point(s)")
    return verdict_line(h)


def verdict_line(h):
    """The last line of both outputs (-q prints it alone); the exit status."""
    new_failures = sum(d["clauses"]["new_failures"] for d in h["devices"] if d["clauses"])
    flaky = sum(sum(1 for v in d["clauses"]["clauses"].values() if v["flaky"])
                for d in h["devices"] if d["clauses"])
    cps = sum(len(b["change_points"]) for d in h["devices"] for b in d["benchmarks"])
    print(f"devharness history: {len(h['devices'])} device(s), {new_failures} new failure(s) since "
          f"the previous run, {flaky} flaky clause(s), {cps} change point(s)")
    return 1 if new_failures else 0


# What a terminal acts on or reorders text by: C0 controls (a line is printed whole, so
# tab and newline too), DEL, C1 controls and the bidi formatting characters; the same set
# base/text.h dh_text_quote escapes for the C commands.
_TERMINAL_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
NAME_WIDTH = 60


def term(text):
    """text safe for a terminal: each unsafe character as \\xNN or \\uXXXX, visible."""
    return _TERMINAL_UNSAFE.sub(lambda m: ("\\x%02x" if ord(m.group()) < 0x80
                                           else "\\u%04X") % ord(m.group()), str(text))


def cut(name, width=NAME_WIDTH):
    """A name for a column: at most `width` characters, a longer one cut with '...'."""
    return name if len(name) <= width else name[:width - 3] + "..."


def one_line(text, width=100):
    """The first line of a message, cut to `width` characters."""
    first = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return first if len(first) <= width else first[:width - 3] + "..."


def size_of(bench):
    """The size in a benchmark name (its all-digit path component, bytes), as '64 KiB'."""
    for part in bench.split("/"):
        if part.isdigit():
            n = int(part)
            for unit in ("B", "KiB", "MiB", "GiB"):
                if n < 1024 or n % 1024 or unit == "GiB":
                    return f"{n} {unit}"
                n //= 1024
    return ""


def ns(v):
    """A time in ns as '20.06 us'."""
    for unit, f in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if v >= f:
            return f"{v / f:.4g} {unit}"
    return f"{v:.4g} ns"


def allocate(sizes, budget):
    """How many items of each section fit in `budget` lines, round-robin in section
    order; a section that does not show all its items takes one more line for
    '... and N more (--all)'."""
    shown = [0] * len(sizes)

    def cost():
        return sum(k + (k < n) for k, n in zip(shown, sizes) if n)

    grew = True
    while grew:
        grew = False
        for i, n in enumerate(sizes):
            if shown[i] < n:
                shown[i] += 1
                if cost() > budget:
                    shown[i] -= 1
                else:
                    grew = True
    return shown


def diff(h, last):
    """The default report's content: the latest run against the previous one per device.
    Returns (pairs, sections, unchanged): pairs {device spec: (previous run, latest run)},
    sections [(title, [line])] in the order printed, and the counts of what did not change."""
    name = RunNames(h)
    groups = {k: {} for k in ("new", "fixed", "changed", "flaky", "stepped")}
    pairs, unchanged, not_both, steady, older = {}, collections.Counter(), 0, 0, 0

    def add(kind, key, spec):
        groups[kind].setdefault(key, []).append(spec)

    for d in h["devices"]:
        spec = d["spec"] or d["stable_id"]
        ch = d["clauses"]
        since = {}
        if ch:
            runs = ch["runs"]
            pairs[spec] = (runs[-2] if len(runs) >= 2 else None, runs[-1])
            since = {f["clause"]: f for f in ch["since_previous"]}
            for c, v in ch["clauses"].items():
                f = since.get(c)
                tl = "".join(letter(x, w) for x, w in zip(v["timeline"], v["waived"]))
                if v["flaky"]:
                    now = (f"{f['from']} -> {f['to']} since the previous run, not a regression"
                           if f else f"{v['timeline'][-1] or 'not run'} in the latest run")
                    add("flaky", (c, f"{tl}  {now}"), spec)
                elif f and f["regression"]:
                    add("new", (c, one_line(f["message"]) or "(no message)"), spec)
                elif f and f["from"] == "fail" and f["to"] == "pass":
                    add("fixed", (c, "fail -> pass"), spec)
                elif f:
                    extra = f": {one_line(f['message'])}" if one_line(f["message"]) else ""
                    add("changed", (c, f"{f['from']} -> {f['to']}{extra}"), spec)
                elif len(v["timeline"]) >= 2 and None not in v["timeline"][-2:]:
                    unchanged[v["timeline"][-1]] += 1
                else:
                    not_both += 1
            first = runs[0]["started_at"]
        else:
            first = None
        for b in d["benchmarks"]:
            # a step within the verdict window (or the last --last runs of the series)
            since_run = first if first is not None else b["started_at"][-last]
            recent = [cp for cp in b["change_points"] if cp["started_at"] >= since_run]
            older += len(b["change_points"]) - len(recent)
            steady += not b["change_points"]
            for cp in recent:
                size = size_of(b["name"])
                add("stepped", (b["name"] + (" (raw twin)" if b["twin"] else ""),
                                f"{f'{size}, ' if size else ''}{cp['change'] * 100:+.1f}% "
                                f"({ns(cp['before_ns'])} -> {ns(cp['after_ns'])}) from "
                                f"{name(cp['started_at'], cp['git_commit'], cp['run'])}, after "
                                f"{name(cp['before_started_at'], cp['before_git_commit'], cp['before_run'])}"),
                    spec)

    def lines(kind, sep):
        out = []
        for (what, detail), specs in sorted(groups[kind].items()):
            where = f" on {', '.join(specs)}" if kind != "stepped" else ""
            out.append(f"  {cut(what)}{where}{sep}{detail}")
        return out

    sections = [
        ("new failures", "pass -> fail since the previous run, not flaky", lines("new", ": ")),
        ("fixed", "fail -> pass since the previous run", lines("fixed", ": ")),
        ("other verdict changes", "since the previous run", lines("changed", ": ")),
        ("flaky", f"verdict changed at least twice in the last {FLAKY_WINDOW} runs of one commit, "
                  f"driver and target; timeline of the last {last} runs, oldest first",
         lines("flaky", "  ")),
        ("stepped benchmarks", "persisting change points in the window", lines("stepped", ": ")),
    ]
    counts = {"verdicts": unchanged, "not_both": not_both, "steady": steady, "older": older}
    return name, pairs, sections, counts


def print_diff(h, quiet, limit=40, last=10):
    """The default: what changed in the latest run against the previous one, at most
    `limit` lines (lists cut with '... and N more (--all)')."""
    if quiet:
        return verdict_line(h)
    name, pairs, sections, counts = diff(h, last)
    out = []
    # the header names the pair of runs most devices were compared on, the others beside it
    common = collections.Counter((p[0]["uuid"] if p[0] else None, p[1]["uuid"])
                                 for p in pairs.values()).most_common(1)
    main_pair = next((p for p in pairs.values()
                      if (p[0]["uuid"] if p[0] else None, p[1]["uuid"]) == common[0][0]), None) \
        if common else None
    out.append(f"devharness history: {h['store']}: {len(h['devices'])} device(s), "
               f"the latest run against the previous one")
    if main_pair is None:
        out.append("  no device has clause results")
    else:
        for what, r in (("latest  ", main_pair[1]), ("previous", main_pair[0])):
            out.append(f"  {what}  {utc(r['started_at'])}  commit {(r['git_commit'] or '?')[:7]}  "
                       f"run {name.short(r['uuid'])}" if r else f"  {what}  none (one run only)")
        def key(p):
            return (p[0]["uuid"] if p[0] else None, p[1]["uuid"])
        others = [(s, p) for s, p in pairs.items() if key(p) != key(main_pair)]
        for s, p in others[:2]:
            out.append(f"  {s} compared {name.run(p[0]) if p[0] else 'nothing'} to {name.run(p[1])}")
        if len(others) > 2:
            out.append(f"  ... and {len(others) - 2} more device(s) compared on other runs (--all)")
    v = counts["verdicts"]
    tail = [f"unchanged: {sum(v.values())} device x clause verdict(s) the same in both runs"
            + (f" ({', '.join(f'{n} {st}' for st, n in sorted(v.items()))})" if v else "")
            + (f", {counts['not_both']} not run in both" if counts["not_both"] else "")
            + f"; {counts['steady']} benchmark series without a change point"
            + (f", {counts['older']} older change point(s) (--all)" if counts["older"] else "")]
    full = [(f"{label}: {len(items)} ({note})", items) for label, note, items in sections if items]
    budget = limit - len(out) - len(tail) - 1 - len(full)
    shown = allocate([len(items) for _, items in full], max(budget, len(full)))
    for (title, items), k in zip(full, shown):
        out.append(title)
        out.extend(items[:k])
        if k < len(items):
            out.append(f"  ... and {len(items) - k} more (--all)")
    if not full:
        out.append("no verdict changed and no benchmark stepped")
    for line in out + tail:
        print(term(line))
    return verdict_line(h)


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
    ap.add_argument("--all", action="store_true",
                    help="print every clause's verdict timeline per device, its flips, what changed "
                         "since the previous run and every change point (default: only what changed "
                         "in the latest run against the previous one, at most 40 lines)")
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
    return print_timeline(h, a.quiet) if a.all else print_diff(h, a.quiet, last=a.last)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
