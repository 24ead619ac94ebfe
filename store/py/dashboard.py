#!/usr/bin/python3
"""devharness dashboard: a static HTML dashboard of the results store.

usage: dashboard.py [--store PATH] -o DIR [--last N] [--series N] [--min-effect 0.05]

Writes DIR/index.html: one self-contained page (inline CSS and SVG, no script, no
network at view time; opens from file://) rendered with jinja2 from
dashboard.html.j2 beside this script: the latest verdict of every device x clause
(pass / fail / skip / xfail, waived and FLAKY marked), the verdict timelines of the last
N runs, what flipped since the previous run, the flaky clauses, and every benchmark
series per device as an SVG line with its persisting change points marked (the same
analysis as devharness history). The folder is written under DIR.tmp-<pid> and renamed
to DIR when complete; an existing DIR is replaced only then.

Exit: 0 written, 1 DIR cannot be written, 2 bad input (missing or foreign store, bad option).
"""
import math
import os
import shutil
import sys

import dh_store
import history
from dh_args import OneLineParser, parse

W, H, PAD = 360, 120, 6
MIN_SPAN = math.log(1.25)  # the smallest range of a chart's y axis (log scale)


def chart(b):
    """SVG geometry of one series: polyline points, change-point x positions, y labels."""
    v = [math.log(x) for x in b["median_ns"]]
    lo, hi = min(v), max(v)
    if hi - lo < MIN_SPAN:  # at least +-12 % tall, so 2 % noise looks flat, not like steps
        mid = (hi + lo) / 2
        lo, hi = mid - MIN_SPAN / 2, mid + MIN_SPAN / 2
    span = hi - lo
    n = len(v)

    def x(i):
        return PAD + (W - 2 * PAD) * (i / (n - 1) if n > 1 else 0.5)

    def y(t):
        return H - PAD - (H - 2 * PAD) * ((t - lo) / span)
    return {"points": " ".join(f"{x(i):.1f},{y(t):.1f}" for i, t in enumerate(v)),
            "dots": [(round(x(i), 1), round(y(t), 1)) for i, t in enumerate(v)],
            "cps": [round(x(b["runs"].index(cp["run"])) - (W - 2 * PAD) / (2 * max(n - 1, 1)), 1)
                    for cp in b["change_points"]],
            "lo": min(b["median_ns"]), "hi": max(b["median_ns"]), "w": W, "h": H}


def render(h, template_dir):
    import jinja2
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(template_dir),
                             autoescape=True, undefined=jinja2.StrictUndefined)
    clauses = sorted({c for d in h["devices"] if d["clauses"] for c in d["clauses"]["clauses"]})
    for d in h["devices"]:
        for b in d["benchmarks"]:
            b["chart"] = chart(b)
    return env.get_template("dashboard.html.j2").render(
        h=h, clauses=clauses, letter=history.letter,
        fmt=lambda ns: f"{ns / 1e6:.3f} ms" if ns >= 1e6 else f"{ns / 1e3:.3f} us" if ns >= 1e3
        else f"{ns:.2f} ns")


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
    a, status = parse(ap, argv)
    if a is None:
        return status
    if a.last < 2 or a.series < 2 or not (a.min_effect >= 0):
        print("devharness dashboard: need --last >= 2, --series >= 2, --min-effect >= 0", file=sys.stderr)
        return 2
    try:
        import jinja2  # noqa: F401
        import ruptures  # noqa: F401
    except ImportError as e:
        print(f"devharness dashboard: {e.name} is needed (the project venv has it: make deps; or set "
              f"DEVHARNESS_PYTHON to a Python with ci/python-requirements.txt)", file=sys.stderr)
        return 2
    try:
        h = history.analyze(a.store, None, "*", a.last, a.series, a.min_effect)
    except ValueError as e:
        print(f"devharness dashboard: {e}", file=sys.stderr)
        return 2
    html = render(h, os.path.dirname(os.path.abspath(__file__)))
    try:
        write_dir(a.output, html)
    except OSError as e:
        print(f"devharness dashboard: cannot write {a.output!r}: {e.strerror}", file=sys.stderr)
        return 1
    n = sum(len(d["benchmarks"]) for d in h["devices"])
    print(f"devharness dashboard: {os.path.join(a.output, 'index.html')}: {len(h['devices'])} device(s), "
          f"{n} benchmark chart(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
