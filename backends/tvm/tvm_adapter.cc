/*
 * backends/tvm/tvm_adapter.cc — calls TVM's own C++ DeviceAPI (apache/tvm 0.27
 * include/tvm/runtime/device_api.h) for the tvm-* backends; C entry table in
 * tvm_adapter.h. The only C++ of the tvm backend: TVM's DeviceAPI is a C++ class.
 *
 * Nothing here changes what TVM does: every entry is one virtual call on the
 * DeviceAPI* TVM's registry returns, with its C++ exceptions caught at the boundary.
 */
#include "backends/tvm/tvm_adapter.h"

#include <tvm/ffi/any.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/string.h>
#include <tvm/runtime/device_api.h>

#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

using tvm::runtime::DeviceAPI;

namespace {

void put(char* dst, size_t size, const std::string& s) { std::snprintf(dst, size, "%s", s.c_str()); }

void to_err(dh_tvm_err_t* err, const char* kind, const std::string& message) {
  if (err == nullptr) return;
  put(err->kind, sizeof err->kind, kind);
  put(err->message, sizeof err->message, message);
}

/* Runs f, turning what TVM throws into (kind, message). */
template <typename F>
int guarded(dh_tvm_err_t* err, F&& f) {
  try {
    f();
    return 0;
  } catch (const tvm::ffi::Error& e) {
    to_err(err, e.kind().c_str(), e.message());
  } catch (const std::bad_alloc& e) {
    to_err(err, "OutOfMemoryError", std::string("TVM threw std::bad_alloc: ") + e.what());
  } catch (const std::exception& e) {
    to_err(err, "RuntimeError", std::string("TVM threw: ") + e.what());
  } catch (...) {
    to_err(err, "RuntimeError", "TVM threw a non-standard exception");
  }
  return -1;
}

DeviceAPI* api_of(void* api) { return static_cast<DeviceAPI*>(api); }

void to_value(const tvm::ffi::Any& rv, dh_tvm_value_t* out) {
  std::memset(out, 0, sizeof *out);
  switch (rv.type_index()) {
    case kTVMFFINone:
      out->type = DH_TVM_VALUE_NONE;
      return;
    case kTVMFFIInt:
    case kTVMFFIBool:
      out->type = DH_TVM_VALUE_INT;
      out->v_int = rv.cast<int64_t>();
      return;
    case kTVMFFIFloat:
      out->type = DH_TVM_VALUE_FLOAT;
      out->v_float = rv.cast<double>();
      return;
    default:
      break;
  }
  if (auto s = rv.as<tvm::ffi::String>()) {
    out->type = DH_TVM_VALUE_STR;
    put(out->str, sizeof out->str, std::string(*s));
    return;
  }
  out->type = DH_TVM_VALUE_OTHER;
  put(out->str, sizeof out->str, rv.GetTypeKey());
}

int get_api(DLDevice dev, void** out_api, dh_tvm_err_t* err) {
  return guarded(err, [&] { *out_api = DeviceAPI::Get(dev, /*allow_missing=*/true); });
}

int get_attr(void* api, DLDevice dev, int kind, dh_tvm_value_t* out, dh_tvm_err_t* err) {
  return guarded(err, [&] {
    tvm::ffi::Any rv;
    api_of(api)->GetAttr(dev, static_cast<tvm::runtime::DeviceAttrKind>(kind), &rv);
    to_value(rv, out);
  });
}

int get_target_property(void* api, DLDevice dev, const char* name, dh_tvm_value_t* out, dh_tvm_err_t* err) {
  return guarded(err, [&] {
    tvm::ffi::Any rv;
    api_of(api)->GetTargetProperty(dev, std::string(name), &rv);
    to_value(rv, out);
  });
}

int set_device(void* api, DLDevice dev, dh_tvm_err_t* err) {
  return guarded(err, [&] { api_of(api)->SetDevice(dev); });
}

int alloc_data_space(void* api, DLDevice dev, size_t nbytes, size_t alignment, DLDataType type_hint,
                     void** out_ptr, dh_tvm_err_t* err) {
  return guarded(err, [&] { *out_ptr = api_of(api)->AllocDataSpace(dev, nbytes, alignment, type_hint); });
}

int free_data_space(void* api, DLDevice dev, void* ptr, dh_tvm_err_t* err) {
  return guarded(err, [&] { api_of(api)->FreeDataSpace(dev, ptr); });
}

int alloc_workspace(void* api, DLDevice dev, size_t nbytes, DLDataType type_hint, void** out_ptr,
                    dh_tvm_err_t* err) {
  return guarded(err, [&] { *out_ptr = api_of(api)->AllocWorkspace(dev, nbytes, type_hint); });
}

int free_workspace(void* api, DLDevice dev, void* ptr, dh_tvm_err_t* err) {
  return guarded(err, [&] { api_of(api)->FreeWorkspace(dev, ptr); });
}

int copy_data_from_to(void* api, DLTensor* from, DLTensor* to, void* stream, dh_tvm_err_t* err) {
  return guarded(err, [&] { api_of(api)->CopyDataFromTo(from, to, stream); });
}

int create_stream(void* api, DLDevice dev, void** out_stream, dh_tvm_err_t* err) {
  return guarded(err, [&] { *out_stream = api_of(api)->CreateStream(dev); });
}

int free_stream(void* api, DLDevice dev, void* stream, dh_tvm_err_t* err) {
  return guarded(err, [&] { api_of(api)->FreeStream(dev, stream); });
}

int set_stream(void* api, DLDevice dev, void* stream, dh_tvm_err_t* err) {
  return guarded(err, [&] { api_of(api)->SetStream(dev, stream); });
}

int get_current_stream(void* api, DLDevice dev, void** out_stream, dh_tvm_err_t* err) {
  return guarded(err, [&] { *out_stream = api_of(api)->GetCurrentStream(dev); });
}

int stream_sync(void* api, DLDevice dev, void* stream, dh_tvm_err_t* err) {
  return guarded(err, [&] { api_of(api)->StreamSync(dev, stream); });
}

int sync_stream_from_to(void* api, DLDevice dev, void* src, void* dst, dh_tvm_err_t* err) {
  return guarded(err, [&] { api_of(api)->SyncStreamFromTo(dev, src, dst); });
}

int pointer_arithmetic_on_host(void* api) { return api_of(api)->SupportsDevicePointerArithmeticsOnHost() ? 1 : 0; }

int list_device_apis(char* out, size_t size, dh_tvm_err_t* err) {
  return guarded(err, [&] {
    std::string all;
    for (const tvm::ffi::String& n : tvm::ffi::Function::ListGlobalNames()) {
      std::string s(n);
      if (s.rfind("device_api.", 0) == 0) all += s + "\n";
    }
    put(out, size, all);
  });
}

int get_api_by_name(const char* name, void** out_api, dh_tvm_err_t* err) {
  return guarded(err, [&] {
    *out_api = nullptr;
    if (auto f = tvm::ffi::Function::GetGlobal(name)) *out_api = (*f)().cast<void*>();
  });
}

int device_type_of(const char* name) {
  for (int t = 1; t < 64; t++) {
    try {
      if (std::strcmp(tvm::runtime::DLDeviceType2Str(t), name) == 0) return t;
    } catch (...) {
    }
  }
  return -1;
}

int rpc_connect(const char* host, int port, const char* key, int* out_index, dh_tvm_err_t* err) {
  return guarded(err, [&] {
    static std::vector<tvm::ffi::Any>* sessions = new std::vector<tvm::ffi::Any>();  // to exit
    tvm::ffi::Any sess = tvm::ffi::Function::GetGlobalRequired("rpc.Connect")(std::string(host), port,
                                                                               std::string(key), false);
    *out_index = tvm::ffi::Function::GetGlobalRequired("rpc.SessTableIndex")(sess).cast<int>();
    sessions->push_back(sess);
  });
}

const dh_tvm_adapter_t kAdapter = {
    get_api,         get_attr,          get_target_property, set_device,      alloc_data_space,
    free_data_space, alloc_workspace,   free_workspace,      copy_data_from_to, create_stream,
    free_stream,     set_stream,        get_current_stream,  stream_sync,     sync_stream_from_to,
    pointer_arithmetic_on_host, list_device_apis, get_api_by_name, device_type_of, rpc_connect,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const dh_tvm_adapter_t* dh_tvm_adapter(void) {
  return &kAdapter;
}
