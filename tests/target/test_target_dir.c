/*
 * tests/target/test_target_dir.c — a targets folder with broken kinds and tags
 * (tests/target/data/bad_targets, through $DEVHARNESS_TARGETS_PATH): kind files that
 * do not parse or are misnamed are reported by dh_target_kinds_load while the good
 * ones load; tag errors name the tag file; tag cycles, tags naming tags, from_device
 * in a tag, a host that names its own tag. Also concurrent first use of the registry.
 * cmocka, prints TAP.
 */
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/dh_assert.h"

#include "devharness/error.h"
#include "devharness/target.h"

static char g_dir[PATH_MAX];


#define assert_ok(rc)                                                                  \
  do {                                                                                 \
    if ((rc) != 0) fail_msg("unexpected error %s: %s", dh_error_kind(), dh_error_message()); \
  } while (0)

/* Runs before anything else touches the registry: several threads race to load it. */
static void* race(void* arg) {
  (void)arg;
  for (int i = 0; i < 50; ++i) {
    dh_target_t* t = NULL;
    if (dh_target_parse_json("{\"kind\": \"good\", \"s\": \"a\"}", "<thread>", &t) != 0) return (void*)1;
    dh_target_free(t);
    if (dh_target_from_tag("x/derived", &t) != 0) return (void*)2;
    dh_target_free(t);
  }
  return NULL;
}

static void test_concurrent_first_use(void** state) {
  (void)state;
  pthread_t th[4];
  for (int i = 0; i < 4; ++i) assert_int_equal(pthread_create(&th[i], NULL, race, NULL), 0);
  for (int i = 0; i < 4; ++i) {
    void* rv = (void*)9;
    assert_int_equal(pthread_join(th[i], &rv), 0);
    assert_null(rv);
  }
}

static void collect(const char* name, void* user) {
  char* buf = user;
  if (*buf) strcat(buf, ",");
  strcat(buf, name);
}

static void test_bad_kind_files(void** state) {
  (void)state;
  assert_string_equal(dh_targets_dir(), g_dir);
  char want[PATH_MAX + 64];
  snprintf(want, sizeof want, "%s/kinds/broken.json:2:", g_dir);
  assert_dh_error_msg(dh_target_kinds_load(), "ParseError", want); /* the first bad file */
         assert_dh_error_msg(dh_target_kinds_load(), "ParseError", want); /* and again, every call */
         char buf[256] = "";
  assert_int_equal(dh_target_kind_list(collect, buf), 1); /* misnamed.json refused too */
  assert_string_equal(buf, "good");
  dh_target_t* t = NULL;
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": \"other\"}", "<string>", &t), "KeyError",
                      "<string>: unknown kind 'other'; known kinds: good");
}

static void test_bad_tags(void** state) {
  (void)state;
  dh_target_t* t = NULL;
  char want[PATH_MAX + 128];
  snprintf(want, sizeof want, "%s/tags/x/bad_option.json: unknown option 'nope' for kind 'good'", g_dir);
  assert_dh_error_msg(dh_target_parse_json("{\"tag\": \"x/bad_option\"}", "u.json", &t), "KeyError", want);
  snprintf(want, sizeof want, "%s/tags/x/bad_type.json: option 's': expected str, got int 3", g_dir);
  assert_dh_error_msg(dh_target_from_tag("x/bad_type", &t), "TypeError", want);
  /* a cycle is named as one, every tag on it (was the depth limit's "a cycle?") */
  assert_dh_error_msg(dh_target_from_tag("x/cycle_a", &t), "ValueError",
                      "tag 'x/cycle_b' refers back to 'x/cycle_a' (a cycle: x/cycle_a -> x/cycle_b -> x/cycle_a)");
  assert_dh_error_msg(dh_target_from_tag("x/from_dev", &t), "ValueError", "a tag cannot use 'from_device'");
  assert_dh_error_msg(dh_target_from_tag("x/host_loop", &t), "ValueError", "option 'host' nests deeper than 8");
  assert_null(t);
}

static void test_tag_naming_tag(void** state) {
  (void)state;
  dh_target_t* t = NULL;
  assert_ok(dh_target_from_tag("x/derived", &t));
  dh_any_t v;
  assert_ok(dh_target_get(t, "n", &v));
  assert_true(v.type_index == 1 && v.v_int64 == 1);
  assert_ok(dh_target_get(t, "s", &v));
  assert_string_equal(v.v_c_str, "y");
  assert_ok(dh_target_get(t, "tag", &v));
  assert_string_equal(v.v_c_str, "x/derived");
  dh_target_free(t);
  char buf[512] = "";
  assert_int_equal(dh_target_tag_list(collect, buf), 8);
  assert_string_equal(buf, "x/bad_option,x/bad_type,x/base,x/cycle_a,x/cycle_b,x/derived,x/from_dev,x/host_loop");
}

int main(void) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return 1;
  exe[n] = '\0';
  *strrchr(exe, '/') = '\0';
  char rel[PATH_MAX + 64];
  snprintf(rel, sizeof rel, "%s/../../tests/target/data/bad_targets", exe);
  char* real = realpath(rel, NULL);
  if (!real || strlen(real) >= sizeof g_dir) return 1;
  strcpy(g_dir, real);
  free(real);
  setenv("DEVHARNESS_TARGETS_PATH", g_dir, 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_concurrent_first_use),
      cmocka_unit_test(test_bad_kind_files),
      cmocka_unit_test(test_bad_tags),
      cmocka_unit_test(test_tag_naming_tag),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
