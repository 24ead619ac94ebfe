/*
 * tests/target/test_target_parse.c — target parsing rules (include/devharness/target.h,
 * apache/tvm v0.27.0 src/target/target.cc), kinds, tags, JSON limits. cmocka, prints TAP.
 *
 * The targets folder is the source tree's targets/ (found from the test binary at
 * <build>/tests/, as <exe dir>/../../targets); data files are in tests/target/data/.
 */
#include <fcntl.h>
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

#include "devharness/error.h"
#include "devharness/target.h"


static char g_data[PATH_MAX];

static const char* data(const char* name) {
  static char buf[PATH_MAX];
  if ((size_t)snprintf(buf, sizeof buf, "%s/%s", g_data, name) >= sizeof buf) fail_msg("path too long");
  return buf;
}


#define assert_ok(rc)                                                                  \
  do {                                                                                 \
    if ((rc) != 0) fail_msg("unexpected error %s: %s", dh_error_kind(), dh_error_message()); \
  } while (0)

static dh_target_t* parse(const char* json) {
  dh_target_t* t = NULL;
  assert_ok(dh_target_parse_json(json, "<string>", &t));
  assert_non_null(t);
  return t;
}

static int64_t get_int(const dh_target_t* t, const char* name) {
  dh_any_t v;
  assert_ok(dh_target_get(t, name, &v));
  if (v.type_index != 1) fail_msg("option %s: expected Int, got type %d", name, v.type_index);
  return v.v_int64;
}

static const char* get_str(const dh_target_t* t, const char* name) {
  dh_any_t v;
  assert_ok(dh_target_get(t, name, &v));
  if (v.type_index != 8) fail_msg("option %s: expected RawStr, got type %d", name, v.type_index);
  return v.v_c_str;
}

static int is_none(const dh_target_t* t, const char* name) {
  dh_any_t v;
  assert_ok(dh_target_get(t, name, &v));
  return v.type_index == 0;
}

/* A kind with every option type, registered once (test_kind_register runs first). */
static const char* const k_test_kind =
    "{\"kind\": \"tkind\", \"device_type\": 40, \"default_keys\": [\"tk\"],"
    " \"options\": {\"f\": {\"type\": \"float\", \"default\": 0.5},"
    "  \"b\": {\"type\": \"bool\", \"default\": false},"
    "  \"i\": {\"type\": \"int\"}, \"s\": {\"type\": \"str\", \"default\": \"x\"},"
    "  \"as\": {\"type\": \"array<str>\"}, \"ai\": {\"type\": \"array<int>\", \"default\": [1, 2]},"
    "  \"t\": {\"type\": \"target\"}}}";

static void collect(const char* name, void* user) {
  char* buf = user;
  if (*buf) strcat(buf, ",");
  strcat(buf, name);
}

/*--------------------------------------------------------------------------- registry */

static void test_dir_and_kinds(void** state) {
  (void)state;
  assert_non_null(dh_targets_dir());
  assert_ok(dh_target_kinds_load());
  assert_ok(dh_target_kinds_load()); /* idempotent */
  char buf[512] = "";
  size_t n = dh_target_kind_list(collect, buf);
  assert_int_equal(n, 5);
  assert_string_equal(buf, "cpu,cuda,opencl,sim,vulkan");
}

static void test_kind_register(void** state) {
  (void)state;
  assert_ok(dh_target_kind_register_json(k_test_kind, "test"));
  assert_dh_error_msg(dh_target_kind_register_json(k_test_kind, "test"), "KeyError",
                      "test: kind 'tkind' is already registered");
  assert_dh_error_msg(dh_target_kind_register_json("{\"kind\": \"cuda\", \"device_type\": 2}", "p"),
                      "KeyError", "p: kind 'cuda' is already registered");
  assert_dh_error_msg(dh_target_kind_register_json(
                          "{\"kind\": \"k2\", \"device_type\": 41, \"options\": {\"x\": {\"type\": \"integer\"}}}",
                          "p"),
                      "TypeError", "p: option 'x': field 'type' must be one of");
  assert_dh_error_msg(dh_target_kind_register_json(
                          "{\"kind\": \"k2\", \"device_type\": 41, \"options\": {\"x\": {\"type\": \"int\", \"default\": \"3\"}}}",
                          "p"),
                      "TypeError", "p: option 'x': default: expected int, got string \"3\"");
  assert_dh_error_msg(dh_target_kind_register_json(
                          "{\"kind\": \"k2\", \"device_type\": 41, \"colour\": 1}", "p"),
                      "KeyError", "p: unknown field 'colour' in kind definition");
  assert_dh_error_msg(dh_target_kind_register_json(
                          "{\"kind\": \"k2\", \"device_type\": 41, \"options\": {\"keys\": {\"type\": \"int\"}}}",
                          "p"),
                      "ValueError", "p: option 'keys' redefines an option every kind has");
  assert_dh_error_msg(dh_target_kind_register_json("{\"kind\": \"k2\"}", "p"), "ValueError",
                      "p: kind definition has no 'device_type'");
  assert_dh_error_msg(dh_target_kind_register_json("{\"kind\": \"k2\", \"device_type\": \"4\"}", "p"),
                      "TypeError", "p: field 'device_type'");
  assert_dh_error_msg(dh_target_kind_register_json("{\"kind\": \"K 2\", \"device_type\": 4}", "p"),
                      "ValueError", "is not a kind name");
  assert_dh_error_msg(dh_target_kind_register_json("{\"kind\": ", "p"), "ParseError", "p:1:");
  char buf[512] = "";
  assert_int_equal(dh_target_kind_list(collect, buf), 6);
  assert_string_equal(buf, "cpu,cuda,opencl,sim,tkind,vulkan");
  dh_target_t* t = parse("{\"kind\": \"tkind\"}");
  assert_int_equal(dh_target_device_type(t), 40);
  assert_string_equal(dh_target_kind_name(t), "tkind");
  dh_target_free(t);
}

/*--------------------------------------------------------------------------- rules */

static void test_missing_kind(void** state) {
  (void)state;
  dh_target_t* t = (dh_target_t*)1;
  assert_dh_error_msg(dh_target_parse_json("{\"arch\": \"sm_80\"}", "<string>", &t), "ValueError",
                      "<string>: missing 'kind' (known kinds: cpu, cuda, opencl, sim, ");
  assert_null(t);
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": 7}", "<string>", &t), "TypeError",
                      "<string>: option 'kind': expected str, got int 7");
}

static void test_unknown_kind(void** state) {
  (void)state;
  dh_target_t* t = NULL;
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": \"llvmx\"}", "t.json", &t), "KeyError",
                      "t.json: unknown kind 'llvmx'; known kinds: cpu, cuda, opencl, sim, ");
  assert_null(t);
}

static void test_unknown_option(void** state) {
  (void)state;
  dh_target_t* t = NULL;
  assert_int_equal(dh_target_parse_json("{\"kind\": \"cuda\", \"foo\": 1}", "t.json", &t), -1);
  assert_string_equal(dh_error_kind(), "KeyError");
  assert_string_equal(dh_error_message(),
                      "t.json: unknown option 'foo' for kind 'cuda'; known options: arch, "
                      "device, device_name, expect, from_device, host, keys, kind, "
                      "l2_cache_size_bytes, libs, max_num_threads, max_shared_memory_per_block, "
                      "max_threads_per_block, memory_bandwidth_gbps, memory_bandwidth_source, "
                      "model, multi_processor_count, "
                      "registers_per_block, tag, target_device_type, thread_warp_size");
  assert_null(t);
}

static void test_type_mismatch(void** state) {
  (void)state;
  dh_target_t* t = NULL;
  assert_int_equal(dh_target_parse_file(data("type_mismatch.json"), &t), -1);
  assert_string_equal(dh_error_kind(), "TypeError");
  char want[PATH_MAX + 128];
  snprintf(want, sizeof want, "%s: option 'max_num_threads': expected int, got string \"1024\"",
           data("type_mismatch.json"));
  assert_string_equal(dh_error_message(), want);
  /* the string "true" is not a bool */
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": \"vulkan\", \"supports_float16\": \"true\"}",
                                           "<string>", &t),
                      "TypeError", "<string>: option 'supports_float16': expected bool, got string \"true\"");
  /* but an int is a bool and a bool an int, as TVM's ConfigSchema converts them
   * (Any::try_cast; apache/tvm 5d4dc87 include/tvm/ir/config_schema.h:176-186) */
  dh_any_t bv;
  assert_ok(dh_target_parse_json("{\"kind\": \"vulkan\", \"supports_int8\": 2, \"supports_int16\": 0}",
                                 "<string>", &t));
  assert_ok(dh_target_get(t, "supports_int8", &bv));
  assert_true(bv.type_index == DH_TYPE_BOOL && bv.v_int64 == 1);
  assert_ok(dh_target_get(t, "supports_int16", &bv));
  assert_true(bv.type_index == DH_TYPE_BOOL && bv.v_int64 == 0);
  dh_target_free(t);
  assert_ok(dh_target_parse_json("{\"kind\": \"cuda\", \"max_num_threads\": true}", "<string>", &t));
  assert_int_equal(get_int(t, "max_num_threads"), 1);
  dh_target_free(t);
  t = NULL;
  /* 1.5 is not an int */
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": \"cuda\", \"max_num_threads\": 1.5}", "<string>", &t),
                      "TypeError", "<string>: option 'max_num_threads': expected int, got float 1.5");
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": \"cuda\", \"arch\": null}", "<string>", &t),
                      "TypeError", "option 'arch': expected str, got null");
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": \"cpu\", \"mattr\": [\"+avx\", 3]}", "<string>", &t),
                      "TypeError", "option 'mattr': expected array<str>, got int 3 at index 1");
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": \"cpu\", \"mattr\": \"+avx\"}", "<string>", &t),
                      "TypeError", "option 'mattr': expected array<str>, got string \"+avx\"");
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": \"tkind\", \"ai\": [1, \"2\"]}", "<string>", &t),
                      "TypeError", "option 'ai': expected array<int>, got string \"2\" at index 1");
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": \"tkind\", \"f\": \"0.5\"}", "<string>", &t),
                      "TypeError", "option 'f': expected float, got string \"0.5\"");
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": \"cpu\", \"host\": 3}", "<string>", &t),
                      "TypeError", "option 'host': expected target, got int 3");
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": \"cpu\", \"from_device\": \"0\"}", "<string>", &t),
                      "TypeError", "option 'from_device': expected int, got string \"0\"");
  assert_null(t);
  /* an int is accepted for a float, and stays a float */
  t = parse("{\"kind\": \"tkind\", \"f\": 2, \"b\": true, \"i\": -3, \"as\": [\"a\"]}");
  dh_any_t v;
  assert_ok(dh_target_get(t, "f", &v));
  assert_int_equal(v.type_index, 3);
  assert_true(v.v_float64 == 2.0);
  assert_ok(dh_target_get(t, "b", &v));
  assert_int_equal(v.type_index, 2);
  assert_int_equal(v.v_int64, 1);
  assert_int_equal(get_int(t, "i"), -3);
  assert_string_equal(get_str(t, "as"), "[\"a\"]");
  char* s = dh_target_to_json(t, 0);
  assert_non_null(strstr(s, "\"f\":2.0"));
  dh_target_t* back = parse(s);
  assert_true(dh_target_equal(t, back));
  free(s);
  dh_target_free(back);
  dh_target_free(t);
}

static void test_defaults_filled(void** state) {
  (void)state;
  dh_target_t* t = parse("{\"kind\": \"opencl\"}");
  assert_int_equal(get_int(t, "max_num_threads"), 256);
  assert_int_equal(get_int(t, "thread_warp_size"), 1);
  assert_int_equal(get_int(t, "max_shared_memory_per_block"), 16384);
  assert_true(is_none(t, "device_name"));
  assert_true(is_none(t, "host"));
  assert_true(is_none(t, "from_device"));
  assert_int_equal(dh_target_device_type(t), 4);
  dh_target_free(t);
  t = parse("{\"kind\": \"cuda\", \"max_num_threads\": 512}");
  assert_int_equal(get_int(t, "max_num_threads"), 512); /* given wins over default */
  assert_int_equal(get_int(t, "thread_warp_size"), 32);
  assert_true(is_none(t, "arch"));
  dh_target_free(t);
  t = parse("{\"kind\": \"tkind\"}");
  dh_any_t v;
  assert_ok(dh_target_get(t, "f", &v));
  assert_true(v.type_index == 3 && v.v_float64 == 0.5);
  assert_ok(dh_target_get(t, "b", &v));
  assert_true(v.type_index == 2 && v.v_int64 == 0);
  assert_string_equal(get_str(t, "s"), "x");
  assert_string_equal(get_str(t, "ai"), "[1,2]");
  dh_target_free(t);
}

static void test_keys(void** state) {
  (void)state;
  dh_target_t* t = parse("{\"kind\": \"opencl\"}");
  assert_string_equal(get_str(t, "keys"), "[\"opencl\",\"gpu\"]");
  dh_target_free(t);
  /* TVM's order (apache/tvm 5d4dc87 src/target/target.cc:375-396): no keys given -> device first */
  t = parse("{\"kind\": \"opencl\", \"device\": \"mali\"}");
  assert_string_equal(get_str(t, "keys"), "[\"mali\",\"opencl\",\"gpu\"]");
  dh_target_free(t);
  t = parse("{\"kind\": \"opencl\", \"device\": \"gpu\"}"); /* de-duplicated */
  assert_string_equal(get_str(t, "keys"), "[\"gpu\",\"opencl\"]");
  dh_target_free(t);
  t = parse("{\"kind\": \"opencl\", \"keys\": [\"b\", \"a\", \"b\"], \"device\": \"a\"}");
  assert_string_equal(get_str(t, "keys"), "[\"b\",\"a\"]");
  dh_target_free(t);
  t = parse("{\"kind\": \"cpu\", \"keys\": [], \"device\": \"arm\"}");
  assert_string_equal(get_str(t, "keys"), "[\"arm\"]");
  dh_target_free(t);
  t = parse("{\"kind\": \"vulkan\"}");
  assert_string_equal(get_str(t, "keys"), "[\"vulkan\",\"gpu\"]");
  dh_target_free(t);
  /* what TVM's ToConfig writes: "tag": "" (no tag), from_device -1 (no device),
   * target_device_type */
  t = parse("{\"kind\": \"opencl\", \"tag\": \"\", \"keys\": [\"opencl\", \"gpu\"], \"from_device\": -1, "
            "\"target_device_type\": 4, \"max_threads_per_block\": 256}");
  assert_string_equal(get_str(t, "keys"), "[\"opencl\",\"gpu\"]");
  assert_int_equal(get_int(t, "max_threads_per_block"), 256);
  dh_target_free(t);
}

static void test_tag(void** state) {
  (void)state;
  dh_target_t* t = NULL;
  assert_ok(dh_target_parse_file(data("h100_override.json"), &t));
  assert_string_equal(dh_target_kind_name(t), "cuda");
  assert_string_equal(get_str(t, "arch"), "sm_90a");
  assert_int_equal(get_int(t, "max_threads_per_block"), 512); /* given wins */
  assert_int_equal(get_int(t, "multi_processor_count"), 132);
  assert_int_equal(get_int(t, "l2_cache_size_bytes"), 52428800);
  assert_int_equal(get_int(t, "max_num_threads"), 1024); /* kind default */
  assert_string_equal(get_str(t, "tag"), "nvidia/h100");
  assert_string_equal(get_str(t, "keys"), "[\"hopper\",\"cuda\",\"gpu\"]");
  dh_target_free(t);

  assert_ok(dh_target_from_tag("nvidia/a100", &t));
  assert_string_equal(get_str(t, "arch"), "sm_80");
  assert_int_equal(get_int(t, "l2_cache_size_bytes"), 41943040);
  assert_int_equal(get_int(t, "multi_processor_count"), 108);
  dh_target_free(t);

  t = NULL;
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": \"opencl\", \"tag\": \"nvidia/h100\"}", "<string>", &t),
                      "ValueError", "<string>: kind 'opencl' does not match tag 'nvidia/h100', whose kind is 'cuda'");
  assert_dh_error_msg(dh_target_parse_json("{\"tag\": \"nvidia/h999\"}", "<string>", &t), "KeyError",
                      "<string>: unknown tag 'nvidia/h999'; known tags: devharness/sim, generic/cpu, mesa/lavapipe, nvidia/a100, nvidia/h100, nvidia/h200, pocl/cpu");
  assert_dh_error_msg(dh_target_parse_json("{\"tag\": 5}", "<string>", &t), "TypeError",
                      "option 'tag': expected str, got int 5");
  assert_dh_error_msg(dh_target_from_tag("../kinds/cuda", &t), "KeyError", "unknown tag '../kinds/cuda'");
  assert_dh_error_msg(dh_target_from_tag("nvidia", &t), "KeyError", "known tags: devharness/sim");
  assert_dh_error_msg(dh_target_parse_json("{\"tag\": \"nvidia/h100\", \"arch\": 90}", "<string>", &t),
                      "TypeError", "option 'arch': expected str, got int 90");
  assert_null(t);

  /* resolve: a path when the file exists, else a tag */
  assert_ok(dh_target_resolve(data("h100_override.json"), &t));
  assert_int_equal(get_int(t, "max_threads_per_block"), 512);
  dh_target_free(t);
  assert_ok(dh_target_resolve("pocl/cpu", &t));
  assert_int_equal(get_int(t, "max_num_threads"), 4096);
  dh_target_free(t);
  /* a name ending in .json (or starting with / or .) is a file: a missing one is said to
   * be missing, not "unknown tag"; a vendor/name that is no tag is a tag */
  assert_dh_error_msg(dh_target_resolve("no/such/thing.json", &t), "IOError",
                      "no/such/thing.json: cannot open: No such file or directory");
  assert_dh_error_msg(dh_target_resolve("/no/such/file.json", &t), "IOError", "cannot open");
  assert_dh_error_msg(dh_target_resolve("no/such", &t), "KeyError", "unknown tag 'no/such'");
}

static void test_host(void** state) {
  (void)state;
  dh_target_t* t = parse("{\"kind\": \"cuda\", \"host\": {\"kind\": \"cpu\", \"mcpu\": \"skylake\"}}");
  assert_string_equal(get_str(t, "host"), "{\"keys\":[\"cpu\"],\"kind\":\"cpu\",\"mcpu\":\"skylake\"}");
  dh_target_free(t);
  t = parse("{\"kind\": \"cuda\", \"host\": \"cpu\"}"); /* a kind name, like TVM's "llvm" */
  assert_string_equal(get_str(t, "host"), "{\"keys\":[\"cpu\"],\"kind\":\"cpu\"}");
  dh_target_free(t);
  t = NULL;
  assert_ok(dh_target_parse_file(data("host_tag.json"), &t)); /* a tag name */
  assert_string_equal(get_str(t, "host"), "{\"keys\":[\"cpu\"],\"kind\":\"cpu\",\"tag\":\"generic/cpu\"}");
  dh_target_free(t);
  t = parse("{\"kind\": \"cuda\", \"host\": {\"kind\": \"cpu\", \"host\": {\"kind\": \"sim\"}}}");
  assert_non_null(strstr(get_str(t, "host"), "\"host\":{\"keys\":[\"sim\"],\"kind\":\"sim\"}"));
  dh_target_free(t);
  t = NULL;
  /* validated recursively */
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": \"cuda\", \"host\": {\"kind\": \"cpu\", \"mcpu\": 3}}", "h.json", &t),
                      "TypeError", "h.json: option 'host.mcpu': expected str, got int 3");
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": \"cuda\", \"host\": {\"kind\": \"cpu\", \"bar\": 3}}", "h.json", &t),
                      "KeyError", "h.json: unknown option 'host.bar' for kind 'cpu'; known options: ");
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": \"cuda\", \"host\": {\"mcpu\": \"x\"}}", "h.json", &t),
                      "ValueError", "h.json: host: missing 'kind'");
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": \"cuda\", \"host\": \"llvm\"}", "h.json", &t),
                      "KeyError", "h.json: option 'host': 'llvm' is neither a tag nor a kind");
  assert_null(t);
  /* round trip with a host */
  t = parse("{\"kind\": \"cuda\", \"host\": {\"kind\": \"cpu\", \"mattr\": [\"+avx2\"]}}");
  char* s = dh_target_to_json(t, 1);
  dh_target_t* back = parse(s);
  assert_true(dh_target_equal(t, back));
  free(s);
  dh_target_free(back);
  dh_target_free(t);
}

static void tag_round_trip(const char* tag, void* user) {
  size_t* n = user;
  dh_target_t* t = NULL;
  if (dh_target_from_tag(tag, &t) != 0) fail_msg("tag %s: %s", tag, dh_error_message());
  for (int pretty = 0; pretty < 2; ++pretty) {
    char* s = dh_target_to_json(t, pretty);
    assert_non_null(s);
    dh_target_t* back = NULL;
    if (dh_target_parse_json(s, tag, &back) != 0) fail_msg("tag %s: %s", tag, dh_error_message());
    if (!dh_target_equal(t, back)) fail_msg("tag %s does not round-trip: %s", tag, s);
    char* s2 = dh_target_to_json(back, pretty);
    assert_string_equal(s, s2);
    free(s2);
    free(s);
    dh_target_free(back);
  }
  dh_target_free(t);
  ++*n;
}

static void test_round_trip_every_tag(void** state) {
  (void)state;
  size_t n = 0;
  assert_int_equal(dh_target_tag_list(tag_round_trip, &n), 7);
  assert_int_equal(n, 7);
  dh_target_t* a = NULL;
  dh_target_t* b = NULL;
  assert_ok(dh_target_from_tag("nvidia/h100", &a));
  assert_ok(dh_target_from_tag("nvidia/h200", &b));
  assert_false(dh_target_equal(a, b)); /* tag differs */
  dh_target_free(b);
  b = parse("{\"tag\": \"nvidia/h100\", \"registers_per_block\": 32768}");
  assert_false(dh_target_equal(a, b));
  dh_target_free(b);
  b = parse("{\"tag\": \"nvidia/h100\", \"registers_per_block\": 65536}");
  assert_true(dh_target_equal(a, b));
  dh_target_free(b);
  dh_target_free(a);
  /* pretty output is sorted and indented */
  a = parse("{\"kind\": \"sim\", \"num_devices\": 2}");
  char* s = dh_target_to_json(a, 1);
  assert_string_equal(s, "{\n  \"keys\": [\n    \"sim\"\n  ],\n  \"kind\": \"sim\",\n  \"num_devices\": 2\n}");
  free(s);
  dh_target_free(a);
}

static void test_declared(void** state) {
  (void)state;
  dh_target_t* t = parse("{\"kind\": \"cuda\", \"keys\": [\"x\"], \"arch\": \"sm_80\"}");
  assert_int_equal(dh_target_declared_count(t), 3);
  assert_string_equal(dh_target_declared_name(t, 0), "arch");
  assert_string_equal(dh_target_declared_name(t, 1), "keys");
  assert_string_equal(dh_target_declared_name(t, 2), "kind");
  assert_null(dh_target_declared_name(t, 3));
  dh_target_free(t);
  t = parse("{\"kind\": \"opencl\"}"); /* defaults are not declared */
  assert_int_equal(dh_target_declared_count(t), 1);
  assert_string_equal(dh_target_declared_name(t, 0), "kind");
  dh_target_free(t);
  t = NULL;
  assert_ok(dh_target_parse_file(data("h100_override.json"), &t));
  const char* want[] = {"arch", "device", "expect", "kind", "l2_cache_size_bytes",
                        "max_shared_memory_per_block", "max_threads_per_block",
                        "memory_bandwidth_gbps", "memory_bandwidth_source",
                        "multi_processor_count", "registers_per_block", "tag",
                        "thread_warp_size"};
  assert_int_equal(dh_target_declared_count(t), sizeof want / sizeof want[0]);
  for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i)
    assert_string_equal(dh_target_declared_name(t, i), want[i]);
  dh_target_free(t);
}

static void test_get(void** state) {
  (void)state;
  dh_target_t* t = parse("{\"kind\": \"cpu\", \"num-cores\": 8}");
  dh_any_t v;
  assert_dh_error_msg(dh_target_get(t, "arch", &v), "KeyError", "unknown option 'arch' for kind 'cpu'");
  assert_int_equal(get_int(t, "num-cores"), 8);
  assert_string_equal(get_str(t, "kind"), "cpu");
  assert_true(is_none(t, "mcpu"));
  dh_target_free(t);
  dh_target_free(NULL);
}

/*--------------------------------------------------------------------------- JSON limits */

static void test_syntax_error_position(void** state) {
  (void)state;
  dh_target_t* t = NULL;
  char want[PATH_MAX + 64];
  snprintf(want, sizeof want, "%s:3:12: JSON syntax error: invalid token near 'sm'", data("syntax_error.json"));
  assert_dh_error_msg(dh_target_parse_file(data("syntax_error.json"), &t), "ParseError", want);
  assert_dh_error_msg(dh_target_parse_json("{\"kind\":\n \"cpu\",}", "<string>", &t), "ParseError",
                      "<string>:2:8: JSON syntax error: ");
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": \"cpu\"} x", "<string>", &t), "ParseError",
                      "<string>:1:");
  assert_dh_error_msg(dh_target_parse_file(data("not_object.json"), &t), "TypeError",
                      "expected a JSON object, got array");
  assert_dh_error_msg(dh_target_parse_file(data("no_such_file.json"), &t), "IOError", "cannot open");
  assert_dh_error_msg(dh_target_parse_file(g_data, &t), "IOError", "is a directory");
  assert_null(t);
}

static void test_duplicate_keys(void** state) {
  (void)state;
  dh_target_t* t = NULL;
  char want[PATH_MAX + 64];
  snprintf(want, sizeof want, "%s:4:", data("duplicate_key.json"));
  assert_dh_error_msg(dh_target_parse_file(data("duplicate_key.json"), &t), "ParseError", want);
  assert_non_null(strstr(dh_error_message(), "duplicate"));
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": \"cpu\", \"kind\": \"cpu\"}", "<string>", &t),
                      "ParseError", "duplicate");
  assert_null(t);
}

static void test_non_utf8(void** state) {
  (void)state;
  dh_target_t* t = NULL;
  char want[PATH_MAX + 64];
  snprintf(want, sizeof want, "%s:3:", data("non_utf8.json"));
  assert_dh_error_msg(dh_target_parse_file(data("non_utf8.json"), &t), "ParseError", want);
  assert_non_null(strstr(dh_error_message(), "invalid UTF-8"));
  assert_dh_error_msg(dh_target_parse_json("{\"kind\": \"c\xc3\"}", "<string>", &t), "ParseError",
                      "invalid UTF-8");
  assert_null(t);
}

static void test_empty(void** state) {
  (void)state;
  dh_target_t* t = NULL;
  char want[PATH_MAX + 64];
  snprintf(want, sizeof want, "%s: empty file", data("empty.json"));
  assert_dh_error_msg(dh_target_parse_file(data("empty.json"), &t), "ParseError", want);
  snprintf(want, sizeof want, "%s: empty file", data("whitespace.json"));
  assert_dh_error_msg(dh_target_parse_file(data("whitespace.json"), &t), "ParseError", want);
  assert_dh_error_msg(dh_target_parse_json("", "<string>", &t), "ParseError", "<string>: empty input");
  assert_dh_error_msg(dh_target_parse_json(" \n", "<string>", &t), "ParseError", "<string>: empty input");
  assert_null(t);
}

static char* nested(int levels) {
  /* {"kind": "cpu", "mattr": [[...["x"]...]]}: the object is level 1, mattr level 2 */
  size_t n = (size_t)levels * 2 + 64;
  char* s = malloc(n);
  assert_non_null(s);
  strcpy(s, "{\"kind\": \"cpu\", \"mattr\": ");
  for (int i = 1; i < levels; ++i) strcat(s, "[");
  for (int i = 1; i < levels; ++i) strcat(s, "]");
  strcat(s, "}");
  return s;
}

static void test_deep_nesting(void** state) {
  (void)state;
  dh_target_t* t = NULL;
  char* s = nested(65);
  assert_dh_error_msg(dh_target_parse_json(s, "<string>", &t), "ParseError",
                      "<string>: nesting deeper than 64 levels");
  free(s);
  s = nested(64); /* 64 levels are allowed; then mattr's type is wrong */
  assert_dh_error_msg(dh_target_parse_json(s, "<string>", &t), "TypeError", "option 'mattr'");
  free(s);
  s = nested(5000); /* past jansson's own limit too */
  assert_int_equal(dh_target_parse_json(s, "<string>", &t), -1);
  assert_string_equal(dh_error_kind(), "ParseError");
  free(s);
  /* host targets nest: the depth of a file counts them */
  char host[4096] = "{\"kind\": \"cpu\"}";
  for (int i = 0; i < 9; ++i) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "{\"kind\": \"cpu\", \"host\": %s}", host);
    strcpy(host, tmp);
  }
  assert_dh_error_msg(dh_target_parse_json(host, "<string>", &t), "ValueError", "nests deeper than 8");
  assert_null(t);
}

static void test_huge_file(void** state) {
  (void)state;
  char path[] = "/tmp/dh_targets_huge_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  /* sparse: 1 MiB + 1 bytes without writing them; rejected from its size */
  assert_int_equal(ftruncate(fd, ((off_t)1 << 20) + 1), 0);
  close(fd);
  dh_target_t* t = NULL;
  assert_dh_error_msg(dh_target_parse_file(path, &t), "ValueError", "larger than the 1 MiB limit");
  assert_non_null(strstr(dh_error_message(), path));
  unlink(path);
  /* a stream (not a regular file) is cut off at the limit while reading */
  FILE* big = NULL;
  (void)big;
  size_t n = ((size_t)1 << 20) + 16;
  char* text = malloc(n + 1);
  assert_non_null(text);
  memset(text, ' ', n);
  text[0] = '{';
  text[n - 1] = '}';
  text[n] = '\0';
  assert_dh_error_msg(dh_target_parse_json(text, "<string>", &t), "ValueError",
                      "<string>: text is 1048592 bytes, larger than the 1 MiB limit");
  free(text);
  assert_null(t);
}

static void test_from_device_merge(void** state);
static void test_detect_with_getter(void** state);

/*--------------------------------------------------------------------------- from_device
 * The merge logic through the internal getter hook (no backend); the device API path
 * is tested in test_target_device.c with a fake plugin. */

static int fake_get(void* ctx, DLDevice dev, const char* name, dh_any_t* out) {
  int* calls = ctx;
  ++*calls;
  if (dev.device_id != 0) return dh_error_set("IndexError", "fake: no device %d", dev.device_id);
  if (strcmp(name, "max_num_threads") == 0) *out = dh_any_int(1024);
  else if (strcmp(name, "device_name") == 0) *out = dh_any_str("Fake CL");
  else if (strcmp(name, "compute_units") == 0) *out = dh_any_int(2);
  else *out = dh_any_none();
  return 0;
}

static int bad_get(void* ctx, DLDevice dev, const char* name, dh_any_t* out) {
  (void)ctx;
  (void)dev;
  *out = strcmp(name, "compute_units") == 0 ? dh_any_str("two") : dh_any_none();
  return 0;
}

static void test_from_device_merge(void** state) {
  (void)state;
  int calls = 0;
  dh_target_t* t = NULL;
  assert_ok(dh_target_parse_json_with_getter(
      "{\"kind\": \"opencl\", \"from_device\": 0, \"max_num_threads\": 64}", "<string>", fake_get,
      &calls, &t));
  assert_true(calls > 0);
  assert_int_equal(get_int(t, "max_num_threads"), 64); /* the user's value wins */
  assert_string_equal(get_str(t, "device_name"), "Fake CL");
  assert_int_equal(get_int(t, "compute_units"), 2);
  assert_int_equal(get_int(t, "thread_warp_size"), 1); /* default: device said None */
  assert_true(is_none(t, "opencl_version"));
  assert_true(is_none(t, "from_device")); /* consumed, as TVM */
  const char* want[] = {"compute_units", "device_name", "kind", "max_num_threads"};
  assert_int_equal(dh_target_declared_count(t), 4);
  for (size_t i = 0; i < 4; ++i) assert_string_equal(dh_target_declared_name(t, i), want[i]);
  char* s = dh_target_to_json(t, 0);
  assert_null(strstr(s, "from_device"));
  dh_target_t* back = parse(s);
  assert_true(dh_target_equal(t, back));
  free(s);
  dh_target_free(back);
  dh_target_free(t);
  t = NULL;
  assert_dh_error_msg(dh_target_parse_json_with_getter("{\"kind\": \"opencl\", \"from_device\": 1}",
                                                       "<string>", fake_get, &calls, &t),
                      "IndexError", "<string>: option 'from_device': property ");
  assert_non_null(strstr(dh_error_message(), "fake: no device 1"));
  assert_dh_error_msg(dh_target_parse_json_with_getter("{\"kind\": \"opencl\", \"from_device\": 0}",
                                                       "<string>", bad_get, NULL, &t),
                      "TypeError",
                      "<string>: option 'from_device': device property 'compute_units': expected int, got string \"two\"");
  assert_dh_error_msg(dh_target_parse_json_with_getter("{\"kind\": \"opencl\", \"from_device\": 0, \"zzz\": 1}",
                                                       "<string>", fake_get, &calls, &t),
                      "KeyError", "<string>: unknown option 'zzz' for kind 'opencl'");
  /* as TVM, defaults are applied before the device is queried: the device's 1024 does not
   * replace max_num_threads' default 256 (apache/tvm 5d4dc87 src/target/target.cc:353-355,413-419) */
  assert_ok(dh_target_parse_json_with_getter("{\"kind\": \"opencl\", \"from_device\": 0}", "<string>",
                                             fake_get, &calls, &t));
  assert_int_equal(get_int(t, "max_num_threads"), 256);
  assert_string_equal(get_str(t, "device_name"), "Fake CL");
  dh_target_free(t);
  t = NULL;
  /* -1 is TVM's "no device": nothing is queried (apache/tvm 5d4dc87 src/target/target.cc:407-413) */
  calls = 0;
  assert_ok(dh_target_parse_json_with_getter("{\"kind\": \"opencl\", \"from_device\": -1}", "<string>",
                                             fake_get, &calls, &t));
  assert_int_equal(calls, 0);
  assert_true(is_none(t, "device_name"));
  dh_target_free(t);
  t = NULL;
  assert_dh_error_msg(dh_target_parse_json_with_getter("{\"kind\": \"opencl\", \"from_device\": -2}",
                                                       "<string>", fake_get, &calls, &t),
                      "ValueError", "expected a device id >= 0 (or -1: none), got -2");
  assert_null(t);
}

static void test_detect_with_getter(void** state) {
  (void)state;
  int calls = 0;
  dh_target_t* t = NULL;
  DLDevice dev = {kDLOpenCL, 0};
  assert_ok(dh_target_detect_with_getter("opencl", dev, fake_get, &calls, &t));
  assert_int_equal(get_int(t, "max_num_threads"), 1024);
  assert_string_equal(get_str(t, "device_name"), "Fake CL");
  assert_int_equal(get_int(t, "max_shared_memory_per_block"), 16384);
  assert_int_equal(dh_target_declared_count(t), 4); /* compute_units, device_name, kind, max_num_threads */
  dh_target_free(t);
  t = NULL;
  assert_dh_error_msg(dh_target_detect_with_getter("nope", dev, fake_get, &calls, &t), "KeyError",
                      "unknown target kind 'nope'");
  assert_dh_error_msg(dh_target_detect_with_getter("opencl", dev, bad_get, NULL, &t), "TypeError",
                      "target property 'compute_units': expected int, got string \"two\"");
  assert_null(t);
}

int main(void) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return 1;
  exe[n] = '\0';
  *strrchr(exe, '/') = '\0';
  if ((size_t)snprintf(g_data, sizeof g_data, "%s/../../tests/target/data", exe) >= sizeof g_data)
    return 1;
  char* real = realpath(g_data, NULL);
  if (real) {
    snprintf(g_data, sizeof g_data, "%s", real);
    free(real);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dir_and_kinds),
      cmocka_unit_test(test_kind_register),
      cmocka_unit_test(test_missing_kind),
      cmocka_unit_test(test_unknown_kind),
      cmocka_unit_test(test_unknown_option),
      cmocka_unit_test(test_type_mismatch),
      cmocka_unit_test(test_defaults_filled),
      cmocka_unit_test(test_keys),
      cmocka_unit_test(test_tag),
      cmocka_unit_test(test_host),
      cmocka_unit_test(test_round_trip_every_tag),
      cmocka_unit_test(test_declared),
      cmocka_unit_test(test_get),
      cmocka_unit_test(test_syntax_error_position),
      cmocka_unit_test(test_duplicate_keys),
      cmocka_unit_test(test_non_utf8),
      cmocka_unit_test(test_empty),
      cmocka_unit_test(test_deep_nesting),
      cmocka_unit_test(test_huge_file),
      cmocka_unit_test(test_from_device_merge),
      cmocka_unit_test(test_detect_with_getter),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
