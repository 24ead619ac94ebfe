/*
 * devharness/device_api.h — the device API manager: plugins, backends, devices.
 *
 * The manager loads backend plugins (devharness/backend.h), registers each as the
 * global packed function `devharness.device_api.<name>` (DH_DEVICE_API_PREFIX) returning the dh_backend_t as an
 * OpaquePtr (as TVM registers device_api.cuda; docs/contract.md §Device), and dispatches TVM
 * DeviceAPI calls to the backend serving a DLDevice's device_type.
 *
 * Plugin discovery (dh_plugins_load_default): every libdevharness_*.so in
 *   1. each folder of $DEVHARNESS_PLUGIN_PATH (colon-separated), then
 *   2. the plugin folder next to this library: <dir of libdevharness.so>/devharness
 *      (found with dladdr; PREFIX/lib/devharness after `make install`), then
 *   3. the build's plugin folder: <dir of the running executable>/../lib/devharness.
 * A file reached twice (same real path) is loaded once.
 * A plugin that cannot be loaded (not an ELF, no entry symbol, wrong ABI major,
 * struct_size too small, duplicate name or device type) is refused with a message
 * naming the file and the reason; the others still load.
 *
 * Initialisation is lazy: a backend's init runs once, on the first call that needs
 * it (any dispatch below, dh_backend_init), so a process may fork before (the
 * conformance runner does).
 *
 * Thread-safety: loading is serialised by a lock; everything else may be called from
 * any thread once loading is done.
 */
#ifndef DEVHARNESS_DEVICE_API_H_
#define DEVHARNESS_DEVICE_API_H_

#include <dlpack/dlpack.h>
#include <stddef.h>

#include "devharness/backend.h"

/* Prefix of the global function that returns a backend: "devharness.device_api.<name>"
 * in tvm-ffi's global table. TVM registers its own DeviceAPIs there as
 * "device_api.<name>" (device_api.cpu, device_api.cuda, ...; apache/tvm v0.27.0
 * src/runtime/device_api.cc), and the table is shared with any TVM in the process, so
 * devharness keeps its names out of TVM's: registering "device_api.cpu" first made
 * libtvm_runtime's static registration of the same name abort the process. */
#define DH_DEVICE_API_PREFIX "devharness.device_api."

#ifdef __cplusplus
extern "C" {
#endif

/* Upper bound on device ids probed with DH_ATTR_EXIST when counting devices. */
#define DH_MAX_DEVICES_PER_BACKEND 64

/*===========================================================================
 * Plugins
 *===========================================================================*/

/* Loads one plugin file. On success *out_backend (may be NULL) points at the
 * validated backend, owned by the manager until dh_plugins_unload_all. The struct is
 * copied into a zeroed dh_backend_t of this ABI, so fields the plugin's older minor
 * lacks read as NULL. Errors ("ABIError" or "IOError"), each naming `path`:
 * not a loadable ELF, missing entry symbol, entry returned NULL, abi_major mismatch,
 * struct_size < DH_BACKEND_SIZE_V1_0, a required entry NULL, bad name, name or
 * device_type already loaded. */
int dh_plugin_load(const char* path, const dh_backend_t** out_backend);

/* Loads every plugin found by the discovery rule above. Refusals do not stop it;
 * they are recorded (dh_plugin_refusal). Returns the number of backends loaded.
 * Calling it again loads nothing twice. */
size_t dh_plugins_load_default(void);

/* Refused plugins since start: count, and the i-th message "PATH: reason" (owned by
 * the manager, valid until dh_plugins_unload_all). */
size_t dh_plugin_refusal_count(void);
const char* dh_plugin_refusal(size_t i);

/* Shuts every initialised backend down, unregisters device_api.* and module
 * functions, and drops the manager's handles. For tests and clean exits.
 * A plugin's code stays mapped (it is opened with RTLD_NODELETE): vendor stacks
 * under a plugin (the OpenCL ICD loader, PoCL, libcuda) keep worker threads and
 * global state past their own teardown, and unmapping them under those threads
 * crashes the process. Loading the same file again after this call therefore finds
 * the plugin's static state as its shutdown left it. Not thread-safe against calls
 * into a backend in flight. */
void dh_plugins_unload_all(void);

/*===========================================================================
 * Backends
 *===========================================================================*/

/* Number of loaded backends, and the i-th in load order (NULL past the end). */
size_t dh_backend_count(void);
const dh_backend_t* dh_backend_at(size_t i);

/* The backend registered as device_api.<name>. Errors: "KeyError" with the message
 * "Device API <name> is not enabled: <why>", where why is the refusal of a plugin
 * of that name, or "no plugin libdevharness_<name>.so found in <folders>". */
int dh_device_api_get(const char* name, const dh_backend_t** out_backend);

/* The backend serving DLDeviceType `device_type`. Errors: "KeyError"
 * "Device API <type name> is not enabled" (type names as TVM: cpu, cuda, opencl,
 * vulkan, ext_dev, ...). Lock-free after loading; used on every dispatch. */
int dh_device_api_get_by_type(int32_t device_type, const dh_backend_t** out_backend);

/* TVM's name for a DLDeviceType ("cpu", "cuda", "cuda_host", "opencl", "vulkan",
 * "metal", "vpi", "rocm", "rocm_host", "ext_dev", "cuda_managed", "oneapi", "webgpu",
 * "hexagon", "maia", "trn"), or "unknown". Static storage (runtime/names.c). */
const char* dh_device_type_name(int32_t device_type);

/* Runs the backend's init once (idempotent, thread-safe). Returns 0 when the
 * backend works (with or without devices), -1 with its error otherwise. */
int dh_backend_init(const dh_backend_t* backend);

/* After init: NULL when the backend has devices, else why not (backend-owned). If
 * init failed, its error message. Inits the backend if needed. */
const char* dh_backend_unavailable_reason(const dh_backend_t* backend);

/* Number of devices: ids 0.. with DH_ATTR_EXIST == 1, probing until the first 0,
 * at most DH_MAX_DEVICES_PER_BACKEND. 0 when unavailable. Inits if needed. -1 with
 * an error if get_attr(kExist) itself fails (a contract violation). */
int dh_backend_device_count(const dh_backend_t* backend, int* out_count);

/*===========================================================================
 * Attribute kinds (TVM DeviceAttrKind, docs/contract.md §Attributes). Pure; thread-safe.
 * (runtime/names.c)
 *===========================================================================*/

/* TVM's snake-case name of an attribute kind ("exist", "max_threads_per_block",
 * "device_name", ...), or "unknown" outside 0..DH_ATTR_KIND_COUNT-1. Static storage. */
const char* dh_attr_kind_name(int32_t kind);

/* Declared value type of a kind when reported: DH_TYPE_INT or DH_TYPE_RAW_STR;
 * -1 for an invalid kind. (None is always allowed: "not reported".) */
int32_t dh_attr_kind_type(int32_t kind);

/* 1 when the kind's string value is JSON (DH_ATTR_MAX_THREAD_DIMENSIONS), else 0. */
int dh_attr_kind_is_json(int32_t kind);

/*===========================================================================
 * Device specs: "name:id"
 *===========================================================================*/

/* The one syntax of a device spec, for every command and option that takes one
 * (--device, `targets detect`): NAME:ID with exactly one ':', as tvm-ffi's
 * Device("cuda:0") splits it (apache-tvm-ffi 0.1.15 python/tvm_ffi/cython/device.pxi:
 * split(":"), more than two parts refused); NAME is a backend name (1 to
 * DH_DEVICE_NAME_MAX - 1 bytes, as plugin.c accepts them: [a-z][a-z0-9_-]*, checked when
 * resolved); ID is decimal digits only (no sign, blanks or 0x) with a value
 * 0..INT32_MAX, DLPack's int32_t DLDevice.device_id (dlpack.h). */
#define DH_DEVICE_NAME_MAX 64

/* Splits spec into the backend name (into name, name_size bytes) and the device id;
 * resolves nothing, loads and initialises no backend (the conformance runner splits
 * specs in a process that must not initialise one). Errors: "ParseError" naming the
 * spec (escaped as base/text.c dh_text_quote does) and what is wrong: NULL or empty, missing ':', more
 * than one ':', empty name, name longer than name_size - 1 bytes, missing id, id not a
 * non-negative decimal integer, id above INT32_MAX. Thread-safe. */
int dh_device_spec_split(const char* spec, char* name, size_t name_size, int32_t* out_id);

/* Parses "sim:0" / "cuda:1" (dh_device_spec_split) and resolves the backend. Errors:
 * dh_device_spec_split's "ParseError"s; "KeyError" when no such backend ("Device API
 * foo is not enabled: ..."); "IndexError" when the backend has no device with that
 * id. Initialises the backend (it asks for the device count and kExist). */
int dh_device_parse(const char* spec, DLDevice* out_device, const dh_backend_t** out_backend);

/* Writes "name:id" for dev into buf (NUL-terminated, truncated to buf_size). Returns
 * buf. Unknown device types print "<type name>:<id>". */
const char* dh_device_format(DLDevice dev, char* buf, size_t buf_size);

/*===========================================================================
 * DeviceAPI dispatch (TVM DeviceAPI methods; each resolves the backend from
 * dev.device_type, inits it if needed, and forwards). Errors: the backend's, or
 * "KeyError" when no backend serves the type. On error the message is prefixed
 * with "<name>:<id>: <operation>: ".
 *===========================================================================*/

int dh_device_get_attr(DLDevice dev, dh_attr_kind_t kind, dh_any_t* out_value);
int dh_device_set_device(DLDevice dev);
/* alignment 0 means DH_ALLOC_ALIGNMENT. */
int dh_device_alloc_data_space(DLDevice dev, size_t nbytes, size_t alignment,
                               DLDataType type_hint, void** out_ptr);
int dh_device_free_data_space(DLDevice dev, void* ptr);
/* Backend's workspace entries, or data space with DH_TEMP_ALLOC_ALIGNMENT. */
int dh_device_alloc_workspace(DLDevice dev, size_t nbytes, DLDataType type_hint, void** out_ptr);
int dh_device_free_workspace(DLDevice dev, void* ptr);
int dh_device_create_stream(DLDevice dev, dh_stream_t* out_stream);
int dh_device_free_stream(DLDevice dev, dh_stream_t stream);
int dh_device_set_stream(DLDevice dev, dh_stream_t stream);
int dh_device_get_current_stream(DLDevice dev, dh_stream_t* out_stream);
int dh_device_stream_sync(DLDevice dev, dh_stream_t stream);
int dh_device_sync_stream_from_to(DLDevice dev, dh_stream_t src, dh_stream_t dst);

/* TVM DeviceAPI::CopyDataFromTo(DLTensor* from, DLTensor* to, stream): checks that
 * both tensors are compact (strides NULL or row-major), have equal byte sizes, and
 * that at least one side is CPU or both are on the same backend; then calls the
 * backend's flat copy with from->byte_offset / to->byte_offset, on the non-CPU
 * device's backend (CPU<->CPU uses the cpu backend when loaded, else memcpy).
 * Errors: "ValueError" naming the mismatch ("from has 12 bytes, to has 16 bytes",
 * "to is not contiguous: strides [1, 4] for shape [4, 4]"), "TypeError" for
 * NULL tensors or data. */
int dh_device_copy_data_from_to(const DLTensor* from, const DLTensor* to, dh_stream_t stream);

/* Calls the backend module function "<backend>.<name>" (see backend.h), e.g.
 * dh_device_call(dev, DH_FUNC_FILL, args, 2, &rv). Errors: "KeyError" if the backend
 * lacks the function, else the function's own. */
int dh_device_call(DLDevice dev, const char* name, const dh_any_t* args, int32_t num_args,
                   dh_any_t* out_result);

#ifdef __cplusplus
}
#endif
#endif /* DEVHARNESS_DEVICE_API_H_ */
