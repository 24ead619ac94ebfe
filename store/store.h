/*
 * store/store.h — what the results room offers the rooms above it (docs/results.md):
 * a bundle recorded in the SQLite results store, and the entries of the commands it
 * owns, listed in cli/main.c's table:
 *   command.c   `devharness store import|stats`
 *   merge.c     `devharness merge BUNDLE... -o DIR` (store/bundle.h dh_store_merge_main:
 *               its entry is the conformance room's, which writes the merged reports)
 *   verify.c    `devharness verify BUNDLE...`
 *   launchers.c `devharness history`, `dashboard`, `export` (store/py/)
 * No SQLite type crosses this header: only store/ opens the store (store/internal.h).
 * Each entry takes argv with argv[0] = the command name, prints its own --help and
 * returns the process exit code (DH_EXIT_*, cmdline/cmdline.h). Not thread-safe.
 */
#ifndef DEVHARNESS_STORE_STORE_H_
#define DEVHARNESS_STORE_STORE_H_

/* The default store of a results folder: OUTPUT/devharness.sqlite. */
#define DH_STORE_DEFAULT "results/devharness.sqlite"

/* Records the result bundle in folder dir into the store at path (created or migrated
 * as dh_store_open in store/internal.h does): the bundle is loaded and checked, then
 * imported in one transaction. The run's UUID goes into uuid. Returns 0 recorded or
 * already there, -1 after one line "devharness CMD: ..." on stderr (store unchanged). */
int dh_store_record(const char* cmd, const char* path, const char* dir, char uuid[64]);

/* `devharness store import [--store PATH] BUNDLE...` / `store stats [--store PATH]`. */
int dh_store_cmd_store(int argc, char** argv);
/* `devharness verify BUNDLE...`: every (device, clause) case ran exactly once. */
int dh_store_cmd_verify(int argc, char** argv);

/* `history [--store PATH] [--device ID] [--clause GLOB] [--last N] [--json]`: the
 * verdict timeline per device x clause of the results store (docs/history.md), the
 * flips since the previous run, flaky clauses and change points of benchmark series
 * (store/py/history.py, ruptures; run by the venv's Python, cmdline/script.h). Exit:
 * 0 no new failure, 1 a clause flipped to fail since the previous run (flaky clauses
 * never count), 2 bad input (missing or foreign store, bad option). */
int dh_store_cmd_history(int argc, char** argv);

/* `dashboard [--store PATH] -o DIR`: a static HTML dashboard of the store
 * (store/py/dashboard.py, jinja2, inline SVG; no network at view time): the latest
 * verdicts per device, flips, flaky clauses, benchmark series with change points.
 * Written to a temporary folder, then renamed to DIR. Exit: 0 written, 1 cannot
 * write DIR, 2 bad input. */
int dh_store_cmd_dashboard(int argc, char** argv);

/* `export [--store PATH | BUNDLE_DIR | BENCH.json] --format bmf|csv|openmetrics
 * [-o FILE] [--run ID|last]`: one run's benchmark results (median latency with its
 * quartiles, median bytes_per_second) as Bencher Metric Format JSON, CSV or OpenMetrics
 * text (store/py/export.py; docs/results.md "Exports"). FILE is written to a temporary
 * file, then renamed. Exit: 0 written, 1 cannot write FILE, 2 bad input. */
int dh_store_cmd_export(int argc, char** argv);

#endif /* DEVHARNESS_STORE_STORE_H_ */
