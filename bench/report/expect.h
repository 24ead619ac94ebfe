/*
 * bench/report/expect.h — expected performance (`devharness bench --expect FILE|TAG`,
 * `devharness run --expect`; docs/benchmarks.md "Expected performance"): the floors a
 * target JSON writes in its "expect" property, turned into verdicts after the run, and
 * the target's device memory bandwidth ("memory_bandwidth_gbps", the D2D ceiling).
 * Internal to bench/; not thread-safe (the benchmark thread only).
 *
 * A floor is one string: "<dir> <memory> <size> >= <N>%" (the harness copy's median
 * bandwidth at least N % of its ceiling, machine/ceilings.h), "<dir> <memory> <size> >=
 * <X> GB/s", or "<benchmark> <= <T> us|ns|ms" (the median time of
 * <benchmark>/<device>/harness, e.g. "launch/roundtrip <= 20 us"). dir: h2d, d2h, d2d,
 * bidir; memory: pageable, pinned, device; size: bytes, or with B, KiB, MiB, GiB.
 */
#ifndef DEVHARNESS_BENCH_REPORT_EXPECT_H_
#define DEVHARNESS_BENCH_REPORT_EXPECT_H_

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/measure/measure.h"

/* Loads the target (a file when one exists, else a tag) and checks its floors. Call
 * after the plugins are loaded (their target kinds). DH_EXIT_OK, or DH_EXIT_USAGE after
 * one line naming the target and the floor that is wrong. */
int dh_bench_expect_load(const char* file_or_tag);

/* The --expect target's memory_bandwidth_gbps for devices of device_type (its kind's),
 * with memory_bandwidth_source in *source; 0 when there is no such target or value. */
double dh_bench_expect_memory_gbps(int32_t device_type, const char** source);

/* After the run: every floor on every device of the target's kind, as TAP lines after
 * a header on stdout; returns {"target", "checks": [{device, floor, benchmark, verdict
 * ("pass", "fail", "skip"), measured, unit, floor_value, ceiling_GBps, ceiling, line}],
 * "passed", "failed", "skipped"} (a new reference) and the number of failures in
 * *failed. NULL (and 0) when no --expect was given. */
json_t* dh_bench_expect_evaluate(const dh_bench_device_t* devs, size_t ndev, int* failed);

/* Frees the loaded target. */
void dh_bench_expect_free(void);

#endif /* DEVHARNESS_BENCH_REPORT_EXPECT_H_ */
