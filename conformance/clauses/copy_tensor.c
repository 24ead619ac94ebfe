/* conformance/clauses/copy_tensor.c — copy clauses on the DLTensors a copy is given:
 * several dimensions, every dtype, mismatched sizes, non-contiguous views, NULL tensors
 * (TVM DeviceAPI::CopyDataFromTo(DLTensor*, DLTensor*, stream), docs/contract.md
 * §Copies; the family after copy.c's first in the catalogue). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy.h"

/* Compact row-major strides for tensor(): DLPack >= 1.2 forbids strides NULL (the
 * dlpack.h tvm-ffi ships, include/dlpack/dlpack.h:264-275). A clause runs alone in its
 * child, single-threaded, and holds at most 4 tensors at once: a ring of 8 keeps the
 * strides of the last 8 tensors built alive. */
static int64_t* compact_strides(int ndim, const int64_t* shape) {
  static int64_t ring[8][8];
  static unsigned next;
  if (ndim <= 0 || ndim > 8 || shape == NULL) return NULL;
  int64_t* st = ring[next++ % 8];
  int64_t n = 1;
  for (int i = ndim - 1; i >= 0; i--) {
    st[i] = n;
    n *= shape[i];
  }
  return st;
}

static void tensor(DLTensor* t, void* data, DLDevice dev, int ndim, int64_t* shape,
                   DLDataType dt) {
  memset(t, 0, sizeof *t);
  t->data = data;
  t->device = dev;
  t->ndim = ndim;
  t->shape = shape;
  t->strides = compact_strides(ndim, shape);
  t->dtype = dt;
}

WITH_SCRATCH(multidim) {
  DLDataType f32 = {kDLFloat, 32, 1};
  int64_t shape3[3] = {4, 5, 6}, shape2[2] = {2, 60}, shape1[1] = {120};
  size_t n = 120 * 4;
  HOST(0, n);
  HOST(1, n);
  DEV(0, n);
  dc_pattern(s->h[0], n, 53);
  dc_sentinel(s->h[1], n);
  DLTensor a, b;
  tensor(&a, s->h[0], dc_host(), 3, shape3, f32);
  tensor(&b, s->d[0], c->dev, 3, shape3, f32);
  CHECK_OK(dh_device_copy_data_from_to(&a, &b, NULL));
  tensor(&a, s->d[0], c->dev, 2, shape2, f32);
  tensor(&b, s->h[1], dc_host(), 1, shape1, f32);
  CHECK_OK(dh_device_copy_data_from_to(&a, &b, NULL));
  DC_SYNC(NULL);
  CHECK_BYTES("float32 [4,5,6] -> device -> [2,60] -> host [120]", s->h[1], s->h[0], n, 0);
}

/* DLPack 1.x dtypes as tvm-ffi names them, sub-byte ones included: a tensor is
 * dh_tensor_nbytes bytes (tvm-ffi GetDataSize: (numel * bits * lanes + 7) / 8, packed). */
WITH_SCRATCH(dtypes) {
  static const DLDataType ts[] = {{kDLInt, 8, 1},   {kDLInt, 16, 1},   {kDLInt, 32, 1},
                                  {kDLInt, 64, 1},  {kDLUInt, 8, 1},   {kDLFloat, 16, 1},
                                  {kDLFloat, 32, 1}, {kDLFloat, 64, 1}, {kDLBfloat, 16, 1},
                                  {kDLFloat, 32, 4}, {kDLUInt, 1, 8},  {kDLBool, 8, 1},
                                  {kDLInt, 4, 1},   {kDLUInt, 4, 1},   {kDLFloat4_e2m1fn, 4, 1},
                                  {kDLFloat8_e3m4, 8, 1}, {kDLFloat8_e4m3, 8, 1},
                                  {kDLFloat8_e4m3b11fnuz, 8, 1}, {kDLFloat8_e4m3fn, 8, 1},
                                  {kDLFloat8_e4m3fnuz, 8, 1}, {kDLFloat8_e5m2, 8, 1},
                                  {kDLFloat8_e5m2fnuz, 8, 1}, {kDLFloat8_e8m0fnu, 8, 1}};
  size_t maxn = 37 * 16;
  HOST(0, maxn);
  HOST(1, maxn);
  DEV(0, maxn);
  for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
    int64_t shape[1] = {37};
    DLTensor a, b;
    tensor(&a, s->h[0], dc_host(), 1, shape, ts[i]);
    size_t n = 0;
    CHECK_OK(dh_tensor_nbytes(&a, &n));
    dc_pattern(s->h[0], n, 59 + (uint32_t)i);
    dc_sentinel(s->h[1], maxn);
    tensor(&b, s->d[0], c->dev, 1, shape, ts[i]);
    CHECK_OK(dh_device_copy_data_from_to(&a, &b, NULL));
    tensor(&a, s->d[0], c->dev, 1, shape, ts[i]);
    tensor(&b, s->h[1], dc_host(), 1, shape, ts[i]);
    CHECK_OK(dh_device_copy_data_from_to(&a, &b, NULL));
    DC_SYNC(NULL);
    char what[64], dn[32];
    snprintf(what, sizeof what, "%s[37] round trip (%zu bytes)", dh_dtype_format(ts[i], dn, sizeof dn), n);
    CHECK_BYTES(what, s->h[1], s->h[0], n, 0);
  }
  /* int4[16] is 8 packed bytes: a D2H of it writes 8 bytes and leaves the 9th */
  DLDataType i4 = {kDLInt, 4, 1};
  int64_t n16[1] = {16};
  DLTensor a, b;
  dc_sentinel(s->h[1], maxn);
  tensor(&a, s->d[0], c->dev, 1, n16, i4);
  tensor(&b, s->h[1], dc_host(), 1, n16, i4);
  CHECK_OK(dh_device_copy_data_from_to(&a, &b, NULL));
  DC_SYNC(NULL);
  uint8_t sent[16];
  dc_sentinel(sent, sizeof sent);
  CHECK_BYTES("int4[16] D2H: bytes 8..15 of the host buffer (must stay sentinel)", s->h[1] + 8, sent + 8, 8, 0);
}

/* The error kind a tensor the backend judges must give: TVM's CopyDataFromTo names none
 * (it raises InternalError through ICHECK, src/runtime/device_api.cc:146-150), so the
 * tvm profile accepts any; strict asks for devharness's ValueError. */
static const char* tensor_error_kind(const dh_conf_ctx_t* c) {
  return c->profile == DC_PROFILE_STRICT ? DH_KIND_VALUE_ERROR : NULL;
}

WITH_SCRATCH(size_mismatch) {
  const char* want = tensor_error_kind(c);
  HOST(0, 16);
  DEV(0, 16);
  DLDataType u8 = dc_u8();
  int64_t s12[1] = {12}, s16[1] = {16};
  DLTensor a, b;
  tensor(&a, s->h[0], dc_host(), 1, s12, u8);
  tensor(&b, s->d[0], c->dev, 1, s16, u8);
  CHECK_ERR(dh_device_copy_data_from_to(&a, &b, NULL), want);
  tensor(&a, s->d[0], c->dev, 1, s16, u8);
  tensor(&b, s->h[0], dc_host(), 1, s12, u8);
  CHECK_ERR(dh_device_copy_data_from_to(&a, &b, NULL), want);
  /* int4[16] is 8 packed bytes, uint8[16] 16 (tvm-ffi GetDataSize) */
  DLDataType i4 = {kDLInt, 4, 1};
  tensor(&a, s->h[0], dc_host(), 1, s16, i4);
  tensor(&b, s->d[0], c->dev, 1, s16, u8);
  CHECK_ERR(dh_device_copy_data_from_to(&a, &b, NULL), want);
}

WITH_SCRATCH(non_contiguous) {
  const char* want = tensor_error_kind(c);
  HOST(0, 64);
  DEV(0, 64);
  DLDataType f32 = {kDLFloat, 32, 1};
  int64_t shape[2] = {4, 4}, strides[2] = {1, 4};
  DLTensor a, b;
  tensor(&a, s->h[0], dc_host(), 2, shape, f32);
  tensor(&b, s->d[0], c->dev, 2, shape, f32);
  b.strides = strides;
  CHECK_ERR(dh_device_copy_data_from_to(&a, &b, NULL), want);
  a.strides = strides;
  b.strides = NULL;
  CHECK_ERR(dh_device_copy_data_from_to(&a, &b, NULL), want);
}

WITH_SCRATCH(null_tensor) {
  DEV(0, 64);
  DLTensor b;
  int64_t shape[1] = {64};
  tensor(&b, s->d[0], c->dev, 1, shape, dc_u8());
  CHECK_ERR(dh_device_copy_data_from_to(NULL, &b, NULL), NULL);
  CHECK_ERR(dh_device_copy_data_from_to(&b, NULL, NULL), NULL);
  DLTensor a;
  tensor(&a, NULL, dc_host(), 1, shape, dc_u8());
  CHECK_ERR(dh_device_copy_data_from_to(&a, &b, NULL), NULL);
}

const dh_clause_t dc_copy_tensor_clauses[] = {
    {"copy.multidim", "multi-dimensional tensors of equal byte size copy as flat bytes", DC_MUST,
     "apache/tvm 0.27 include/tvm/runtime/device_api.h:194-203 CopyDataFromTo(DLTensor*) (shape)",
     0, multidim, NULL, DC_PROFILE_TVM},
    {"copy.dtypes", "tensors of int/uint/float/bfloat, bool, float8 and sub-byte (int4, uint4, "
     "float4_e2m1fn: packed) dtypes with lanes round-trip intact; int4[16] moves 8 bytes", DC_MUST,
     "apache/tvm 0.27 include/tvm/runtime/device_api.h:194-203 CopyDataFromTo(DLTensor*) (dtype), "
     "src/runtime/device_api.cc:146-147 with apache-tvm-ffi 0.1.15 "
     "include/tvm/ffi/container/tensor.h:105-109 GetDataSize (packed bytes)",
     0, dtypes, NULL, DC_PROFILE_TVM},
    {"copy.size_mismatch", "a backend that takes DLTensors refuses tensors of different byte sizes "
     "(int4[16] -> uint8[16] included: 8 packed bytes against 16) with an error (strict: ValueError)",
     DC_MUST, "apache/tvm 0.27 src/runtime/device_api.cc:146-147 (equal byte sizes)",
     DC_NEED_TENSOR_COPY, size_mismatch, NULL, DC_PROFILE_TVM},
    {"copy.non_contiguous", "a backend that takes DLTensors refuses non-contiguous tensors with an "
     "error (strict: ValueError)", DC_MUST,
     "apache/tvm 0.27 src/runtime/device_api.cc:149-150 (contiguous tensors)", DC_NEED_TENSOR_COPY,
     non_contiguous, NULL, DC_PROFILE_TVM},
    {"copy.null_tensor", "NULL tensors or NULL data give an error, not a crash", DC_MUST,
     "devharness device_api.h dh_device_copy_data_from_to", 0, null_tensor, NULL,
     DC_PROFILE_STRICT},
};
const size_t dc_copy_tensor_count = sizeof dc_copy_tensor_clauses / sizeof dc_copy_tensor_clauses[0];
