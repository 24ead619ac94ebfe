/*
 * devharness/any.h — the packed-call value, dh_any_t.
 *
 * dh_any_t IS tvm-ffi's TVMFFIAny (apache-tvm-ffi 0.1.15 include/tvm/ffi/c_api.h),
 * declared here without tvm-ffi's header so the plugin ABI stays plain C; packed
 * calls pass it to libtvm_ffi unchanged (tests/runtime/test_any_tvmffi.c checks the
 * layout): 16 bytes, 8-byte aligned,
 *   bytes 0..3   int32 type_index
 *   bytes 4..7   zero padding, or the length of a small string
 *   bytes 8..15  the value (int64, double, pointer, DLDataType, DLDevice, 8 bytes,
 *                or a tvm-ffi object pointer for type_index >= 64)
 * Unused bytes are zero.
 *
 * Values: POD indices 0..12, and tvm-ffi objects (>= 64: Str, Bytes, Tensor, Array,
 * Function, ...) that arrive from tvm-ffi callers (Python passes strings over 7 bytes
 * as Str, bytes over 8 as Bytes, arrays as Array, tensors as Tensor). The accessors
 * dh_any_as_str and dh_any_as_tensor read both forms.
 *
 * Ownership (tvm-ffi's AnyView/Any rules): arguments are borrowed views for the
 * duration of the call. A result holding an object owns one reference: the caller
 * releases it with dh_any_release; a callee that returns one of its arguments makes
 * an owned copy with dh_any_copy (a RawStr or ByteArrayPtr result is refused by
 * tvm-ffi callers: dh_any_copy turns them into Str/Bytes). POD pointers (OpaquePtr,
 * DLTensorPtr, RawStr, ByteArrayPtr) are borrowed; whoever produced the value says
 * how long the pointee lives.
 * Thread-safety: plain data; the functions below touch no shared state beyond
 * tvm-ffi's atomic reference counts.
 */
#ifndef DEVHARNESS_ANY_H_
#define DEVHARNESS_ANY_H_

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===========================================================================
 * Types
 *===========================================================================*/

/* POD type indices, equal to tvm-ffi's TVMFFITypeIndex (apache-tvm-ffi 0.1.15 c_api.h). */
typedef enum dh_type_index {
  DH_TYPE_NONE = 0,              /* no value; payload zero */
  DH_TYPE_INT = 1,               /* v_int64 */
  DH_TYPE_BOOL = 2,              /* v_int64, 0 or 1 */
  DH_TYPE_FLOAT = 3,             /* v_float64 */
  DH_TYPE_OPAQUE_PTR = 4,        /* v_ptr, borrowed */
  DH_TYPE_DATA_TYPE = 5,         /* v_dtype (DLDataType) */
  DH_TYPE_DEVICE = 6,            /* v_device (DLDevice) */
  DH_TYPE_DL_TENSOR_PTR = 7,     /* v_ptr to a borrowed DLTensor */
  DH_TYPE_RAW_STR = 8,           /* v_c_str, NUL-terminated, borrowed */
  DH_TYPE_BYTE_ARRAY_PTR = 9,    /* v_ptr to a borrowed dh_byte_array_t */
  DH_TYPE_OBJECT_RVALUE_REF = 10,/* reserved by tvm-ffi; devharness never produces it */
  DH_TYPE_SMALL_STR = 11,        /* up to 7 bytes + NUL in v_bytes, length in small_str_len */
  DH_TYPE_SMALL_BYTES = 12,      /* up to 8 bytes in v_bytes, length in small_str_len */
  DH_TYPE_STATIC_OBJECT_BEGIN = 64,/* first object index (tvm-ffi kTVMFFIStaticObjectBegin) */
  /* tvm-ffi's static object indices (c_api.h TVMFFITypeIndex); v_ptr is the object */
  DH_TYPE_STR = 65,              /* String: dh_any_as_str reads it */
  DH_TYPE_BYTES = 66,            /* Bytes: dh_any_as_str reads it */
  DH_TYPE_ERROR = 67,            /* Error */
  DH_TYPE_FUNCTION = 68,         /* Function */
  DH_TYPE_SHAPE = 69,            /* Shape */
  DH_TYPE_TENSOR = 70,           /* Tensor: dh_any_as_tensor reads it */
  DH_TYPE_ARRAY = 71,            /* Array */
  DH_TYPE_MAP = 72,              /* Map */
  DH_TYPE_MODULE = 73            /* Module */
} dh_type_index_t;

/* Bytes of tvm-ffi's object header (TVMFFIObject: ref count, type index, deleter); an
 * object's content (the TVMFFIByteArray of Str/Bytes, the DLTensor of a Tensor)
 * follows it, as c_api.h's accessors TVMFFIBytesGetByteArrayPtr /
 * TVMFFITensorGetDLTensorPtr compute. */
#define DH_OBJECT_HEADER_BYTES 24

/* A borrowed byte range (tvm-ffi TVMFFIByteArray). data: `size` bytes, not owned. */
typedef struct dh_byte_array {
  const char* data;
  size_t size;
} dh_byte_array_t;

/* The packed value. 16 bytes; see the file comment for the layout. */
typedef struct dh_any {
  int32_t type_index; /* a dh_type_index_t */
  union {
    uint32_t zero_padding;  /* 0 for every type but small strings/bytes */
    uint32_t small_str_len; /* DH_TYPE_SMALL_STR / DH_TYPE_SMALL_BYTES: length in bytes */
  };
  union {
    int64_t v_int64;     /* Int, Bool */
    double v_float64;    /* Float */
    void* v_ptr;         /* OpaquePtr, DLTensorPtr, ByteArrayPtr */
    const char* v_c_str; /* RawStr */
    DLDataType v_dtype;  /* DataType */
    DLDevice v_device;   /* Device */
    char v_bytes[8];     /* SmallStr, SmallBytes */
    uint64_t v_uint64;   /* raw payload, for comparisons and zeroing */
  };
} dh_any_t;

/* DH_STATIC_ASSERT(cond, msg): a compile-time check that works in C11
 * (_Static_assert) and C++11 or later (static_assert), so the public headers compile
 * as both (tests/layering/cxx_headers.t). DH_ALIGNOF(type): _Alignof / alignof. */
#ifdef __cplusplus
#define DH_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#define DH_ALIGNOF(type) alignof(type)
#else
#define DH_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#define DH_ALIGNOF(type) _Alignof(type)
#endif

DH_STATIC_ASSERT(sizeof(dh_any_t) == 16, "dh_any_t must be 16 bytes like TVMFFIAny");
DH_STATIC_ASSERT(DH_ALIGNOF(dh_any_t) == 8, "dh_any_t must be 8-byte aligned like TVMFFIAny");
DH_STATIC_ASSERT(offsetof(dh_any_t, type_index) == 0, "type_index at byte 0");
DH_STATIC_ASSERT(offsetof(dh_any_t, small_str_len) == 4, "small_str_len at byte 4");
DH_STATIC_ASSERT(offsetof(dh_any_t, v_int64) == 8, "payload at byte 8");

/*===========================================================================
 * Constructors and accessors (inline; no allocation, no errors)
 *===========================================================================*/

/* Returns a zeroed value of the given type index. */
static inline dh_any_t dh_any_make(int32_t type_index) {
  dh_any_t a;
  memset(&a, 0, sizeof a);
  a.type_index = type_index;
  return a;
}
/* None. */
static inline dh_any_t dh_any_none(void) { return dh_any_make(DH_TYPE_NONE); }
/* Int (int64). */
static inline dh_any_t dh_any_int(int64_t v) { dh_any_t a = dh_any_make(DH_TYPE_INT); a.v_int64 = v; return a; }
/* Bool, stored as int64 0/1. */
static inline dh_any_t dh_any_bool(int v) { dh_any_t a = dh_any_make(DH_TYPE_BOOL); a.v_int64 = v ? 1 : 0; return a; }
/* Float (double). */
static inline dh_any_t dh_any_float(double v) { dh_any_t a = dh_any_make(DH_TYPE_FLOAT); a.v_float64 = v; return a; }
/* OpaquePtr; `p` is borrowed. */
static inline dh_any_t dh_any_ptr(void* p) { dh_any_t a = dh_any_make(DH_TYPE_OPAQUE_PTR); a.v_ptr = p; return a; }
/* DataType. */
static inline dh_any_t dh_any_dtype(DLDataType t) { dh_any_t a = dh_any_make(DH_TYPE_DATA_TYPE); a.v_dtype = t; return a; }
/* Device. */
static inline dh_any_t dh_any_device(DLDevice d) { dh_any_t a = dh_any_make(DH_TYPE_DEVICE); a.v_device = d; return a; }
/* DLTensorPtr; `t` is borrowed for the duration of the call it is passed to. */
static inline dh_any_t dh_any_tensor(DLTensor* t) { dh_any_t a = dh_any_make(DH_TYPE_DL_TENSOR_PTR); a.v_ptr = t; return a; }
/* RawStr; `s` is borrowed and must outlive every reader. */
static inline dh_any_t dh_any_str(const char* s) { dh_any_t a = dh_any_make(DH_TYPE_RAW_STR); a.v_c_str = s; return a; }
/* ByteArrayPtr; `b` is borrowed. */
static inline dh_any_t dh_any_bytes(dh_byte_array_t* b) { dh_any_t a = dh_any_make(DH_TYPE_BYTE_ARRAY_PTR); a.v_ptr = b; return a; }

/* A string or byte view of `a` without copying: RawStr (strlen), SmallStr/SmallBytes
 * (small_str_len bytes in a->v_bytes: the view points into *a), ByteArrayPtr, and the
 * Str/Bytes objects. Returns 0 and sets *out (valid while `a` and its object live), or
 * -1 for any other type (nothing stored, no error raised). */
static inline int dh_any_as_str(const dh_any_t* a, dh_byte_array_t* out) {
  switch (a->type_index) {
    case DH_TYPE_RAW_STR:
      if (a->v_c_str == NULL) return -1;
      out->data = a->v_c_str;
      out->size = strlen(a->v_c_str);
      return 0;
    case DH_TYPE_SMALL_STR:
    case DH_TYPE_SMALL_BYTES:
      out->data = a->v_bytes;
      out->size = a->small_str_len <= 8 ? a->small_str_len : 8;
      return 0;
    case DH_TYPE_BYTE_ARRAY_PTR:
      if (a->v_ptr == NULL) return -1;
      *out = *(const dh_byte_array_t*)a->v_ptr;
      return 0;
    case DH_TYPE_STR:
    case DH_TYPE_BYTES:
      if (a->v_ptr == NULL) return -1;
      *out = *(const dh_byte_array_t*)((const char*)a->v_ptr + DH_OBJECT_HEADER_BYTES);
      return 0;
    default:
      return -1;
  }
}

/* The DLTensor of a DLTensorPtr or of a Tensor object (borrowed: valid while `a`'s
 * object lives), or NULL for any other type. */
static inline DLTensor* dh_any_as_tensor(const dh_any_t* a) {
  if (a->type_index == DH_TYPE_DL_TENSOR_PTR) return (DLTensor*)a->v_ptr;
  if (a->type_index == DH_TYPE_TENSOR && a->v_ptr != NULL)
    return (DLTensor*)((char*)a->v_ptr + DH_OBJECT_HEADER_BYTES);
  return NULL;
}

/* Name of a type index ("None", "Int", "Bool", "Float", "OpaquePtr", "DataType",
 * "Device", "DLTensorPtr", "RawStr", "ByteArrayPtr", "ObjectRValueRef", "SmallStr",
 * "SmallBytes", "Str", "Bytes", "Error", "Function", "Shape", "Tensor", "Array",
 * "Map", "Module", "Object" for other indices >= 64, "Unknown" otherwise). Static
 * storage; thread-safe. */
const char* dh_type_index_name(int32_t type_index);

/* Returns 1 when a and b have the same type and payload (strings and bytes compared
 * by content, RawStr with Str and SmallStr alike; tensors, pointers and other objects
 * by address), else 0. Thread-safe. */
int dh_any_equal(const dh_any_t* a, const dh_any_t* b);

/* An owned copy of the view `v` in *out, as tvm-ffi converts an AnyView to an Any
 * (TVMFFIAnyViewToOwnedAny): objects gain a reference, RawStr becomes Str/SmallStr,
 * ByteArrayPtr becomes Bytes/SmallBytes, PODs are copied. This is what a packed
 * function stores as its result when it returns an argument. 0, or -1 with the
 * error raised (out of memory). *out is overwritten (not released first). */
int dh_any_copy(const dh_any_t* v, dh_any_t* out);

/* An owned string value of `size` bytes from `data` (SmallStr up to 7 bytes, else a
 * Str object: tvm-ffi's TVMFFIStringFromByteArray). 0, or -1 with the error raised. */
int dh_any_string(const char* data, size_t size, dh_any_t* out);

/* Releases what an owned value holds (one reference for type_index >= 64) and sets
 * it to None. NULL and POD values are fine. Thread-safe. */
void dh_any_release(dh_any_t* a);

#ifdef __cplusplus
}
#endif
#endif /* DEVHARNESS_ANY_H_ */
