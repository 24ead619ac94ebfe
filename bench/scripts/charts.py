"""bench/scripts/charts.py — what plot.py and matrix_heatmap.py share: a run read as
medians over its repetitions, matplotlib without a display, and size labels."""
import statistics
import os
import sys

from benchjson import load
from dh_args import parse


def read_run(path, prog):
    """The run in `path` as (times, rates, context): {run name: median real time in ns},
    {run name: median bytes_per_second} over its measured repetitions, and its context
    (benchjson.load, not strict: a chart draws what it can read); None after one line
    "<prog>: <path>: <why>" on stderr when the file cannot be read."""
    try:
        times, rates, ctx = load(path, strict=False)
    except ValueError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return None
    return ({k: statistics.median(v) for k, v in times.items()},
            {k: statistics.median(v) for k, v in rates.items()}, ctx)


def parse_run(ap, argv, prog):
    """argv parsed by ap (dh_args.parse, which needs a positional `results`) and the run
    it names (read_run): (arguments, (times, rates, context)), or (None, exit status)
    after --help (0) or one line on stderr (2: a usage error, an unreadable run)."""
    a, status = parse(ap, argv)
    if a is None:
        return None, status
    run = read_run(a.results, prog)
    return (a, run) if run is not None else (None, 2)


def pyplot(prog):
    """matplotlib.pyplot on the Agg backend (files only, no display), or None after
    "<prog>: python3-matplotlib is needed" on stderr."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"{prog}: python3-matplotlib is needed", file=sys.stderr)
        return None
    return plt


# The file formats save_figure writes, in order: PNG always; plot --svg adds SVG.
FORMATS = ["png"]


def save_figure(fig, outdir, stem, written, notes=(), alert=False):
    """Writes fig as <outdir>/<stem>.<ext> for each of FORMATS (PNG at 120 dpi) and
    appends the paths to written. notes: lines under the figure, as its supxlabel (so
    the constrained layout the figure was made with leaves room for them; red when
    alert). The layout is computed once per figure, never per format (no
    bbox_inches="tight": it measures the figure again for every file)."""
    if notes:
        fig.supxlabel("\n".join(notes), fontsize="x-small", color="red" if alert else "black", wrap=True)
    for ext in FORMATS:
        p = os.path.join(outdir, f"{stem}.{ext}")
        fig.savefig(p, dpi=120 if ext == "png" else None)
        written.append(p)


def size_label(n):
    """n bytes as "4 B", "64 KiB", "1 MiB", "1.5 GiB"."""
    for unit, f in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= f:
            return f"{n / f:g} {unit}"
    return f"{n} B"
