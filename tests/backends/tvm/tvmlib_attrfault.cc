/*
 * tests/backends/tvm/tvmlib_attrfault.cc — a TVM DeviceAPI (device_api.metal, one
 * device of malloc'd host memory) with one fault in GetAttr, chosen at build time by
 * TVMLIB_ATTR_FAULT:
 *   1  GetAttr(kDeviceName) crashes (SIGSEGV)
 *   2  GetAttr(kDeviceName) blocks forever
 *   3  kDeviceName is hostile text: an OSC title sequence with BEL, a clear-screen CSI,
 *      a bidi override and bytes that are not UTF-8
 * tests/backends/tvm/info_faults.t checks that `info` and `run` finish and name the
 * attribute with the signal or the timeout, and that no raw ESC byte is printed.
 */
#include <tvm/ffi/any.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/runtime/device_api.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include <unistd.h>

#ifndef TVMLIB_ATTR_FAULT
#error "build with -DTVMLIB_ATTR_FAULT=1|2|3"
#endif

namespace {

class AttrFaultDeviceAPI final : public tvm::runtime::DeviceAPI {
 public:
  void SetDevice(tvm::Device) final {}
  void GetAttr(tvm::Device dev, tvm::runtime::DeviceAttrKind kind, tvm::ffi::Any* rv) final {
    if (kind == tvm::runtime::kExist) *rv = static_cast<int64_t>(dev.device_id == 0);
    if (kind == tvm::runtime::kTotalGlobalMemory) *rv = static_cast<int64_t>(1) << 30;
    if (kind != tvm::runtime::kDeviceName) return;
#if TVMLIB_ATTR_FAULT == 1
    std::raise(SIGSEGV);
#elif TVMLIB_ATTR_FAULT == 2
    for (;;) pause();
#else
    *rv = std::string("evil\x1b]0;pwned\x07\x1b[2J\xe2\x80\xae" "name\xff\xfe");
#endif
  }
  void* AllocDataSpace(tvm::Device, size_t nbytes, size_t, DLDataType) final {
    void* p = std::aligned_alloc(256, (nbytes + 255) / 256 * 256 + 256);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  void FreeDataSpace(tvm::Device, void* ptr) final { std::free(ptr); }
  void StreamSync(tvm::Device, TVMStreamHandle) final {}

 protected:
  void CopyDataFromTo(const void* from, size_t from_offset, void* to, size_t to_offset, size_t num_bytes,
                      tvm::Device, tvm::Device, DLDataType, TVMStreamHandle) final {
    if (num_bytes) std::memmove(static_cast<char*>(to) + to_offset, static_cast<const char*>(from) + from_offset, num_bytes);
  }
};

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  tvm::ffi::reflection::GlobalDef().def_packed("device_api.metal", [](tvm::ffi::PackedArgs, tvm::ffi::Any* rv) {
    static AttrFaultDeviceAPI* inst = new AttrFaultDeviceAPI();  // lives to exit, as TVM's own
    *rv = static_cast<void*>(static_cast<tvm::runtime::DeviceAPI*>(inst));
  });
}
