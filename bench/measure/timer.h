/*
 * bench/measure/timer.h — timing helpers shared by the copy, sync and launch suites
 * (internal to bench/; bench/measure/timer.c).
 *
 * A "timer" measures one iteration either with the backend's events (device time,
 * DH_CAP_EVENT_TIMING: record start, the work, record end, stream_sync, elapsed) or
 * with the host's monotonic clock around the work and its sync. Raw twins report
 * their own device time (out_device_ms) when their API has timers, else host time.
 */
#ifndef DEVHARNESS_BENCH_MEASURE_TIMER_H_
#define DEVHARNESS_BENCH_MEASURE_TIMER_H_

#include "bench/measure/measure.h"

/* Monotonic clock in seconds. */
double dh_bench_now(void);

typedef struct dh_bench_timer {
  const dh_bench_device_t* d;
  dh_event_t ev[2];
  int device; /* 1 when events are used */
  dh_stream_t stream;
  double t0;
} dh_bench_timer_t;

/* Creates events when the backend has them and `want_device`; else host timing. */
void dh_bench_timer_init(dh_bench_timer_t* t, const dh_bench_device_t* d, dh_stream_t stream,
                         int want_device);
/* Marks the start of one iteration. 0/-1. */
int dh_bench_timer_start(dh_bench_timer_t* t);
/* Marks the end: records the end event (if any), stream_syncs `stream`, and stores the
 * iteration's time in seconds in *out_s. 0/-1 (error from sync or events). */
int dh_bench_timer_stop(dh_bench_timer_t* t, double* out_s);
void dh_bench_timer_free(dh_bench_timer_t* t);
/* "device events" or "host clock". */
const char* dh_bench_timer_source(const dh_bench_timer_t* t);

/* Raw twin: cached setup for (owner, op, nbytes, flags) (dh_device_raw_setup, on the
 * helper PUs, with one warm-up run). Returns the context, kept with the owner's
 * buffers, or NULL with the error set (NotImplementedError when the backend has no
 * twin). Run it with dh_device_raw_run. */
const dh_raw_context_t* dh_bench_raw_ctx(const void* owner, const dh_bench_device_t* d, dh_raw_op_t op,
                                         size_t nbytes, uint32_t flags);
/* Runs the raw twin `repeat` times; *out_s = device time when reported, else host
 * time; *out_device = 1 when device time was used. 0/-1. */
int dh_bench_raw_run(const dh_raw_context_t* raw, uint32_t repeat, double* out_s, int* out_device);

#endif /* DEVHARNESS_BENCH_MEASURE_TIMER_H_ */
