/*
 * tests/bench/test_summary.c — the harness/raw table of bench/report/summary.c calls a ratio
 * under 0.95 a twin defect only when the repetitions show it (docs/benchmarks.md
 * "Summary"): at least 3 runs of each side and every harness run faster than every twin
 * run. Results are fed as Google Benchmark would report them (dh_bench_on_result) and
 * the printed summary is read back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench/report/summary.h"

/* Feeds runs of name with the given times (ns), then one "median" aggregate. */
static void feed(const char* name, const double* ns, size_t n) {
  for (size_t i = 0; i < n; i++) {
    dh_gb_result_t r = {.name = name, .aggregate = "", .label = "", .error_message = "", .real_time_ns = ns[i]};
    dh_bench_on_result(&r, NULL);
  }
}

/* The summary's printed text (malloc'd) for harness and raw runs of one sync pair. */
static char* summary_of(const double* h, size_t nh, const double* r, size_t nr) {
  feed("sync/idle/sim:0/harness/manual_time", h, nh);
  feed("sync/idle/sim:0/raw/manual_time", r, nr);
  fflush(stdout);
  FILE* tmp = tmpfile();
  assert_non_null(tmp);
  int saved = dup(STDOUT_FILENO);
  dup2(fileno(tmp), STDOUT_FILENO);
  json_decref(dh_bench_summarize());
  fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  fseek(tmp, 0, SEEK_END);
  long size = ftell(tmp);
  rewind(tmp);
  char* text = calloc(1, (size_t)size + 1);
  assert_non_null(text);
  assert_int_equal(fread(text, 1, (size_t)size, tmp), (size_t)size);
  fclose(tmp);
  dh_bench_results_free();
  return text;
}

static void one_run_is_not_enough(void** state) {
  (void)state;
  const double h[] = {100}, r[] = {200};
  char* t = summary_of(h, 1, r, 1);
  assert_non_null(strstr(t, "< 0.95 on 1 run"));
  assert_null(strstr(t, "twin defect ("));
  free(t);
}

static void separated_runs_are_a_defect(void** state) {
  (void)state;
  const double h[] = {100, 110, 105}, r[] = {200, 190, 210};
  char* t = summary_of(h, 3, r, 3);
  assert_non_null(strstr(t, "< 0.95: twin defect"));
  free(t);
}

static void overlapping_runs_are_not(void** state) {
  (void)state;
  const double h[] = {100, 110, 300}, r[] = {200, 190, 210};
  char* t = summary_of(h, 3, r, 3);
  assert_non_null(strstr(t, "within the runs' spread"));
  assert_null(strstr(t, "twin defect ("));
  free(t);
}

static void a_fair_twin_has_no_flag(void** state) {
  (void)state;
  const double h[] = {100, 101, 102}, r[] = {99, 100, 98};
  char* t = summary_of(h, 3, r, 3);
  /* within 0.95-1.05: counted, not listed; --verbose lists it */
  assert_null(strstr(t, "sync/idle/sim:0/harness/manual_time"));
  assert_non_null(strstr(t, "1 of 1 pairs within 0.95-1.05, not listed"));
  assert_null(strstr(t, "< 0.95"));
  free(t);
  dh_bench_summary_all_rows(1);
  t = summary_of(h, 3, r, 3);
  dh_bench_summary_all_rows(0);
  assert_non_null(strstr(t, "sync/idle/sim:0/harness/manual_time"));
  assert_null(strstr(t, "not listed"));
  free(t);
}

/* One footnote for every ratio below 0.95 on too few runs, not the sentence on each. */
static void one_footnote_for_few_runs(void** state) {
  (void)state;
  const double h[] = {100}, r[] = {200};
  char* t = summary_of(h, 1, r, 1);
  assert_non_null(strstr(t, "< 0.95 on 1 run *"));
  assert_non_null(strstr(t, "* 1 ratio below 0.95 on too few runs: a twin defect needs --repetitions 3 or more"));
  free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(one_run_is_not_enough),
      cmocka_unit_test(separated_runs_are_a_defect),
      cmocka_unit_test(overlapping_runs_are_not),
      cmocka_unit_test(a_fair_twin_has_no_flag),
      cmocka_unit_test(one_footnote_for_few_runs),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
