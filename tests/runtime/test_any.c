/*
 * tests/runtime/test_any.c — dh_any_t's layout (static asserts), constructors,
 * dh_type_index_name, dh_any_equal. The comparison with tvm-ffi's own header is
 * tests/runtime/test_any_tvmffi.c.
 */
#include "rt_test.h"

#include <math.h>

#include "devharness/any.h"

/* Compile-time checks beyond any.h's own. */
_Static_assert(offsetof(dh_any_t, zero_padding) == 4, "zero_padding at byte 4");
_Static_assert(offsetof(dh_any_t, v_float64) == 8, "v_float64 at byte 8");
_Static_assert(offsetof(dh_any_t, v_ptr) == 8, "v_ptr at byte 8");
_Static_assert(offsetof(dh_any_t, v_dtype) == 8, "v_dtype at byte 8");
_Static_assert(offsetof(dh_any_t, v_device) == 8, "v_device at byte 8");
_Static_assert(offsetof(dh_any_t, v_bytes) == 8, "v_bytes at byte 8");
_Static_assert(sizeof(DLDataType) == 4 && sizeof(DLDevice) == 8, "DLPack POD sizes");
_Static_assert(DH_TYPE_SMALL_BYTES == 12 && DH_TYPE_STATIC_OBJECT_BEGIN == 64, "type indices");

static void test_constructors_zero_unused_bytes(void** state) {
  (void)state;
  dh_any_t a = dh_any_bool(5);
  assert_int_equal(a.type_index, DH_TYPE_BOOL);
  assert_int_equal(a.v_int64, 1);
  assert_int_equal(a.zero_padding, 0);
  DLDataType dt = {kDLFloat, 32, 1};
  a = dh_any_dtype(dt);
  const unsigned char* raw = (const unsigned char*)&a;
  for (int i = 4; i < 8; i++) assert_int_equal(raw[i], 0);
  for (int i = 12; i < 16; i++) assert_int_equal(raw[i], 0); /* DLDataType is 4 bytes */
  a = dh_any_none();
  for (int i = 0; i < 16; i++) assert_int_equal(raw[i], 0);
}

static void test_type_index_name(void** state) {
  (void)state;
  assert_string_equal(dh_type_index_name(DH_TYPE_NONE), "None");
  assert_string_equal(dh_type_index_name(DH_TYPE_INT), "Int");
  assert_string_equal(dh_type_index_name(DH_TYPE_DL_TENSOR_PTR), "DLTensorPtr");
  assert_string_equal(dh_type_index_name(DH_TYPE_BYTE_ARRAY_PTR), "ByteArrayPtr");
  assert_string_equal(dh_type_index_name(DH_TYPE_OBJECT_RVALUE_REF), "ObjectRValueRef");
  assert_string_equal(dh_type_index_name(DH_TYPE_SMALL_BYTES), "SmallBytes");
  assert_string_equal(dh_type_index_name(64), "Object");
  assert_string_equal(dh_type_index_name(1000), "Object");
  assert_string_equal(dh_type_index_name(13), "Unknown");
  assert_string_equal(dh_type_index_name(-1), "Unknown");
}

static void test_any_equal(void** state) {
  (void)state;
  dh_any_t a = dh_any_int(3), b = dh_any_int(3), c = dh_any_bool(1);
  assert_true(dh_any_equal(&a, &b));
  b.v_int64 = 4;
  assert_false(dh_any_equal(&a, &b));
  a = dh_any_int(1);
  assert_false(dh_any_equal(&a, &c)); /* type differs */
  char s1[] = "hello", s2[] = "hello";
  a = dh_any_str(s1);
  b = dh_any_str(s2);
  assert_true(dh_any_equal(&a, &b)); /* by content */
  b = dh_any_str("help");
  assert_false(dh_any_equal(&a, &b));
  a = dh_any_float(NAN);
  b = dh_any_float(NAN);
  assert_true(dh_any_equal(&a, &b));
  a = dh_any_float(0.0);
  b = dh_any_float(-0.0);
  assert_false(dh_any_equal(&a, &b));
  DLTensor t1, t2;
  a = dh_any_tensor(&t1);
  b = dh_any_tensor(&t2);
  assert_false(dh_any_equal(&a, &b)); /* by address */
  b = dh_any_tensor(&t1);
  assert_true(dh_any_equal(&a, &b));
  dh_byte_array_t x = {"ab\0c", 4}, y = {"ab\0c", 4}, z = {"ab\0d", 4};
  a = dh_any_bytes(&x);
  b = dh_any_bytes(&y);
  assert_true(dh_any_equal(&a, &b));
  b = dh_any_bytes(&z);
  assert_false(dh_any_equal(&a, &b));
  a = dh_any_make(DH_TYPE_SMALL_STR);
  b = dh_any_make(DH_TYPE_SMALL_STR);
  memcpy(a.v_bytes, "abc", 4);
  memcpy(b.v_bytes, "abc", 4);
  a.small_str_len = b.small_str_len = 3;
  assert_true(dh_any_equal(&a, &b));
  b.small_str_len = 2;
  assert_false(dh_any_equal(&a, &b));
  DLDevice d1 = {kDLCPU, 0}, d2 = {kDLCPU, 1};
  a = dh_any_device(d1);
  b = dh_any_device(d2);
  assert_false(dh_any_equal(&a, &b));
  assert_false(dh_any_equal(&a, NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_constructors_zero_unused_bytes),
      cmocka_unit_test(test_type_index_name),
      cmocka_unit_test(test_any_equal),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
