/*
 * tests/machine/test_health.c — the noisy verdict of machine/health.c on made-up snapshots
 * (docs/benchmarks.md "Measurement health"): a governor that changed, a load average
 * above the online CPUs (when no CPU time is known), other processes' CPU time over the
 * span (devharness's own, which the load average lags behind, not counted), GPU throttle reasons (gpu_idle and applications_clocks_setting
 * are not throttling; the same reasons before and after are one reason), copies whose
 * CV is above the threshold (three named, then a count and the worst), and the JSON
 * keys of a snapshot. A real snapshot of this machine is taken too: every field filled.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "machine/health.h"

static dh_machine_health_t g_a, g_b;

/* Two quiet snapshots: same governor, load 0.5 on 2 CPUs, no GPU. */
static void quiet(void) {
  memset(&g_a, 0, sizeof g_a);
  snprintf(g_a.governor, sizeof g_a.governor, "performance (CPUs 0,1)");
  g_a.load1 = 0.5;
  g_a.cpus_online = 2;
  g_b = g_a;
}

static void test_quiet_is_not_noisy(void** state) {
  (void)state;
  quiet();
  char r[1024] = "";
  dh_machine_health_reasons("bench", &g_a, &g_b, r, sizeof r);
  assert_string_equal(r, "");
}

static void test_governor_change(void** state) {
  (void)state;
  quiet();
  snprintf(g_b.governor, sizeof g_b.governor, "powersave (CPUs 0,1)");
  char r[1024] = "";
  dh_machine_health_reasons(NULL, &g_a, &g_b, r, sizeof r);
  assert_string_equal(r, "CPU governor changed from performance (CPUs 0,1) to powersave (CPUs 0,1)");
  /* without cpufreq nothing can change */
  snprintf(g_a.governor, sizeof g_a.governor, "unknown: no cpufreq (x)");
  snprintf(g_b.governor, sizeof g_b.governor, "unknown: no cpufreq (y)");
  r[0] = '\0';
  dh_machine_health_reasons(NULL, &g_a, &g_b, r, sizeof r);
  assert_string_equal(r, "");
}

static void test_load_above_cpus(void** state) {
  (void)state;
  quiet();
  g_b.load1 = 2.5;
  char r[1024] = "";
  dh_machine_health_reasons("conformance", &g_a, &g_b, r, sizeof r);
  assert_string_equal(r, "conformance: 1-minute load average 0.50 before, 2.50 after, above the 2 online CPUs "
                         "(other work ran)");
  g_b.load1 = 2.0; /* equal to the CPUs: not above */
  r[0] = '\0';
  dh_machine_health_reasons("conformance", &g_a, &g_b, r, sizeof r);
  assert_string_equal(r, "");
}

/* CPU time known: the load average no longer decides; other processes' CPU time does. */
static void test_other_work(void** state) {
  (void)state;
  quiet();
  g_a.wall_s = 100, g_b.wall_s = 105;
  g_a.busy_s = 1000, g_a.own_s = 50;
  g_b.load1 = 2.87;                       /* lagging: devharness's own previous step */
  g_b.busy_s = 1010, g_b.own_s = 59.5;    /* 10 CPU-s, 9.5 of them ours */
  char r[1024] = "";
  dh_machine_health_reasons("bench", &g_a, &g_b, r, sizeof r);
  assert_string_equal(r, "");
  g_b.steal_s = 4;                         /* 0.8 CPUs to the hypervisor: below its limit */
  dh_machine_health_reasons("bench", &g_a, &g_b, r, sizeof r);
  assert_string_equal(r, "");
  g_b.steal_s = 6;
  dh_machine_health_reasons(NULL, &g_a, &g_b, r, sizeof r);
  assert_string_equal(r, "the hypervisor took 1.20 CPUs on average over 5.0 s (/proc/stat steal)");
  g_b.steal_s = 0, r[0] = '\0';
  g_b.own_s = 52;                          /* 8 CPU-s of others in 5 s */
  dh_machine_health_reasons("bench", &g_a, &g_b, r, sizeof r);
  assert_string_equal(r, "bench: other processes used 1.60 CPUs on average over 5.0 s (/proc/stat less "
                         "devharness's own CPU time, 1-minute load average 0.50 before, 2.87 after, 2 CPUs online)");
}

/* A real snapshot: the machine's CPU time and this process's are read. */
static void test_cpu_time_read(void** state) {
  (void)state;
  dh_machine_health_t h;
  dh_machine_health_take(&h);
  assert_true(h.busy_s > 0);
  assert_true(h.wall_s > 0);
  assert_true(h.own_s >= 0);
}

static void test_throttle(void** state) {
  (void)state;
  quiet();
  g_a.ngpu = g_b.ngpu = 2;
  g_a.throttle[0] = g_b.throttle[0] = 0x4 | 0x1; /* sw_power_cap (and idle) both times */
  g_a.throttle[1] = 0x3;                         /* idle + application clocks: benign */
  g_b.throttle[1] = 0x8 | 0x200;                 /* hw_slowdown and an unnamed bit after */
  char r[1024] = "";
  dh_machine_health_reasons(NULL, &g_a, &g_b, r, sizeof r);
  assert_string_equal(r, "gpu0 throttled before and after (NVML clocks-event reasons 0x4: sw_power_cap); "
                         "gpu1 throttled after (NVML clocks-event reasons 0x208: hw_slowdown, other 0x200)");
  g_a.throttle[0] = g_b.throttle[0] = g_b.throttle[1] = DH_MACHINE_BENIGN_THROTTLE;
  r[0] = '\0';
  dh_machine_health_reasons(NULL, &g_a, &g_b, r, sizeof r);
  assert_string_equal(r, "");
  char names[128];
  assert_string_equal(dh_machine_throttle_names(0, names, sizeof names), "none");
  assert_string_equal(dh_machine_throttle_names(0x60, names, sizeof names), "sw_thermal_slowdown, hw_thermal_slowdown");
}

static void test_cv(void** state) {
  (void)state;
  json_t* cvs = json_pack("[{s:s,s:f},{s:s,s:f},{s:s,s:f},{s:s,s:f},{s:s,s:f}]", "name", "copy/a/1048576", "cv",
                          0.05, "name", "copy/b/1048576", "cv", 0.12, "name", "copy/c/1048576", "cv", 0.33, "name",
                          "copy/d/1048576", "cv", 0.20, "name", "copy/e/1048576", "cv", 0.11);
  assert_non_null(cvs);
  char r[2048] = "";
  dh_machine_health_cv_reasons(cvs, 10, r, sizeof r);
  assert_string_equal(r, "CV 12.0 % above 10 % on copy/b/1048576; CV 33.0 % above 10 % on copy/c/1048576; "
                         "CV 20.0 % above 10 % on copy/d/1048576; 4 copies >= 1 MiB with CV above 10 % in all "
                         "(worst 33.0 %, copy/c/1048576)");
  r[0] = '\0';
  dh_machine_health_cv_reasons(cvs, 0, r, sizeof r); /* 0: off */
  assert_string_equal(r, "");
  dh_machine_health_cv_reasons(cvs, 40, r, sizeof r);
  assert_string_equal(r, "");
  json_decref(cvs);
}

static void test_snapshot_of_this_machine(void** state) {
  (void)state;
  setenv("DEVHARNESS_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
  dh_machine_health_t h;
  dh_machine_health_take(&h);
  assert_true(h.governor[0] && h.frequency[0] && h.load[0] && h.thread[0]);
  assert_true(h.cpus_online > 0);
  assert_true(h.load1 >= 0);
  assert_non_null(strstr(h.thread, "NUMA node"));
  static const char kNoNvml[] = "unknown: no NVML (/nonexistent/libnvidia-ml.so.1 not loaded: ";
  assert_int_equal(strncmp(h.nvml, kNoNvml, sizeof kNoNvml - 1), 0);
  assert_int_equal(h.ngpu, 0);
  json_t* o = dh_machine_health_json(&h);
  assert_string_equal(json_string_value(json_object_get(o, "cpu_governor")), h.governor);
  assert_string_equal(json_string_value(json_object_get(o, "load_average")), h.load);
  assert_int_equal(strncmp(json_string_value(json_object_get(o, "thread")), "CPU ", 4), 0);
  assert_int_equal(strncmp(json_string_value(json_object_get(o, "nvml")), kNoNvml, sizeof kNoNvml - 1), 0);
  assert_null(json_object_get(o, "gpu0"));
  json_decref(o);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_quiet_is_not_noisy), cmocka_unit_test(test_governor_change),
      cmocka_unit_test(test_load_above_cpus),    cmocka_unit_test(test_throttle),
      cmocka_unit_test(test_cv),                 cmocka_unit_test(test_snapshot_of_this_machine),
      cmocka_unit_test(test_other_work),         cmocka_unit_test(test_cpu_time_read),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
