/*
 * bench/suites/suites.h — the suites of `devharness bench`: one row each in DH_BENCH_SUITES
 * below, from which everything else about them follows (bench/suites/suites.c): the names
 * --suite accepts, the list in the usage text and in its error message, whether the
 * run needs devices, and the order the suites register their benchmarks in (Google
 * Benchmark's family indices, so the order of the console report and the JSON).
 * Adding a suite: docs/adding-a-bench-suite.md. Internal to bench/; not thread-safe (the
 * benchmark thread only).
 */
#ifndef DEVHARNESS_BENCH_SUITES_SUITES_H_
#define DEVHARNESS_BENCH_SUITES_SUITES_H_

#include <stddef.h>

#include "bench/measure/measure.h"

/* Whether a suite registers benchmarks per device under test. */
#define DH_BENCH_HOST_ONLY 0  /* host-side only: runs without any device */
#define DH_BENCH_PER_DEVICE 1 /* one set per device: the run selects devices first */
/* Per device, but opt-in: runs only when --suite names it, not by default nor in
 * `devharness run` (matrix: every ordered pair of devices, too long for run's bench step). */
#define DH_BENCH_PER_DEVICE_OPT_IN 2

/* The table: ROW(name, devices), in registration order. `name` is the --suite name, the
 * first component of its benchmarks' names, and names the suite's function
 * dh_bench_suite_<name> (bench/measure/measure.h dh_bench_suite_fn), defined in
 * bench/suites/<name>.c. A new suite is one more row above the end mark, backslash
 * included. */
#define DH_BENCH_SUITES(ROW)           \
  ROW(call, DH_BENCH_HOST_ONLY)        \
  ROW(alloc, DH_BENCH_PER_DEVICE)      \
  ROW(copy, DH_BENCH_PER_DEVICE)       \
  ROW(sync, DH_BENCH_PER_DEVICE)       \
  ROW(launch, DH_BENCH_PER_DEVICE)     \
  ROW(matrix, DH_BENCH_PER_DEVICE_OPT_IN) \
  ROW(module, DH_BENCH_PER_DEVICE)     \
  /* end of the table */

/* Every suite's function, declared from the table. */
#define DH_BENCH_SUITE_DECLARE(name, devices) dh_bench_suite_fn dh_bench_suite_##name;
DH_BENCH_SUITES(DH_BENCH_SUITE_DECLARE)
#undef DH_BENCH_SUITE_DECLARE

typedef struct dh_bench_suite {
  const char* name;
  int devices;          /* DH_BENCH_HOST_ONLY, DH_BENCH_PER_DEVICE or _OPT_IN */
  dh_bench_suite_fn* add; /* registers the suite's benchmarks */
} dh_bench_suite_t;

/* The table's rows, in order, then a row of NULLs. */
extern const dh_bench_suite_t dh_bench_suites[];

/* The suite names joined by `sep` into buf (cut to size); returns buf. */
const char* dh_bench_suite_names(const char* sep, char* buf, size_t size);

/* 1 when suite `name` is in the comma-separated `list` (NULL: every suite that is not
 * DH_BENCH_PER_DEVICE_OPT_IN), else 0. */
int dh_bench_suite_selected(const char* list, const char* name);

/* DH_EXIT_OK when every name in the comma-separated `list` is a suite (NULL: all);
 * else prints "devharness bench: --suite: unknown suite 'X' (known: call, ...)" and
 * returns DH_EXIT_USAGE (cmdline/cmdline.h). */
int dh_bench_suites_check(const char* list);

/* 1 when a suite in `list` registers per device, i.e. the run needs devices. */
int dh_bench_suites_need_devices(const char* list);

/* Registers the benchmarks of every suite in `list`, in table order. DH_EXIT_OK, or
 * DH_EXIT_VIOLATION after "devharness bench: suite X: <kind>: <message>" on stderr
 * when a suite's setup failed. */
int dh_bench_suites_register(const char* list, const dh_bench_opts_t* o);

#endif /* DEVHARNESS_BENCH_SUITES_SUITES_H_ */
