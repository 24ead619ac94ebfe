/*
 * bench/report/summary.h — the results of a `devharness bench` run and the summary printed and
 * stored after it ("devharness_summary" in --out JSON; docs/benchmarks.md). Internal to
 * bench/. Not thread-safe: the benchmark thread only.
 */
#ifndef DEVHARNESS_BENCH_REPORT_SUMMARY_H_
#define DEVHARNESS_BENCH_REPORT_SUMMARY_H_

#include <jansson.h>
#include <stdint.h>

#include "bench/measure/gbench.h"

/* dh_gb_result_fn: keeps every reported run (name, aggregate, real time, error). */
void dh_bench_on_result(const dh_gb_result_t* r, void* user);
/* Frees what dh_bench_on_result kept. */
void dh_bench_results_free(void);
/* The benchmark runs recorded so far (repetitions counted, aggregates and errors not). */
size_t dh_bench_result_count(void);

/* Median real time (ns) of the measured (non-aggregate) runs of benchmark `name`; NAN
 * when it has none. */
double dh_bench_median_ns(const char* name);

/* Prints the summary after the run and returns it as JSON (a new reference). */
json_t* dh_bench_summarize(void);

#endif /* DEVHARNESS_BENCH_REPORT_SUMMARY_H_ */
