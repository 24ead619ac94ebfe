/* runtime/any.c — names and equality of packed values (devharness/any.h). */
#include "devharness/any.h"

#include <string.h>

const char* dh_type_index_name(int32_t type_index) {
  static const char* const kNames[] = {
      "None",   "Int",         "Bool",   "Float",        "OpaquePtr",       "DataType", "Device",
      "DLTensorPtr", "RawStr", "ByteArrayPtr", "ObjectRValueRef", "SmallStr", "SmallBytes"};
  if (type_index >= 0 && type_index < (int32_t)(sizeof kNames / sizeof kNames[0]))
    return kNames[type_index];
  if (type_index >= DH_TYPE_STATIC_OBJECT_BEGIN) return "Object";
  return "Unknown";
}

int dh_any_equal(const dh_any_t* a, const dh_any_t* b) {
  if (a == NULL || b == NULL) return a == b;
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
    case DH_TYPE_RAW_STR:
      if (a->v_c_str == NULL || b->v_c_str == NULL) return a->v_c_str == b->v_c_str;
      return strcmp(a->v_c_str, b->v_c_str) == 0;
    case DH_TYPE_BYTE_ARRAY_PTR: {
      const dh_byte_array_t* x = (const dh_byte_array_t*)a->v_ptr;
      const dh_byte_array_t* y = (const dh_byte_array_t*)b->v_ptr;
      if (x == NULL || y == NULL) return x == y;
      if (x->size != y->size) return 0;
      return x->size == 0 || memcmp(x->data, y->data, x->size) == 0;
    }
    case DH_TYPE_SMALL_STR:
    case DH_TYPE_SMALL_BYTES: {
      uint32_t n = a->small_str_len;
      if (n != b->small_str_len) return 0;
      if (n > sizeof a->v_bytes) n = sizeof a->v_bytes;
      return memcmp(a->v_bytes, b->v_bytes, n) == 0;
    }
    default: /* OpaquePtr, DLTensorPtr, ObjectRValueRef, objects: by address */
      return a->v_ptr == b->v_ptr;
  }
}
