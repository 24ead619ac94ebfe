/*
 * tests/bench/test_gbench.c — the Google Benchmark C wrapper (bench/measure/gbench.h) works:
 * registered C functions run with their user data and arguments, counters, bytes,
 * labels, manual time, pause/resume, fixed iterations, repetitions, errors and custom
 * context all reach Google Benchmark's JSON output and the result callback.
 * Google Benchmark runs once (group setup); each test checks the JSON. Interleaved
 * repetitions (what `devharness bench --repetitions N` asks for) are checked in a child
 * run of this program (--interleave-order), since Google Benchmark initialises once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "bench/measure/gbench.h"

static char g_console[1 << 16]; /* the console report of the run in setup */

static json_t* g_json;
static int g_calls_plain;
static int64_t g_seen_args[16];
static int g_nseen;
static int g_results;
static double g_manual_ns_cb;

static void sleep_ms(int ms) {
  struct timespec ts = {0, ms * 1000000L};
  nanosleep(&ts, NULL);
}

static void bm_plain(dh_gb_state_t* st, void* user) {
  int* calls = user;
  ++*calls;
  volatile int x = 0;
  while (dh_gb_keep_running(st)) x++;
  dh_gb_set_bytes_processed(st, dh_gb_iterations(st) * 1000);
  dh_gb_set_items_processed(st, dh_gb_iterations(st) * 3);
  dh_gb_counter(st, "widgets", 42.0, DH_GB_COUNTER_DEFAULT);
  dh_gb_counter(st, "per_iter", (double)dh_gb_iterations(st) * 5, DH_GB_COUNTER_AVG_ITERATIONS);
  dh_gb_set_label(st, "hello label");
}

static void bm_args(dh_gb_state_t* st, void* user) {
  (void)user;
  if (g_nseen < 16) g_seen_args[g_nseen++] = dh_gb_range(st, 0);
  while (dh_gb_keep_running(st)) {
  }
}

static void bm_manual(dh_gb_state_t* st, void* user) {
  (void)user;
  while (dh_gb_keep_running(st)) dh_gb_set_iteration_time(st, 0.002); /* 2 ms, not measured */
}

static void bm_paused(dh_gb_state_t* st, void* user) {
  (void)user;
  while (dh_gb_keep_running(st)) {
    dh_gb_pause_timing(st);
    sleep_ms(3);
    dh_gb_resume_timing(st);
  }
}

static void bm_error(dh_gb_state_t* st, void* user) {
  (void)user;
  dh_gb_skip_with_error(st, "device went away");
  while (dh_gb_keep_running(st)) {
  }
}

static void bm_batch(dh_gb_state_t* st, void* user) {
  (void)user;
  while (dh_gb_keep_running_batch(st, 10)) {
  }
}

static void on_result(const dh_gb_result_t* r, void* user) {
  (void)user;
  ++g_results;
  if (strncmp(r->name, "t/manual", 8) == 0 && !r->aggregate[0]) g_manual_ns_cb = r->real_time_ns;
}

static json_t* find(const char* name) {
  size_t i;
  json_t* b;
  json_array_foreach(json_object_get(g_json, "benchmarks"), i, b) {
    if (strcmp(json_string_value(json_object_get(b, "name")), name) == 0) return b;
  }
  return NULL;
}

static double num(json_t* b, const char* key) {
  json_t* v = json_object_get(b, key);
  assert_non_null(v);
  return json_number_value(v);
}

static int setup(void** state) {
  (void)state;
  char path[] = "/tmp/dh_test_gbench_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return -1;
  close(fd);
  char out[128];
  snprintf(out, sizeof out, "--benchmark_out=%s", path);
  char* argv[] = {"test_gbench", out, "--benchmark_out_format=json", "--not_a_gb_flag", NULL};
  int argc = 4;
  dh_gb_bench_t* b = dh_gb_register("t/plain", bm_plain, &g_calls_plain);
  if (!dh_gb_bench_iterations(b, 100)) return -1;
  b = dh_gb_register("t/range", bm_args, NULL);
  dh_gb_bench_range_multiplier(b, 4);
  dh_gb_bench_range(b, 4, 64);
  dh_gb_bench_iterations(b, 5);
  b = dh_gb_register("t/dense", bm_args, NULL);
  dh_gb_bench_dense_range(b, 1, 3, 1);
  dh_gb_bench_iterations(b, 5);
  b = dh_gb_register("t/manual", bm_manual, NULL);
  dh_gb_bench_use_manual_time(b);
  dh_gb_bench_unit(b, DH_GB_MS);
  dh_gb_bench_iterations(b, 10);
  b = dh_gb_register("t/paused", bm_paused, NULL);
  dh_gb_bench_iterations(b, 5);
  dh_gb_bench_use_real_time(b);
  dh_gb_bench_unit(b, DH_GB_US);
  b = dh_gb_register("t/error", bm_error, NULL);
  dh_gb_bench_iterations(b, 5);
  b = dh_gb_register("t/reps", bm_args, NULL);
  int64_t two[2] = {7, 9};
  dh_gb_bench_args(b, two, 2);
  dh_gb_bench_iterations(b, 3);
  dh_gb_bench_repetitions(b, 3);
  b = dh_gb_register("t/batch", bm_batch, NULL);
  dh_gb_bench_iterations(b, 50);
  if (dh_gb_register(NULL, bm_plain, NULL) != NULL) return -1;
  if (dh_gb_bench_range(NULL, 1, 2) != NULL) return -1;
  dh_gb_add_context("devharness.test", "context value");
  int left = dh_gb_initialize(&argc, argv);
  if (left != 1 || argc != 2 || strcmp(argv[1], "--not_a_gb_flag") != 0) return -1;
  /* The console report would mix with TAP on stdout: it goes to a file, kept for
   * test_console_report (context header first, skips as "not measured"). */
  fflush(stdout);
  char cpath[] = "/tmp/dh_gbench_console_XXXXXX";
  int cfd = mkstemp(cpath);
  if (cfd < 0) return -1;
  int saved = dup(STDOUT_FILENO);
  dup2(cfd, STDOUT_FILENO);
  long n = dh_gb_run_specified(on_result, NULL);
  fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  FILE* cf = fdopen(cfd, "r");
  if (cf) {
    rewind(cf);
    size_t got = fread(g_console, 1, sizeof g_console - 1, cf);
    g_console[got] = '\0';
    fclose(cf);
  } else {
    close(cfd);
  }
  unlink(cpath);
  if (n != 12) {
    fprintf(stderr, "# expected 12 benchmark instances, got %ld\n", n);
    return -1;
  }
  json_error_t err;
  g_json = json_load_file(path, 0, &err);
  unlink(path);
  return g_json ? 0 : -1;
}

/* The console report of the C wrapper's reporter (bench/measure/gbench.cc): the context header
 * on the output stream (bench.txt in `devharness run`), Debian's DEBUG notice explained,
 * a run stopped with dh_gb_skip_with_error said as "not measured: reason"; devharness.*
 * entries counted in one line (bench --verbose prints them). */
static void test_console_report(void** state) {
  (void)state;
  assert_non_null(strstr(g_console, "Run on ("));
  /* the short header (dh_gb_set_full_context(0)): the entry counted, not printed */
  assert_null(strstr(g_console, "devharness.test: context value"));
  assert_non_null(strstr(g_console, "context: 1 devharness.* entries"));
  assert_null(strstr(g_console, "***WARNING*** Library was built as DEBUG"));
  assert_null(strstr(g_console, "ERROR OCCURRED"));
  const char* line = strstr(g_console, "t/error/iterations:5");
  assert_non_null(line);
  assert_non_null(strstr(line, "not measured: device went away"));
  assert_true(strstr(g_console, "Run on (") < strstr(g_console, "t/plain/iterations:100"));
}

static int teardown(void** state) {
  (void)state;
  json_decref(g_json);
  dh_gb_shutdown();
  return 0;
}

static void test_plain_runs_with_user_data(void** state) {
  (void)state;
  assert_true(g_calls_plain >= 1);
  json_t* b = find("t/plain/iterations:100");
  assert_non_null(b);
  assert_int_equal((int)num(b, "iterations"), 100);
}

static void test_counters_bytes_label(void** state) {
  (void)state;
  json_t* b = find("t/plain/iterations:100");
  assert_non_null(b);
  assert_true(num(b, "bytes_per_second") > 0);
  assert_true(num(b, "items_per_second") > 0);
  /* bytes/items = 1000/3 per iteration, whatever the time */
  double ratio = num(b, "bytes_per_second") / num(b, "items_per_second");
  assert_true(ratio > 333.0 && ratio < 334.0);
  assert_true(num(b, "widgets") == 42.0);
  assert_true(num(b, "per_iter") == 5.0);
  assert_string_equal(json_string_value(json_object_get(b, "label")), "hello label");
}

static void test_args_and_ranges(void** state) {
  (void)state;
  assert_non_null(find("t/range/4/iterations:5"));
  assert_non_null(find("t/range/16/iterations:5"));
  assert_non_null(find("t/range/64/iterations:5"));
  assert_null(find("t/range/8/iterations:5"));
  assert_non_null(find("t/dense/1/iterations:5"));
  assert_non_null(find("t/dense/2/iterations:5"));
  assert_non_null(find("t/dense/3/iterations:5"));
  int saw[3] = {0, 0, 0};
  for (int i = 0; i < g_nseen; ++i) {
    if (g_seen_args[i] == 4) saw[0] = 1;
    if (g_seen_args[i] == 64) saw[1] = 1;
    if (g_seen_args[i] == 7) saw[2] = 1;
  }
  assert_true(saw[0] && saw[1] && saw[2]);
}

static void test_manual_time_honoured(void** state) {
  (void)state;
  json_t* b = find("t/manual/iterations:10/manual_time");
  assert_non_null(b);
  assert_string_equal(json_string_value(json_object_get(b, "time_unit")), "ms");
  double t = num(b, "real_time");
  assert_true(t > 1.999 && t < 2.001);
}

static void test_pause_resume_excluded(void** state) {
  (void)state;
  json_t* b = find("t/paused/iterations:5/real_time");
  assert_non_null(b);
  /* 3 ms slept per iteration while paused: the measured time must be far below */
  assert_true(num(b, "real_time") < 1500.0); /* us */
}

static void test_skip_with_error(void** state) {
  (void)state;
  json_t* b = find("t/error/iterations:5");
  assert_non_null(b);
  assert_true(json_is_true(json_object_get(b, "error_occurred")));
  assert_string_equal(json_string_value(json_object_get(b, "error_message")), "device went away");
}

static void test_repetitions_and_aggregates(void** state) {
  (void)state;
  size_t i, reps = 0, aggs = 0;
  json_t* b;
  json_array_foreach(json_object_get(g_json, "benchmarks"), i, b) {
    const char* rn = json_string_value(json_object_get(b, "run_name"));
    if (!rn || strcmp(rn, "t/reps/7/9/iterations:3/repeats:3") != 0) continue;
    const char* rt = json_string_value(json_object_get(b, "run_type"));
    if (strcmp(rt, "iteration") == 0) ++reps;
    else ++aggs;
  }
  assert_int_equal(reps, 3);
  assert_true(aggs >= 4); /* mean, median, stddev, cv */
}

static void test_batch_and_callback_and_context(void** state) {
  (void)state;
  json_t* b = find("t/batch/iterations:50");
  assert_non_null(b);
  assert_int_equal((int)num(b, "iterations"), 50);
  assert_true(g_results >= 8 + 3 + 4 + 1);
  assert_true(g_manual_ns_cb > 1.99e6 && g_manual_ns_cb < 2.01e6); /* 2 ms in ns */
  json_t* ctx = json_object_get(g_json, "context");
  assert_string_equal(json_string_value(json_object_get(ctx, "devharness.test")), "context value");
}

/*--- --interleave-order MODE: two benchmarks "a" and "b", 10 repetitions each of one
 * iteration, with --benchmark_enable_random_interleaving=MODE; prints the order in
 * which their repetitions ran, e.g. "abbaab...". */
static char g_order[32];
static size_t g_norder;

static void bm_order(dh_gb_state_t* st, void* user) {
  if (g_norder + 1 < sizeof g_order) g_order[g_norder++] = *(const char*)user;
  while (dh_gb_keep_running(st)) {
  }
}

static int interleave_order(const char* mode) {
  static const char a = 'a', b = 'b';
  dh_gb_bench_t* x = dh_gb_register("order/a", bm_order, (void*)&a);
  dh_gb_bench_t* y = dh_gb_register("order/b", bm_order, (void*)&b);
  if (!x || !y) return 1;
  dh_gb_bench_iterations(x, 1);
  dh_gb_bench_iterations(y, 1);
  char flag[96];
  snprintf(flag, sizeof flag, "--benchmark_enable_random_interleaving=%s", mode);
  char* argv[] = {"test_gbench", "--benchmark_repetitions=10", flag, NULL};
  int argc = 3;
  if (dh_gb_initialize(&argc, argv) != 0) return 1;
  int saved = dup(STDOUT_FILENO); /* the console report goes to /dev/null */
  FILE* null = freopen("/dev/null", "w", stdout);
  long n = dh_gb_run_specified(NULL, NULL);
  fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  (void)null;
  dh_gb_shutdown();
  g_order[g_norder] = '\0';
  printf("%s\n", g_order);
  return n == 2 ? 0 : 1;
}

static void run_order(const char* mode, char* out, size_t size) {
  char exe[4096] = "", cmd[4200];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  assert_true(len > 0);
  exe[len] = '\0';
  snprintf(cmd, sizeof cmd, "'%s' --interleave-order %s 2>/dev/null", exe, mode);
  FILE* f = popen(cmd, "r");
  assert_non_null(f);
  out[0] = '\0';
  if (!fgets(out, (int)size, f)) out[0] = '\0';
  assert_int_equal(pclose(f), 0);
  out[strcspn(out, "\n")] = '\0';
}

/* Google Benchmark 1.7 shuffles all (benchmark, repetition) runs together: the 20 runs
 * come out in sequence only with probability 2 / C(20, 10), about 1e-5. */
static void test_random_interleaving_mixes_repetitions(void** state) {
  (void)state;
  char seq[64], inter[64];
  run_order("false", seq, sizeof seq);
  print_message("# in sequence: %s\n", seq);
  assert_string_equal(seq, "aaaaaaaaaabbbbbbbbbb");
  run_order("true", inter, sizeof inter);
  print_message("# interleaved: %s\n", inter);
  assert_int_equal(strlen(inter), 20);
  size_t na = 0, changes = 0;
  for (size_t i = 0; i < 20; ++i) {
    na += inter[i] == 'a';
    if (i && inter[i] != inter[i - 1]) ++changes;
  }
  assert_int_equal(na, 10);
  assert_true(changes > 1); /* not all of one, then all of the other */
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "--interleave-order") == 0) return interleave_order(argv[2]);
  cmocka_set_message_output(CM_OUTPUT_TAP);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plain_runs_with_user_data),
      cmocka_unit_test(test_counters_bytes_label),
      cmocka_unit_test(test_args_and_ranges),
      cmocka_unit_test(test_manual_time_honoured),
      cmocka_unit_test(test_pause_resume_excluded),
      cmocka_unit_test(test_skip_with_error),
      cmocka_unit_test(test_repetitions_and_aggregates),
      cmocka_unit_test(test_batch_and_callback_and_context),
      cmocka_unit_test(test_random_interleaving_mixes_repetitions),
      cmocka_unit_test(test_console_report),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
