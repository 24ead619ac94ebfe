/*
 * tests/runtime/test_any_tvmffi.c — dh_any_t matches tvm-ffi's TVMFFIAny: size,
 * alignment, every field offset, TVMFFIByteArray, and the POD type indices
 * kTVMFFINone..kTVMFFISmallBytes and kTVMFFIStaticObjectBegin (apache/tvm-ffi v0.1.15 c_api.h), as
 * reported by tvmffi_layout.c compiled against <tvm/ffi/c_api.h>.
 * Without the apache-tvm-ffi headers it prints "1..0 # SKIP <reason>" (cmocka 1.1.5
 * prints a skipped test as "not ok", which prove counts as a failure).
 */
#include "rt_test.h"

#include "devharness/any.h"
#include "tvmffi_layout.h"

static void test_layout_matches_tvm_ffi(void** state) {
  (void)state;
  rt_layout_t t;
  memset(&t, 0, sizeof t);
  assert_true(rt_tvmffi_layout(&t));
  assert_int_equal(t.size, sizeof(dh_any_t));
  assert_int_equal(t.align, _Alignof(dh_any_t));
  assert_int_equal(t.off_type_index, offsetof(dh_any_t, type_index));
  assert_int_equal(t.size_type_index, sizeof(((dh_any_t*)0)->type_index));
  assert_int_equal(t.off_small_str_len, offsetof(dh_any_t, small_str_len));
  assert_int_equal(t.off_zero_padding, offsetof(dh_any_t, zero_padding));
  assert_int_equal(t.off_v_int64, offsetof(dh_any_t, v_int64));
  assert_int_equal(t.off_v_float64, offsetof(dh_any_t, v_float64));
  assert_int_equal(t.off_v_ptr, offsetof(dh_any_t, v_ptr));
  assert_int_equal(t.off_v_c_str, offsetof(dh_any_t, v_c_str));
  assert_int_equal(t.off_v_dtype, offsetof(dh_any_t, v_dtype));
  assert_int_equal(t.off_v_device, offsetof(dh_any_t, v_device));
  assert_int_equal(t.off_v_bytes, offsetof(dh_any_t, v_bytes));
  assert_int_equal(t.off_v_uint64, offsetof(dh_any_t, v_uint64));
  assert_int_equal(t.size_v_dtype, sizeof(DLDataType));
  assert_int_equal(t.size_v_device, sizeof(DLDevice));
  assert_int_equal(t.size_byte_array, sizeof(dh_byte_array_t));
  assert_int_equal(t.off_byte_array_size, offsetof(dh_byte_array_t, size));
  const int32_t ours[RT_NUM_POD] = {DH_TYPE_NONE,        DH_TYPE_INT,          DH_TYPE_BOOL,
                                    DH_TYPE_FLOAT,       DH_TYPE_OPAQUE_PTR,   DH_TYPE_DATA_TYPE,
                                    DH_TYPE_DEVICE,      DH_TYPE_DL_TENSOR_PTR, DH_TYPE_RAW_STR,
                                    DH_TYPE_BYTE_ARRAY_PTR, DH_TYPE_OBJECT_RVALUE_REF, DH_TYPE_SMALL_STR,
                                    DH_TYPE_SMALL_BYTES};
  for (int i = 0; i < RT_NUM_POD; i++) {
    if (t.type_index[i] != ours[i]) fail_msg("type index %d: tvm-ffi %d, devharness %d", i, t.type_index[i], ours[i]);
  }
  assert_int_equal(t.static_object_begin, DH_TYPE_STATIC_OBJECT_BEGIN);
}

int main(void) {
  rt_layout_t probe;
  if (!rt_tvmffi_layout(&probe)) {
    printf("1..0 # SKIP tvm-ffi headers not found at build time (pip package apache-tvm-ffi; "
           "tvm-ffi-config --includedir)\n");
    return 0;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_layout_matches_tvm_ffi),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
