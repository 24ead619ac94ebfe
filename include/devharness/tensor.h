/*
 * devharness/tensor.h — DLPack tensor descriptors used by copies (docs/contract.md
 * §Copies).
 *
 * devharness uses DLPack 1.x (the dlpack.h apache-tvm-ffi ships; Debian 12's
 * libdlpack-dev is 0.6): DLTensor is data, device, ndim, dtype, shape, strides (in
 * elements), byte_offset; dtype codes include kDLBool and the float8/float4 variants.
 * DLPack >= 1.2 (that header, include/dlpack/dlpack.h:264-275) forbids strides NULL
 * when ndim != 0: every tensor devharness builds carries real strides; tensors a
 * caller builds with strides NULL are still read as compact row-major (DLPack < 1.2).
 * Tensors are descriptors only: these helpers never allocate or own data.
 * All functions are pure and thread-safe.
 */
#ifndef DEVHARNESS_TENSOR_H_
#define DEVHARNESS_TENSOR_H_

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes one element occupies on its own: ceil(bits * lanes / 8) (int4: 1). 0 for
 * bits == 0 or lanes == 0. Not the size of a tensor: tensors pack sub-byte elements
 * (dh_dtype_nbytes, dh_tensor_nbytes). */
size_t dh_dtype_bytes(DLDataType dtype);

/* Bytes of `numel` packed elements of dtype, as tvm-ffi's GetDataSize computes them
 * (apache-tvm-ffi 0.1.15 include/tvm/ffi/container/tensor.h:105-109, which TVM's
 * CopyDataFromTo uses, apache/tvm 0.27 src/runtime/device_api.cc:145-147):
 * (numel * bits * lanes + 7) / 8, so int4[16] is 8 bytes, int4[3] 2, bool (kDLBool, 8
 * bits) 1 per element. 0 on success with *out_nbytes set (out_nbytes may be NULL); -1
 * with ("ValueError", "tensor byte size overflows size_t ...") when the bit count
 * overflows uint64 or the byte count size_t (tvm-ffi wraps silently). Pure, thread-safe. */
int dh_dtype_nbytes(uint64_t numel, DLDataType dtype, size_t* out_nbytes);

/* Writes the dtype in tvm-ffi's spelling (TVMFFIDataTypeToString: "float32", "uint8",
 * "int64x4", "bool" = (kDLBool, 8), "bfloat16", "float8_e4m3fn", "float4_e2m1fn") into
 * buf (NUL-terminated, truncated to buf_size); "unknown(code=..)" for a dtype tvm-ffi
 * cannot name. Returns buf. */
const char* dh_dtype_format(DLDataType dtype, char* buf, size_t buf_size);

/* Parses tvm-ffi's spelling (TVMFFIDataTypeFromString, apache-tvm-ffi 0.1.15
 * src/ffi/dtype.cc: "float32", "uint8x4", "bool", "float8_e5m2"; "float" = float32).
 * 0 on success; -1 with ("ValueError", "unknown dtype 'x'") otherwise, "" included. */
int dh_dtype_parse(const char* text, DLDataType* out_dtype);

/* Number of elements (product of shape; 1 for ndim 0). -1 with "ValueError" when a
 * dimension is negative or the product overflows int64. */
int dh_tensor_numel(const DLTensor* t, int64_t* out_numel);

/* Byte size of the tensor's elements: dh_dtype_nbytes(numel, dtype) (tvm-ffi's
 * GetDataSize(const DLTensor&), sub-byte elements packed; strides and byte_offset do
 * not count). Errors as dh_tensor_numel, plus dh_dtype_nbytes's overflow. */
int dh_tensor_nbytes(const DLTensor* t, size_t* out_nbytes);

/* 1 when strides are NULL or equal to compact row-major strides (dimensions of
 * extent 1 may have any stride), else 0. */
int dh_tensor_is_contiguous(const DLTensor* t);

/* Fills a 1-D uint8 tensor descriptor over `nbytes` bytes at (data, byte_offset) on
 * dev. `shape_storage` (owned by the caller, must outlive *t) receives the shape;
 * strides point to a read-only {1} owned by the library (valid for the process's
 * life; consumers must not write to it). */
void dh_tensor_init_bytes(DLTensor* t, void* data, DLDevice dev, size_t byte_offset,
                          size_t nbytes, int64_t* shape_storage);

#ifdef __cplusplus
}
#endif
#endif /* DEVHARNESS_TENSOR_H_ */
