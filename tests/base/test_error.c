/*
 * tests/base/test_error.c — base/error.c: the one formatting rule of an error
 * (dh_error_record_format: kind default, NULL format, truncation), base/'s per-thread
 * record (dh_base_error_set/kind/message) and its hand-over to the runtime
 * (dh_base_error_raise: the thread's dh_error gets the same kind and message). A failing
 * base function (dh_json_read_text) leaves the runtime's error alone until its caller
 * raises the record.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "base/error.h"
#include "base/json_read.h"
#include "devharness/error.h"

static void format_into(dh_error_record_t* r, const char* kind, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  dh_error_record_format(r, kind, fmt, ap);
  va_end(ap);
}

static void test_format_rule(void** state) {
  (void)state;
  dh_error_record_t r;
  format_into(&r, DH_KIND_VALUE_ERROR, "%s: %d", "size", 3);
  assert_string_equal(r.kind, "ValueError");
  assert_string_equal(r.message, "size: 3");
  format_into(&r, NULL, "x");
  assert_string_equal(r.kind, "RuntimeError");
  format_into(&r, "", NULL);
  assert_string_equal(r.kind, "RuntimeError");
  assert_string_equal(r.message, "");
  char long_kind[200], long_msg[DH_ERROR_MESSAGE_MAX + 100];
  memset(long_kind, 'K', sizeof long_kind - 1), long_kind[sizeof long_kind - 1] = '\0';
  memset(long_msg, 'm', sizeof long_msg - 1), long_msg[sizeof long_msg - 1] = '\0';
  format_into(&r, long_kind, "%s", long_msg);
  assert_int_equal(strlen(r.kind), DH_ERROR_KIND_MAX - 1);
  assert_int_equal(strlen(r.message), DH_ERROR_MESSAGE_MAX - 1);
}

static void* read_other_thread(void* out) {
  snprintf(out, 128, "%s|%s", dh_base_error_kind(), dh_base_error_message());
  return NULL;
}

static void test_record_per_thread(void** state) {
  (void)state;
  assert_int_equal(dh_base_error_set(DH_KIND_IO_ERROR, "%s: cannot open", "f.json"), -1);
  assert_string_equal(dh_base_error_kind(), "IOError");
  assert_string_equal(dh_base_error_message(), "f.json: cannot open");
  char other[128];
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, read_other_thread, other), 0);
  pthread_join(t, NULL);
  assert_string_equal(other, "RuntimeError|"); /* another thread has no base error */
}

static void test_raise(void** state) {
  (void)state;
  dh_error_clear();
  json_t* root = NULL;
  assert_int_equal(dh_json_read_text("  \n", 3, "t.json", &root), -1);
  assert_string_equal(dh_base_error_kind(), "ParseError");
  assert_string_equal(dh_base_error_message(), "t.json: empty input");
  assert_null(dh_error_kind()); /* base/ never touched the runtime's error */
  assert_int_equal(dh_base_error_raise(), -1);
  assert_string_equal(dh_error_kind(), "ParseError");
  assert_string_equal(dh_error_message(), "t.json: empty input");
  dh_error_clear();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_format_rule),
      cmocka_unit_test(test_record_per_thread),
      cmocka_unit_test(test_raise),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
