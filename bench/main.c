/*
 * bench/main.c — `devharness bench` (bench/bench.h dh_bench_main): the order of a run.
 * Options, devices and thread placement are bench/steps.h's, the suites bench/suites/suites.h's,
 * the summary after the run bench/report/summary.h's; this file puts them in order and states
 * the run's method in the JSON context.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/measure/measure.h"
#include "bench/report/expect.h"
#include "bench/report/summary.h"
#include "bench/steps.h"
#include "bench/suites/matrix.h"
#include "bench/suites/suites.h"
#include "cmdline/cmdline.h"
#include "devharness/devharness.h"
#include "machine/ceilings.h"
#include "machine/health.h"

/* What the context says about where threads run (bench/measure/pinning.c). */
typedef struct placement {
  char driver_threads[256];
  char helper_threads[512];
  char pinning[512];
} placement_t;

/* dh_device_stream_sync on the default stream of one device (dh_bench_as_helper). */
static int warm_default_stream(void* p) {
  const dh_bench_device_t* d = p;
  return dh_device_stream_sync(d->dev, NULL);
}

/* The run's method in the context: timing, buffers, threads, ceilings, pinning. */
static void describe_method(const dh_bench_args_t* a, int host_timing, const placement_t* pl) {
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
  dh_gb_add_context("devharness.helper_threads", pl->helper_threads);
  double link_gbps = 0;
  dh_gb_add_context("ceiling.host_link", dh_machine_find_host_link(&link_gbps));
  dh_gb_add_context("devharness.pinning", pl->pinning);
  dh_gb_add_context("devharness.driver_threads", pl->driver_threads);
  dh_gb_add_context("devharness.version", DH_VERSION_STRING);
  dh_gb_add_context("devharness.bytes_processed", "bytes copied, counted once");
  /* one unit everywhere: SI (bench/measure/gbench.cc dh_gb_set_bytes_processed), as the summary and plots */
  dh_gb_add_context("devharness.bandwidth_unit",
                    "bytes_per_second in SI units: k/s, M/s, G/s = 10^3, 10^6, 10^9 bytes/s (G/s = GB/s, "
                    "not GiB/s), as the summary and the plots print GB/s");
  dh_gb_add_context("devharness.mode", a->quick ? "quick" : "full");
  dh_gb_add_context("devharness.repetition_order", a->order);
}

/* The folder of the running executable, where the call suite looks for its module. */
static void exe_dir(char* buf, size_t size) {
  snprintf(buf, size, "%s", dh_cmdline_self_path());
  char* slash = strrchr(buf, '/');
  if (slash) *slash = '\0';
  else snprintf(buf, size, ".");
}

/* Every field of snapshot h in the context as "devharness.health.<when>.<key>" (the keys
 * of dh_machine_health_json). */
static void health_context(const char* when, const dh_machine_health_t* h) {
  json_t* o = dh_machine_health_json(h);
  const char* key;
  json_t* v;
  json_object_foreach(o, key, v) {
    char k[96];
    snprintf(k, sizeof k, "devharness.health.%s.%s", when, key);
    dh_gb_add_context(k, json_string_value(v));
  }
  json_decref(o);
}

/* The health verdict of the run (docs/benchmarks.md "Measurement health"): the
 * snapshots after the run, then "noisy" and its reasons, printed under the summary and
 * added to sum as "health" and "context_after_run" (merged into --out's context by
 * dh_bench_out_publish: the shared keys devharness.health.noisy and .reasons). */
static void health_verdict(const dh_bench_args_t* a, const dh_machine_health_t* before, json_t* sum) {
  dh_machine_health_t after;
  dh_machine_health_take(&after);
  char reasons[2048] = "";
  dh_machine_health_reasons(NULL, before, &after, reasons, sizeof reasons);
  dh_machine_health_cv_reasons(json_object_get(sum, "copy_cv"), a->noisy_cv, reasons, sizeof reasons);
  json_t* ctx = json_object();
  json_t* aj = dh_machine_health_json(&after);
  const char* key;
  json_t* v;
  json_object_foreach(aj, key, v) {
    char k[96];
    snprintf(k, sizeof k, "devharness.health.after.%s", key);
    json_object_set(ctx, k, v);
  }
  char thr[64];
  snprintf(thr, sizeof thr, "%g", a->noisy_cv);
  json_object_set_new(ctx, "devharness.health.cv_threshold_percent", json_string(thr));
  json_object_set_new(ctx, "devharness.health.noisy", json_string(reasons[0] ? "yes" : "no"));
  json_object_set_new(ctx, "devharness.health.reasons", json_string(reasons));
  json_t* h = json_object();
  json_object_set_new(h, "before", dh_machine_health_json(before));
  json_object_set_new(h, "after", aj);
  json_object_set_new(h, "noisy", json_boolean(reasons[0] != 0));
  json_object_set_new(h, "reasons", json_string(reasons));
  json_object_set_new(sum, "health", h);
  json_object_set_new(sum, "context_after_run", ctx);
  printf("== measurement health: %s%s%s\n", reasons[0] ? "NOISY: " : "not noisy", reasons,
         reasons[0] ? "" : " (no GPU throttling, governor unchanged, no other work beside it, CVs within the threshold)");
  printf("  before: governor %s; %s; load %s; %s\n", before->governor, before->frequency, before->load,
         before->thread);
  printf("  after:  governor %s; %s; load %s; %s\n", after.governor, after.frequency, after.load, after.thread);
  printf("  nvml:   %s\n", after.nvml);
  for (int g = 0; g < after.ngpu; ++g) printf("  gpu%d:   %s\n", g, after.gpu[g]);
}

/* Runs the registered benchmarks, prints the summary (the health verdict and the
 * --expect verdicts) and adds it to --out's JSON; a device below a floor makes the exit 1
 * after --out. */
static int run_and_summarize(const dh_bench_args_t* a, const dh_bench_device_t* devs, size_t ndev,
                             const dh_machine_health_t* before) {
  long matched = dh_gb_run_specified(dh_bench_on_result, NULL);
  dh_bench_cache_release();
  if (matched < 0) return DH_EXIT_VIOLATION;
  if (matched == 0) {
    fprintf(stderr, "devharness bench: no benchmark matched\n");
    return DH_EXIT_VIOLATION;
  }
  json_t* sum = dh_bench_summarize();
  int failed = 0;
  json_t* verdicts = dh_bench_expect_evaluate(devs, ndev, &failed);
  if (verdicts) json_object_set_new(sum, "expect", verdicts);
  health_verdict(a, before, sum);
  json_t* matrix = dh_bench_matrix_report();
  if (matrix) json_object_set_new(sum, "copy_matrix", matrix);
  int rc = a->out ? dh_bench_out_publish(a->out, a->out_tmp, sum) : DH_EXIT_OK;
  if (rc == DH_EXIT_OK && failed > 0) {
    fprintf(stderr, "devharness bench: %d expectation%s of %s not met (a device below its floor)\n", failed,
            failed == 1 ? "" : "s", a->expect);
    rc = DH_EXIT_VIOLATION;
  }
  json_decref(sum);
  fflush(stdout);
  return rc;
}

/* Everything after the options, in this order: driver threads placed before any
 * backend starts its driver (PoCL reads its environment when its platform starts);
 * the backends initialised before pinning (threads they start at init stay free); the
 * default-stream workers a backend may start lazily started now, on the helper PUs;
 * then the benchmark thread pinned, the context, the suites and the run. */
static int run_bench(dh_bench_args_t* a, dh_bench_device_t** devs) {
  char exe[PATH_MAX];
  exe_dir(exe, sizeof exe);
  placement_t pl;
  dh_bench_place_driver_threads(a->pin_mode, pl.driver_threads, sizeof pl.driver_threads);
  dh_cmdline_device_options_end(); /* the device options given: the backends they name are found now */
  dh_plugins_load_default();
  for (size_t i = 0; i < dh_plugin_refusal_count(); ++i)
    fprintf(stderr, "devharness bench: plugin refused: %s\n", dh_plugin_refusal(i));
  size_t ndev = 0;
  int rc = dh_bench_find_devices(a->suites, a->device, devs, &ndev);
  if (rc != 0) return rc;
  dh_bench_describe_devices(*devs, ndev);
  dh_bench_pin_locate(a->pin_mode, *devs, ndev);
  dh_bench_place_helpers(a->pin_mode, pl.helper_threads, sizeof pl.helper_threads);
  for (size_t i = 0; i < ndev; ++i)
    if (dh_bench_as_helper(warm_default_stream, &(*devs)[i]) != 0) dh_error_clear();
  dh_bench_pin(a->pin_mode, pl.pinning, sizeof pl.pinning);
  if (a->expect && (rc = dh_bench_expect_load(a->expect)) != DH_EXIT_OK) return rc;
  dh_bench_find_ceilings(*devs, ndev);
  int host_timing = strcmp(a->timing, "device") != 0;
  describe_method(a, host_timing, &pl);
  dh_machine_health_t before; /* after pinning: the benchmark thread's CPU and node */
  dh_machine_health_take(&before);
  health_context("before", &before);
  dh_gb_initialize(&a->ngb, a->gb);
  if (a->ngb > 1) {
    fprintf(stderr, "devharness bench: Google Benchmark does not know '%s'\n", a->gb[1]);
    return DH_EXIT_USAGE;
  }
  dh_bench_opts_t o = {a->quick, a->reps, *devs, ndev, exe, host_timing, a->module};
  if ((rc = dh_bench_suites_register(a->suites, &o)) != DH_EXIT_OK) return rc;
  return run_and_summarize(a, *devs, ndev, &before);
}

/* --quiet: stdout goes to /dev/null for the run (Google Benchmark's table, the
 * summaries); returns a duplicate of the real stdout for the verdict line, or -1. */
static int quiet_begin(void) {
  fflush(stdout);
  int keep = dup(STDOUT_FILENO);
  int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (keep < 0 || null < 0 || dup2(null, STDOUT_FILENO) < 0) {
    if (keep >= 0) close(keep);
    keep = -1;
  }
  if (null >= 0) close(null);
  return keep;
}

static void quiet_end(int keep, int rc) {
  fflush(stdout);
  if (keep < 0) return;
  dup2(keep, STDOUT_FILENO);
  close(keep);
  printf("devharness bench: %zu benchmark run%s%s (exit %d)\n", dh_bench_result_count(),
         dh_bench_result_count() == 1 ? "" : "s", rc == DH_EXIT_OK ? "" : rc == DH_EXIT_NO_DEVICE ? ", no device"
                                                                      : ", failed", rc);
  fflush(stdout);
}

int dh_bench_main(int argc, char** argv) {
  dh_bench_args_t a;
  dh_bench_device_t* devs = NULL;
  int rc = dh_bench_args_parse(argc, argv, &a);
  int ran = rc < 0;
  if (rc < 0 && a.quiet) {
    int keep = quiet_begin();
    rc = run_bench(&a, &devs);
    quiet_end(keep, rc);
  } else if (rc < 0) {
    rc = run_bench(&a, &devs);
  }
  if (ran && a.bundle_dir && rc == DH_EXIT_USAGE) {
    dh_bench_out_discard(a.out_tmp); /* a usage error found late (a bad --device): */
    dh_store_bundle_discard(&a.bundle);    /* no bundle, not even its folder */
  } else if (ran && a.bundle_dir) { /* --bundle: info.json, then the manifest, last */
    dh_store_bundle_meta_t m = {.shard_index = 1, .shard_total = 1, .profile = "default", .exit_code = rc};
    if (dh_store_bundle_write_info(&a.bundle, a.device, NULL, 0) != 0 || dh_store_bundle_finish(&a.bundle, &m) != 0)
      rc = rc == DH_EXIT_OK ? DH_EXIT_VIOLATION : rc;
  }
  dh_bench_module_release();
  dh_bench_free_all();
  dh_bench_results_free();
  dh_bench_expect_free();
  free(devs);
  dh_bench_args_free(&a);
  return rc;
}
