/*
 * backends/tvm/tvm_adapter.h — C view of TVM's C++ DeviceAPI (internal to backends/tvm/).
 *
 * tvm_adapter.cc is compiled into its own shared object, libdh_tvm_adapter.so (installed
 * in <plugins>/tvm/), linked against libtvm_runtime.so and libtvm_ffi.so by SONAME. The
 * plugin (tvm_backend.c) dlopens TVM's libraries by path first, then the adapter, and
 * reaches these functions through dlsym: an absent apache-tvm package leaves a loaded
 * plugin that says why instead of a plugin that fails to load.
 *
 * Every function calls the DeviceAPI* of TVM's registry (tvm::runtime::DeviceAPI::Get,
 * apache/tvm 0.27 include/tvm/runtime/device_api.h:281) for the TVM device `dev` (TVM's
 * DLDeviceType, not devharness's). Each returns 0, or -1 with the C++ exception TVM threw
 * turned into (kind, message): tvm::ffi::Error -> its kind and message, std::bad_alloc ->
 * "OutOfMemoryError", any other std::exception -> "RuntimeError". Thread-safe as TVM's
 * DeviceAPI is (TVM's contract: any thread).
 */
#ifndef DEVHARNESS_BACKENDS_TVM_ADAPTER_H_
#define DEVHARNESS_BACKENDS_TVM_ADAPTER_H_

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where a failing call leaves its error: kind and message, NUL-terminated, truncated. */
typedef struct dh_tvm_err {
  char kind[64];
  char message[960];
} dh_tvm_err_t;

/* A GetAttr answer. */
#define DH_TVM_VALUE_NONE 0
#define DH_TVM_VALUE_INT 1   /* also Bool (v_int 0/1) */
#define DH_TVM_VALUE_FLOAT 2
#define DH_TVM_VALUE_STR 3   /* ffi::String (SmallStr or Str object): copied into str */
#define DH_TVM_VALUE_OTHER 4 /* any other type: its type key copied into str */
typedef struct dh_tvm_value {
  int type;
  int64_t v_int;
  double v_float;
  char str[1024];
} dh_tvm_value_t;

/* Table of the adapter's entries, returned by dh_tvm_adapter() (symbol
 * DH_TVM_ADAPTER_SYMBOL). `api` is the DeviceAPI* from get_api. */
typedef struct dh_tvm_adapter {
  /* DeviceAPI::Get(dev, allow_missing = true); *out_api NULL when TVM has no
   * "device_api.<name>" for dev.device_type. */
  int (*get_api)(DLDevice dev, void** out_api, dh_tvm_err_t* err);
  int (*get_attr)(void* api, DLDevice dev, int kind, dh_tvm_value_t* out, dh_tvm_err_t* err);
  int (*get_target_property)(void* api, DLDevice dev, const char* name, dh_tvm_value_t* out,
                             dh_tvm_err_t* err);
  int (*set_device)(void* api, DLDevice dev, dh_tvm_err_t* err);
  int (*alloc_data_space)(void* api, DLDevice dev, size_t nbytes, size_t alignment, DLDataType type_hint,
                          void** out_ptr, dh_tvm_err_t* err);
  int (*free_data_space)(void* api, DLDevice dev, void* ptr, dh_tvm_err_t* err);
  int (*alloc_workspace)(void* api, DLDevice dev, size_t nbytes, DLDataType type_hint, void** out_ptr,
                         dh_tvm_err_t* err);
  int (*free_workspace)(void* api, DLDevice dev, void* ptr, dh_tvm_err_t* err);
  /* The public CopyDataFromTo(DLTensor*, DLTensor*, stream) of `api` (TVM's
   * Tensor::CopyFromTo calls the non-CPU side's). */
  int (*copy_data_from_to)(void* api, DLTensor* from, DLTensor* to, void* stream, dh_tvm_err_t* err);
  int (*create_stream)(void* api, DLDevice dev, void** out_stream, dh_tvm_err_t* err);
  int (*free_stream)(void* api, DLDevice dev, void* stream, dh_tvm_err_t* err);
  int (*set_stream)(void* api, DLDevice dev, void* stream, dh_tvm_err_t* err);
  int (*get_current_stream)(void* api, DLDevice dev, void** out_stream, dh_tvm_err_t* err);
  int (*stream_sync)(void* api, DLDevice dev, void* stream, dh_tvm_err_t* err);
  int (*sync_stream_from_to)(void* api, DLDevice dev, void* src, void* dst, dh_tvm_err_t* err);
  /* SupportsDevicePointerArithmeticsOnHost() */
  int (*pointer_arithmetic_on_host)(void* api);
  /* The names in tvm-ffi's global table that start with "device_api."
   * (ffi::Function::ListGlobalNames), sorted, one per line, into out (truncated at
   * size; NUL-terminated). */
  int (*list_device_apis)(char* out, size_t size, dh_tvm_err_t* err);
  /* The DeviceAPI* the global function `name` ("device_api.ext_dev") returns, as TVM's
   * DeviceAPIManager::GetAPI does (apache/tvm 0.27 src/runtime/device_api.cc:84-94). */
  int (*get_api_by_name)(const char* name, void** out_api, dh_tvm_err_t* err);
  /* TVM's DLDeviceType for a device name of DLDeviceType2Str ("ext_dev" -> 12), -1
   * when TVM has none (apache/tvm 0.27 include/tvm/runtime/device_api.h:319-355). */
  int (*device_type_of)(const char* name);
  /* A TVM RPC session to the server at host:port (TVM's "rpc.Connect", key "" = any
   * server), kept open to exit; *out_index is its session table index: the remote
   * device t is TVM's device type (index + 1) * 128 + t (apache/tvm 0.27
   * include/tvm/runtime/device_api.h kRPCSessMask, python/tvm/rpc/client.py). */
  int (*rpc_connect)(const char* host, int port, const char* key, int* out_index, dh_tvm_err_t* err);
} dh_tvm_adapter_t;

#define DH_TVM_ADAPTER_SYMBOL "dh_tvm_adapter"
typedef const dh_tvm_adapter_t* (*dh_tvm_adapter_fn)(void);

#ifdef __cplusplus
}
#endif
#endif /* DEVHARNESS_BACKENDS_TVM_ADAPTER_H_ */
