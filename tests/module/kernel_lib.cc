// tests/module/kernel_lib.cc — the test corpus of `devharness module check`: a small
// kernel library written the way tvm-ffi's kernel library guide asks (functions take
// TensorViews, check device, dtype and layout, launch on the environment stream from
// TVMFFIEnvGetStream, export with TVM_FFI_DLL_EXPORT_TYPED_FUNC), and its faulty
// variants, one fault each, chosen at build time (tests/module/tests.mk):
//
//   (none)                     well-behaved: add, fill, sum on cpu and sim, float32
//   DH_KL_FAULT_DTYPE_CRASH    never checks the dtype: a tensor that is not float32 is
//                              read through a conversion table it has no entry in (crash)
//   DH_KL_FAULT_IGNORE_STREAM  launches on the device's default stream, not the
//                              environment stream
//   DH_KL_FAULT_NONCONTIG      never checks the layout: writes numel x stride elements
//                              from the first one, past a strided view
//   DH_KL_FAULT_SIM_OFF_BY_ONE add on sim reads a[i + 1]: wrong against cpu:0
//   DH_KL_FAULT_WRONG_DEVICE   tensors on different devices: returns without error and
//                              without doing anything
//   (TVM_FFI_DLL_EXPORT_INCLUDE_METADATA=0)  the well-behaved library without metadata
//
// Kernels: on cpu a loop, at once; on the simulated accelerator (device type 12,
// kDLExtDev) through the sim's "sim.launch" global function, which queues the kernel on
// the environment stream of the tensors' device (include/devharness/backend.h
// DH_FUNC_LAUNCH). Needs only tvm-ffi's headers and libtvm_ffi.so.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

namespace {

using tvm::ffi::Function;
using tvm::ffi::TensorView;

constexpr int32_t kSimDeviceType = 12;  // kDLExtDev, devharness's sim

struct Ctx {
  int kind;       // 0 add, 1 fill, 2 sum
  int64_t n;      // elements to touch
  float value;    // fill
};

// The kernel: ptrs are the tensors' first elements as the device sees them.
void run_kernel(void* vctx, void* const* ptrs, int32_t n_ptrs) {
  Ctx* c = static_cast<Ctx*>(vctx);
  float* p0 = static_cast<float*>(ptrs[0]);
  if (c->kind == 0 && n_ptrs == 3) {
    float* out = static_cast<float*>(ptrs[2]);
    for (int64_t i = 0; i < c->n; i++) out[i] = p0[i] + static_cast<float*>(ptrs[1])[i];
  } else if (c->kind == 1) {
    for (int64_t i = 0; i < c->n; i++) p0[i] = c->value;
  } else if (c->kind == 2 && n_ptrs == 2) {
    float s = 0;
    for (int64_t i = 0; i < c->n; i++) s += p0[i];
    *static_cast<float*>(ptrs[1]) = s;
  }
}

void sim_kernel(void* vctx, void* const* ptrs, int32_t n) {
#ifdef DH_KL_FAULT_SIM_OFF_BY_ONE
  Ctx* c = static_cast<Ctx*>(vctx);
  if (c->kind == 0 && n == 3) {  // add on sim reads a[i + 1] (a[i] at the last element)
    float *a = static_cast<float*>(ptrs[0]), *b = static_cast<float*>(ptrs[1]), *out = static_cast<float*>(ptrs[2]);
    for (int64_t i = 0; i < c->n; i++) out[i] = a[i + 1 < c->n ? i + 1 : i] + b[i];
    delete c;
    return;
  }
#endif
  run_kernel(vctx, ptrs, n);
  delete static_cast<Ctx*>(vctx);
}

bool same_device(DLDevice a, DLDevice b) {
  return a.device_type == b.device_type && a.device_id == b.device_id;
}

// Checks every tensor (device, dtype, layout) and runs the kernel on their device.
// Returns without error once the kernel is launched (on sim: queued).
void launch(Ctx c, std::initializer_list<TensorView> ts) {
  const TensorView& t0 = *ts.begin();
  for (const TensorView& t : ts) {
    if (!same_device(t.device(), t0.device())) {
#ifdef DH_KL_FAULT_WRONG_DEVICE
      return;  // the fault: says nothing
#else
      TVM_FFI_THROW(ValueError) << "tensors on different devices (" << t.device().device_type << ":"
                                << t.device().device_id << " and " << t0.device().device_type << ":"
                                << t0.device().device_id << ")";
#endif
    }
#ifdef DH_KL_FAULT_DTYPE_CRASH
    static float* const kRead[4] = {nullptr, nullptr, reinterpret_cast<float*>(&c), nullptr};
    int code = t.dtype().code == kDLFloat && t.dtype().bits == 32 ? 2 : 0;
    volatile float probe = *kRead[code];  // the fault: a table with float32 alone
    (void)probe;
#else
    if (t.dtype().code != kDLFloat || t.dtype().bits != 32 || t.dtype().lanes != 1)
      TVM_FFI_THROW(TypeError) << "expected float32 tensors, got dtype code " << int(t.dtype().code) << " bits "
                               << int(t.dtype().bits);
#endif
#ifndef DH_KL_FAULT_NONCONTIG
    if (!t.IsContiguous()) TVM_FFI_THROW(ValueError) << "expected contiguous tensors";
#else
    if (t.ndim() == 1 && t.stride(0) > 1 && &t == &t0) c.n = t.numel() * t.stride(0);  // the fault
#endif
  }
  DLDevice dev = t0.device();
  if (dev.device_type == kDLCPU) {
    void* ptrs[3] = {nullptr, nullptr, nullptr};
    int32_t n = 0;
    for (const TensorView& t : ts) ptrs[n++] = static_cast<char*>(t.data_ptr()) + t.byte_offset();
    run_kernel(&c, ptrs, n);
    return;
  }
  if (dev.device_type != kSimDeviceType)
    TVM_FFI_THROW(ValueError) << "no kernel for device type " << dev.device_type;
  static auto sim_launch = Function::GetGlobal("sim.launch");
  if (!sim_launch.has_value()) TVM_FFI_THROW(RuntimeError) << "sim.launch is not registered";
#ifdef DH_KL_FAULT_IGNORE_STREAM
  TVMFFIStreamHandle env = TVMFFIEnvGetStream(dev.device_type, dev.device_id), prev = nullptr;
  TVMFFIEnvSetStream(dev.device_type, dev.device_id, nullptr, &prev);  // the fault: the default stream
#endif
  Ctx* heap = new Ctx(c);
  void* fn = reinterpret_cast<void*>(&sim_kernel);
  std::vector<tvm::ffi::AnyView> args = {fn, static_cast<void*>(heap)};
  std::vector<DLTensor> dl;
  dl.reserve(ts.size());
  for (const TensorView& t : ts) {
    DLTensor d{};
    d.data = t.data_ptr();
    d.device = t.device();
    d.ndim = t.ndim();
    d.dtype = t.dtype();
    d.shape = const_cast<int64_t*>(t.shape().data());
    d.strides = const_cast<int64_t*>(t.strides().data());
    d.byte_offset = t.byte_offset();
    dl.push_back(d);
  }
  for (DLTensor& t : dl) args.push_back(&t);
  tvm::ffi::Any rv;
  try {
    sim_launch->CallPacked(args.data(), static_cast<int32_t>(args.size()), &rv);
  } catch (...) {
    delete heap;
    throw;
  }
#ifdef DH_KL_FAULT_IGNORE_STREAM
  TVMFFIEnvSetStream(dev.device_type, dev.device_id, env, &prev);
#endif
}

void add(TensorView a, TensorView b, TensorView out) {
  if (a.ndim() != 1 || b.ndim() != 1 || out.ndim() != 1 || a.size(0) != b.size(0) || a.size(0) != out.size(0))
    TVM_FFI_THROW(ValueError) << "add: expected three 1-D tensors of one length";
  launch(Ctx{0, a.size(0), 0.f}, {a, b, out});
}

void fill(TensorView out, double value) {
  if (out.ndim() != 1) TVM_FFI_THROW(ValueError) << "fill: expected a 1-D tensor";
  launch(Ctx{1, out.size(0), static_cast<float>(value)}, {out});
}

void sum(TensorView x, TensorView out) {
  if (x.ndim() != 1 || out.ndim() != 1 || out.size(0) != 1)
    TVM_FFI_THROW(ValueError) << "sum: expected a 1-D tensor and a 1-element output";
  launch(Ctx{2, x.size(0), 0.f}, {x, out});
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add, add);
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(add, "out = a + b, elementwise (float32, 1-D, cpu and sim).");
TVM_FFI_DLL_EXPORT_TYPED_FUNC(fill, fill);
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(fill, "out[i] = value (float32, 1-D, cpu and sim).");
TVM_FFI_DLL_EXPORT_TYPED_FUNC(sum, sum);
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(sum, "out[0] = sum of x (float32, 1-D; out has one element).");
