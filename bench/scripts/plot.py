#!/usr/bin/python3
"""devharness plot: charts of a `devharness bench` run (Google Benchmark JSON).

usage: plot.py RESULTS.json -o DIR [--svg]

Writes into DIR, each as PNG (and SVG with --svg; matplotlib, Agg backend, constrained
layout):
  bandwidth_<device>.*   copy bandwidth (GB/s = 10^9 bytes/s, bytes copied counted once, log axis)
                         against transfer size (log2 axis), one panel per direction
                         (h2d, d2h, d2d, bidir), one colour per host memory kind;
                         harness solid, raw twin dashed, raw twin under the harness's
                         host-source contract (raw_released) dotted; the ceiling of each
                         panel ("ceiling.<device>.<dir>" in the run's context: host link
                         of the device's PCI function, device memory / 2, or a measured
                         host memcpy) as a grey line labelled with the best harness
                         point as % of it, or a note "ceiling unknown: <reason>"
  alloc_latency.*        alloc+free latency (us) against size, one line per device
  latency_sync.*         bars: sync latency (us), harness and raw side by side
  latency_launch.*       bars: launch round trip and per-launch throughput cost (us)
  latency_call.*         bars: call cost (ns) per call kind
A run whose context says devharness.health.noisy = "yes" (machine/health.h) gets a red note
under every plot, "noisy run: <devharness.health.reasons>", and a line saying so.
  matrix_bandwidth.*, matrix_latency.*  heatmaps of the copy matrix (bench --suite
                         matrix), drawn by matrix_heatmap.py (see there)
Values are medians over repetitions. Exit: 0 ok, 1 cannot write, 2 bad input.
"""
import os
import re
import sys

import charts
from charts import parse_run, pyplot, save_figure, size_label
import matrix_heatmap
from dh_args import OneLineParser

COPY_RE = re.compile(
    r"^copy/(h2d|d2h|d2d|bidir)/([a-z]+)/([^/]+)/(harness|raw|raw_released)/(\d+)(/.*)?$")
GBPS_RE = re.compile(r"^\s*([0-9.]+) GB/s")
DIRS = ("h2d", "d2h", "d2d", "bidir")


def ceilings(ctx, dev):
    """{direction: (GB/s or None, label)}: the run's ceiling.<device>.<dir> context keys
    ("N GB/s: what" or "unknown: why", machine/ceilings.h); runs from before them fall back
    to ceiling.host_link and ceiling.<device>.device_memory; a direction with no key at
    all is unknown with that reason."""
    out = {}
    for d in DIRS:
        v = ctx.get(f"ceiling.{dev}.{d}")
        if v is None:
            continue
        m = GBPS_RE.match(str(v))
        what = str(v).split(":", 1)[1].strip() if ":" in str(v) else str(v)
        if m:
            out[d] = (float(m.group(1)), f"ceiling {float(m.group(1)):.1f} GB/s: {what}")
        else:
            out[d] = (None, f"ceiling unknown: {what}" if str(v).startswith("unknown") else str(v))
    if out:
        return out
    m = GBPS_RE.match(str(ctx.get("ceiling.host_link", "")))
    if m and not dev.startswith("cpu:"):
        link = float(m.group(1))
        out["h2d"] = out["d2h"] = (link, f"host link {link:.1f} GB/s (hwloc PCI)")
        out["bidir"] = (2 * link, f"host link x2 {2 * link:.1f} GB/s")
    m = GBPS_RE.match(str(ctx.get(f"ceiling.{dev}.device_memory", "")))
    if m:
        peak = float(m.group(1))
        out["d2d"] = (peak / 2, f"memory peak/2 {peak / 2:.0f} GB/s")
    for d in DIRS:
        out.setdefault(d, (None, "ceiling unknown: the run's context names none for this "
                                 "device and direction (a bench.json from before ceilings)"))
    return out


def wrap(text, width=48):
    """text broken into lines of about width characters (for a panel's note)."""
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    if cur:
        lines.append(cur)
    return "\n".join(lines[:6])


def draw_ceiling(ax, ceil, d, best):
    """The ceiling of direction d as a grey line with measured / ceiling of the best
    harness point, or a note in the panel saying why it is unknown."""
    v, lab = ceil.get(d, (None, "ceiling unknown: no entry"))
    if v:
        pct = f"; best harness {best:.2f} GB/s = {100 * best / v:.0f} % of it" if best else ""
        line = ax.axhline(v, color="grey", linewidth=1.2, label=wrap(lab[:160] + pct, 60))
        line.set_gid(f"ceiling-{d}")  # the SVG names it: <g id="ceiling-h2d">
    else:
        note = ax.text(0.02, 0.02, wrap(lab[:240]), transform=ax.transAxes, fontsize="x-small",
                       color="dimgrey", va="bottom", ha="left",
                       bbox=dict(facecolor="white", alpha=0.8, edgecolor="lightgrey"))
        note.set_gid(f"ceiling-unknown-{d}")


HEALTH_NOTE = []  # the noisy note under every figure (main sets it from the context)


def health_note(ctx):
    """ "noisy run: reasons" when the context flags the run (shared key), else ""."""
    if ctx.get("devharness.health.noisy") != "yes":
        return ""
    reasons = ctx.get("devharness.health.reasons") or "no reason recorded"
    return "noisy run: " + (reasons if len(reasons) <= 300 else reasons[:297] + "...")


def save(fig, outdir, stem, written):
    save_figure(fig, outdir, stem, written, HEALTH_NOTE, alert=True)


def bandwidth_charts(plt, FuncFormatter, bws, ctx, outdir, written):
    """bandwidth_<device>.*: one panel per direction (module doc)."""
    series = {}  # device -> (dir, mem) -> impl -> [(size, GB/s)]
    for name, bw in bws.items():
        m = COPY_RE.match(name)
        if not m:
            continue
        d, mem, dev, impl, size = m.group(1), m.group(2), m.group(3), m.group(4), int(m.group(5))
        series.setdefault(dev, {}).setdefault((d, mem), {}).setdefault(impl, []).append(
            (size, bw / 1e9))
    mem_colors = {"pageable": "C0", "pinned": "C1", "device": "C2"}
    styles = (("harness", "-"), ("raw", "--"), ("raw_released", ":"))
    for dev, lines in sorted(series.items()):
        dirs = [d for d in DIRS if any(k[0] == d for k in lines)]
        ceil = ceilings(ctx, dev)
        fig, axes = plt.subplots(1, len(dirs), figsize=(4.2 * len(dirs) + 1, 6.4),
                                 squeeze=False, layout="constrained")
        for ax, d in zip(axes[0], dirs):
            for (dd, mem), impls in sorted(lines.items()):
                if dd != d:
                    continue
                for impl, style in styles:
                    pts = sorted(p for p in impls.get(impl, []) if p[1] > 0)
                    if pts:
                        ax.plot([p[0] for p in pts], [p[1] for p in pts], style,
                                color=mem_colors.get(mem, "C3"), marker="o", markersize=3,
                                label=f"{mem} {impl}")
            best = max((p[1] for (dd, _m), impls in lines.items() if dd == d
                        for p in impls.get("harness", [])), default=0)
            draw_ceiling(ax, ceil, d, best)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: size_label(int(v))))
            ax.set_xlabel("transfer size (log2)")
            ax.set_title(d + (" (both directions summed)" if d == "bidir" else ""))
            ax.grid(True, which="both", alpha=0.3)
            # below the panel, never over the curves (constrained layout makes room)
            ax.legend(fontsize="x-small", loc="upper center", bbox_to_anchor=(0.5, -0.28), frameon=False)
            for t in ax.get_xticklabels():
                t.set_rotation(45)
        axes[0][0].set_ylabel("GB/s (10^9 bytes/s), bytes copied counted once (log)")
        fig.suptitle(f"copy bandwidth on {dev}: harness solid, raw dashed, "
                     f"raw_released dotted")
        save(fig, outdir, "bandwidth_" + re.sub(r"[^A-Za-z0-9_.-]", "_", dev), written)
        plt.close(fig)


def alloc_chart(plt, FuncFormatter, times, outdir, written):
    """alloc_latency.*: alloc + free latency against size, one line per device."""
    alloc = {}
    for name, t in times.items():
        m = re.match(r"^alloc/([^/]+)/(\d+)$", name)
        if m:
            alloc.setdefault(m.group(1), []).append((int(m.group(2)), t / 1e3))
    if not alloc:
        return
    fig, ax = plt.subplots(figsize=(8, 5), layout="constrained")
    for dev, pts in sorted(alloc.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "-o", markersize=3, label=dev)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: size_label(int(v))))
    ax.set_xlabel("allocation size (bytes, log2 scale)")
    ax.set_ylabel("alloc + free latency (µs)")
    ax.set_title("alloc_data_space + free_data_space")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    ax.tick_params(axis="x", labelrotation=45)
    save(fig, outdir, "alloc_latency", written)
    plt.close(fig)


def latency_bars(plt, times, outdir, written, prefix, stem, title, scale, unit,
                 per_launch=False):
    """<stem>.*: median latency of the benchmarks named <prefix>..., harness and raw
    twin side by side; throughput launches per launch."""
    groups = {}  # label -> impl -> value
    for name, t in times.items():
        if not name.startswith(prefix):
            continue
        parts = name.split("/")
        parts = [p for p in parts if p not in ("manual_time", "real_time")]
        if "raw_released" in parts:
            continue
        impl = "raw" if "raw" in parts else "harness"
        label = "/".join(p for p in parts[1:] if p not in ("harness", "raw"))
        v = t / scale
        if per_launch and "throughput" in parts:
            v /= 64.0
            label += " (per launch)"
        groups.setdefault(label, {})[impl] = v
    if not groups:
        return
    labels = sorted(groups)
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(labels) + 2), 5), layout="constrained")
    w = 0.4
    xs = range(len(labels))
    h = [groups[l].get("harness", 0) for l in labels]
    r = [groups[l].get("raw", 0) for l in labels]
    ax.bar([x - w / 2 for x in xs], h, w, label="harness")
    if any(r):
        ax.bar([x + w / 2 for x in xs], r, w, label="raw twin")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(labels, rotation=45, ha="right", fontsize="small")
    ax.set_ylabel(f"latency ({unit}, median)")
    ax.set_title(title)
    if max(h + r) > 0 and max(h + r) / max(min(v for v in h + r if v > 0), 1e-12) > 100:
        ax.set_yscale("log")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize="small")
    save(fig, outdir, stem, written)
    plt.close(fig)


def main(argv):
    ap = OneLineParser(prog="devharness plot", description=__doc__.split("\n\n")[0],
                       epilog="exit: 0 plots written (their paths on stdout), 1 the output folder cannot be "
                              "written, 2 usage or input error (unreadable or malformed file, non-finite "
                              "times, nothing to plot)")
    ap.add_argument("results")
    ap.add_argument("-o", "--output", required=True, help="output folder (created)")
    ap.add_argument("-q", "--quiet", action="store_true",
                    help="print only errors and the verdict line, 'devharness plot: N files in DIR' "
                         "(not each file's path)")
    ap.add_argument("--svg", action="store_true", help="also write each chart as SVG (default: PNG only)")
    a, run = parse_run(ap, argv, "devharness plot")
    if a is None:
        return run
    times, bws, ctx = run
    if not times:
        print(f"devharness plot: {a.results}: no successful benchmark runs", file=sys.stderr)
        return 2
    charts.FORMATS[:] = ["png", "svg"] if a.svg else ["png"]
    plt = pyplot("devharness plot")
    if plt is None:
        return 2
    from matplotlib.ticker import FuncFormatter
    try:
        os.makedirs(a.output, exist_ok=True)
    except OSError as e:
        print(f"devharness plot: cannot create {a.output}: {e.strerror}", file=sys.stderr)
        return 1
    written = []
    out = (a.output, written)
    HEALTH_NOTE[:] = [n for n in [health_note(ctx)] if n]
    if HEALTH_NOTE and not a.quiet:
        print(f"devharness plot: {HEALTH_NOTE[0]} (noted under every plot)")
    try:
        bandwidth_charts(plt, FuncFormatter, bws, ctx, *out)
        alloc_chart(plt, FuncFormatter, times, *out)
        latency_bars(plt, times, *out, "sync/", "latency_sync", "stream sync latency", 1e3, "µs")
        latency_bars(plt, times, *out, "launch/", "latency_launch", "empty-kernel launch latency",
                     1e3, "µs", per_launch=True)
        latency_bars(plt, times, *out, "call/", "latency_call", "host call cost", 1.0, "ns")
        matrix_heatmap.draw(plt, times, bws, a.results, *out)
    except OSError as e:
        print(f"devharness plot: cannot write into {a.output}: {e}", file=sys.stderr)
        return 1
    if not written:
        print(f"devharness plot: {a.results}: nothing to plot (no copy/alloc/sync/launch/call/matrix "
              f"benchmarks)", file=sys.stderr)
        return 2
    if a.quiet:
        print(f"devharness plot: {len(written)} files in {a.output}")
    else:
        for p in written:
            print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
