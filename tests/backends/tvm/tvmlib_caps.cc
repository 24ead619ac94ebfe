/*
 * tests/backends/tvm/tvmlib_caps.cc — a TVM DeviceAPI registered as device_api.metal
 * (TVM's kDLMetal, a device type no devharness backend serves) whose answers to the two
 * questions the tvm plugin asks at init (tvm_device.c dh_tvm_set_caps) differ from
 * the example's: CreateStream gives a real (non-NULL) stream, and
 * SupportsDevicePointerArithmeticsOnHost() is true, as TVM's CUDA DeviceAPI answers.
 * tests/backends/tvm/tvm_lib.t checks that tvm-metal then claims neither one queue nor
 * host addresses (TVM's flag promises arithmetic only; devharness's flag means host
 * addresses, which only a kDLCPU device has). Memory is malloc'd host memory, one
 * device (id 0).
 */
#include <tvm/ffi/any.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/runtime/device_api.h>

#include <cstdlib>
#include <cstring>
#include <new>

namespace {

class CapsDeviceAPI final : public tvm::runtime::DeviceAPI {
 public:
  void SetDevice(tvm::Device) final {}
  void GetAttr(tvm::Device dev, tvm::runtime::DeviceAttrKind kind, tvm::ffi::Any* rv) final {
    if (kind == tvm::runtime::kExist) *rv = static_cast<int64_t>(dev.device_id == 0);
  }
  void* AllocDataSpace(tvm::Device, size_t nbytes, size_t, DLDataType) final {
    void* p = std::aligned_alloc(256, (nbytes + 255) / 256 * 256 + 256);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  void FreeDataSpace(tvm::Device, void* ptr) final { std::free(ptr); }
  TVMStreamHandle CreateStream(tvm::Device) final { return new int(0); }
  void FreeStream(tvm::Device, TVMStreamHandle stream) final { delete static_cast<int*>(stream); }
  void StreamSync(tvm::Device, TVMStreamHandle) final {}
  bool SupportsDevicePointerArithmeticsOnHost() final { return true; }

 protected:
  void CopyDataFromTo(const void* from, size_t from_offset, void* to, size_t to_offset, size_t num_bytes,
                      tvm::Device, tvm::Device, DLDataType, TVMStreamHandle) final {
    if (num_bytes) std::memmove(static_cast<char*>(to) + to_offset, static_cast<const char*>(from) + from_offset, num_bytes);
  }
};

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  tvm::ffi::reflection::GlobalDef().def_packed("device_api.metal", [](tvm::ffi::PackedArgs, tvm::ffi::Any* rv) {
    static CapsDeviceAPI* inst = new CapsDeviceAPI();  // lives to exit, as TVM's own
    *rv = static_cast<void*>(static_cast<tvm::runtime::DeviceAPI*>(inst));
  });
}
