/*
 * tests/runtime/test_module.c — loading a shared object that exports __tvm_ffi_<name>
 * functions (module.h) and calling them with every POD argument type.
 */
#include "rt_test.h"

#include "devharness/error.h"
#include "devharness/module.h"

static dh_module_t* g_mod;

static int setup(void** state) {
  (void)state;
  char path[PATH_MAX];
  if (dh_module_load(rt_path(path, sizeof path, "runtime_ffi_module.so"), &g_mod) != 0) {
    print_message("# cannot load %s: %s\n", path, dh_error_message());
    return -1;
  }
  return 0;
}
static int teardown(void** state) {
  (void)state;
  dh_module_free(g_mod);
  return 0;
}

static DLTensor g_tensor;
static int64_t g_shape[2] = {3, 5};
static dh_byte_array_t g_bytes = {"a\0b\0c", 5};

/* The 12 POD arguments check_pod expects (see ffi_module.c). */
static void make_pod_args(dh_any_t a[12]) {
  memset(&g_tensor, 0, sizeof g_tensor);
  g_tensor.ndim = 2;
  g_tensor.shape = g_shape;
  g_tensor.byte_offset = 8;
  a[0] = dh_any_none();
  a[1] = dh_any_int(INT64_MIN + 7);
  a[2] = dh_any_bool(1);
  a[3] = dh_any_float(-2.5e300);
  a[4] = dh_any_ptr((void*)(uintptr_t)0xdeadbeef0ull);
  a[5] = dh_any_dtype((DLDataType){kDLFloat, 16, 4});
  a[6] = dh_any_device((DLDevice){kDLExtDev, 3});
  a[7] = dh_any_tensor(&g_tensor);
  a[8] = dh_any_str("h\xc3\xa9llo, world");
  a[9] = dh_any_bytes(&g_bytes);
  a[10] = dh_any_make(DH_TYPE_SMALL_STR);
  a[10].small_str_len = 7;
  memcpy(a[10].v_bytes, "seven7\x21", 8);
  a[11] = dh_any_make(DH_TYPE_SMALL_BYTES);
  a[11].small_str_len = 8;
  memcpy(a[11].v_bytes, "\0\1\2\3\4\5\6\7", 8);
}

static void test_every_pod_argument_arrives(void** state) {
  (void)state;
  dh_function_t f;
  assert_int_equal(dh_module_get_function(g_mod, "check_pod", &f), 0);
  assert_non_null(f.handle);
  dh_any_t a[12], rv;
  make_pod_args(a);
  assert_int_equal(dh_func_call(&f, a, 12, &rv), 0);
  assert_int_equal(rv.type_index, DH_TYPE_INT);
  assert_int_equal(rv.v_int64, 0); /* bitmask of arguments that did not arrive intact */
  a[1].v_int64++;                  /* and a change is seen */
  a[8] = dh_any_str("other");
  assert_int_equal(dh_func_call(&f, a, 12, &rv), 0);
  assert_int_equal(rv.v_int64, (1 << 1) | (1 << 8));
  dh_func_release(&f);
}

static void test_every_pod_result_comes_back(void** state) {
  (void)state;
  dh_function_t echo, describe;
  assert_int_equal(dh_module_get_function(g_mod, "echo", &echo), 0);
  assert_int_equal(dh_module_get_function(g_mod, "describe", &describe), 0);
  dh_any_t a[13], rv;
  make_pod_args(a + 1);
  for (int i = 0; i < 12; i++) {
    a[0] = dh_any_int(i);
    rv = dh_any_int(-1);
    assert_int_equal(dh_func_call(&echo, a, 13, &rv), 0);
    /* a borrowed RawStr / ByteArrayPtr comes back as an owned Str / Bytes (or their
     * small forms) of the same bytes; everything else bit for bit */
    if (i == 8 || i == 9) {
      assert_true(rv.type_index != a[1 + i].type_index);
    } else if (memcmp(&rv, &a[1 + i], sizeof rv) != 0) {
      fail_msg("result %d (%s) differs from the argument", i, dh_type_index_name(a[1 + i].type_index));
    }
    assert_true(dh_any_equal(&rv, &a[1 + i]));
    dh_any_release(&rv);
    assert_int_equal(dh_func_call(&describe, &a[1 + i], 1, &rv), 0);
    dh_byte_array_t name;
    assert_int_equal(dh_any_as_str(&rv, &name), 0);
    const char* want = dh_type_index_name(a[1 + i].type_index);
    assert_int_equal(name.size, strlen(want));
    assert_memory_equal(name.data, want, name.size);
    dh_any_release(&rv);
  }
  a[0] = dh_any_int(12);
  assert_int_equal(dh_func_call(&echo, a, 13, &rv), -1);
  assert_string_equal(dh_error_kind(), "IndexError");
  assert_string_equal(dh_error_message(), "echo: index 12 out of range");
  dh_func_release(&echo);
  dh_func_release(&describe);
}

static void test_error_from_module(void** state) {
  (void)state;
  dh_function_t f;
  assert_int_equal(dh_module_get_function(g_mod, "raise", &f), 0);
  dh_any_t a[2] = {dh_any_str("NotImplementedError"), dh_any_str("the module says no")}, rv;
  assert_int_equal(dh_func_call(&f, a, 2, &rv), -1);
  assert_string_equal(dh_error_kind(), "NotImplementedError");
  assert_string_equal(dh_error_message(), "the module says no");
  assert_int_equal(rv.type_index, DH_TYPE_NONE);
  dh_func_release(&f);
}

static void test_missing_symbol(void** state) {
  (void)state;
  dh_function_t f = {NULL};
  assert_int_equal(dh_module_get_function(g_mod, "nope", &f), -1);
  assert_string_equal(dh_error_kind(), "KeyError");
  assert_contains(dh_error_message(), "__tvm_ffi_nope");
  assert_contains(dh_error_message(), "runtime_ffi_module.so");
  assert_null(f.handle);
  assert_int_equal(dh_module_get_function(g_mod, "plain", &f), -1); /* no prefix, no function */
  assert_contains(dh_error_message(), "__tvm_ffi_plain");
  assert_contains(dh_module_path(g_mod), "runtime_ffi_module.so");
}

static void test_load_errors(void** state) {
  (void)state;
  dh_module_t* m = (dh_module_t*)1;
  assert_int_equal(dh_module_load("/nonexistent/libnothing.so", &m), -1);
  assert_null(m);
  assert_string_equal(dh_error_kind(), "IOError");
  assert_contains(dh_error_message(), "/nonexistent/libnothing.so");
  char path[PATH_MAX];
  assert_int_equal(dh_module_load(rt_path(path, sizeof path, "runtime_plugins/libdevharness_bogus.so"), &m), -1);
  assert_non_null(dh_error_kind()); /* tvm-ffi's loader error, dlerror()'s reason */
  assert_contains(dh_error_message(), "libdevharness_bogus.so");
  assert_int_equal(dh_module_load(NULL, &m), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
  dh_module_free(NULL); /* no-op */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_pod_argument_arrives), cmocka_unit_test(test_every_pod_result_comes_back),
      cmocka_unit_test(test_error_from_module),          cmocka_unit_test(test_missing_symbol),
      cmocka_unit_test(test_load_errors),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests(tests, setup, teardown);
}
