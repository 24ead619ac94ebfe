/*
 * bench/summary.h — the results of a `devharness bench` run and the summary printed and
 * stored after it ("devharness_summary" in --out JSON; docs/benchmarks.md). Internal to
 * bench/. Not thread-safe: the benchmark thread only.
 */
#ifndef DEVHARNESS_BENCH_SUMMARY_H_
#define DEVHARNESS_BENCH_SUMMARY_H_

#include <jansson.h>
#include <stdint.h>

#include "gbench.h"

/* dh_gb_result_fn: keeps every reported run (name, aggregate, real time, error). */
void dh_bench_on_result(const dh_gb_result_t* r, void* user);
/* Frees what dh_bench_on_result kept. */
void dh_bench_results_free(void);
/* The benchmark runs recorded so far (repetitions counted, aggregates and errors not). */
size_t dh_bench_result_count(void);

/* Median real time (ns) of the measured (non-aggregate, not skipped) runs of the
 * benchmark reported as `name`; NAN when none was measured. */
double dh_bench_median_ns(const char* name);

/* Records device spec's memory peak (bytes/s reads + writes; 0 = unknown) and whether
 * its device type sits behind a host link (a GPU type: H2D/D2H ceiling = the link). */
void dh_bench_peak_add(const char* spec, int32_t device_type, double bytes_per_s);
/* Finds the host-link ceiling (hwloc PCI link speed of a display / accelerator PCI
 * function) and returns its description for the run's context (static storage). */
const char* dh_bench_find_host_link(void);

/* Prints the summary after the run and returns it as JSON (a new reference). */
json_t* dh_bench_summarize(void);

#endif /* DEVHARNESS_BENCH_SUMMARY_H_ */
