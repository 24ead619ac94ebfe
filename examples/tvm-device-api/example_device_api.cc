/*
 * examples/tvm-device-api/example_device_api.cc — a small TVM DeviceAPI, written the way
 * a port of TVM to new hardware writes one (apache/tvm 0.27
 * include/tvm/runtime/device_api.h), registered as `device_api.ext_dev` in tvm-ffi's
 * global table. The "device" is host memory behind opaque handles: a data-space
 * pointer is a handle to a block, never the bytes' address, so a caller that adds an
 * offset to it instead of passing byte_offset is caught (the DeviceAPI keeps TVM's
 * default SupportsDevicePointerArithmeticsOnHost() == false). One device (id 0), one
 * stream (CreateStream keeps TVM's default nullptr; copies are done when they return,
 * StreamSync has nothing to wait for).
 *
 * Built twice by examples/tvm-device-api/examples.mk: libdh_example_device_api.so and,
 * with -DDH_EXAMPLE_FAULTY, libdh_example_device_api_faulty.so, whose device-to-host
 * copy ignores the source's byte offset (the conformance suite names the clause:
 * copy.d2h_offsets). docs/testing-a-tvm-deviceapi.md runs both.
 */
#include <tvm/ffi/any.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/runtime/device_api.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_set>

namespace {

using tvm::runtime::DeviceAPI;
using tvm::runtime::DeviceAttrKind;

constexpr size_t kMemoryBytes = size_t{1} << 30; /* what the device "has" */

/* What a data-space handle points to. */
struct Block {
  unsigned char* bytes;
  size_t size;
};

class ExampleDeviceAPI final : public DeviceAPI {
 public:
  static ExampleDeviceAPI* Global() {
    static ExampleDeviceAPI* inst = new ExampleDeviceAPI();  // lives to exit, as TVM's own
    return inst;
  }

  void SetDevice(tvm::Device dev) final { Check(dev); }

  void GetAttr(tvm::Device dev, DeviceAttrKind kind, tvm::ffi::Any* rv) final {
    if (kind == tvm::runtime::kExist) {
      *rv = static_cast<int64_t>(dev.device_id == 0);
      return;
    }
    Check(dev);
    switch (kind) {
      case tvm::runtime::kDeviceName: *rv = tvm::ffi::String("devharness example DeviceAPI (host memory)"); break;
      case tvm::runtime::kMaxThreadsPerBlock: *rv = static_cast<int64_t>(1); break;
      case tvm::runtime::kWarpSize: *rv = static_cast<int64_t>(1); break;
      case tvm::runtime::kTotalGlobalMemory: *rv = static_cast<int64_t>(kMemoryBytes); break;
      default:
        if (static_cast<int>(kind) < 0 || static_cast<int>(kind) > tvm::runtime::kImagePitchAlignment)
          TVM_FFI_THROW(ValueError) << "ext_dev: unknown attribute kind " << static_cast<int>(kind);
        break;  // not reported: None
    }
  }

  void* AllocDataSpace(tvm::Device dev, size_t nbytes, size_t alignment, DLDataType) final {
    Check(dev);
    if (alignment < 64) alignment = 64;
    if ((alignment & (alignment - 1)) != 0) TVM_FFI_THROW(ValueError) << "alignment " << alignment << " is not a power of two";
    if (nbytes > kMemoryBytes) throw std::bad_alloc();
    size_t rounded = (nbytes + alignment - 1) / alignment * alignment;
    void* p = std::aligned_alloc(alignment, rounded ? rounded : alignment);
    if (p == nullptr) throw std::bad_alloc();
    Block* b = new Block{static_cast<unsigned char*>(p), nbytes};
    std::lock_guard<std::mutex> lock(mu_);
    live_.insert(b);
    return b;
  }

  void FreeDataSpace(tvm::Device dev, void* ptr) final {
    Check(dev);
    if (ptr == nullptr) return;
    Block* b = static_cast<Block*>(ptr);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (live_.erase(b) == 0) TVM_FFI_THROW(ValueError) << "ext_dev: " << ptr << " is not a live data-space handle";
    }
    std::free(b->bytes);
    delete b;
  }

  void StreamSync(tvm::Device dev, TVMStreamHandle) final { Check(dev); }

 protected:
  void CopyDataFromTo(const void* from, size_t from_offset, void* to, size_t to_offset, size_t num_bytes,
                      tvm::Device dev_from, tvm::Device dev_to, DLDataType, TVMStreamHandle) final {
#ifdef DH_EXAMPLE_FAULTY
    if (dev_from.device_type != kDLCPU && dev_to.device_type == kDLCPU) from_offset = 0;  // the bug
#endif
    const unsigned char* src = Resolve(dev_from, const_cast<void*>(from), from_offset, num_bytes);
    unsigned char* dst = Resolve(dev_to, to, to_offset, num_bytes);
    if (num_bytes) std::memmove(dst, src, num_bytes);
  }

 private:
  static void Check(tvm::Device dev) {
    if (dev.device_type != kDLExtDev || dev.device_id != 0)
      TVM_FFI_THROW(IndexError) << "ext_dev: no device " << static_cast<int>(dev.device_type) << ":"
                                << dev.device_id << " (this DeviceAPI has ext_dev:0 only)";
  }
  /* Host side: the address itself. Device side: the handle's block, range-checked. */
  unsigned char* Resolve(tvm::Device dev, void* p, size_t offset, size_t n) {
    if (dev.device_type == kDLCPU) return static_cast<unsigned char*>(p) + offset;
    Check(dev);
    Block* b = static_cast<Block*>(p);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (live_.count(b) == 0) TVM_FFI_THROW(ValueError) << "ext_dev: " << p << " is not a live data-space handle";
    }
    if (offset > b->size || n > b->size - offset)
      TVM_FFI_THROW(ValueError) << "ext_dev: copy of " << n << " bytes at offset " << offset
                                << " is outside the block of " << b->size << " bytes";
    return b->bytes + offset;
  }

  std::mutex mu_;
  std::unordered_set<Block*> live_; /* the handles AllocDataSpace gave and FreeDataSpace has not taken */
};

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  tvm::ffi::reflection::GlobalDef().def_packed(
      "device_api.ext_dev", [](tvm::ffi::PackedArgs, tvm::ffi::Any* rv) {
        *rv = static_cast<void*>(static_cast<DeviceAPI*>(ExampleDeviceAPI::Global()));
      });
}
