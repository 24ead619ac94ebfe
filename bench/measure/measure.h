/*
 * bench/measure/measure.h — what the suites (bench/suites/<name>.c) see of the command
 * around them: the devices and options of the run, registration, kept memory, helper
 * threads and errors. Not installed.
 *
 * Each suite file registers its benchmarks with Google Benchmark through the C wrapper
 * (bench/measure/gbench.h). Naming: <suite>/<operation>[/<memory>]/<device spec>/<impl>[/<size>]
 * where impl is "harness" (through libdevharness: dh_device_* dispatch, packed calls)
 * or "raw" (the backend's dh_raw_twin_t, i.e. the vendor API directly). A pair differs
 * only in that component, so "/harness" <-> "/raw" finds the twin.
 * Not thread-safe: everything runs on the benchmark thread.
 */
#ifndef DEVHARNESS_BENCH_MEASURE_MEASURE_H_
#define DEVHARNESS_BENCH_MEASURE_MEASURE_H_

#include <stddef.h>
#include <stdint.h>

#include "bench/measure/gbench.h"
#include "devharness/backend.h"
#include "devharness/device_api.h"
#include "machine/locality.h"

/* One device under test: dev, backend, spec ("sim:0"); machine/locality.h. */
typedef dh_machine_device_t dh_bench_device_t;

/* Options every suite sees. */
typedef struct dh_bench_opts {
  int quick;          /* reduced sizes, short min_time */
  int repetitions;    /* 0/1 = Google Benchmark default (or --benchmark_repetitions) */
  const dh_bench_device_t* devices;
  size_t num_devices;
  const char* exe_dir; /* folder of the running executable (for bench's .so files) */
  int host_timing;     /* copies timed with the host clock on both sides (--timing auto
                        * or host); 0 = device events / twin timers (--timing device) */
  const char* module;  /* --module LIB.so (the module suite), or NULL */
} dh_bench_opts_t;

/* A suite (bench/suites/<name>.c, one row in bench/suites/suites.h): registers its benchmarks
 * for the options and devices in o; returns the number registered, or -1 with
 * dh_error_set on a setup failure (nothing is left half-registered that would crash).
 * It may add its own lines to the run's context (dh_gb_add_context). */
typedef int dh_bench_suite_fn(const dh_bench_opts_t* o);

/* Registers fn(st, user) as the benchmark `name`, reported in `unit` (bench/measure/register.c).
 * Min time, warm-up and repetitions are not set per benchmark but as --benchmark_* flags
 * (bench/options.c): per-benchmark values would be appended to every benchmark's name.
 * Returns the benchmark (for its arguments), or NULL with dh_error_set when Google
 * Benchmark refuses it. */
dh_gb_bench_t* dh_bench_register(const char* name, dh_gb_fn_t fn, void* user,
                                 const dh_bench_opts_t* o, dh_gb_unit_t unit);
/* dh_bench_register in microseconds with manual time: fn reports each iteration's time
 * (dh_gb_set_iteration_time), as the copy, sync and launch suites do. */
dh_gb_bench_t* dh_bench_register_timed(const char* name, dh_gb_fn_t fn, void* user,
                                       const dh_bench_opts_t* o);

/* Alignment of every buffer the copy suite allocates, harness and twin side alike
 * (host: aligned_alloc / alloc_host; device: alloc_data_space's alignment): the source
 * and destination of a copy then sit at the same offset modulo a page (0), chosen on
 * purpose: glibc's memcpy is several times slower for some relative offsets (e.g. a
 * destination just below the source modulo 4096), so unequal offsets on the two sides
 * would measure glibc, not the harness (docs/benchmarks.md "Method"). Written to the
 * JSON context. */
#define DH_BENCH_BUFFER_ALIGN 4096
/* n bytes rounded up to a whole number of DH_BENCH_BUFFER_ALIGN (for aligned_alloc). */
#define DH_BENCH_ROUND_UP(n) (((n) + DH_BENCH_BUFFER_ALIGN - 1) & ~(size_t)(DH_BENCH_BUFFER_ALIGN - 1))
/* A device buffer of n bytes on dev (owned by the caller: dh_device_free_data_space),
 * DH_BENCH_BUFFER_ALIGN-aligned where the device takes that alignment; a device that
 * refuses it (TVM's CUDA DeviceAPI accepts only alignments that divide 256: apache/tvm
 * 5d4dc87 src/backend/cuda/runtime/cuda_device_api.cc:162, so tvm-cuda:0 refused every
 * copy buffer) gets TVM's kAllocAlignment instead; running out of memory is not
 * retried. 0, or -1 with the error set (bench/measure/buffer_cache.c). */
int dh_bench_alloc_device(DLDevice dev, size_t n, void** out);

/* Allocates a zeroed object of `size` bytes that lives until dh_bench_free_all
 * (benchmark user data). Returns NULL when out of memory. */
void* dh_bench_keep(size_t size);
/* A kept copy of the `size` bytes at ctx (a benchmark's user data), or NULL with
 * dh_error_set (OutOfMemoryError). */
void* dh_bench_keep_copy(const void* ctx, size_t size);
/* Frees everything dh_bench_keep handed out and the cached buffers below. */
void dh_bench_free_all(void);
/* Frees the device tensors the module suite allocated for its calls
 * (bench/suites/module.c); call once the benchmarks have run. */
void dh_bench_module_release(void);

/* Kept buffer sets (bench/measure/buffer_cache.c). Benchmarks keep their buffers and raw-twin
 * contexts here, keyed by (owner, size), for the WHOLE run: with interleaved
 * repetitions (--repetitions >= 2) every repetition then finds the buffers it used
 * before, already allocated and written, instead of allocating fresh ones and taking
 * first-touch faults inside the timed loop. Only when the kept sets exceed the memory
 * budget (dh_bench_cache_budget) is the least recently used one released; whoever
 * refills it writes every buffer and warms up again outside the timed loop. */
typedef struct dh_bench_cache {
  const void* owner;
  size_t size;
  size_t bytes; /* memory held, for the budget; 0 = estimated as 2 * size */
  void (*release)(struct dh_bench_cache* c); /* frees the fields below */
  void* p[8];
  dh_raw_context_t raw; /* a raw twin's set-up context (timer.c), else zeroed */
  DLDevice dev;
  const dh_backend_t* backend;
  uint64_t last_use; /* LRU tick */
} dh_bench_cache_t;
/* Returns the kept set of (owner, size) (marking it used), or NULL when there is none:
 * the caller then takes dh_bench_cache_slot() and sets owner/size/release (and bytes). */
dh_bench_cache_t* dh_bench_cache_get(const void* owner, size_t size);
/* A new, zeroed set; first releases least recently used sets while the kept bytes
 * plus the last missed size (x 2) exceed the budget. NULL when out of memory. */
dh_bench_cache_t* dh_bench_cache_slot(void);
/* Releases one set (e.g. after a failed setup); NULL is a no-op. */
void dh_bench_cache_drop(dh_bench_cache_t* c);
/* Releases every kept set. */
void dh_bench_cache_release(void);
/* Bytes the kept sets may hold (default: a quarter of MemAvailable at the first call,
 * at least 1 GiB; $DEVHARNESS_BENCH_KEEP_MIB overrides). */
size_t dh_bench_cache_budget(void);

/* Runs fn(arg) with the calling thread bound to the helper PUs (bench/measure/pinning.c; set
 * once before any benchmark runs, until then no binding changes), then restores its
 * binding, so threads created inside (a backend's default-stream worker started
 * lazily, stream workers, a raw twin's worker) inherit the helper binding: harness and
 * twin helper threads are placed alike, off the benchmark thread's core when it is
 * pinned. Returns fn's result. */
int dh_bench_as_helper(int (*fn)(void* arg), void* arg);

/* dh_device_create_stream through dh_bench_as_helper. */
int dh_bench_helper_create_stream(DLDevice dev, dh_stream_t* out_stream);

/* Skips the benchmark with "<what>: <kind>: <message>" from the thread's last error. */
void dh_bench_skip_error(dh_gb_state_t* st, const char* what);

/* Text of the last error for labels: "<kind>: <message>". Thread-local buffer. */
const char* dh_bench_error_text(void);

/* tvm-ffi peer (bench/measure/ffi_peer.c): the same calls made directly on tvm-ffi's C API
 * (libtvm_ffi.so, the library libdevharness itself links), side by side with
 * devharness's dispatch. open: wraps `safe_call` (same ABI as dh_safe_call_t) in a
 * tvm-ffi Function with TVMFFIFunctionCreate. 0 on success, else -1 with the reason
 * in why. */
int dh_bench_ffi_peer_open(void* safe_call, char* why, size_t why_size);
/* TVMFFIFunctionCall on the wrapped function (handle NULL) or on `handle` (a Function
 * from dh_function_t.handle) with num_args arguments; result receives the result. */
int dh_bench_ffi_peer_call(void* handle, void* args, int32_t num_args, void* result);
/* Path of the loaded libtvm_ffi.so (dladdr of TVMFFIFunctionCall), or "". */
const char* dh_bench_ffi_peer_path(void);
/* Version "major.minor.patch" of the loaded library, or "". */
const char* dh_bench_ffi_peer_version(void);

#endif /* DEVHARNESS_BENCH_MEASURE_MEASURE_H_ */
