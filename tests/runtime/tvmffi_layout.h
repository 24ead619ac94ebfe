/* tests/runtime/tvmffi_layout.h — TVMFFIAny layout as plain numbers (tvmffi_layout.c). */
#ifndef DEVHARNESS_TESTS_RUNTIME_TVMFFI_LAYOUT_H_
#define DEVHARNESS_TESTS_RUNTIME_TVMFFI_LAYOUT_H_
#include <stddef.h>
#include <stdint.h>

#define RT_NUM_POD 13 /* kTVMFFINone .. kTVMFFISmallBytes */

typedef struct rt_layout {
  size_t size, align;
  size_t off_type_index, off_small_str_len, off_zero_padding;
  size_t off_v_int64, off_v_float64, off_v_ptr, off_v_c_str, off_v_dtype, off_v_device, off_v_bytes,
      off_v_uint64;
  size_t size_type_index, size_v_dtype, size_v_device;
  size_t size_byte_array, off_byte_array_size;
  int32_t type_index[RT_NUM_POD];
  int32_t static_object_begin;
} rt_layout_t;

/* Fills *out from tvm-ffi's header; returns 1, or 0 when built without it. */
int rt_tvmffi_layout(rt_layout_t* out);
#endif
