/*
 * bench/steps.h — the steps of `devharness bench` that bench/main.c takes in turn: the
 * options (bench/options.c), the --out file (bench/report/out_file.c), where threads run
 * (bench/measure/pinning.c), the devices under test and their ceilings (bench/devices.c). The
 * suites table is bench/suites/suites.h, the summary after the run bench/report/summary.h. Internal
 * to bench/; not thread-safe (the command's main thread). (`devharness run`'s steps are
 * cli/run.h.)
 */
#ifndef DEVHARNESS_BENCH_STEPS_H_
#define DEVHARNESS_BENCH_STEPS_H_

#include <jansson.h>
#include <limits.h>
#include <stddef.h>

#include "bench/measure/measure.h"
#include "store/bundle.h"

/*--- options (bench/options.c) ---*/
typedef struct dh_bench_args {
  const char* suites;   /* --suite, comma-separated; NULL: every suite */
  const char* device;   /* --device; NULL: every device */
  const char* out;      /* --out FILE.json, or NULL */
  const char* bundle_dir; /* --bundle DIR, or NULL */
  dh_store_bundle_t bundle;   /* the bundle being written (store/bundle.h) */
  char bundle_out[PATH_MAX]; /* DIR/bench.json when --bundle names the --out */
  const char* pin_mode; /* --pin: auto, core, node or none */
  const char* timing;   /* --timing: auto, host or device */
  const char* color;    /* --color: auto, always or never (bench/measure/gbench.cc use_color) */
  const char* expect;   /* --expect FILE|TAG (bench/report/expect.h), or NULL */
  const char* module;   /* --module LIB.so: the tvm-ffi library of the module suite */
  int quick;            /* --quick */
  int quiet;            /* --quiet: stdout (table, summary) discarded; errors and the verdict line */
  int reps;             /* --repetitions; 0 when not given */
  double noisy_cv;      /* --noisy-cv: percent; 0 = CV never makes the run noisy */
  char** gb;            /* Google Benchmark's argv: our defaults, then the user's
                         * --benchmark_* flags (they win), then --out's */
  int ngb;
  const char* order;    /* how repetitions are ordered, for the context */
  /* storage behind the pointers above */
  char** ours;          /* argv without --benchmark_*, for getopt_long */
  char** user;          /* the user's --benchmark_* words */
  int nuser;
  char reps_flag[64];
  char color_flag[40];
  char* out_flag;
  char* out_tmp;        /* where Google Benchmark writes before --out is published
                         * (bench/report/out_file.c); NULL without --out */
} dh_bench_args_t;

/* Reads `devharness bench`'s argv into *a and builds Google Benchmark's argv. Returns -1
 * to go on, else the exit code: DH_EXIT_OK after --help, DH_EXIT_USAGE after a one-line
 * usage error (cmdline/cmdline.h). Either way *a is released with dh_bench_args_free. */
int dh_bench_args_parse(int argc, char** argv, dh_bench_args_t* a);
void dh_bench_args_free(dh_bench_args_t* a);

/*--- the --out file (bench/report/out_file.c) ---*/
/* Creates the empty temporary file "<out>.partial.<pid>" beside out, for Google
 * Benchmark to write, and returns its path in *out_tmp (malloc'd; the caller frees it).
 * DH_EXIT_OK, or DH_EXIT_USAGE after one line naming --out and why it cannot be
 * created (a missing or unwritable folder). */
int dh_bench_out_open(const char* out, char** out_tmp);
/* Reads Google Benchmark's JSON back from out_tmp, moves the string members of sum's
 * "context_after_run" object (keys known only after the run) into its "context", adds
 * `sum` as "devharness_summary"
 * and puts the result at out through a second temporary name, fsync and rename; out_tmp
 * is removed either way. A file Google Benchmark finished but jansson cannot parse (a
 * NaN) is kept as out and the summary goes beside it, <out>.summary.json. DH_EXIT_OK, or
 * DH_EXIT_VIOLATION after one line on stderr (out absent: truncated output, a failed
 * write). */
int dh_bench_out_publish(const char* out, const char* out_tmp, json_t* sum);
/* Removes out_tmp (NULL: nothing) when the run ends without publishing. */
void dh_bench_out_discard(const char* out_tmp);

/*--- where threads run (bench/measure/pinning.c) ---*/
/* Driver worker threads: PoCL's pthread device binds worker i to core i with
 * POCL_AFFINITY=1 (pocl/pocl v3.1 doc/sphinx/source/using.rst, "Tuning pocl behavior
 * with ENV variables"). With the benchmark thread pinned (--pin auto/core/node) it is
 * set, unless the environment already has it: given as the opencl backend's option
 * pocl-affinity (ABI 1.6, backends/opencl/opencl_device.c), which writes it into the
 * environment; harness and twin run on the same workers, so both sides are placed alike
 * (docs/benchmarks.md "Method", driver worker threads). Must run while the options
 * window is open (before dh_cmdline_device_options_end), so before any backend starts
 * its driver. Writes what was done to desc. */
void dh_bench_place_driver_threads(const char* pin_mode, char* desc, size_t size);

/* Helper threads (docs/benchmarks.md "Helper threads placed alike"): the PUs the
 * process may run on now, less the PUs --pin will bind the benchmark thread to when any
 * are left, so that every worker thread the benchmarks make a backend or a twin start,
 * harness and twin alike, runs beside the benchmark thread and never on its core: left
 * to the scheduler, a worker shared that core in some runs and not in others, for
 * harness and twin independently. With --pin none, or one core only, the helper PUs
 * are the process's. From then on dh_bench_as_helper binds to them. Must run before
 * any benchmark creates a stream and before dh_bench_pin; writes what it did to desc. */
void dh_bench_place_helpers(const char* pin_mode, char* desc, size_t size);

/* --pin auto (the default): finds the NUMA node of the devices under test
 * (dh_machine_device_node) for dh_bench_place_helpers and dh_bench_pin; other modes: no-op.
 * Must run after the devices are found and before those two. */
void dh_bench_pin_locate(const char* pin_mode, const dh_bench_device_t* devs, size_t ndev);

/* Binds the calling (benchmark) thread with hwloc to: the first core of the devices'
 * NUMA node (--pin auto), core 0 (core; PU 0 when hwloc shows no cores), NUMA node 0
 * (node), or not at all (none); with auto its host memory is bound to that node too
 * (hwloc_set_membind, this thread). Writes what was done, and why that node,
 * to desc. */
void dh_bench_pin(const char* pin_mode, char* desc, size_t size);

/*--- devices under test (bench/devices.c) ---*/
/* When a suite in `suites` registers per device, selects every device of every loaded
 * backend, or the one of `spec` (dh_device_select); a backend without devices goes into
 * the run's context ("backend.<name>") and onto stderr with the reason. *devs is
 * allocated (free it) with room for one more. Returns 0, or an exit code after one line
 * on stderr: DH_EXIT_USAGE for a bad spec, DH_EXIT_NO_DEVICE when the backend `spec`
 * names has no device. */
int dh_bench_find_devices(const char* suites, const char* spec, dh_bench_device_t** devs,
                          size_t* ndev);

/* Each device's context line ("device.<spec>": backend, name, driver, target kind,
 * timing, raw twin) and memory ceiling ("ceiling.<spec>.device_memory", where the
 * backend reports one; also recorded for the summary). */
void dh_bench_describe_devices(const dh_bench_device_t* devs, size_t ndev);

/*--- ceilings of the devices (bench/devices.c) ---*/
/* Each device's ceiling per direction (machine/ceilings.h: host link of its PCI function
 * from sysfs, memory bandwidth of the --expect target or the backend, a measured host
 * memcpy for host-memory devices) recorded and written to the context as
 * ceiling.<spec>.<h2d|d2h|d2d|bidir> ("N GB/s: what" or "unknown: why"), after
 * ceiling.<spec>.host_link when the link was read from sysfs. After
 * dh_bench_expect_load, on the pinned benchmark thread. */
void dh_bench_find_ceilings(const dh_bench_device_t* devs, size_t ndev);

#endif /* DEVHARNESS_BENCH_STEPS_H_ */
