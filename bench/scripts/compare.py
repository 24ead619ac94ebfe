#!/usr/bin/python3
"""devharness compare: regression gate between two Google Benchmark JSON runs.

usage: compare.py BASE.json NEW.json [--threshold 0.05] [--alpha 0.05] [--min-reps 9]

For every benchmark present in both files (measured runs, run_type "iteration",
errored runs ignored), a two-sided Mann-Whitney U test (scipy.stats.mannwhitneyu)
compares the per-iteration real times of the repetitions. A benchmark REGRESSED when
p < alpha AND median(new) / median(base) - 1 > threshold; IMPROVED when p < alpha and
the change < -threshold; otherwise same. Benchmarks with fewer than --min-reps
repetitions in either file are listed but not tested.

A run whose context says devharness.health.noisy = "yes" (measurement health, bench/health.h)
cannot call a regression: the rows are printed, slower ones as "slower (noisy run)", and
the exit is 0 with a line naming the noisy run and its devharness.health.reasons.

Google Benchmark's own tools/compare.py (Debian libbenchmark-tools) runs the same
U test but always exits 0, so it cannot fail a nightly job; this script can.

Exit: 0 no significant regression, 1 at least one regression, 2 bad input (unreadable
or malformed file, no common benchmark with enough repetitions).
"""
import statistics
import sys

from benchjson import load
from dh_args import OneLineParser, parse

def fmt_ns(v):
    for unit, f in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if v >= f:
            return f"{v / f:.3f} {unit}"
    return f"{v:.2f} ns"


def main(argv):
    ap = OneLineParser(prog="devharness compare", description=__doc__.split("\n\n")[0],
                       epilog="exit: 0 no significant regression, 1 at least one regression, 2 usage or input "
                              "error (unreadable or malformed file, non-finite times, nothing to test)")
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("--threshold", type=float, default=0.05,
                    help="relative slowdown that counts (default 0.05 = 5%%)")
    ap.add_argument("--alpha", type=float, default=0.05,
                    help="significance level of the U test (default 0.05)")
    ap.add_argument("--min-reps", type=int, default=9,
                    help="repetitions needed in each run to test (default 9)")
    ap.add_argument("-q", "--quiet", action="store_true",
                    help="print only errors and the verdict line (no table)")
    a, status = parse(ap, argv)
    if a is None:
        return status
    if not (a.threshold >= 0) or not (0 < a.alpha < 1) or a.min_reps < 2:
        print("devharness compare: need threshold >= 0, 0 < alpha < 1, min-reps >= 2",
              file=sys.stderr)
        return 2
    try:
        from scipy.stats import mannwhitneyu
    except ImportError:
        print("devharness compare: python3-scipy is needed (apt-get install python3-scipy)",
              file=sys.stderr)
        return 2
    try:
        (base, _, base_ctx), (new, _, new_ctx) = load(a.base), load(a.new)
    except ValueError as e:
        print(f"devharness compare: {e}", file=sys.stderr)
        return 2
    common = [n for n in base if n in new]
    if not common:
        print("devharness compare: no benchmark is in both files", file=sys.stderr)
        return 2
    noisy = [f"{which} {path} ({ctx.get('devharness.health.reasons') or 'no reason recorded'})"
             for which, path, ctx in (("BASE", a.base, base_ctx), ("NEW", a.new, new_ctx))
             if ctx.get("devharness.health.noisy") == "yes"]
    width = max(len(n) for n in common)
    row = (lambda *_: None) if a.quiet else print  # --quiet: no table
    row(f"{'benchmark':<{width}}  {'base median':>12}  {'new median':>12}  {'change':>8}  "
          f"{'p-value':>8}  verdict")
    tested = regressions = 0
    for n in common:
        b, c = base[n], new[n]
        mb, mc = statistics.median(b), statistics.median(c)
        change = (mc / mb - 1.0) if mb > 0 else 0.0
        if len(b) < a.min_reps or len(c) < a.min_reps:
            p_txt, verdict = "-", f"not tested ({len(b)}/{len(c)} repetitions < {a.min_reps})"
        else:
            tested += 1
            if b == c or (len(set(b)) == 1 and set(b) == set(c)):
                p = 1.0
            else:
                p = float(mannwhitneyu(b, c, alternative="two-sided").pvalue)
            p_txt = f"{p:.4f}"
            if p < a.alpha and change > a.threshold and noisy:
                verdict = "slower (noisy run)"
            elif p < a.alpha and change > a.threshold:
                verdict = "REGRESSION"
                regressions += 1
            elif p < a.alpha and change < -a.threshold:
                verdict = "improved"
            else:
                verdict = "same"
        row(f"{n:<{width}}  {fmt_ns(mb):>12}  {fmt_ns(mc):>12}  {change * 100:+7.1f}%  "
              f"{p_txt:>8}  {verdict}")
    if tested == 0:
        print(f"devharness compare: no common benchmark has >= {a.min_reps} repetitions in both "
              f"runs (run bench with --repetitions {a.min_reps})", file=sys.stderr)
        return 2
    print(f"{'' if a.quiet else chr(10)}{tested} tested, {regressions} regression(s) "
          f"(Mann-Whitney U, alpha {a.alpha}, threshold {a.threshold * 100:.1f}%)")
    if noisy:
        print("devharness compare: no regression called: noisy run: " + "; ".join(noisy))
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
