// tests/runtime/ffi_cxx_module.cc — a library written with tvm-ffi's own C++ API
// (apache-tvm-ffi 0.1.15 include/tvm/ffi/function.h TVM_FFI_DLL_EXPORT_TYPED_FUNC), as a
// TVM or tvm-ffi user would write it, with no devharness header. Loaded through
// dh_module_load by tests/runtime/test_ffi_interop.c and through tvm_ffi.load_module by
// tests/runtime/interop.py. Every function changes its argument in a known way, so a
// value that did not cross intact shows up as a wrong answer.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <string>

namespace {
namespace ffi = tvm::ffi;

int64_t add_one(int64_t x) { return x + 1; }
double half(double x) { return x / 2; }
bool negate(bool b) { return !b; }
DLDevice next_device(DLDevice d) { return DLDevice{d.device_type, d.device_id + 1}; }
// Sum of an int32 tensor's elements, plus 1000 * ndim (checks the descriptor too).
int64_t tensor_sum(DLTensor* t) {
  if (t->dtype.code != kDLInt || t->dtype.bits != 32) TVM_FFI_THROW(TypeError) << "tensor_sum: int32 only";
  int64_t n = 1;
  for (int i = 0; i < t->ndim; ++i) n *= t->shape[i];
  const int32_t* p = reinterpret_cast<const int32_t*>(static_cast<const char*>(t->data) + t->byte_offset);
  int64_t s = 0;
  for (int64_t i = 0; i < n; ++i) s += p[i];
  return s + 1000 * t->ndim;
}
// "<s>!" (a 3-byte input comes back small, a long one as a String object).
ffi::String shout(ffi::String s) { return std::string(s) + "!"; }
// The bytes reversed.
ffi::Bytes reverse_bytes(ffi::Bytes b) {
  std::string r(b.data(), b.size());
  return ffi::Bytes(std::string(r.rbegin(), r.rend()));
}
int64_t string_length(ffi::String s) { return static_cast<int64_t>(s.size()); }
// tvm-ffi's own byte size of numel elements of dtype (GetDataSize, apache-tvm-ffi
// 0.1.15 include/tvm/ffi/container/tensor.h:105-109): the reference dh_dtype_nbytes
// and dh_tensor_nbytes are checked against.
int64_t data_size(int64_t numel, DLDataType dtype) {
  return static_cast<int64_t>(ffi::GetDataSize(static_cast<size_t>(numel), dtype));
}
// A tvm-ffi kernel reading a tensor's strides through TensorView (apache-tvm-ffi
// 0.1.15 include/tvm/ffi/container/tensor.h:758-791): strides() (InternalError when
// NULL), then stride(i) for every dimension, as "s0,s1,...".
ffi::String tensor_strides(ffi::TensorView t) {
  ffi::ShapeView st = t.strides();
  std::string r;
  for (int64_t i = 0; i < t.ndim(); ++i) {
    if (st[i] != t.stride(i)) TVM_FFI_THROW(ValueError) << "strides()[" << i << "] != stride(" << i << ")";
    r += (i ? "," : "") + std::to_string(t.stride(i));
  }
  return r;
}
// Raises ValueError with the given message.
int64_t raise_value_error(ffi::String msg) { TVM_FFI_THROW(ValueError) << msg; }
}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, add_one);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(half, half);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(negate, negate);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(next_device, next_device);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensor_sum, tensor_sum);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(shout, shout);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(reverse_bytes, reverse_bytes);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(string_length, string_length);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(raise_value_error, raise_value_error);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(data_size, data_size);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensor_strides, tensor_strides);
