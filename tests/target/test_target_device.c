/*
 * tests/target/test_target_device.c — targets against a live device through the
 * device API: dh_target_detect, dh_target_check_device, "from_device", and a kind
 * handed in by a plugin (target_kind_json). Uses the fake plugin
 * <build>/tests/targets_plugins/libdevharness_tfake.so (tests/target/fake_backend.c):
 * one device tfake:0 (device_type 40) reporting max_num_threads 1024, device_name
 * "Fake GPU", flags ["a","b"], has_fp64 true, ratio 0.25, and no clock (None).
 * cmocka, prints TAP.
 */
#include <limits.h>
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

#include "devharness/device_api.h"
#include "devharness/error.h"
#include "devharness/target.h"


#define assert_ok(rc)                                                                  \
  do {                                                                                 \
    if ((rc) != 0) fail_msg("unexpected error %s: %s", dh_error_kind(), dh_error_message()); \
  } while (0)

static const DLDevice k_dev = {(DLDeviceType)40, 0};

static int setup(void** state) {
  (void)state;
  char exe[PATH_MAX], path[PATH_MAX + 64];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return -1;
  exe[n] = '\0';
  *strrchr(exe, '/') = '\0';
  snprintf(path, sizeof path, "%s/targets_plugins/libdevharness_tfake.so", exe);
  const dh_backend_t* b = NULL;
  if (dh_plugin_load(path, &b) != 0) {
    fprintf(stderr, "# cannot load %s: %s\n", path, dh_error_message());
    return -1;
  }
  return 0;
}

static int teardown(void** state) {
  (void)state;
  dh_plugins_unload_all();
  return 0;
}

static int64_t get_int(const dh_target_t* t, const char* name) {
  dh_any_t v;
  assert_ok(dh_target_get(t, name, &v));
  if (v.type_index != DH_TYPE_INT) fail_msg("option %s: expected Int, got type %d", name, v.type_index);
  return v.v_int64;
}

static const char* get_str(const dh_target_t* t, const char* name) {
  dh_any_t v;
  assert_ok(dh_target_get(t, name, &v));
  if (v.type_index != DH_TYPE_RAW_STR) fail_msg("option %s: expected RawStr, got type %d", name, v.type_index);
  return v.v_c_str;
}

static void collect(const char* name, void* user) {
  char* buf = user;
  if (*buf) strcat(buf, ",");
  strcat(buf, name);
}

static void test_plugin_kind(void** state) {
  (void)state;
  char buf[512] = "";
  dh_target_kind_list(collect, buf);
  assert_string_equal(buf, "cpu,cuda,opencl,sim,tfake,vulkan");
  dh_target_t* t = NULL;
  assert_ok(dh_target_parse_json("{\"kind\": \"tfake\"}", "<string>", &t));
  assert_int_equal(dh_target_device_type(t), 40);
  assert_int_equal(get_int(t, "max_num_threads"), 256);
  assert_string_equal(get_str(t, "keys"), "[\"tfake\",\"gpu\"]");
  dh_target_free(t);
  /* the plugin's kind is registered once; registering it again is a KeyError */
  assert_dh_error_msg(dh_target_kind_register_json("{\"kind\": \"tfake\", \"device_type\": 40}", "again"),
                      "KeyError", "again: kind 'tfake' is already registered");
}

static void test_detect(void** state) {
  (void)state;
  dh_target_t* t = NULL;
  assert_ok(dh_target_detect(k_dev, &t));
  assert_string_equal(dh_target_kind_name(t), "tfake");
  assert_int_equal(get_int(t, "max_num_threads"), 1024);
  assert_string_equal(get_str(t, "device_name"), "Fake GPU");
  assert_string_equal(get_str(t, "flags"), "[\"a\",\"b\"]");
  dh_any_t v;
  assert_ok(dh_target_get(t, "has_fp64", &v));
  assert_true(v.type_index == DH_TYPE_BOOL && v.v_int64 == 1);
  assert_ok(dh_target_get(t, "ratio", &v));
  assert_true(v.type_index == DH_TYPE_FLOAT && v.v_float64 == 0.25);
  assert_ok(dh_target_get(t, "clock", &v));
  assert_int_equal(v.type_index, DH_TYPE_NONE); /* None -> omitted */
  char* s = dh_target_to_json(t, 0);
  assert_string_equal(s, "{\"device_name\":\"Fake GPU\",\"flags\":[\"a\",\"b\"],\"has_fp64\":true,"
                         "\"keys\":[\"tfake\",\"gpu\"],\"kind\":\"tfake\",\"max_num_threads\":1024,"
                         "\"ratio\":0.25}");
  free(s);
  /* a detected target matches its own device */
  assert_int_equal(dh_target_check_device(t, k_dev, NULL, NULL, NULL), 0);
  dh_target_free(t);
  t = NULL;
  DLDevice bad = {(DLDeviceType)40, 1};
  assert_dh_error_msg(dh_target_detect(bad, &t), "IndexError", "device tfake:1 does not exist");
  DLDevice none = {(DLDeviceType)41, 0};
  assert_dh_error_msg(dh_target_detect(none, &t), "KeyError", "is not enabled");
  assert_null(t);
}

static void test_from_device(void** state) {
  (void)state;
  dh_target_t* t = NULL;
  assert_ok(dh_target_parse_json(
      "{\"kind\": \"tfake\", \"from_device\": 0, \"max_num_threads\": 64, \"flags\": []}",
      "<string>", &t));
  assert_int_equal(get_int(t, "max_num_threads"), 64); /* the user's value wins */
  assert_string_equal(get_str(t, "flags"), "[]");
  assert_string_equal(get_str(t, "device_name"), "Fake GPU");
  dh_any_t v;
  assert_ok(dh_target_get(t, "from_device", &v));
  assert_int_equal(v.type_index, DH_TYPE_NONE);
  dh_target_free(t);
  t = NULL;
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": \"tfake\", \"from_device\": 3}", "f.json", &t),
                      "IndexError", "f.json: option 'from_device': device tfake:3 does not exist");
  assert_null(t);
}

typedef struct seen {
  char mismatches[1024];
  char unchecked[256];
} seen_t;

static void on_mismatch(const char* option, const char* expected, const char* got, void* user) {
  seen_t* s = user;
  char line[256];
  snprintf(line, sizeof line, "%s:%s/%s;", option, expected, got);
  strcat(s->mismatches, line);
}

static void on_unchecked(const char* option, void* user) {
  seen_t* s = user;
  strcat(s->unchecked, option);
  strcat(s->unchecked, ";");
}

static void test_check_device(void** state) {
  (void)state;
  dh_target_t* t = NULL;
  assert_ok(dh_target_parse_json(
      "{\"kind\": \"tfake\", \"max_num_threads\": 512, \"device_name\": \"Fake GPU\","
      " \"flags\": [\"a\", \"c\"], \"has_fp64\": true, \"ratio\": 0.5, \"clock\": 100,"
      " \"keys\": [\"x\"], \"device\": \"d\", \"model\": \"m\"}",
      "<string>", &t));
  seen_t s;
  memset(&s, 0, sizeof s);
  assert_int_equal(dh_target_check_device(t, k_dev, on_mismatch, on_unchecked, &s), 3);
  assert_string_equal(s.mismatches,
                      "flags:[\"a\",\"c\"]/[\"a\",\"b\"];max_num_threads:512/1024;ratio:0.5/0.25;");
  assert_string_equal(s.unchecked, "clock;");
  /* NULL callbacks are allowed */
  assert_int_equal(dh_target_check_device(t, k_dev, NULL, NULL, NULL), 3);
  DLDevice bad = {(DLDeviceType)40, 7};
  assert_dh_error_msg(dh_target_check_device(t, bad, NULL, NULL, NULL), "IndexError", "does not exist");
  dh_target_free(t);

  /* defaults are not declared, so they are not checked (256 != 1024 here) */
  assert_ok(dh_target_parse_json("{\"kind\": \"tfake\"}", "<string>", &t));
  assert_int_equal(dh_target_check_device(t, k_dev, on_mismatch, NULL, NULL), 0);
  dh_target_free(t);

  /* a target of another kind */
  assert_ok(dh_target_parse_json("{\"kind\": \"cpu\", \"mcpu\": \"x\"}", "<string>", &t));
  assert_dh_error_msg(dh_target_check_device(t, k_dev, NULL, NULL, NULL), "ValueError",
                      "target kind 'cpu' does not match backend tfake, whose kind is 'tfake'");
  dh_target_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plugin_kind),
      cmocka_unit_test(test_detect),
      cmocka_unit_test(test_from_device),
      cmocka_unit_test(test_check_device),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests(tests, setup, teardown);
}
