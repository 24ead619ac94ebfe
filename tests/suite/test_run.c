/* tests/suite/test_run.c — the suite's runner (suite/run.c ds_run) and the case helpers
 * every reporter shares (suite/case.c): cases handed back in table order whatever
 * order their children end in; a skip decided by prepare runs no child; a crash and
 * a hang are reported as such; a run-alone case has no other child beside it; no_fork
 * runs in this process; the verdict's one spelling and the tally. Prints TAP (cmocka). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "suite/suite.h"

enum { N = 6 };

typedef struct arg {
  int i;
  int sleep_ms;
  int crash, hang;
  char log[256]; /* a file the child appends "start I" / "end I" to, or "" */
} arg_t;

typedef struct run {
  arg_t args[N];
  int skip[N];
  int alone_case;
  size_t done_order[N];
  size_t ndone;
  int finished[N];
  int answer[N];
  int status[N];
  char note[N][96];
} run_t;

static void log_line(const char* path, const char* what, int i) {
  if (!path[0]) return;
  FILE* f = fopen(path, "a");
  if (f) fprintf(f, "%s %d\n", what, i), fclose(f);
}

static void child(void* a_, int fd) {
  arg_t* a = a_;
  log_line(a->log, "start", a->i);
  if (a->crash) raise(SIGSEGV);
  if (a->hang) sleep(30);
  usleep((useconds_t)a->sleep_ms * 1000);
  log_line(a->log, "end", a->i);
  int v = 100 + a->i;
  dh_write_all(fd, &v, sizeof v);
}

static int prepare(void* user, size_t i, void* arg) {
  run_t* r = user;
  if (r->skip[i]) return 0;
  memcpy(arg, &r->args[i], sizeof r->args[i]);
  return 1;
}

static void finish(void* user, size_t i, void* arg, dh_child_result_t* res) {
  run_t* r = user;
  assert_int_equal(((arg_t*)arg)->i, (int)i); /* the argument prepare filled for this case */
  r->finished[i]++;
  r->status[i] = res->status;
  snprintf(r->note[i], sizeof r->note[i], "%s", res->note);
  if (res->status == DH_CHILD_ANSWERED && res->size == sizeof(int)) memcpy(&r->answer[i], res->data, sizeof(int));
}

static int alone(void* user, size_t i) { return (int)i == ((run_t*)user)->alone_case; }

static void done(void* user, size_t i) {
  run_t* r = user;
  r->done_order[r->ndone++] = i;
}

static ds_runner_t runner(run_t* r, int jobs) {
  return (ds_runner_t){.n = N, .jobs = jobs, .timeout_s = 5, .arg_size = sizeof(arg_t), .user = r,
                       .prepare = prepare, .child = child, .finish = finish, .alone = alone, .done = done};
}

static void setup_run(run_t* r) {
  memset(r, 0, sizeof *r);
  r->alone_case = -1;
  for (int i = 0; i < N; i++) r->args[i] = (arg_t){.i = i, .sleep_ms = (N - i) * 30};
}

/* Children that end last-first are still handed back 0, 1, ... with their answers. */
static void test_order_and_answers(void** state) {
  (void)state;
  run_t r;
  setup_run(&r);
  r.skip[3] = 1;
  ds_runner_t rn = runner(&r, 3);
  assert_int_equal(ds_run(&rn), 0);
  assert_int_equal(r.ndone, N);
  for (size_t i = 0; i < N; i++) assert_int_equal(r.done_order[i], i);
  for (int i = 0; i < N; i++) {
    if (i == 3) {
      assert_int_equal(r.finished[i], 0); /* a skip runs no child */
      continue;
    }
    assert_int_equal(r.finished[i], 1);
    assert_int_equal(r.status[i], DH_CHILD_ANSWERED);
    assert_int_equal(r.answer[i], 100 + i);
  }
}

/* A crash and a hang are the runner's answers about those cases only. */
static void test_crash_and_hang(void** state) {
  (void)state;
  run_t r;
  setup_run(&r);
  r.args[1].crash = 1;
  r.args[4].hang = 1;
  ds_runner_t rn = runner(&r, 2);
  rn.timeout_s = 1;
  assert_int_equal(ds_run(&rn), 0);
  assert_int_not_equal(r.status[1], DH_CHILD_ANSWERED); /* killed, or its handler exited */
  assert_memory_equal(r.note[1], "crashed", 7);
  assert_int_equal(r.status[4], DH_CHILD_TIMED_OUT);
  assert_int_equal(r.answer[5], 105);
  assert_int_equal(r.answer[0], 100);
}

/* No child starts or runs beside the run-alone case. */
static void test_alone(void** state) {
  (void)state;
  run_t r;
  setup_run(&r);
  char path[] = "/tmp/dh_suite_alone.XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  for (int i = 0; i < N; i++) snprintf(r.args[i].log, sizeof r.args[i].log, "%s", path);
  r.alone_case = 2;
  ds_runner_t rn = runner(&r, 4);
  assert_int_equal(ds_run(&rn), 0);
  FILE* f = fopen(path, "r");
  assert_non_null(f);
  char what[16];
  int i, running = 0, inside = 0, beside = 0, lines = 0;
  while (fscanf(f, "%15s %d", what, &i) == 2) {
    lines++;
    int start = strcmp(what, "start") == 0;
    if (i == 2) inside = start, beside += start && running > 0;
    else if (inside) beside++;
    running += start ? 1 : -1;
  }
  fclose(f);
  unlink(path);
  assert_int_equal(lines, 2 * N);
  assert_int_equal(beside, 0);
}

/* no_fork: every case in this process, its answer read back the same way. */
static void test_no_fork(void** state) {
  (void)state;
  run_t r;
  setup_run(&r);
  for (int i = 0; i < N; i++) r.args[i].sleep_ms = 0;
  ds_runner_t rn = runner(&r, 4);
  rn.no_fork = 1;
  pid_t me = getpid();
  assert_int_equal(ds_run(&rn), 0);
  assert_int_equal(getpid(), me);
  for (int i = 0; i < N; i++) assert_int_equal(r.answer[i], 100 + i);
}

/* One spelling per verdict; the tally counts each case once, other shards' none, and
 * the shard counts of suite/case.c. */
static void test_verdicts_and_tally(void** state) {
  (void)state;
  assert_string_equal(ds_verdict_name(DS_PASS), "pass");
  assert_string_equal(ds_verdict_name(DS_FAIL), "fail");
  assert_string_equal(ds_verdict_name(DS_SKIP), "skip");
  assert_string_equal(ds_verdict_name(DS_XFAIL), "xfail");
  static ds_case_t row[5];
  memset(row, 0, sizeof row);
  row[0].verdict = DS_PASS;
  row[1].verdict = DS_FAIL, row[1].counts = 1;
  row[2].verdict = DS_SKIP, row[2].waived = DS_WAIVED_SKIP;
  row[3].verdict = DS_XFAIL, row[3].waived = DS_WAIVED_XFAIL;
  row[4].verdict = DS_SKIP, row[4].other_shard = 1;
  ds_case_t* rows[1] = {row};
  ds_run_view_t v = {.ncase = 5, .ng = 1, .cases = rows};
  ds_tally_t t = ds_tally(&v, (size_t)-1);
  assert_int_equal(t.pass, 1);
  assert_int_equal(t.fail, 1);
  assert_int_equal(t.skip, 1);
  assert_int_equal(t.xfail, 1);
  assert_int_equal(t.waived, 2);
  assert_int_equal(t.violations, 1);
  /* what the reports list of a shard: four cases, one counted apart; a group whose
   * cases all went to other shards is not shown */
  assert_int_equal(ds_group_cases(&v, 0), 4);
  assert_int_equal(ds_other_shard_cases(&v, (size_t)-1), 1);
  assert_true(ds_group_shown(&v, 0));
  static ds_case_t others[2];
  memset(others, 0, sizeof others);
  others[0].other_shard = others[1].other_shard = 1;
  ds_case_t* rows2[2] = {row, others};
  ds_run_view_t v2 = {.ncase = 2, .ng = 2, .cases = rows2};
  assert_int_equal(ds_group_cases(&v2, (size_t)-1), 2);
  assert_int_equal(ds_other_shard_cases(&v2, 1), 2);
  assert_true(ds_group_shown(&v2, 0));
  assert_false(ds_group_shown(&v2, 1));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_order_and_answers), cmocka_unit_test(test_crash_and_hang),
      cmocka_unit_test(test_alone),             cmocka_unit_test(test_no_fork),
      cmocka_unit_test(test_verdicts_and_tally),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
