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

/* The band of harness/raw time ratios the summary's table leaves out unless told to
 * list every pair (docs/benchmarks.md "What is measured": the harness within 5 % of the
 * best use of the vendor API). */
#define DH_BENCH_RATIO_GOAL_LO 0.95
#define DH_BENCH_RATIO_GOAL_HI 1.05

/* 1: the summary's ratio table lists every pair (bench --verbose); 0 (default): the
 * pairs outside the goal band and a count of the rest. Not thread-safe (set before the
 * run). */
void dh_bench_summary_all_rows(int all);

#endif /* DEVHARNESS_BENCH_REPORT_SUMMARY_H_ */
