/*
 * bench/main.c — `devharness bench` (bench/bench.h dh_bench_main): options, devices,
 * pinning, the run's context, running the suites; the summary after the run is
 * bench/summary.c.
 */
#include <errno.h>
#include <getopt.h>
#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <sched.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "bench_internal.h"
#include "cmdline/cmdline.h"
#include "suites.h"
#include "summary.h"
#include "devharness/devharness.h"

/* printf format: %s is the suite list (bench/suites.h). */
static const char kUsage[] =
    "usage: devharness bench [--suite LIST] [--device NAME:ID] [--quick] [--out FILE.json]\n"
    "                        [--repetitions N] [--timing auto|host|device]\n"
    "                        [--pin core|node|none]\n"
    "                        [--benchmark_*=...]\n"
    "\n"
    "Microbenchmarks through Google Benchmark, on every device of every loaded backend\n"
    "(or one --device). Each copy/sync/launch benchmark has a raw twin (the backend's\n"
    "vendor API directly) named .../raw/... next to .../harness/...; the summary after the\n"
    "run gives the harness/raw time ratio of every pair.\n"
    "\n"
    "  --suite LIST      comma-separated: %s (default all)\n"
    "  --device SPEC     only this device, e.g. sim:0 (default: every device)\n"
    "  --quick           short min_time and fewer sizes (under a minute here)\n"
    "  --out FILE        Google Benchmark JSON (+ \"devharness_summary\": ratios, CVs)\n"
    "  --repetitions N   repeat each benchmark N times (mean/median/stddev/cv; >= 9 for\n"
    "                    `devharness compare`); N >= 2 runs the repetitions of all\n"
    "                    benchmarks interleaved in random order (undo with\n"
    "                    --benchmark_enable_random_interleaving=false)\n"
    "  --timing MODE     copies: auto or host (default: host clock around copy + sync on\n"
    "                    both sides of every pair) or device (backend events vs the raw\n"
    "                    twin's device timer; not the same span on every API)\n"
    "  --pin MODE        bind the benchmark thread with hwloc: core (default: core 0,\n"
    "                    no device locality is known here), node (NUMA node 0), none;\n"
    "                    with core or node PoCL's workers are bound one per core too\n"
    "                    (POCL_AFFINITY=1, unless the environment sets it)\n"
    "  --benchmark_*     passed to Google Benchmark, e.g. --benchmark_filter=copy/h2d\n"
    "                    --benchmark_list_tests=true --benchmark_min_time=0.5\n"
    "\n"
    "Bytes processed count bytes copied once. Exit (cmdline/cmdline.h): 0 ran, 1 nothing matched\n"
    "or output not writable, 2 usage error.\n";

/*--- pinning ---*/
/* What --pin binds the benchmark thread to: core 0 (or PU 0), NUMA node 0, or NULL
 * (none, or hwloc has no such object); *what names it for messages. */
static hwloc_obj_t pin_target(hwloc_topology_t topo, const char* mode, const char** what) {
  *what = "core 0";
  if (strcmp(mode, "none") == 0) return NULL;
  if (strcmp(mode, "node") == 0) {
    *what = "NUMA node 0";
    return hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, 0);
  }
  hwloc_obj_t obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, 0);
  return obj ? obj : hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, 0);
}

/* Helper threads (docs/benchmarks.md "Helper threads placed alike"): the PUs the
 * process may run on now (before pinning), less the PUs --pin will bind the benchmark
 * thread to when any are left, so that every worker thread the benchmarks make a
 * backend or a twin start, harness and twin alike, runs beside the benchmark thread and
 * never on its core. Left to the scheduler, a worker landed on the benchmark thread's
 * core in some runs and on another in others (the sim's launch round trip: 9 us vs
 * 44 us on the 2-core VM), for harness and twin independently. With --pin none, or
 * one core only, the helper PUs are the process's. Must run before any benchmark
 * creates a stream; writes what it did to desc. */
static void place_helpers(const char* mode, char* desc, size_t size) {
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof cpus, &cpus) != 0) {
    snprintf(desc, size, "not placed: sched_getaffinity failed: %s", strerror(errno));
    return;
  }
  const char* why = "--pin none";
  hwloc_topology_t topo;
  if (strcmp(mode, "none") != 0) {
    why = "hwloc topology failed";
    int have_topo = hwloc_topology_init(&topo) == 0;
    if (have_topo && hwloc_topology_load(topo) == 0) {
      const char* what;
      hwloc_obj_t obj = pin_target(topo, mode, &what);
      cpu_set_t bench;
      CPU_ZERO(&bench);
      why = "the benchmark thread's PUs are all the process has";
      if (obj && hwloc_cpuset_to_glibc_sched_affinity(topo, obj->cpuset, &bench, sizeof bench) == 0) {
        cpu_set_t rest;
        CPU_ZERO(&rest);
        for (int i = 0; i < CPU_SETSIZE; ++i)
          if (CPU_ISSET(i, &cpus) && !CPU_ISSET(i, &bench)) CPU_SET(i, &rest);
        if (CPU_COUNT(&rest) > 0) {
          cpus = rest;
          why = NULL;
        }
      }
    }
    if (have_topo) hwloc_topology_destroy(topo);
  }
  dh_bench_set_helper_cpus(&cpus);
  char list[160];
  size_t n = 0;
  list[0] = '\0';
  for (int i = 0; i < CPU_SETSIZE && n + 12 < sizeof list; ++i)
    if (CPU_ISSET(i, &cpus)) n += (size_t)snprintf(list + n, sizeof list - n, "%s%d", n ? "," : "", i);
  snprintf(desc, size,
           "worker threads the benchmarks make backends and twins start (default-stream workers "
           "started lazily, streams, raw twin contexts) created bound to PUs %s%s%s%s, harness "
           "and twin alike",
           list, why ? ": the process's PUs (" : ": the process's PUs less the benchmark thread's",
           why ? why : "", why ? ")" : "");
}

static void pin(const char* mode, char* desc, size_t size) {
  if (strcmp(mode, "none") == 0) {
    snprintf(desc, size, "not pinned (--pin none)");
    return;
  }
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
    snprintf(desc, size, "not pinned: hwloc topology failed");
    return;
  }
  const char* what;
  hwloc_obj_t obj = pin_target(topo, mode, &what);
  if (!obj || hwloc_set_cpubind(topo, obj->cpuset, HWLOC_CPUBIND_THREAD) != 0) {
    snprintf(desc, size, "not pinned: hwloc_set_cpubind(%s) failed: %s", what, strerror(errno));
  } else {
    char set[128];
    hwloc_bitmap_list_snprintf(set, sizeof set, obj->cpuset);
    snprintf(desc, size,
             "benchmark thread bound with hwloc to %s (PUs %s); device locality unknown, so "
             "the default; backend threads created at init are not bound",
             what, set);
  }
  hwloc_topology_destroy(topo);
}

/* Driver worker threads: PoCL's pthread device binds worker i to core i with
 * POCL_AFFINITY=1 (pocl/pocl v3.1 doc/sphinx/source/using.rst, "Tuning pocl behavior
 * with ENV variables"). With the benchmark thread pinned (--pin core/node) bench sets it,
 * unless the environment already has it, before any backend starts its driver; harness
 * and twin run on the same workers, so both sides are placed alike. Measured on the
 * 2-core VM (opencl:0 copies of 1 MiB and 256 MiB, 9 repetitions, 3 runs each,
 * alternated): CV median 5.5-7.0 % (19-21 of 36 above 5 %) without, 2.7-3.0 % (6-9 of
 * 36) with. Writes what was done to desc. */
static void place_driver_threads(const char* pin_mode, char* desc, size_t size) {
  const char* cur = getenv("POCL_AFFINITY");
  if (cur) {
    snprintf(desc, size, "PoCL pthread workers: POCL_AFFINITY=%s from the environment, left as is",
             dh_cmdline_quote(cur));
  } else if (strcmp(pin_mode, "none") == 0) {
    snprintf(desc, size, "PoCL pthread workers: not bound (--pin none)");
  } else if (setenv("POCL_AFFINITY", "1", 0) != 0) {
    snprintf(desc, size, "PoCL pthread workers: not bound (setenv failed: %s)", strerror(errno));
  } else {
    snprintf(desc, size,
             "PoCL pthread workers: worker i bound to core i (POCL_AFFINITY=1, set by devharness "
             "bench because --pin %s; POCL_AFFINITY=0 in the environment keeps them unbound)",
             pin_mode);
  }
}

static const char* attr_str(DLDevice dev, dh_attr_kind_t k) {
  dh_any_t v = dh_any_none();
  if (dh_device_get_attr(dev, k, &v) != 0) return "?";
  if (v.type_index == DH_TYPE_RAW_STR && v.v_c_str) return v.v_c_str;
  return "n/a";
}

/* The options, and Google Benchmark's argv built from them. */
typedef struct bench_args {
  const char* suites; /* NULL: all */
  const char* device; /* NULL: every device */
  const char* out;
  const char* pin_mode;
  const char* timing;
  int quick, reps;
  char** gb; /* Google Benchmark's argv: defaults first, then the user's --benchmark_* */
  int ngb;
  char reps_flag[64];
  char* out_flag;
  const char* order; /* how repetitions are ordered, for the context */
  char driver_threads[256]; /* what place_driver_threads did, for the context */
  char helper_threads[512]; /* what place_helpers did, for the context */
} bench_args_t;

enum { OPT_SUITE = 256, OPT_DEVICE, OPT_QUICK, OPT_OUT, OPT_REPS, OPT_TIMING, OPT_PIN };

/* Reads the options; --benchmark_* words go to Google Benchmark as they are. Returns -1
 * to go on, else the exit code. */
static int parse_bench_args(int argc, char** argv, bench_args_t* a, char** ours, char** user_flags,
                            int* n_user) {
  static const struct option kOpts[] = {
      {"suite", required_argument, NULL, OPT_SUITE},      {"device", required_argument, NULL, OPT_DEVICE},
      {"quick", no_argument, NULL, OPT_QUICK},            {"out", required_argument, NULL, OPT_OUT},
      {"repetitions", required_argument, NULL, OPT_REPS}, {"timing", required_argument, NULL, OPT_TIMING},
      {"pin", required_argument, NULL, OPT_PIN},          {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  static const char* const kTimings[] = {"auto", "host", "device", NULL};
  static const char* const kPins[] = {"core", "node", "none", NULL};
  int n = 0;
  ours[n++] = argc > 0 ? argv[0] : "bench";
  for (int i = 1; i < argc; ++i) {
    if (strncmp(argv[i], "--benchmark_", 12) == 0) user_flags[(*n_user)++] = argv[i];
    else ours[n++] = argv[i];
  }
  ours[n] = NULL;
  dh_cmdline_getopt_begin();
  int c;
  long reps;
  while ((c = getopt_long(n, ours, "h", kOpts, NULL)) != -1) {
    switch (c) {
      case 'h': {
        char names[256];
        printf(kUsage, dh_bench_suite_names(",", names, sizeof names));
        return DH_EXIT_OK;
      }
      case OPT_SUITE: a->suites = optarg; break;
      case OPT_DEVICE:
        if (dh_cmdline_set_once("bench", "--device", &a->device, optarg) != DH_EXIT_OK) return DH_EXIT_USAGE;
        break;
      case OPT_QUICK: a->quick = 1; break;
      case OPT_OUT: a->out = optarg; break;
      case OPT_TIMING: a->timing = optarg; break;
      case OPT_PIN: a->pin_mode = optarg; break;
      case OPT_REPS:
        if (dh_cmdline_parse_long(optarg, 1, 1000, &reps) != 0)
          return dh_cmdline_usage_error("bench", "--repetitions wants an integer 1..1000, got '%s'",
                                    dh_cmdline_quote(optarg));
        a->reps = (int)reps;
        break;
      default: return dh_cmdline_bad_option("bench", kOpts, n, ours);
    }
  }
  if (dh_cmdline_no_operands("bench", n, ours) != DH_EXIT_OK) return DH_EXIT_USAGE;
  if (dh_bench_suites_check(a->suites) != DH_EXIT_OK) return DH_EXIT_USAGE;
  if (dh_cmdline_choice(a->timing, kTimings) < 0)
    return dh_cmdline_usage_error("bench", "--timing wants auto, host or device, got '%s'", dh_cmdline_quote(a->timing));
  if (dh_cmdline_choice(a->pin_mode, kPins) < 0)
    return dh_cmdline_usage_error("bench", "--pin wants core, node or none, got '%s'", dh_cmdline_quote(a->pin_mode));
  return -1;
}

/* Google Benchmark's argv: our defaults (min time, warm-up, repetitions, interleaving)
 * before the user's --benchmark_* flags, so the user's win; then --out. */
static int build_gb_argv(bench_args_t* a, const char* argv0, char** user_flags, int n_user) {
  a->ngb = 0;
  a->gb[a->ngb++] = (char*)argv0;
  a->gb[a->ngb++] = a->quick ? "--benchmark_min_time=0.01" : "--benchmark_min_time=0.1";
  a->gb[a->ngb++] = a->quick ? "--benchmark_min_warmup_time=0.002" : "--benchmark_min_warmup_time=0.02";
  snprintf(a->reps_flag, sizeof a->reps_flag, "--benchmark_repetitions=%d", a->reps > 0 ? a->reps : 1);
  a->gb[a->ngb++] = a->reps_flag;
  /* With repetitions, interleave them (Google Benchmark shuffles the repetitions of all
   * selected benchmarks together), so a harness benchmark and its raw twin see the same
   * load drift and their ratio is not skewed by it; --benchmark_enable_random_interleaving
   * given by the user wins (it comes later). */
  a->order = "single repetition";
  a->gb[a->ngb++] = "--benchmark_enable_random_interleaving=false";
  if (a->reps >= 2) {
    a->gb[a->ngb - 1] = "--benchmark_enable_random_interleaving=true";
    a->order = "interleaved: the repetitions of all benchmarks run in one random order";
  }
  for (int k = 0; k < n_user; ++k) {
    a->gb[a->ngb++] = user_flags[k];
    if (strncmp(user_flags[k], "--benchmark_enable_random_interleaving", 38) == 0)
      a->order = user_flags[k]; /* the user's flag, as given */
  }
  if (a->out) {
    size_t n = strlen(a->out) + 32;
    if (!(a->out_flag = malloc(n))) return dh_cmdline_usage_error("bench", "out of memory");
    snprintf(a->out_flag, n, "--benchmark_out=%s", a->out);
    a->gb[a->ngb++] = a->out_flag;
    a->gb[a->ngb++] = "--benchmark_out_format=json";
  }
  a->gb[a->ngb] = NULL;
  return DH_EXIT_OK;
}

/* Adds every device of every backend (or the --device one) to *devs (dh_device_select,
 * in this process: bench initialises the backends anyway); a backend without devices
 * goes into the context with the reason. Returns 0, or an exit code. */
static int find_devices(const bench_args_t* a, dh_bench_device_t** devs, size_t* ndev) {
  *ndev = 0;
  if (!dh_bench_suites_need_devices(a->suites)) return (*devs = calloc(1, sizeof **devs)) ? 0 : DH_EXIT_USAGE;
  dh_device_list_t sel;
  dh_device_select_params_t params = {.spec = a->device};
  if (dh_cmdline_select_devices("bench", &params, &sel) != DH_EXIT_OK) return DH_EXIT_USAGE;
  if (!(*devs = calloc(sel.count + 1, sizeof **devs))) {
    dh_device_list_free(&sel);
    return DH_EXIT_USAGE;
  }
  for (size_t i = 0; i < sel.count; ++i) {
    const dh_device_entry_t* e = &sel.entries[i];
    if (e->device.device_id < 0) {
      char key[128], val[600];
      snprintf(key, sizeof key, "backend.%s", e->backend->name);
      snprintf(val, sizeof val, "no devices: %s", e->reason[0] ? e->reason : "unknown reason");
      dh_gb_add_context(key, val);
      fprintf(stderr, "devharness bench: backend %s: %s\n", e->backend->name, val);
      continue;
    }
    dh_bench_device_t* d = &(*devs)[(*ndev)++];
    d->dev = e->device;
    d->backend = e->backend;
    dh_device_format(d->dev, d->spec, sizeof d->spec);
  }
  dh_device_list_free(&sel);
  return 0;
}

/* Each device's context line and its memory ceiling, where the backend reports one. */
static void describe_devices(const dh_bench_device_t* devs, size_t ndev) {
  for (size_t i = 0; i < ndev; ++i) {
    char key[128], val[1024];
    snprintf(key, sizeof key, "device.%s", devs[i].spec);
    snprintf(val, sizeof val,
             "backend=%s; name=%s; driver=%s; target=%s; timing=%s; raw_twin=%s", 
             devs[i].backend->name, attr_str(devs[i].dev, DH_ATTR_DEVICE_NAME),
             attr_str(devs[i].dev, DH_ATTR_DRIVER_VERSION),
             devs[i].backend->target_kind ? devs[i].backend->target_kind : "none",
             (devs[i].backend->caps & DH_CAP_EVENT_TIMING) ? "device events (copies)"
                                                           : "host clock",
             devs[i].backend->raw && devs[i].backend->raw->api_name ? devs[i].backend->raw->api_name
                                                                  : "none");
    dh_gb_add_context(key, val);
    dh_any_t arg = dh_any_device(devs[i].dev), rv = dh_any_none();
    double peak = 0;
    if (dh_device_call(devs[i].dev, DH_FUNC_MEMORY_PEAK_BANDWIDTH, &arg, 1, &rv) == 0 &&
        rv.type_index == DH_TYPE_FLOAT && rv.v_float64 > 0) {
      peak = rv.v_float64;
      snprintf(key, sizeof key, "ceiling.%s.device_memory", devs[i].spec);
      snprintf(val, sizeof val,
               "%.1f GB/s reads + writes (%s.%s: memory clock x 2 x bus width / 8); D2D with "
               "bytes counted once peaks at half",
               rv.v_float64 / 1e9, devs[i].backend->name, DH_FUNC_MEMORY_PEAK_BANDWIDTH);
      dh_gb_add_context(key, val);
    } else {
      dh_error_clear();
    }
    dh_bench_peak_add(devs[i].spec, devs[i].dev.device_type, peak);
  }
}

/* dh_device_stream_sync on the default stream of one device (dh_bench_as_helper). */
static int warm_default_stream(void* p) {
  const dh_bench_device_t* d = p;
  return dh_device_stream_sync(d->dev, NULL);
}

/* The run's method in the context: timing, buffers, threads, ceilings, pinning. */
static void describe_method(const bench_args_t* a, int host_timing) {
  dh_gb_add_context("devharness.timing",
                    host_timing
                        ? "host clock around copy + sync on both sides of every pair (--timing "
                          "auto/host): device events and the twins' device timers do not bracket "
                          "the same span on every API (docs/benchmarks.md)"
                        : "copies: device events (harness) vs raw twin device timers where "
                          "available (--timing device; not like for like on every API), else "
                          "host clock; sync, launch: host clock");
  char v[256];
  snprintf(v, sizeof v,
           "every copy buffer (host, pinned, device; harness and twin) %d-byte aligned: source "
           "and destination at relative offset 0 mod 4096 on both sides",
           DH_BENCH_BUFFER_ALIGN);
  dh_gb_add_context("devharness.buffer_alignment", v);
  snprintf(v, sizeof v,
           "buffers and twin contexts kept for the whole run (up to %zu MiB, then least "
           "recently used released), every buffer written before timing, one untimed copy "
           "before each repetition's timed loop",
           dh_bench_cache_budget() >> 20);
  dh_gb_add_context("devharness.buffers", v);
  dh_gb_add_context("devharness.helper_threads", a->helper_threads);
  dh_gb_add_context("ceiling.host_link", dh_bench_find_host_link());
  char pindesc[512];
  pin(a->pin_mode, pindesc, sizeof pindesc);
  dh_gb_add_context("devharness.pinning", pindesc);
  dh_gb_add_context("devharness.driver_threads", a->driver_threads);
  dh_gb_add_context("devharness.version", DH_VERSION_STRING);
  dh_gb_add_context("devharness.bytes_processed", "bytes copied, counted once");
  dh_gb_add_context("devharness.mode", a->quick ? "quick" : "full");
  dh_gb_add_context("devharness.repetition_order", a->order);
}

/* Adds the summary to --out's JSON (or beside it when it cannot be read back). */
static int write_summary(const char* out, json_t* sum) {
  int rc = DH_EXIT_OK;
  json_error_t err;
  json_t* root = json_load_file(out, 0, &err);
  if (!root) {
    /* e.g. a NaN Google Benchmark wrote: keep its file, put the summary beside it. */
    char side[PATH_MAX + 16];
    snprintf(side, sizeof side, "%s.summary.json", out);
    fprintf(stderr, "devharness bench: cannot parse %s back (%s, line %d); summary written to %s\n",
            out, err.text, err.line, side);
    if (json_dump_file(sum, side, JSON_INDENT(2)) != 0) {
      fprintf(stderr, "devharness bench: cannot write %s\n", side);
      rc = DH_EXIT_VIOLATION;
    }
    return rc;
  }
  json_object_set(root, "devharness_summary", sum);
  if (json_dump_file(root, out, JSON_INDENT(2)) != 0) {
    fprintf(stderr, "devharness bench: cannot write %s: %s\n", out, strerror(errno));
    rc = DH_EXIT_VIOLATION;
  }
  json_decref(root);
  return rc;
}

/* Everything after the options: devices, context, pinning, the suites, the summary. */
static int run_bench(bench_args_t* a, dh_bench_device_t** devs) {
  char exe[PATH_MAX]; /* the executable's folder */
  snprintf(exe, sizeof exe, "%s", dh_cmdline_self_path());
  char* slash = strrchr(exe, '/');
  if (slash) *slash = '\0';
  else snprintf(exe, sizeof exe, ".");
  /* Driver threads placed before any backend starts its driver (PoCL reads its
   * environment when its platform starts). */
  place_driver_threads(a->pin_mode, a->driver_threads, sizeof a->driver_threads);
  /* Backends and devices (inits every backend, before pinning: their threads stay free). */
  dh_plugins_load_default();
  for (size_t i = 0; i < dh_plugin_refusal_count(); ++i)
    fprintf(stderr, "devharness bench: plugin refused: %s\n", dh_plugin_refusal(i));
  size_t ndev = 0;
  int rc = find_devices(a, devs, &ndev);
  if (rc != 0) return rc;
  describe_devices(*devs, ndev);
  /* Backends may start a device's default-stream worker lazily: start them now, on
   * the helper PUs, before the benchmark thread is pinned. */
  place_helpers(a->pin_mode, a->helper_threads, sizeof a->helper_threads);
  for (size_t i = 0; i < ndev; ++i)
    if (dh_bench_as_helper(warm_default_stream, &(*devs)[i]) != 0) dh_error_clear();
  int host_timing = strcmp(a->timing, "device") != 0;
  describe_method(a, host_timing);
  dh_gb_initialize(&a->ngb, a->gb);
  if (a->ngb > 1) {
    fprintf(stderr, "devharness bench: Google Benchmark does not know '%s'\n", a->gb[1]);
    return DH_EXIT_USAGE;
  }
  dh_bench_opts_t o = {a->quick, a->reps, *devs, ndev, exe, host_timing};
  if ((rc = dh_bench_suites_register(a->suites, &o)) != DH_EXIT_OK) return rc;
  long matched = dh_gb_run_specified(dh_bench_on_result, NULL);
  dh_bench_cache_release();
  if (matched < 0) return DH_EXIT_VIOLATION;
  if (matched == 0) {
    fprintf(stderr, "devharness bench: no benchmark matched\n");
    return DH_EXIT_VIOLATION;
  }
  json_t* sum = dh_bench_summarize();
  rc = a->out ? write_summary(a->out, sum) : DH_EXIT_OK;
  json_decref(sum);
  fflush(stdout);
  return rc;
}

int dh_bench_main(int argc, char** argv) {
  bench_args_t a = {0};
  a.pin_mode = "core";
  a.timing = "auto";
  size_t n = (size_t)argc + 16;
  char** user_gb = calloc(n, sizeof *user_gb); /* the user's --benchmark_* flags */
  char** ours = calloc(n, sizeof *ours);       /* the other words, for getopt_long */
  a.gb = calloc(n, sizeof *a.gb);              /* Google Benchmark's argv */
  dh_bench_device_t* devs = NULL;
  int rc = DH_EXIT_USAGE;
  if (user_gb && ours && a.gb) {
    int n_user = 0;
    rc = parse_bench_args(argc, argv, &a, ours, user_gb, &n_user);
    if (rc < 0) {
      rc = build_gb_argv(&a, argc > 0 ? argv[0] : "bench", user_gb, n_user);
      if (rc == DH_EXIT_OK) rc = run_bench(&a, &devs);
    }
  }
  dh_bench_free_all();
  dh_bench_results_free();
  free(devs);
  free(a.out_flag);
  free(a.gb);
  free(user_gb);
  free(ours);
  return rc;
}
