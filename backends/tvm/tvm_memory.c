/*
 * backends/tvm/tvm_memory.c — the tvm-* backends' memory entries: TVM's
 * AllocDataSpace, FreeDataSpace, AllocWorkspace, FreeWorkspace and CopyDataFromTo,
 * called through tvm_adapter.cc. Calls down into tvm_device.c only.
 */
#include <stddef.h>
#include <stdint.h>

#include "devharness/backend.h"

#include "backends/tvm/tvm_internal.h"

int dh_tvm_alloc_data_space(DLDevice dev, size_t nbytes, size_t alignment, DLDataType type_hint, void** out) {
  *out = NULL;
  if (dh_tvm_ready(dev, "alloc_data_space")) return -1;
  dh_tvm_err_t e;
  return dh_tvm_a->alloc_data_space(dh_tvm_api_of(dev), dh_tvm_to_tvm(dev), nbytes, alignment, type_hint, out, &e)
             ? dh_tvm_err("AllocDataSpace", &e)
             : 0;
}

int dh_tvm_free_data_space(DLDevice dev, void* ptr) {
  if (dh_tvm_ready(dev, "free_data_space")) return -1;
  dh_tvm_err_t e;
  return dh_tvm_a->free_data_space(dh_tvm_api_of(dev), dh_tvm_to_tvm(dev), ptr, &e) ? dh_tvm_err("FreeDataSpace", &e) : 0;
}

int dh_tvm_alloc_workspace(DLDevice dev, size_t nbytes, DLDataType type_hint, void** out) {
  *out = NULL;
  if (dh_tvm_ready(dev, "alloc_workspace")) return -1;
  dh_tvm_err_t e;
  return dh_tvm_a->alloc_workspace(dh_tvm_api_of(dev), dh_tvm_to_tvm(dev), nbytes, type_hint, out, &e) ? dh_tvm_err("AllocWorkspace", &e) : 0;
}

int dh_tvm_free_workspace(DLDevice dev, void* ptr) {
  if (dh_tvm_ready(dev, "free_workspace")) return -1;
  dh_tvm_err_t e;
  return dh_tvm_a->free_workspace(dh_tvm_api_of(dev), dh_tvm_to_tvm(dev), ptr, &e) ? dh_tvm_err("FreeWorkspace", &e) : 0;
}

/* Through TVM's public CopyDataFromTo(DLTensor*, DLTensor*, stream) of the non-CPU
 * side, as TVM's own Tensor::CopyFromTo does (apache/tvm 0.27 src/runtime/tensor.cc:261-263):
 * 1-D uint8 tensors of nbytes with strides {1} and the offsets in byte_offset. */
int dh_tvm_copy_data_from_to(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                             DLDevice dev_from, DLDevice dev_to, DLDataType type_hint, dh_stream_t stream) {
  (void)type_hint;
  DLDevice f = dh_tvm_to_tvm(dev_from), t = dh_tvm_to_tvm(dev_to);
  DLDevice side = dev_from.device_type != kDLCPU ? dev_from : dev_to; /* the non-CPU side's DeviceAPI */
  if (dh_tvm_ready(side, "copy_data_from_to")) return -1;
  int64_t shape[1] = {(int64_t)nbytes}, strides[1] = {1}; /* DLPack >= 1.2: never NULL */
  DLDataType u8 = {kDLUInt, 8, 1};
  DLTensor src = {(void*)from, f, 1, u8, shape, strides, from_offset};
  DLTensor dst = {to, t, 1, u8, shape, strides, to_offset};
  dh_tvm_err_t e;
  return dh_tvm_a->copy_data_from_to(dh_tvm_api_of(side), &src, &dst, stream, &e) ? dh_tvm_err("CopyDataFromTo", &e) : 0;
}

/* ABI 1.4 copy_tensor_from_to: the caller's DLTensors as they are (shape, strides, dtype,
 * byte_offset), with devharness device types mapped to TVM's, to TVM's public
 * CopyDataFromTo(DLTensor*, DLTensor*, stream) of the non-CPU side; TVM's own checks
 * (apache/tvm 0.27 src/runtime/device_api.cc:146-150) judge them. */
int dh_tvm_copy_tensor_from_to(const DLTensor* from, const DLTensor* to, dh_stream_t stream) {
  DLDevice side = from->device.device_type != kDLCPU ? from->device : to->device;
  if (dh_tvm_ready(side, "copy_data_from_to")) return -1;
  DLTensor src = *from, dst = *to;
  src.device = dh_tvm_to_tvm(from->device);
  dst.device = dh_tvm_to_tvm(to->device);
  dh_tvm_err_t e;
  return dh_tvm_a->copy_data_from_to(dh_tvm_api_of(side), &src, &dst, stream, &e) ? dh_tvm_err("CopyDataFromTo", &e) : 0;
}
