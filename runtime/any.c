/* runtime/any.c — names, equality, owned copies of packed values (devharness/any.h),
 * on tvm-ffi's C API (apache-tvm-ffi 0.1.15 include/tvm/ffi/c_api.h). */
#include "devharness/any.h"

#include <string.h>
#include <tvm/ffi/c_api.h>

_Static_assert(sizeof(TVMFFIAny) == sizeof(dh_any_t), "dh_any_t is TVMFFIAny");
_Static_assert(sizeof(TVMFFIObject) == DH_OBJECT_HEADER_BYTES, "object header size");
_Static_assert((int)DH_TYPE_STR == (int)kTVMFFIStr && (int)DH_TYPE_BYTES == (int)kTVMFFIBytes &&
                   (int)DH_TYPE_TENSOR == (int)kTVMFFITensor &&
                   (int)DH_TYPE_MODULE == (int)kTVMFFIModule &&
                   (int)DH_TYPE_FUNCTION == (int)kTVMFFIFunction &&
                   (int)DH_TYPE_ARRAY == (int)kTVMFFIArray,
               "object type indices are tvm-ffi's");

const char* dh_type_index_name(int32_t type_index) {
  static const char* const kNames[] = {
      "None",   "Int",         "Bool",   "Float",        "OpaquePtr",       "DataType", "Device",
      "DLTensorPtr", "RawStr", "ByteArrayPtr", "ObjectRValueRef", "SmallStr", "SmallBytes"};
  static const char* const kObjects[] = {"Object", "Str",    "Bytes", "Error", "Function",
                                         "Shape",  "Tensor", "Array", "Map",   "Module"};
  if (type_index >= 0 && type_index < (int32_t)(sizeof kNames / sizeof kNames[0]))
    return kNames[type_index];
  if (type_index >= DH_TYPE_STATIC_OBJECT_BEGIN &&
      type_index < DH_TYPE_STATIC_OBJECT_BEGIN + (int32_t)(sizeof kObjects / sizeof kObjects[0]))
    return kObjects[type_index - DH_TYPE_STATIC_OBJECT_BEGIN];
  if (type_index >= DH_TYPE_STATIC_OBJECT_BEGIN) return "Object";
  return "Unknown";
}

static int is_text(int32_t t) {
  return t == DH_TYPE_RAW_STR || t == DH_TYPE_SMALL_STR || t == DH_TYPE_STR;
}
static int is_bytes(int32_t t) {
  return t == DH_TYPE_BYTE_ARRAY_PTR || t == DH_TYPE_SMALL_BYTES || t == DH_TYPE_BYTES;
}

int dh_any_equal(const dh_any_t* a, const dh_any_t* b) {
  if (a == NULL || b == NULL) return a == b;
  if ((is_text(a->type_index) && is_text(b->type_index)) ||
      (is_bytes(a->type_index) && is_bytes(b->type_index))) {
    dh_byte_array_t x, y;
    int rx = dh_any_as_str(a, &x), ry = dh_any_as_str(b, &y);
    if (rx != 0 || ry != 0) return rx == ry && a->type_index == b->type_index;
    return x.size == y.size && (x.size == 0 || memcmp(x.data, y.data, x.size) == 0);
  }
  if (a->type_index != b->type_index) return 0;
  switch (a->type_index) {
    case DH_TYPE_NONE:
      return 1;
    case DH_TYPE_INT:
    case DH_TYPE_BOOL:
      return a->v_int64 == b->v_int64;
    case DH_TYPE_FLOAT: /* bitwise: NaN equals the same NaN, -0.0 differs from 0.0 */
      return a->v_uint64 == b->v_uint64;
    case DH_TYPE_DATA_TYPE:
      return a->v_dtype.code == b->v_dtype.code && a->v_dtype.bits == b->v_dtype.bits &&
             a->v_dtype.lanes == b->v_dtype.lanes;
    case DH_TYPE_DEVICE:
      return a->v_device.device_type == b->v_device.device_type &&
             a->v_device.device_id == b->v_device.device_id;
    default: /* OpaquePtr, DLTensorPtr, ObjectRValueRef, objects: by address */
      return a->v_ptr == b->v_ptr;
  }
}

int dh_any_copy(const dh_any_t* v, dh_any_t* out) {
  out->type_index = DH_TYPE_NONE;
  out->zero_padding = 0;
  out->v_uint64 = 0;
  return TVMFFIAnyViewToOwnedAny((const TVMFFIAny*)v, (TVMFFIAny*)out) == 0 ? 0 : -1;
}

int dh_any_string(const char* data, size_t size, dh_any_t* out) {
  TVMFFIByteArray b = {data, size};
  out->type_index = DH_TYPE_NONE;
  out->zero_padding = 0;
  out->v_uint64 = 0;
  return TVMFFIStringFromByteArray(&b, (TVMFFIAny*)out) == 0 ? 0 : -1;
}

void dh_any_release(dh_any_t* a) {
  if (a == NULL) return;
  if (a->type_index >= DH_TYPE_STATIC_OBJECT_BEGIN && a->v_ptr != NULL)
    TVMFFIObjectDecRef(a->v_ptr);
  a->type_index = DH_TYPE_NONE;
  a->zero_padding = 0;
  a->v_uint64 = 0;
}
