/*
 * tests/runtime/tvmffi_layout.c — reports tvm-ffi's TVMFFIAny layout and POD type
 * indices, compiled against <tvm/ffi/c_api.h> alone (it brings its own DLPack 1.x,
 * which must not meet Debian's 0.6 in one translation unit). Built with
 * -DRT_NO_TVM_FFI when the apache-tvm-ffi headers are absent.
 */
#include <stddef.h>
#include <stdint.h>

#include "tvmffi_layout.h"

#ifndef RT_NO_TVM_FFI
#include <tvm/ffi/c_api.h>

int rt_tvmffi_layout(rt_layout_t* out) {
  out->size = sizeof(TVMFFIAny);
  out->align = _Alignof(TVMFFIAny);
  out->off_type_index = offsetof(TVMFFIAny, type_index);
  out->off_small_str_len = offsetof(TVMFFIAny, small_str_len);
  out->off_zero_padding = offsetof(TVMFFIAny, zero_padding);
  out->off_v_int64 = offsetof(TVMFFIAny, v_int64);
  out->off_v_float64 = offsetof(TVMFFIAny, v_float64);
  out->off_v_ptr = offsetof(TVMFFIAny, v_ptr);
  out->off_v_c_str = offsetof(TVMFFIAny, v_c_str);
  out->off_v_dtype = offsetof(TVMFFIAny, v_dtype);
  out->off_v_device = offsetof(TVMFFIAny, v_device);
  out->off_v_bytes = offsetof(TVMFFIAny, v_bytes);
  out->off_v_uint64 = offsetof(TVMFFIAny, v_uint64);
  out->size_type_index = sizeof(((TVMFFIAny*)0)->type_index);
  out->size_v_dtype = sizeof(((TVMFFIAny*)0)->v_dtype);
  out->size_v_device = sizeof(((TVMFFIAny*)0)->v_device);
  out->size_byte_array = sizeof(TVMFFIByteArray);
  out->off_byte_array_size = offsetof(TVMFFIByteArray, size);
  const int32_t idx[RT_NUM_POD] = {kTVMFFINone,       kTVMFFIInt,           kTVMFFIBool,
                                   kTVMFFIFloat,      kTVMFFIOpaquePtr,     kTVMFFIDataType,
                                   kTVMFFIDevice,     kTVMFFIDLTensorPtr,   kTVMFFIRawStr,
                                   kTVMFFIByteArrayPtr, kTVMFFIObjectRValueRef, kTVMFFISmallStr,
                                   kTVMFFISmallBytes};
  for (int i = 0; i < RT_NUM_POD; i++) out->type_index[i] = idx[i];
  out->static_object_begin = kTVMFFIStaticObjectBegin;
  return 1;
}
#else
int rt_tvmffi_layout(rt_layout_t* out) {
  (void)out;
  return 0;
}
#endif
