#!/usr/bin/python3
"""devharness compare: regression gate between two Google Benchmark JSON runs.

usage: compare.py BASE.json NEW.json [--alpha 0.05] [--min-effect 0.05] [--floor-ns 2]
                  [--min-reps 9] [-q] [--format text|markdown|json]
       compare.py --baseline store:last=N NEW.json [--store PATH] [--device-id ID] ...

For every benchmark present in both runs (measured runs, run_type "iteration", errored
runs ignored), a two-sided Mann-Whitney U test (scipy.stats.mannwhitneyu; the exact
distribution when there are no ties and at most 40 values, else the normal
approximation) compares the per-iteration real times of the repetitions. Only harness
rows gate: a raw twin (a name component "raw" or "raw_*") and the plain-C reference
calls (call/direct, call/indirect) measure the vendor API or the compiler, not
devharness, and are shown as context. The p-values of the harness rows tested form one
family, corrected with Benjamini-Hochberg (scipy.stats.false_discovery_control; the
same formula in this file where scipy is older than 1.11): a harness row REGRESSED when its BH-adjusted p < alpha AND
median(new) / median(base) - 1 > min-effect AND median(new) - median(base) > floor-ns
(an absolute floor: a 1 ns step of a 3 ns call is timer noise, not a regression);
IMPROVED the same way in the other direction; otherwise same. Rows with fewer than
--min-reps repetitions in either run are listed but not tested. Per device, the
device-wide shift tests the change of the harness/twin ratio of every harness row that
has a raw twin (at least 6 pairs) with the Wilcoxon signed-rank test (Bonferroni over
the devices): the machine's drift between the runs moves harness and twin alike and
cancels; a device whose harness rows are slower against their twins by more than
min-effect is a regression too (SLOWER), which finds a 20 % slowdown of every harness
row even where each row's repetitions are too noisy to show it.

When either run's context says devharness.health.noisy = "yes" (the measurement
health check), the rows are printed, slower ones as "slower (noisy run)", no regression
is called: one line names the noisy run and its devharness.health.reasons, and the
exit is 0 (measurement health, machine/health.h).

Google Benchmark's own tools/compare.py (Debian libbenchmark-tools) runs the same
U test but always exits 0, so it cannot fail a nightly job; this script can.

With --baseline store:last=N the base is the results store (docs/results.md): for each
device of NEW (matched by stable_id from NEW's bundle manifest.json when NEW is a
bundle folder or sits in one, else by backend, name and spec from NEW's context), the
last N runs that recorded benchmarks of that device; each benchmark's base sample is
those runs' medians (at least 3 runs).

--format text (default) prints the table and the verdict line; markdown a GitHub table of
every row, regressions first, for a pull-request comment; json one object with every row,
the device-wide shifts and the verdict (docs/benchmarks.md "Comparing runs"). The exit
code is the same in every format.

A noisy run is an outcome of its own, never a silent pass: --on-noisy inconclusive (the
default) exits 4 with "devharness compare: inconclusive: noisy run: ..."; fail exits 1;
warn calls no regression and exits 0 with the line as a warning; pass ignores the flag
and judges the rows as for a quiet run.

Exit: 0 no significant regression, 1 at least one regression (or a noisy run with
--on-noisy fail), 2 bad input (unreadable or malformed file or store, no common benchmark
with enough repetitions), 4 inconclusive: a run was noisy (--on-noisy inconclusive).
"""
import json
import math
import os
import statistics
import sys

from benchjson import load
from dh_args import OneLineParser, parse

REFERENCE_ROWS = ("call/direct/", "call/indirect/")


def fmt_ns(v):
    for unit, f in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if v >= f:
            return f"{v / f:.3f} {unit}"
    return f"{v:.2f} ns"


def row_kind(name):
    """'harness' (gates), 'twin' (a raw twin: context) or 'reference' (plain C call)."""
    if any(p == "raw" or p.startswith("raw_") for p in name.split("/")):
        return "twin"
    if name.startswith(REFERENCE_ROWS):
        return "reference"
    return "harness"


def bh_adjust(pvalues):
    """Benjamini-Hochberg adjusted p-values, in the order given: scipy's
    false_discovery_control where scipy has it (>= 1.11), else the same step-up formula
    (q_(i) = min over j >= i of p_(j) * m / j, capped at 1)."""
    if not pvalues:
        return []
    try:
        from scipy.stats import false_discovery_control
        return [float(q) for q in false_discovery_control(pvalues, method="bh")]
    except ImportError:
        return bh_formula(pvalues)


def bh_formula(pvalues):
    """Benjamini-Hochberg adjusted p-values without scipy (tests/store/gate.t checks
    that they equal scipy's)."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    out, running = [0.0] * m, 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, pvalues[i] * m / rank)
        out[i] = min(running, 1.0)
    return out


def noisy(ctx):
    """The noisy-run reasons of a run's context, or None when it was not noisy."""
    if ctx.get("devharness.health.noisy") != "yes":
        return None
    return ctx.get("devharness.health.reasons") or "no reason recorded"


def new_run(path):
    """(times, context, manifest or None) of NEW: a bench JSON file, or a bundle folder
    holding bench.json (its manifest.json gives stable device ids)."""
    manifest_path = None
    if os.path.isdir(path):
        manifest_path = os.path.join(path, "manifest.json")
        path = os.path.join(path, "bench.json")
    else:
        cand = os.path.join(os.path.dirname(os.path.abspath(path)), "manifest.json")
        manifest_path = cand if os.path.isfile(cand) else None
    times, _, ctx = load(path)
    manifest = None
    if manifest_path and os.path.isfile(manifest_path):
        import dh_store  # the store room's reader of bundles (store/py/dh_store.py)
        manifest = dh_store.read_manifest(manifest_path)
    return times, ctx, manifest


def context_devices(ctx):
    """{spec: {backend, name}} from a bench context's device.<spec> entries."""
    out = {}
    for k, v in ctx.items():
        if k.startswith("device.") and isinstance(v, str):
            fields = dict(f.strip().split("=", 1) for f in v.split(";") if "=" in f)
            out[k[len("device."):]] = {"backend": fields.get("backend", ""),
                                       "name": fields.get("name", "")}
    return out


def store_baseline(spec_text, store, device_id_opt, new_times, ctx, manifest):
    """{benchmark name: [median ns of each of the last N runs]} for the devices of NEW,
    from the store; spec_text is 'store:last=N'."""
    import dh_store
    if not spec_text.startswith("store:last="):
        raise ValueError(f"--baseline {spec_text!r}: expected store:last=N")
    try:
        n = int(spec_text[len("store:last="):])
    except ValueError:
        n = 0
    if n < 3:
        raise ValueError(f"--baseline {spec_text!r}: N must be an integer >= 3")
    db = dh_store.open_store(store)
    stored = dh_store.devices(db, store)
    specs = context_devices(ctx)
    if manifest:
        for d in manifest["devices"]:
            if isinstance(d, dict) and isinstance(d.get("spec"), str):
                specs.setdefault(d["spec"], {}).update(stable_id=d.get("stable_id"))
    base = {}
    for spec, info in sorted(specs.items()):
        if not any(f"/{spec}/" in f"/{n_}/" for n_ in new_times):
            continue
        if device_id_opt:
            match = [d for d in stored if d["stable_id"] == device_id_opt]
        elif info.get("stable_id"):
            match = [d for d in stored if d["stable_id"] == info["stable_id"]]
        else:
            match = [d for d in stored if d["backend"] == info.get("backend") and
                     d["name"] == info.get("name") and d["spec"] == spec]
        if len(match) != 1:
            what = "no" if not match else f"{len(match)}"
            raise ValueError(f"{store}: {what} stored device matches {spec} of NEW "
                             f"(give NEW as a bundle folder or --device-id STABLE_ID)")
        dev = match[0]
        runs = dh_store.bench_runs(db, store, dev["device_id"])[-n:]
        results = dh_store.bench_results(db, store, dev["device_id"], [r["run_id"] for r in runs])
        for r in runs:
            for name, row in results.get(r["run_id"], {}).items():
                base.setdefault(dh_store.respec(name, r["spec"], spec), []).append(row["median_ns"])
    return base


def verdicts(a, base, new):
    """Rows [name, kind, b, c, mb, mc, change, p, q, verdict] and counts."""
    from scipy.stats import mannwhitneyu
    rows = []
    for n in (n for n in base if n in new):
        b, c = base[n], new[n]
        mb, mc = statistics.median(b), statistics.median(c)
        change = (mc / mb - 1.0) if mb > 0 else 0.0
        kind = row_kind(n)
        p = None
        if len(b) >= a.base_min_reps and len(c) >= a.min_reps:
            if b == c or (len(set(b)) == 1 and set(b) == set(c)):
                p = 1.0
            else:
                # exact distribution when it is valid and cheap (no ties, <= 40 values): the
                # normal approximation's smallest p for 9 against 9 (4e-4) could never pass
                # Benjamini-Hochberg over a family of 150 rows; the exact one (4e-5) can
                exact = len(set(b) | set(c)) == len(b) + len(c) and len(b) + len(c) <= 40
                p = float(mannwhitneyu(b, c, alternative="two-sided",
                                       method="exact" if exact else "asymptotic").pvalue)
        rows.append([n, kind, b, c, mb, mc, change, p, None, None])
    family = [r for r in rows if r[1] == "harness" and r[7] is not None]
    for r, q in zip(family, bh_adjust([r[7] for r in family])):
        r[8] = q
    for r in rows:
        n, kind, b, c, mb, mc, change, p, q, _ = r
        if p is None:
            r[9] = (f"not tested ({len(b)}/{len(c)} repetitions < "
                    f"{a.base_min_reps}/{a.min_reps})")
        elif kind != "harness":
            r[9] = f"context ({'raw twin' if kind == 'twin' else 'reference'})"
        elif q < a.alpha and change > a.min_effect and mc - mb > a.floor_ns:
            r[9] = "REGRESSION"
        elif q < a.alpha and change < -a.min_effect and mb - mc > a.floor_ns:
            r[9] = "improved"
        else:
            r[9] = "same"
    return rows


def device_of(name):
    """The device spec a benchmark name carries (a component like sim:0), else "host"."""
    for part in name.split("/"):
        head, sep, tail = part.partition(":")
        if sep and head and tail.isdigit():
            return part
    return "host"


def twin_of(name):
    """The raw twin's name of a harness row (its "harness" component as "raw"), or None."""
    parts = name.split("/")
    if "harness" not in parts:
        return None
    parts[parts.index("harness")] = "raw"
    return "/".join(parts)


def shifts(a, rows):
    """The device-wide shift per device: [(device, pairs, shift, p_adj, verdict)]. For
    every tested harness row whose raw twin was measured in both runs, the change of
    the harness/twin ratio, log(new/base) of the harness median minus the same of the
    twin's: what the machine did to both (load, clocks, another VM) cancels, what
    devharness did to its own path stays. Over a device's pairs (at least 6), the
    Wilcoxon signed-rank test (scipy.stats.wilcoxon) for a shift away from 0,
    Bonferroni over the devices; the shift is the exp of their median, minus 1. SLOWER
    when p_adj < alpha and shift > min-effect: a slowdown of every harness row that no
    single row's repetitions can show on a noisy machine."""
    from scipy.stats import wilcoxon
    by_name = {r[0]: r for r in rows}
    groups = {}
    for r in rows:
        t = by_name.get(twin_of(r[0]) or "")
        if (r[1] == "harness" and r[7] is not None and t is not None and
                min(r[4], r[5], t[4], t[5]) > 0):
            groups.setdefault(device_of(r[0]), []).append(
                math.log(r[5] / r[4]) - math.log(t[5] / t[4]))
    groups = {d: v for d, v in groups.items() if len(v) >= 6}
    out = []
    for dev, logs in sorted(groups.items()):
        shift = math.exp(statistics.median(logs)) - 1.0
        p = 1.0 if not any(logs) else float(wilcoxon(logs).pvalue)
        p_adj = min(1.0, p * len(groups))
        verdict = ("SLOWER" if p_adj < a.alpha and shift > a.min_effect else
                   "faster" if p_adj < a.alpha and shift < -a.min_effect else "same")
        out.append((dev, len(logs), shift, p_adj, verdict))
    return out


# The exit status of a noisy run per --on-noisy.
NOISY_EXIT = {"inconclusive": 4, "fail": 1, "warn": 0, "pass": 0}


def parser():
    ap = OneLineParser(prog="devharness compare", description=__doc__.split("\n\n")[0],
                       epilog="exit: 0 no significant regression (a noisy run with --on-noisy warn), "
                              "1 at least one regression (a noisy run with --on-noisy fail), 2 usage or "
                              "input error (unreadable or malformed file or store, non-finite times, "
                              "nothing to test), 4 inconclusive: a run was noisy (--on-noisy "
                              "inconclusive, the default)")
    ap.add_argument("runs", nargs="+", metavar="RUN",
                    help="BASE.json NEW.json, or NEW (a bench JSON or a bundle folder) with --baseline")
    ap.add_argument("--baseline", metavar="store:last=N",
                    help="compare NEW with the last N runs of the same devices in the store")
    ap.add_argument("--store", default=None, metavar="PATH",
                    help="results store for --baseline (default results/devharness.sqlite)")
    ap.add_argument("--device-id", default=None, metavar="STABLE_ID",
                    help="with --baseline: the stored device NEW's device is (when NEW has no manifest)")
    ap.add_argument("--min-effect", "--threshold", dest="min_effect", type=float, default=0.05,
                    help="relative change that counts (default 0.05 = 5%%; --threshold is the old name)")
    ap.add_argument("--floor-ns", type=float, default=2.0,
                    help="absolute change of the median that counts, in ns (default 2)")
    ap.add_argument("--alpha", type=float, default=0.05,
                    help="false discovery rate over the harness rows (Benjamini-Hochberg; default 0.05)")
    ap.add_argument("--min-reps", type=int, default=9,
                    help="repetitions needed in each run to test (default 9)")
    ap.add_argument("--on-noisy", default="inconclusive", choices=("inconclusive", "fail", "warn", "pass"),
                    help="when a run's health says noisy: inconclusive (default, exit 4), fail (exit 1), "
                         "warn (no regression called, exit 0), pass (judge the rows anyway)")
    ap.add_argument("-q", "--quiet", action="store_true",
                    help="text: print only errors and the verdict line (no table)")
    ap.add_argument("--format", default="text", choices=("text", "markdown", "json"),
                    help="text (default): the table and the verdict line; markdown: a GitHub table, "
                         "regressions first, for a pull-request comment; json: one object with every "
                         "row and the verdict")
    return ap


def main(argv):
    ap = parser()
    a, status = parse(ap, argv)
    if a is None:
        return status
    want = 1 if a.baseline else 2
    if len(a.runs) != want:
        print(f"devharness compare: expected {'NEW with --baseline' if a.baseline else 'BASE.json NEW.json'}, "
              f"got {len(a.runs)} file(s) (see devharness compare --help)", file=sys.stderr)
        return 2
    if not (a.min_effect >= 0) or not (a.floor_ns >= 0) or not (0 < a.alpha < 1) or a.min_reps < 2:
        print("devharness compare: need min-effect >= 0, floor-ns >= 0, 0 < alpha < 1, min-reps >= 2",
              file=sys.stderr)
        return 2
    try:
        import scipy.stats  # noqa: F401
    except ImportError:
        print("devharness compare: scipy is needed (the project venv has it: make deps; "
              "or apt-get install python3-scipy)", file=sys.stderr)
        return 2
    try:
        if a.baseline:
            new, nctx, manifest = new_run(a.runs[0])
            base = store_baseline(a.baseline, a.store or "results/devharness.sqlite",
                                  a.device_id, new, nctx, manifest)
            bctx, a.base_min_reps, names = {}, 3, (f"BASE {a.baseline}", f"NEW {a.runs[0]}")
        else:
            (base, _, bctx), (new, _, nctx) = load(a.runs[0]), load(a.runs[1])
            a.base_min_reps, names = a.min_reps, (f"BASE {a.runs[0]}", f"NEW {a.runs[1]}")
    except ValueError as e:
        print(f"devharness compare: {e}", file=sys.stderr)
        return 2
    rows = verdicts(a, base, new)
    loud = [(which, r) for which, r in zip(names, (noisy(bctx), noisy(nctx))) if r]
    if a.on_noisy == "pass":
        loud = []
    if loud:
        for r in rows:
            if r[9] == "REGRESSION":
                r[9] = "slower (noisy run)"
    if not rows:
        print("devharness compare: no benchmark is in both runs", file=sys.stderr)
        return 2
    family = shifts(a, rows)
    if loud:
        family = [(d, n, sh, p, "slower (noisy run)" if v == "SLOWER" else v) for d, n, sh, p, v in family]
    tested = sum(1 for r in rows if r[1] == "harness" and r[7] is not None)
    if a.format == "text":
        print_table(a, rows, family)
    if tested == 0:
        print(f"devharness compare: no common harness benchmark has >= {a.min_reps} repetitions "
              f"in both runs (run bench with --repetitions {a.min_reps})", file=sys.stderr)
        return 2
    fams = sum(1 for f in family if f[4] == "SLOWER")
    regressions = sum(1 for r in rows if r[9] == "REGRESSION") + fams
    context = sum(1 for r in rows if r[1] != "harness")
    summary = (f"{tested} harness rows tested, {regressions} regression(s) "
               f"({regressions - fams} row(s), {fams} device-wide shift(s); Mann-Whitney U, "
               f"Benjamini-Hochberg FDR {a.alpha}, min effect {a.min_effect * 100:.1f}%, floor "
               f"{a.floor_ns:g} ns; Wilcoxon signed-rank per device; {context} raw-twin/reference rows "
               f"shown as context)")
    word = {"inconclusive": "inconclusive", "fail": "failed", "warn": "warning: no regression called"}
    noisy_line = (f"devharness compare: {word.get(a.on_noisy, '')}: noisy run: " +
                  "; ".join(f"{which} ({r})" for which, r in loud)) if loud else None
    status = NOISY_EXIT[a.on_noisy] if loud else 1 if regressions else 0
    if a.format == "markdown":
        print_markdown(names, rows, family, summary, noisy_line, status)
    elif a.format == "json":
        print_json(a, names, rows, family, (tested, regressions, fams, context), loud, status)
    else:
        print(f"{'' if a.quiet else chr(10)}{summary}")
        if noisy_line:
            print(noisy_line)
    return status


def print_table(a, rows, family):
    """The text table and the device-wide shift lines (none with --quiet)."""
    if a.quiet:
        return
    width = max(len(r[0]) for r in rows)
    print(f"{'benchmark':<{width}}  {'base median':>12}  {'new median':>12}  {'change':>8}  "
          f"{'p-value':>8}  {'BH p':>8}  verdict")
    for n, _, _, _, mb, mc, change, p, q, v in rows:
        print(f"{n:<{width}}  {fmt_ns(mb):>12}  {fmt_ns(mc):>12}  {change * 100:+7.1f}%  "
              f"{'-' if p is None else f'{p:.4f}':>8}  {'-' if q is None else f'{q:.4f}':>8}  {v}")
    for line in shift_lines(family):
        print(line)


def shift_lines(family):
    return [f"device-wide shift {dev}: {n} harness/twin pairs, median change of harness/twin "
            f"{shift * 100:+.1f}%, Wilcoxon signed-rank p {p_adj:.2g} (Bonferroni over "
            f"{len(family)}): {v}" for dev, n, shift, p_adj, v in family]


# The order of the markdown table: what a reviewer must see first on top.
VERDICT_ORDER = ("REGRESSION", "slower (noisy run)", "improved", "same")


def verdict_rank(v):
    if v in VERDICT_ORDER:
        return VERDICT_ORDER.index(v)
    return len(VERDICT_ORDER) + (0 if v.startswith("context") else 1)


def md_cell(text):
    """Text safe in a GitHub table cell: | and backslash escaped, no line break."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def print_markdown(names, rows, family, summary, noisy_line, status):
    """A GitHub-flavoured markdown report for a pull-request comment: the verdict, then a
    table of every row, regressions first (then noisy slower rows, improved, same,
    context, not tested), then the device-wide shifts."""
    word = ("inconclusive (noisy run): no regression called" if noisy_line and status != 1 else
            "**failed (noisy run)**" if noisy_line else "**regression**" if status == 1 else "no regression")
    print(f"### devharness compare: {word}\n")
    print(f"{md_cell(names[0])} against {md_cell(names[1])}\n")
    print("| benchmark | base median | new median | change | p-value | BH p | verdict |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for n, _, _, _, mb, mc, change, p, q, v in sorted(rows, key=lambda r: verdict_rank(r[9])):
        verdict = f"**{v}**" if v == "REGRESSION" else v
        print(f"| `{md_cell(n)}` | {fmt_ns(mb)} | {fmt_ns(mc)} | {change * 100:+.1f}% | "
              f"{'-' if p is None else f'{p:.4f}'} | {'-' if q is None else f'{q:.4f}'} | {md_cell(verdict)} |")
    lines = shift_lines(family)
    if lines:
        print()
        for line in lines:
            print(f"- {md_cell(line)}")
    print(f"\n{md_cell(summary)}")
    if noisy_line:
        print(f"\n{md_cell(noisy_line)}")


def print_json(a, names, rows, family, counts, loud, status):
    """One JSON object: every row (times in ns), the device-wide shifts, the verdict."""
    tested, regressions, fams, context = counts
    doc = {"base": names[0][len("BASE "):], "new": names[1][len("NEW "):],
           "settings": {"alpha": a.alpha, "min_effect": a.min_effect, "floor_ns": a.floor_ns,
                        "min_reps": a.min_reps},
           "rows": [{"benchmark": n, "kind": kind, "base_repetitions": len(b), "new_repetitions": len(c),
                     "base_median_ns": mb, "new_median_ns": mc, "change": change, "p_value": p,
                     "bh_p_value": q, "verdict": v}
                    for n, kind, b, c, mb, mc, change, p, q, v in rows],
           "device_shifts": [{"device": d, "pairs": n, "shift": sh, "p_value_bonferroni": p, "verdict": v}
                             for d, n, sh, p, v in family],
           "verdict": {"tested": tested, "regressions": regressions, "row_regressions": regressions - fams,
                       "device_regressions": fams, "context_rows": context,
                       "noisy": [{"run": which, "reasons": r} for which, r in loud],
                       "outcome": "noisy" if loud else "regression" if status == 1 else "pass",
                       "on_noisy": a.on_noisy,
                       "exit": status}}
    print(json.dumps(doc, indent=1, allow_nan=False))

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
