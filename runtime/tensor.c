/*
 * runtime/tensor.c — DLTensor helpers (devharness/tensor.h) and the copy checks of
 * TVM's DeviceAPI::CopyDataFromTo (runtime/internal.h).
 */
#include "devharness/tensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tvm/ffi/c_api.h>

#include "devharness/any.h"
#include "devharness/error.h"
#include "internal.h"

size_t dh_dtype_bytes(DLDataType dtype) {
  return ((size_t)dtype.bits * dtype.lanes + 7) / 8;
}

/* tvm-ffi's GetDataSize (apache-tvm-ffi 0.1.15 include/tvm/ffi/container/tensor.h:105-109):
 * (numel * bits * lanes + 7) / 8 in uint64, sub-byte elements packed; where tvm-ffi
 * wraps on overflow, this refuses. */
int dh_dtype_nbytes(uint64_t numel, DLDataType dtype, size_t* out) {
  uint64_t bits;
  if (__builtin_mul_overflow(numel, (uint64_t)dtype.bits * dtype.lanes, &bits) || bits > UINT64_MAX - 7 ||
      (bits + 7) / 8 > SIZE_MAX) {
    char dn[48];
    return dh_error_set(DH_KIND_VALUE_ERROR, "tensor byte size overflows size_t (%llu elements of %s)",
                        (unsigned long long)numel, dh_dtype_format(dtype, dn, sizeof dn));
  }
  if (out != NULL) *out = (size_t)((bits + 7) / 8);
  return 0;
}

/* Names are tvm-ffi's (TVMFFIDataTypeToString / TVMFFIDataTypeFromString,
 * apache-tvm-ffi 0.1.15 src/ffi/dtype.cc): DLPack 1.x codes, bool = (kDLBool, 8),
 * float8_e4m3fn etc., float4_e2m1fn. */
const char* dh_dtype_format(DLDataType t, char* buf, size_t size) {
  if (buf == NULL || size == 0) return buf;
  dh_any_t s;
  s.type_index = DH_TYPE_NONE;
  s.zero_padding = 0;
  s.v_uint64 = 0;
  dh_byte_array_t b;
  if (TVMFFIDataTypeToString(&t, (TVMFFIAny*)&s) != 0 || dh_any_as_str(&s, &b) != 0) {
    dh_error_clear();
    dh_any_release(&s);
    snprintf(buf, size, "unknown(code=%u, bits=%u, lanes=%u)", t.code, t.bits, t.lanes);
    return buf;
  }
  snprintf(buf, size, "%.*s", (int)b.size, b.data);
  dh_any_release(&s);
  return buf;
}

int dh_dtype_parse(const char* text, DLDataType* out) {
  if (text == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "unknown dtype (NULL)");
  TVMFFIByteArray b = {text, strlen(text)};
  DLDataType t;
  /* tvm-ffi accepts "" (as void) and "handle"-style names; an empty name is refused here */
  if (b.size == 0 || TVMFFIDataTypeFromString(&b, &t) != 0) {
    dh_error_clear();
    return dh_error_set(DH_KIND_VALUE_ERROR, "unknown dtype '%s'", text);
  }
  if (out != NULL) *out = t;
  return 0;
}

int dh_tensor_numel(const DLTensor* t, int64_t* out) {
  if (t == NULL) return dh_error_set(DH_KIND_TYPE_ERROR, "tensor is NULL");
  if (t->ndim < 0) return dh_error_set(DH_KIND_VALUE_ERROR, "tensor ndim is negative (%d)", t->ndim);
  if (t->ndim > 0 && t->shape == NULL)
    return dh_error_set(DH_KIND_VALUE_ERROR, "tensor has ndim %d but shape is NULL", t->ndim);
  int64_t n = 1;
  for (int i = 0; i < t->ndim; i++) {
    int64_t d = t->shape[i];
    if (d < 0) return dh_error_set(DH_KIND_VALUE_ERROR, "tensor dimension %d is negative (%lld)", i, (long long)d);
    if (d != 0 && n > INT64_MAX / d)
      return dh_error_set(DH_KIND_VALUE_ERROR, "tensor element count overflows int64 at dimension %d", i);
    n *= d;
  }
  if (out != NULL) *out = n;
  return 0;
}

int dh_tensor_nbytes(const DLTensor* t, size_t* out) {
  int64_t n;
  if (dh_tensor_numel(t, &n) != 0) return -1;
  return dh_dtype_nbytes((uint64_t)n, t->dtype, out);
}

int dh_tensor_is_contiguous(const DLTensor* t) {
  if (t == NULL) return 0;
  if (t->strides == NULL) return 1;
  if (t->ndim > 0 && t->shape == NULL) return 0;
  int64_t expected = 1;
  for (int i = t->ndim - 1; i >= 0; i--) {
    if (t->shape[i] == 1) continue; /* TVM IsContiguous: extent-1 dims take any stride */
    if (t->strides[i] != expected) return 0;
    expected *= t->shape[i];
  }
  return 1;
}

/* The strides of every 1-D tensor dh_tensor_init_bytes fills: DLPack >= 1.2 (the
 * dlpack.h tvm-ffi ships, include/dlpack/dlpack.h:264-275) forbids NULL strides for
 * ndim != 0. Read-only: a consumer that writes to a tensor's strides faults here. */
static const int64_t k_unit_stride[1] = {1};

void dh_tensor_init_bytes(DLTensor* t, void* data, DLDevice dev, size_t byte_offset, size_t nbytes,
                          int64_t* shape_storage) {
  if (t == NULL) return;
  memset(t, 0, sizeof *t);
  t->data = data;
  t->device = dev;
  t->ndim = 1;
  t->dtype.code = kDLUInt;
  t->dtype.bits = 8;
  t->dtype.lanes = 1;
  if (shape_storage != NULL) shape_storage[0] = (int64_t)nbytes;
  t->shape = shape_storage;
  t->strides = (int64_t*)k_unit_stride; /* DLTensor's field is not const; never written */
  t->byte_offset = byte_offset;
}

const char* dh__format_int64s(const int64_t* v, int n, char* buf, size_t size) {
  size_t used = 0;
  if (size == 0) return buf;
  buf[0] = '\0';
  used += (size_t)snprintf(buf, size, "[");
  for (int i = 0; i < n && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? ", " : "", (long long)v[i]);
  if (used < size) snprintf(buf + used, size - used, "]");
  return buf;
}

/* Checks one side; `what` is "from" or "to". */
static int check_side(const char* what, const DLTensor* t, size_t* out_nbytes) {
  if (t == NULL) return dh_error_set(DH_KIND_TYPE_ERROR, "%s tensor is NULL", what);
  if (dh_tensor_nbytes(t, out_nbytes) != 0) return dh_error_prefix("%s", what);
  if (!dh_tensor_is_contiguous(t)) {
    char s[256], sh[256];
    return dh_error_set(DH_KIND_VALUE_ERROR, "%s is not contiguous: strides %s for shape %s", what,
                        dh__format_int64s(t->strides, t->ndim, s, sizeof s),
                        dh__format_int64s(t->shape, t->ndim, sh, sizeof sh));
  }
  return 0;
}

int dh__tensor_check_copy(const DLTensor* from, const DLTensor* to, size_t* out_nbytes) {
  size_t a, b;
  if (check_side("from", from, &a) != 0 || check_side("to", to, &b) != 0) return -1;
  if (a != b) return dh_error_set(DH_KIND_VALUE_ERROR, "from has %zu bytes, to has %zu bytes", a, b);
  *out_nbytes = a;
  return 0;
}
