/*
 * bench/measure/gbench.h — a C interface to Google Benchmark (Debian's libbenchmark-dev 1.7.1,
 * pkg-config "benchmark"). The only C++ in devharness is its implementation,
 * bench/measure/gbench.cc; everything else registers and writes benchmarks in C.
 *
 * Usage:
 *
 *     static void bm_copy(dh_gb_state_t* st, void* user) {
 *       size_t n = (size_t)dh_gb_range(st, 0);
 *       while (dh_gb_keep_running(st)) {
 *         ... one iteration ...
 *         dh_gb_set_iteration_time(st, seconds);        (only with use_manual_time)
 *       }
 *       dh_gb_set_bytes_processed(st, dh_gb_iterations(st) * (int64_t)n);
 *     }
 *     dh_gb_bench_t* b = dh_gb_register("copy/h2d", bm_copy, ctx);
 *     dh_gb_bench_range_multiplier(b, 4);
 *     dh_gb_bench_range(b, 4, 256 << 20);
 *     dh_gb_bench_use_manual_time(b);
 *     dh_gb_initialize(&argc, argv);                    (eats --benchmark_* flags)
 *     dh_gb_run_specified(NULL, NULL);
 *
 * Every name maps to the Google Benchmark call of the same meaning (benchmark.h of
 * 1.7.1: Benchmark::Arg/Args/Range/RangeMultiplier/DenseRange/Iterations/MinTime/
 * MinWarmUpTime/Repetitions/UseManualTime/UseRealTime/Unit, State::KeepRunning/
 * KeepRunningBatch/PauseTiming/ResumeTiming/SetIterationTime/range/SetBytesProcessed/
 * SetItemsProcessed/counters/SetLabel/SkipWithError, Initialize, RunSpecifiedBenchmarks,
 * AddCustomContext, Shutdown).
 *
 * Threading: Google Benchmark's registry and flags are process-global. Register,
 * initialise and run from one thread; benchmark functions run on the thread that calls
 * dh_gb_run_specified (this wrapper registers single-threaded benchmarks only).
 * Errors: no function here throws or aborts for bad input: NULL handles are ignored
 * (builders return NULL, state getters return 0). C++ exceptions never cross into C.
 */
#ifndef DEVHARNESS_BENCH_MEASURE_GBENCH_H_
#define DEVHARNESS_BENCH_MEASURE_GBENCH_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* benchmark::State of the running benchmark; valid only inside the benchmark
 * function it was passed to. */
typedef struct dh_gb_state dh_gb_state_t;
/* A registered benchmark (benchmark::internal::Benchmark); owned by Google Benchmark's
 * registry until dh_gb_clear_registered or process exit. */
typedef struct dh_gb_bench dh_gb_bench_t;
/* A benchmark function. `user` is the pointer given to dh_gb_register, untouched. It
 * is called several times per benchmark (Google Benchmark grows the iteration count and
 * repeats), so expensive setup should be cached by the caller. */
typedef void (*dh_gb_fn_t)(dh_gb_state_t* st, void* user);

/* Counter flags for dh_gb_counter (values of benchmark::Counter::Flags). */
#define DH_GB_COUNTER_DEFAULT 0        /* value shown as is */
#define DH_GB_COUNTER_RATE 1           /* value / elapsed seconds (kIsRate) */
#define DH_GB_COUNTER_AVG_ITERATIONS 8 /* value / iterations (kAvgIterations) */
#define DH_GB_COUNTER_AVG_ITERATIONS_RATE 9 /* kAvgIterationsRate */

/* Time units for dh_gb_bench_unit (benchmark::TimeUnit). */
typedef enum dh_gb_unit { DH_GB_NS = 0, DH_GB_US = 1, DH_GB_MS = 2, DH_GB_S = 3 } dh_gb_unit_t;

/*===========================================================================
 * Registration (benchmark::RegisterBenchmark and the Benchmark builder)
 *===========================================================================*/

/* Registers `fn` under `name` (copied) with `user` (borrowed: must outlive the run).
 * Returns the benchmark for the builders below, or NULL when name or fn is NULL or
 * registration failed. Without args the benchmark runs once with no range. */
dh_gb_bench_t* dh_gb_register(const char* name, dh_gb_fn_t fn, void* user);

/* Each builder returns `b` (NULL stays NULL) so calls may be chained. */
/* Adds one run with range(0) = x (Benchmark::Arg). */
dh_gb_bench_t* dh_gb_bench_arg(dh_gb_bench_t* b, int64_t x);
/* Adds one run with range(i) = args[i], i < n (Benchmark::Args). */
dh_gb_bench_t* dh_gb_bench_args(dh_gb_bench_t* b, const int64_t* args, size_t n);
/* Multiplier used by the next dh_gb_bench_range (Benchmark::RangeMultiplier, >= 2;
 * default 8). */
dh_gb_bench_t* dh_gb_bench_range_multiplier(dh_gb_bench_t* b, int multiplier);
/* Adds runs lo, lo*m, lo*m^2, ... and hi (Benchmark::Range; Google Benchmark also
 * includes lo and hi themselves). 0 <= lo <= hi. */
dh_gb_bench_t* dh_gb_bench_range(dh_gb_bench_t* b, int64_t lo, int64_t hi);
/* Adds runs lo, lo+step, ..., <= hi (Benchmark::DenseRange). step >= 1. */
dh_gb_bench_t* dh_gb_bench_dense_range(dh_gb_bench_t* b, int64_t lo, int64_t hi, int step);
/* Names the first argument in the reported name ("size:4096"); name copied. */
dh_gb_bench_t* dh_gb_bench_arg_name(dh_gb_bench_t* b, const char* name);
/* Fixed iteration count (Benchmark::Iterations); n >= 1. Excludes min_time. */
dh_gb_bench_t* dh_gb_bench_iterations(dh_gb_bench_t* b, int64_t n);
/* Minimum measuring time per run in seconds (Benchmark::MinTime); > 0. */
dh_gb_bench_t* dh_gb_bench_min_time(dh_gb_bench_t* b, double seconds);
/* Warm-up: the function runs this long before measuring (Benchmark::MinWarmUpTime). */
dh_gb_bench_t* dh_gb_bench_min_warmup_time(dh_gb_bench_t* b, double seconds);
/* Repetitions; with n > 1 Google Benchmark adds mean/median/stddev/cv aggregates. */
dh_gb_bench_t* dh_gb_bench_repetitions(dh_gb_bench_t* b, int n);
/* The reported time is what the function passes to dh_gb_set_iteration_time
 * (Benchmark::UseManualTime), e.g. device time from events. */
dh_gb_bench_t* dh_gb_bench_use_manual_time(dh_gb_bench_t* b);
/* Wall-clock time decides the iteration count (Benchmark::UseRealTime). */
dh_gb_bench_t* dh_gb_bench_use_real_time(dh_gb_bench_t* b);
/* Display unit (Benchmark::Unit). */
dh_gb_bench_t* dh_gb_bench_unit(dh_gb_bench_t* b, dh_gb_unit_t unit);

/* Forgets every registered benchmark (benchmark::ClearRegisteredBenchmarks). Handles
 * from dh_gb_register become invalid. */
void dh_gb_clear_registered(void);

/*===========================================================================
 * Inside a benchmark function (benchmark::State)
 *===========================================================================*/

/* Loop condition: 1 while more iterations are wanted (State::KeepRunning). */
int dh_gb_keep_running(dh_gb_state_t* st);
/* Like dh_gb_keep_running, but each true counts `n` iterations (State::
 * KeepRunningBatch): put n operations in the loop body to amortise the loop cost of
 * very short operations. May overshoot by up to n iterations. */
int dh_gb_keep_running_batch(dh_gb_state_t* st, int64_t n);
/* Stops / restarts the timers inside an iteration (State::PauseTiming/ResumeTiming).
 * Each costs about a microsecond; avoid them around very short operations. */
void dh_gb_pause_timing(dh_gb_state_t* st);
void dh_gb_resume_timing(dh_gb_state_t* st);
/* With use_manual_time: this iteration took `seconds` (State::SetIterationTime). */
void dh_gb_set_iteration_time(dh_gb_state_t* st, double seconds);
/* The i-th argument of this run (State::range(i)); 0 if st is NULL. i must be less
 * than the number of arguments given at registration. */
int64_t dh_gb_range(const dh_gb_state_t* st, size_t i);
/* Iterations done so far (State::iterations); after the loop, the total. */
int64_t dh_gb_iterations(const dh_gb_state_t* st);
/* Total bytes processed by the whole run; reported as bytes_per_second (1024-based
 * in the console, exact in JSON) (State::SetBytesProcessed). */
void dh_gb_set_bytes_processed(dh_gb_state_t* st, int64_t bytes);
/* Total items processed; reported as items_per_second (State::SetItemsProcessed). */
void dh_gb_set_items_processed(dh_gb_state_t* st, int64_t items);
/* Sets user counter `name` (copied) to value with DH_GB_COUNTER_* flags
 * (State::counters[name] = Counter(value, flags)). Appears in console and JSON. */
void dh_gb_counter(dh_gb_state_t* st, const char* name, double value, int flags);
/* Label shown after the run (State::SetLabel); text copied. */
void dh_gb_set_label(dh_gb_state_t* st, const char* label);
/* Marks the run as failed with `message` (copied) (State::SkipWithError). The loop
 * then ends: dh_gb_keep_running returns 0. JSON shows error_occurred/error_message. */
void dh_gb_skip_with_error(dh_gb_state_t* st, const char* message);
/* 1 once dh_gb_skip_with_error was called for this run. */
int dh_gb_error_occurred(const dh_gb_state_t* st);

/*===========================================================================
 * Running
 *===========================================================================*/

/* Parses and removes Google Benchmark's own flags (--benchmark_filter=,
 * --benchmark_out=, --benchmark_out_format=, --benchmark_repetitions=,
 * --benchmark_min_time=, --benchmark_list_tests, ...) from argc/argv
 * (benchmark::Initialize). Call once, before dh_gb_run_specified. Returns the number of
 * arguments left that Google Benchmark did not recognise, excluding argv[0]. */
int dh_gb_initialize(int* argc, char** argv);

/* Adds key/value (both copied) to the "context" of console and JSON output
 * (benchmark::AddCustomContext). A key given twice keeps the first value. */
void dh_gb_add_context(const char* key, const char* value);

/* The console's context header: 0 (default) prints Google Benchmark's machine lines,
 * the device lines, one line of ceilings per device and a count of the devharness.*
 * entries (all of them are in --out's JSON "context"); 1 prints every entry (bench
 * --verbose). */
void dh_gb_set_full_context(int full);

/* One reported run, passed to the dh_gb_run_specified callback. Pointers are valid
 * only during the callback. Times are per iteration, in nanoseconds. */
typedef struct dh_gb_result {
  const char* name;           /* full name incl. arguments, e.g. "copy/h2d/sim:0/harness/4096";
                                 aggregates carry no suffix here (see aggregate) */
  const char* aggregate;      /* "" for a measured run, else "mean", "median", "stddev", "cv" */
  const char* label;          /* dh_gb_set_label text or "" */
  int error_occurred;         /* dh_gb_skip_with_error was called */
  const char* error_message;  /* its message or "" */
  int64_t iterations;
  int64_t repetition_index;   /* 0-based; -1 for aggregates */
  int64_t repetitions;
  double real_time_ns;        /* for "cv": the ratio itself (e.g. 0.02), not ns */
  double cpu_time_ns;
  double bytes_per_second;    /* 0 when bytes were not set */
} dh_gb_result_t;

/* Called for every reported run, after the console has printed it. */
typedef void (*dh_gb_result_fn)(const dh_gb_result_t* result, void* user);

/* Runs every registered benchmark matching --benchmark_filter (default all), printing
 * to the console (colour when stdout is a terminal) and, when --benchmark_out=FILE was
 * given, writing FILE in --benchmark_out_format (json by default). on_result (may be
 * NULL) sees each run. Returns the number of benchmarks that matched; -1 when the
 * output file cannot be written (Google Benchmark then prints why). */
long dh_gb_run_specified(dh_gb_result_fn on_result, void* user);

/* Releases Google Benchmark's global state (benchmark::Shutdown). */
void dh_gb_shutdown(void);

#ifdef __cplusplus
}
#endif
#endif /* DEVHARNESS_BENCH_MEASURE_GBENCH_H_ */
