/*
 * bench/bench.h — the commands bench/ implements, called from cli/main.c's command
 * table: `devharness bench` (bench/main.c) and the launchers of the Python tools
 * `plot`, `compare`, `history` and `dashboard` (bench/launchers.c).
 *
 * Each takes the subcommand's arguments with argv[0] = the subcommand name ("bench",
 * "plot", ...), prints its own --help, and returns the process exit status.
 * They are meant to run in their own process: dh_bench_main loads and initialises
 * every backend plugin (which start worker threads) and pins the calling thread.
 * Not thread-safe; call at most once per process (Google Benchmark's state is global).
 */
#ifndef DEVHARNESS_BENCH_BENCH_H_
#define DEVHARNESS_BENCH_BENCH_H_

#ifdef __cplusplus
extern "C" {
#endif

/* `bench [--suite LIST] [--device NAME:ID] [--quick]
 *        [--out FILE.json] [--repetitions N] [--timing auto|host|device]
 *        [--pin core|node|none] [--benchmark_*...]`
 * Runs the microbenchmark suites of LIST (comma-separated names from the table in
 * bench/suites/suites.h; default all) on every device of every loaded backend
 * (or one --device), prints Google Benchmark's console report and a harness/twin ratio
 * summary (twins "raw" and, for H2D, "raw_released"), the CV of copies >= 1 MiB and the
 * best copy per direction as % of its ceiling, and with --out writes Google Benchmark
 * JSON (plus a "devharness_summary" object with the same: harness_raw_pairs, call,
 * copy_cv, best_copy). Copies are host-timed on both sides unless --timing device
 * (docs/benchmarks.md "Method"). Unknown --benchmark_* flags
 * pass through to Google Benchmark (e.g. --benchmark_filter=REGEX).
 * Exit: 0 ran (individual benchmarks may be reported as skipped with an error),
 * 1 no benchmark matched or the output could not be written, 2 usage error. */
int dh_bench_main(int argc, char** argv);

/* `plot RESULTS.json -o DIR`: runs bench/scripts/plot.py (python3 + matplotlib) to draw
 * bandwidth-vs-size and latency charts as PNG and SVG into DIR. The script is found as
 * $DEVHARNESS_PLOT_PY or <exe dir>/../share/devharness/plot.py (the build tree's copy or
 * the installed one; cmdline/script.h). Exit: the script's (0 ok, 1 failure, 2 bad
 * input); 2 when the script or python3 cannot be found. */
int dh_plot_main(int argc, char** argv);

/* `compare BASE.json NEW.json` / `compare --baseline store:last=N NEW`: the regression
 * gate (bench/scripts/compare.py, scipy): Mann-Whitney U per benchmark over the
 * repetitions, Benjamini-Hochberg over the harness rows, a minimum effect (default 5 %)
 * and an absolute floor (default 2 ns), plus a device-wide shift of the harness/twin
 * ratios (Wilcoxon signed-rank); raw twins are shown as context, never gate; a run
 * whose context says devharness.health.noisy = "yes" calls no regression. Prints a
 * table (--format text), a GitHub markdown table or one JSON object (--format markdown,
 * json), the exit code the same. Exit: 0 no significant regression (or a noisy run), 1 at least one
 * regression, 2 bad input (missing file, bad JSON or store, fewer than 9 repetitions
 * in either run for every common harness benchmark). Script found like plot's
 * ($DEVHARNESS_COMPARE_PY, .../share/devharness/compare.py); run by $DEVHARNESS_PYTHON,
 * else the build tree's venv (<exe dir>/../venv/bin/python), else /usr/bin/python3. */
int dh_compare_main(int argc, char** argv);

#ifdef __cplusplus
}
#endif
#endif /* DEVHARNESS_BENCH_BENCH_H_ */
