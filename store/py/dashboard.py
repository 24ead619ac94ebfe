#!/usr/bin/python3
"""devharness dashboard: a static HTML dashboard of the results store.

usage: dashboard.py [--store PATH] -o DIR [--last N] [--series N] [--min-effect 0.05] [--charts N]

Writes DIR/index.html: one self-contained page (inline CSS and SVG, no script, no
network at view time; opens from file://) rendered with jinja2 from
dashboard.html.j2 beside this script. It leads with "Tonight", the latest run of every
device: its date, commit, short run id, driver, exit code, counts (pass, fail, skip,
xfail, flaky), measurement health (unknown: the store does not record it) and the
failing cases with clause, device and message, each marked NEW FAILURE, still failing
(since when) or FLAKY; then "Stepped benchmarks", every series with a persisting change
point (the same analysis as devharness history), largest change first, with its median
before and after. After them: the latest verdict of every device x clause (waived and
FLAKY marked, the message on each failing cell), per device what flipped since the
previous run, the flaky clauses and the verdict timelines of the last N runs, and the
benchmark charts (matplotlib, SVG inline): one chart per harness series with its raw
twin, dates on x, time per iteration on y in the series' unit, change points dashed
red; the stepped series first, largest change first, then the first --charts others.
The folder is written under DIR.tmp-<pid> and renamed to DIR when complete; an existing
DIR is replaced only then.

Exit: 0 written, 1 DIR cannot be written, 2 bad input (missing or foreign store, bad option).
"""
import datetime
import io
import os
import re
import shutil
import sys

import dh_store
import history
from dh_args import OneLineParser, parse

CHART_W, CHART_H = 420, 220  # px on the page; the figure is drawn in pt (3/4 px) and scaled
CHARTS = 40  # charts drawn besides the stepped ones (docs/history.md "Scale")
UNITS = (("s", 1e9), ("ms", 1e6), ("us", 1e3), ("ns", 1.0))


def fmt(v):
    """A time in ns as '20.06 us'."""
    return history.ns(v)


def short(uuid):
    """A run's short id: the first 8 digits of its UUID (as history names runs)."""
    return uuid[:8]


def streak_start(runs, timeline):
    """The run where the latest unbroken run of failures began (None: the whole window)."""
    i = len(timeline) - 1
    while i > 0 and timeline[i - 1] == "fail":
        i -= 1
    return runs[i] if i > 0 else None


def device_tonight(db, path, dev, d):
    """One device's latest run: its facts, counts and failing cases (see tonight())."""
    ch = d["clauses"]
    runs = dh_store.clause_runs(db, path, dev["device_id"])
    last = runs[-1]
    cases = dh_store.clause_results(db, path, dev["device_id"], [last["run_id"]])
    counts = dict.fromkeys(("pass", "fail", "skip", "xfail", "flaky"), 0)
    failing = []
    for (_, clause), case in sorted(cases.items()):
        counts[case.status] += 1
        v = ch["clauses"].get(clause)
        flaky = bool(v and v["flaky"])
        counts["flaky"] += flaky
        if case.status != "fail":
            continue
        tl = v["timeline"] if v else [case.status]
        if flaky:
            mark, since = "FLAKY", None
        elif len(tl) < 2 or tl[-2] != "fail":
            mark, since = "NEW FAILURE", None
        else:
            mark, since = "still failing", streak_start(ch["runs"], tl)
        failing.append({"clause": clause, "device": d["spec"], "message": history.one_line(case.message, 160),
                        "mark": mark, "since": since, "started_at": last["started_at"]})
    counts["total"] = len(cases)
    return {"spec": d["spec"], "run": last, "driver": last["driver_version"], "counts": counts,
            "health": "unknown", "cases": {c: case for (_, c), case in cases.items()}}, failing


def tonight(store, h):
    """The "Tonight" section: per device with clause results its latest run (date, commit,
    short id, driver, exit code, counts, health) and the failing cases of those runs, new
    failures first, then still failing, then flaky; "cases" {(spec, clause): Case} of
    those runs (the matrix's messages). The store records no measurement health and no
    bundle path: health is "unknown" and there are no links to a run's TAP or JUnit."""
    db = dh_store.open_store(store)
    try:
        ids = {x["stable_id"]: x for x in dh_store.devices(db, store)}
        rows, failing = [], []
        for d in h["devices"]:
            if d["clauses"]:
                row, fails = device_tonight(db, store, ids[d["stable_id"]], d)
                rows.append(row)
                failing += fails
    finally:
        db.close()
    order = {"NEW FAILURE": 0, "still failing": 1, "FLAKY": 2}
    failing.sort(key=lambda f: (order[f["mark"]], f["clause"], f["device"]))
    total = {k: sum(r["counts"][k] for r in rows) for k in ("pass", "fail", "skip", "xfail", "flaky", "total")}
    latest = max((r["run"] for r in rows), key=lambda r: (r["started_at"], r["run_id"]), default=None)
    cases = {(r["spec"], c): case for r in rows for c, case in r["cases"].items()}
    return {"devices": rows, "total": total, "failing": failing, "latest": latest, "cases": cases,
            "new": sum(f["mark"] == "NEW FAILURE" for f in failing)}


def stepped(h):
    """Every persisting change point of the window as a row (device, series, size, before
    and after medians, change, the runs it lies between), largest |change| first."""
    out = []
    for d in h["devices"]:
        for b in d["benchmarks"]:
            for cp in b["change_points"]:
                out.append({"device": d["spec"], "name": b["name"], "twin": b["twin"],
                            "size": history.size_of(b["name"]), "cp": cp,
                            "anchor": anchor(d["spec"], b["name"])})
    return sorted(out, key=lambda r: (-abs(r["cp"]["change"]), r["device"], r["name"]))


def anchor(spec, name):
    """The id of a series' chart on the page (for the stepped list's links)."""
    return "chart-" + re.sub(r"[^A-Za-z0-9_.-]", "_", f"{spec}-{name}")


def groups(h):
    """The charts to draw: one per harness series with its raw twin (a series with no
    partner on its own), as dicts {device, name, series: [harness, twin?], change}
    where change is the largest |change| of their change points (0 none); stepped
    first, largest change first, then by device and name."""
    out = []
    for d in h["devices"]:
        by_name = {b["name"]: b for b in d["benchmarks"]}
        partnered = set()
        for b in d["benchmarks"]:
            t = by_name.get(dh_store.twin_of(b["name"]) or "")
            if not b["twin"] and t is not None and t["twin"]:
                partnered.add(t["name"])
        for b in d["benchmarks"]:
            if b["name"] in partnered:
                continue
            t = by_name.get(dh_store.twin_of(b["name"]) or "") if not b["twin"] else None
            series = [b] + ([t] if t is not None and t["name"] in partnered else [])
            change = max((abs(cp["change"]) for s in series for cp in s["change_points"]), default=0.0)
            out.append({"device": d["spec"], "name": b["name"], "series": series, "change": change,
                        "anchor": anchor(d["spec"], b["name"])})
    return sorted(out, key=lambda g: (g["change"] == 0, -g["change"], g["device"], g["name"]))


def when(started_at):
    """A run's started_at as a naive UTC datetime (matplotlib's date axis)."""
    t = datetime.datetime.fromisoformat(started_at.replace("Z", "+00:00"))
    return (t.astimezone(datetime.timezone.utc) if t.tzinfo else t).replace(tzinfo=None)


def svg_chart(g, k):
    """One chart as inline SVG text: the harness series solid, its raw twin dashed, dates
    on x, time per iteration on y in one unit for both, change points dashed red. The
    ids in the SVG are prefixed with c<k>- so that many charts can share one page."""
    from matplotlib.figure import Figure
    import matplotlib.dates as mdates
    top = max(v for s in g["series"] for v in s["median_ns"])
    unit, f = next((u, f) for u, f in UNITS if top >= f or u == "ns")
    fig = Figure(figsize=(CHART_W / 96, CHART_H / 96), dpi=72)
    fig.subplots_adjust(left=0.15, right=0.98, top=0.92, bottom=0.16)
    ax = fig.add_subplot()
    for s, style in zip(g["series"], ("-", "--")):
        xs = [when(t) for t in s["started_at"]]
        ax.plot(xs, [v / f for v in s["median_ns"]], linestyle=style, marker="o" if len(xs) <= 30 else None,
                markersize=3, linewidth=1.4, color="#2864c8" if style == "-" else "#888888",
                label="raw twin" if s["twin"] else "harness")
        for i, cp in enumerate(s["change_points"]):
            a, b = when(cp["before_started_at"]), when(cp["started_at"])
            ax.axvline(a + (b - a) / 2, color="#d22222", linestyle=(0, (4, 2)), linewidth=1.5,
                       gid=f"cp-{s['twin'] and 't' or 'h'}{i}")
            ax.annotate(f"{cp['change'] * 100:+.1f}%", (a + (b - a) / 2, top / f * 1.12), fontsize=8,
                        color="#d22222", xytext=(3, 0), textcoords="offset points", va="top")
    ax.set_ylim(0, top / f * 1.15)
    ax.set_ylabel(f"time per iteration ({unit})", fontsize=9)
    loc = mdates.AutoDateLocator(minticks=3, maxticks=7)
    ax.xaxis.set_major_locator(loc)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(loc))
    ax.tick_params(labelsize=8)
    ax.xaxis.get_offset_text().set_fontsize(8)
    ax.grid(True, color="#e6e6e6", linewidth=0.6)
    if len(g["series"]) > 1:
        ax.legend(loc="lower left", fontsize=8, frameon=False)
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    svg = buf.getvalue()
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r'^(<svg[^>]*?) width="[0-9.]+pt" height="[0-9.]+pt"',
                 lambda m: f'{m.group(1)} width="{CHART_W}" height="{CHART_H}"', svg)
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    svg = re.sub(r'(\bid="|url\(#|href="#)', lambda m: f"{m.group(1)}c{k}-", svg)
    return svg


def draw(gs, n):
    """SVG for every stepped chart and the first `n` others; returns how many were left out."""
    import matplotlib
    matplotlib.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "devharness",
                                "font.family": "DejaVu Sans"})
    shown = 0
    for k, g in enumerate(gs):
        if g["change"] > 0 or shown < n:
            shown += g["change"] == 0
            g["svg"] = svg_chart(g, k)
        else:
            g["svg"] = None
    return sum(g["svg"] is None for g in gs)


def render(h, template_dir, store, charts):
    """(the page's HTML, charts drawn, charts left out by --charts)."""
    import jinja2
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(template_dir),
                             autoescape=True, undefined=jinja2.StrictUndefined)
    clauses = sorted({c for d in h["devices"] if d["clauses"] for c in d["clauses"]["clauses"]})
    gs = groups(h)
    left_out = draw(gs, charts)
    return env.get_template("dashboard.html.j2").render(
        h=h, clauses=clauses, letter=history.letter, tonight=tonight(store, h), stepped=stepped(h),
        groups=gs, left_out=left_out, charts=charts, utc=history.utc, short=short, fmt=fmt,
        one_line=history.one_line), len(gs) - left_out, left_out


def write_dir(out, html):
    """DIR/index.html written under a temporary name, then the folder renamed."""
    out = os.path.normpath(out)
    tmp = f"{out}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    with open(os.path.join(tmp, "index.html"), "w", encoding="utf-8") as f:
        f.write(html)
        f.flush()
        os.fsync(f.fileno())
    if os.path.isdir(out):
        old = f"{out}.old-{os.getpid()}"
        os.rename(out, old)
        os.rename(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(tmp, out)


def main(argv):
    ap = OneLineParser(prog="devharness dashboard", description=__doc__.split("\n\n")[0],
                       epilog="exit: 0 written, 1 the folder cannot be written, 2 usage or input error")
    ap.add_argument("--store", default=dh_store.DEFAULT_STORE, metavar="PATH",
                    help=f"results store (default {dh_store.DEFAULT_STORE})")
    ap.add_argument("-o", "--output", required=True, metavar="DIR", help="folder to write index.html into")
    ap.add_argument("--last", type=int, default=10, metavar="N", help="runs in the verdict timelines (default 10)")
    ap.add_argument("--series", type=int, default=100, metavar="N",
                    help="runs in each benchmark chart (default 100)")
    ap.add_argument("--min-effect", type=float, default=0.05,
                    help="smallest change point marked, relative (default 0.05 = 5%%)")
    ap.add_argument("--charts", type=int, default=CHARTS, metavar="N",
                    help=f"charts drawn besides the stepped series' (always drawn; default {CHARTS}, "
                         f"about 60 ms each)")
    a, status = parse(ap, argv)
    if a is None:
        return status
    if a.last < 2 or a.series < 2 or not (a.min_effect >= 0) or a.charts < 0:
        print("devharness dashboard: need --last >= 2, --series >= 2, --min-effect >= 0, --charts >= 0",
              file=sys.stderr)
        return 2
    try:
        import jinja2  # noqa: F401
        import matplotlib  # noqa: F401
        import ruptures  # noqa: F401
    except ImportError as e:
        print(f"devharness dashboard: {e.name} is needed (the project venv has it: make deps; or set "
              f"DEVHARNESS_PYTHON to a Python with ci/python-requirements.txt)", file=sys.stderr)
        return 2
    try:
        h = history.analyze(a.store, None, "*", a.last, a.series, a.min_effect)
        html, n, left = render(h, os.path.dirname(os.path.abspath(__file__)), a.store, a.charts)
    except ValueError as e:
        print(f"devharness dashboard: {e}", file=sys.stderr)
        return 2
    try:
        write_dir(a.output, html)
    except OSError as e:
        print(f"devharness dashboard: cannot write {a.output!r}: {e.strerror}", file=sys.stderr)
        return 1
    print(f"devharness dashboard: {os.path.join(a.output, 'index.html')}: {len(h['devices'])} device(s), "
          f"{n} benchmark chart(s)" + (f", {left} more not drawn (--charts)" if left else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
