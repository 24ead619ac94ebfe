#!/usr/bin/python3
"""devharness matrix heatmaps: the copy matrix of `devharness bench --suite matrix` as heatmaps.

usage: matrix_heatmap.py RESULTS.json -o DIR   (plot.py draws them too, with its other charts)

Writes into DIR, each as PNG (and SVG with plot --svg; matplotlib, Agg backend), when the run has matrix/
benchmarks (bench/suites/matrix.c):
  matrix_bandwidth.*   one N x N heatmap per direction mode (rows: uni, bidir) and size
                       (columns): GB/s (10^9 bytes/s, bytes copied counted once, bidir both
                       directions summed), rows = source, columns = destination, colour on a
                       log scale per panel (linear where its values span less than x10);
                       each cell shows its value and path mark (d on one device, p peer,
                       s staged through host memory, none direct)
  matrix_latency.*     the same layout: time per copy (us; bidir: per iteration, both copies)
A cell not measured is grey and reads "n/a"; the reasons (from the summary's copy_matrix,
e.g. "unsupported: ...") are listed under the figure. Values are medians over repetitions.
Exit: 0 ok, 1 cannot write, 2 bad input or no matrix benchmarks.
"""
import json
import math
import os
import re
import sys

from charts import parse_run, pyplot, save_figure, size_label
from dh_args import OneLineParser

MATRIX_RE = re.compile(r"^matrix/(uni|bidir)/([^/]+)/([^/]+)/harness/(\d+)(/.*)?$")
MARK = {"on-device": "d", "peer": "p", "staged": "s", "direct": ""}


def summary_matrix(path):
    """The summary's copy_matrix ({} when absent or unreadable): device order, paths, reasons."""
    try:
        with open(path, encoding="utf-8") as f:
            mx = json.load(f).get("devharness_summary", {}).get("copy_matrix", {})
        return mx if isinstance(mx, dict) else {}
    except (OSError, ValueError, AttributeError):
        return {}


def collect(times, bws, mx):
    """(devices, {(mode, size): {(src, dst): (GB/s, us)}}, {(mode, size, src, dst): (path, why)})."""
    cells, devs = {}, list(mx.get("devices", []))
    for name, ns in times.items():
        m = MATRIX_RE.match(name)
        if not m:
            continue
        mode, a, b, size = m.group(1), m.group(2), m.group(3), int(m.group(4))
        for d in (a, b):
            if d not in devs:
                devs.append(d)
        bw = bws.get(name)
        cells.setdefault((mode, size), {})[(a, b)] = (bw / 1e9 if bw else math.nan, ns / 1e3)
    info = {}
    for t in mx.get("tables", []):
        names = mx.get("devices", [])
        for i, a in enumerate(names):
            for j, b in enumerate(names):
                try:
                    info[(t["mode"], t["bytes"], a, b)] = (t["path"][i][j], t["why"][i][j])
                except (KeyError, IndexError, TypeError):
                    pass
        cells.setdefault((t.get("mode"), t.get("bytes")), {})
    return devs, cells, info


def panel(ax, plt, devs, grid, info, key, idx, unit):
    from matplotlib.colors import LogNorm, Normalize
    n = len(devs)
    vals = [[grid.get((a, b), (math.nan, math.nan))[idx] for b in devs] for a in devs]
    good = [v for row in vals for v in row if v and v > 0 and not math.isnan(v)]
    masked = [[v if v and v > 0 and not math.isnan(v) else math.nan for v in row] for row in vals]
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("lightgrey")
    lo, hi = (min(good), max(good)) if good else (1.0, 1.0)
    hi = hi if hi > lo else lo * 1.01
    # a log scale where the values span a decade or more, else linear (readable ticks)
    norm = (LogNorm if hi / lo >= 10 else Normalize)(vmin=lo, vmax=hi) if good else None
    im = ax.imshow(masked, cmap=cmap, norm=norm)
    for i, a in enumerate(devs):
        for j, b in enumerate(devs):
            v = masked[i][j]
            path = info.get(key + (a, b), ("", ""))[0]
            text = "n/a" if math.isnan(v) else f"{v:.3g}{MARK.get(path, '')}"
            light = not math.isnan(v) and sum(cmap(norm(v))[:3]) > 1.5  # a bright cell
            ax.text(j, i, text, ha="center", va="center", fontsize=7,
                    color="black" if math.isnan(v) or light else "white")
    ax.set_xticks(range(n), devs, rotation=45, ha="right", fontsize=7)
    ax.set_yticks(range(n), devs, fontsize=7)
    ax.set_xlabel("destination")
    ax.set_ylabel("source")
    ax.set_title(f"{key[0]}, {size_label(key[1])}", fontsize=9)
    if good:
        plt.colorbar(im, ax=ax, fraction=0.046, pad=0.04).set_label(unit, fontsize=7)


def reasons(info):
    """Lines 'src -> dst (mode, size): why' of the cells not measured, at most 12."""
    out = []
    for (mode, size, a, b), (_, why) in sorted(info.items()):
        if why:
            out.append(f"{a} -> {b} ({mode}, {size_label(size)}): {why}")
    return out[:12] + ([f"... {len(out) - 12} more in the summary's copy_matrix"] if len(out) > 12 else [])


def draw(plt, times, bws, results, outdir, written):
    """matrix_bandwidth.* and matrix_latency.* into outdir (module doc); nothing without
    matrix/ benchmarks. Paths written are appended to `written`."""
    devs, cells, info = collect(times, bws, summary_matrix(results))
    if not devs or not cells:
        return
    modes = [m for m in ("uni", "bidir") if any(k[0] == m for k in cells)]
    sizes = sorted({k[1] for k in cells})
    notes = reasons(info)
    for stem, idx, unit, what in (("matrix_bandwidth", 0, "GB/s", "bandwidth, GB/s (10^9 bytes/s)"),
                                  ("matrix_latency", 1, "µs", "time per copy, µs")):
        side = 1.0 + 0.75 * len(devs)
        fig, axes = plt.subplots(len(modes), len(sizes), figsize=(side * len(sizes) + 1, side * len(modes) + 1),
                                 squeeze=False, layout="constrained")
        for r, mode in enumerate(modes):
            for c, size in enumerate(sizes):
                panel(axes[r][c], plt, devs, cells.get((mode, size), {}), info, (mode, size), idx, unit)
        fig.suptitle(f"copy matrix: {what}, median; rows = source, columns = destination\n"
                     f"d on one device, p peer, s staged through host memory, unmarked direct; "
                     f"bidir: both directions summed", fontsize=9)
        save_figure(fig, outdir, stem, written, ["not measured:"] + notes if notes else ())
        plt.close(fig)


def main(argv):
    ap = OneLineParser(prog="matrix_heatmap.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("-o", "--output", required=True, help="output folder (created)")
    a, run = parse_run(ap, argv, "matrix_heatmap.py")
    if a is None:
        return run
    times, bws, _ = run
    plt = pyplot("matrix_heatmap.py")
    if plt is None:
        return 2
    written = []
    try:
        os.makedirs(a.output, exist_ok=True)
        draw(plt, times, bws, a.results, a.output, written)
    except OSError as e:
        print(f"matrix_heatmap.py: cannot write into {a.output}: {e}", file=sys.stderr)
        return 1
    if not written:
        print(f"matrix_heatmap.py: {a.results}: no matrix/ benchmarks (bench --suite matrix)", file=sys.stderr)
        return 2
    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
