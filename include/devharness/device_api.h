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
 * Backend options (ABI 1.6): the configuration channel
 *===========================================================================
 * A plugin declares the options it takes (dh_backend_t.options, backend.h); the
 * runtime lists them and hands each value to the declaring plugin's set_option
 * before that plugin's more_backends and init, so what the values name (a library,
 * a server) can become backends. The window: a program opens it
 * (dh_backend_options_open) before it loads plugins; while it is open, the loader
 * holds back the more_backends of every plugin that declares options; the program
 * lists the options (dh_backend_option_count/at: a command builds its device-option
 * group from them), gives values (dh_backend_option_set) and closes it
 * (dh_backend_options_close), which runs the held-back more_backends in load order.
 * Without the window nothing is held back (the loader calls more_backends at load,
 * as before ABI 1.6) and no value can be given: a backend then reads only its own
 * documented fallbacks (backends/tvm/: its environment variables). Plugins of ABI
 * 1.5 and older declare nothing and are never held back. Values are not inherited:
 * a program that starts another passes them on its command line (cmdline/). All of
 * it is serialised with loading (the loader's lock); state in runtime/options.c. */

/* ABI 1.6. Opens the window (idempotent); it stays open until dh_backend_options_close
 * (dh_plugins_unload_all does not close it). Never fails; thread-safe. */
void dh_backend_options_open(void);

/* ABI 1.6. Closes the window (idempotent): every held-back plugin's more_backends runs now,
 * its structs checked and registered as at load (a refused one is a refusal of
 * dh_plugin_refusal) and listed right after the plugin's own (dh_backend_at keeps load
 * order; a reader listing concurrently may see one twice); plugins loaded from now on
 * are configured at load again.
 * Never fails; thread-safe. Values given after it are refused. */
void dh_backend_options_close(void);

/* ABI 1.6. Number of options the loaded plugins declare, listed or not
 * (DH_BACKEND_OPTION_UNLISTED), and the i-th (load order, then declaration order;
 * NULL past the end) with *out_backend (may be NULL) its plugin's backend. The option
 * is the plugin's static storage, borrowed, valid until dh_plugins_unload_all.
 * Lock-free, thread-safe, never fails (no error set). */
size_t dh_backend_option_count(void);
const dh_backend_option_t* dh_backend_option_at(size_t i, const dh_backend_t** out_backend);

/* ABI 1.6. Gives value (borrowed for the call) to option `name` (without "--"; listed
 * or not) of the loaded plugin that declares it: calls its set_option now. 0, or -1 with: ValueError (name
 * or value NULL; a second value of an option without DH_BACKEND_OPTION_REPEATABLE,
 * "given twice, it takes one value"), KeyError (no loaded plugin declares `name`),
 * RuntimeError (the plugin is configured already: the window is closed or was not
 * open when it loaded, or it was initialised), or set_option's own error as it
 * raised it (kind and message unchanged, naming neither option nor value; RuntimeError
 * when it returned -1 without one). Thread-safe (serialised with loading). */
int dh_backend_option_set(const char* name, const char* value);

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

/* The backend's capabilities (DH_CAP_*), the same answer in every process that
 * initialised it or probed it: what its query_caps (backend.h ABI 1.5) found at init
 * in this process, else what a device probe (dh_device_select with
 * DH_SELECT_PROBE_IN_CHILD) found in its child, else the declared backend->caps
 * (also for a backend without query_caps, and for a pointer the manager did not load).
 * Never inits the backend. backend->caps itself always stays as declared. Lock-free,
 * thread-safe (runtime/plugin.c). */
uint32_t dh_device_caps(const dh_backend_t* backend);

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
 * Device selection: the devices a command runs on
 *===========================================================================
 * The one way every command (info, targets detect, conformance, bench, run) turns a
 * --device value, or its absence, into devices: one spec parse
 * (dh_device_spec_split), one plugin discovery (dh_plugins_load_default), one counting
 * rule and one message shape per bad spec. A device of a backend counts when the
 * backend's count (its device_count entry, else kExist from id 0 up to the first 0 or
 * error) includes it and set_device accepts its id, so a backend that over-reports
 * gets no phantom device (the clauses attr.exist_count and attr.exist_past_last name
 * the over-report instead). Not thread-safe against plugin loading/unloading. */

/* dh_device_select_params_t.flags: */
/* Count each backend's devices in a forked child (base/child.c), so this process never
 * initialises a backend (the conformance runner forks per case after this, and a
 * backend's threads do not survive a fork). A probe that crashes, exits or takes
 * longer than probe_timeout_s is a probe failure: the backend gets a no-device entry
 * with probe_failed set and the reason. Without the flag the backends are
 * initialised in this process. */
#define DH_SELECT_PROBE_IN_CHILD (1u << 0)
/* Select among the plugins already loaded (dh_plugin_load: `conformance --plugin`),
 * without dh_plugins_load_default's discovery. */
#define DH_SELECT_LOADED_ONLY (1u << 1)

/* What to select. Zero-initialised: every device of every plugin found, counted in
 * this process. */
typedef struct dh_device_select_params {
  const char* spec;    /* "NAME:ID" (device spec syntax above), or NULL: every device */
  uint32_t flags;      /* DH_SELECT_* */
  int probe_timeout_s; /* with DH_SELECT_PROBE_IN_CHILD: seconds one probe may take;
                          <= 0 means 10 */
  /* Called before each backend is probed (e.g. a progress line); may be NULL. */
  void (*progress)(const dh_backend_t* backend, void* user);
  void* progress_user;
} dh_device_select_params_t;

/* One selected device, or one backend that has none. */
typedef struct dh_device_entry {
  const dh_backend_t* backend; /* the serving backend (manager-owned) */
  DLDevice device;             /* {backend->device_type, id}; device_id -1 for a backend
                                  without a device */
  int device_count;            /* devices the backend has (0 for a no-device entry) */
  uint32_t caps;               /* dh_device_caps(backend) after the probe: what its
                                  query_caps found (backend.h ABI 1.5), in the probe
                                  child with DH_SELECT_PROBE_IN_CHILD; when the probe
                                  failed, backend->caps as declared */
  int probe_failed;            /* DH_SELECT_PROBE_IN_CHILD: the probe crashed, hung or
                                  exited (a contract violation; reason says how) */
  char name[96];               /* "sim:0", or "cuda (no device)" */
  char reason[512];            /* a no-device entry or a failed probe: why; else "" */
} dh_device_entry_t;

/* The selection: entries in backend load order, then device id. Owned by the caller;
 * free with dh_device_list_free. */
typedef struct dh_device_list {
  dh_device_entry_t* entries;
  size_t count;
} dh_device_list_t;

/* Selects devices. With params->spec: exactly one entry, the device it names, or the
 * backend's no-device entry (device_id -1, reason) when the backend it names has no
 * device at all (`cuda:0` without a GPU: the command reports "no device", exit 3, as for
 * a run without --device), or an error whose message starts "device spec '<spec,
 * escaped>': " (the parse errors of dh_device_spec_split say it their way): "ParseError"
 * (syntax), "KeyError" ("Device API foo is not enabled: <why>"), "IndexError" ("backend
 * sim has no device 5 (2 devices)"). Without a spec: one entry per device of every loaded
 * backend, and one no-device entry per backend without one; never an error but
 * "OutOfMemoryError". params NULL = zeroed. On error *out_list is empty. */
int dh_device_select(const dh_device_select_params_t* params, dh_device_list_t* out_list);

/* Frees the entries and empties *list. NULL is a no-op. */
void dh_device_list_free(dh_device_list_t* list);

/*===========================================================================
 * DeviceAPI dispatch: the one road to a backend
 *===========================================================================
 * Every call of a backend's entries goes through these functions (callers outside
 * the runtime never call the dh_backend_t vtable; tests/layering/vtable_calls.t). Each
 * resolves the backend from dev.device_type, runs its init once if needed (thread-
 * safe) and forwards. Errors: the backend's, or "KeyError" when no backend serves the
 * type, or "ValueError" for a NULL out-parameter; on error the message is prefixed
 * with "<name>:<id>: <operation>: ". Thread-safe as the backend is (backend.h
 * "Threading": every entry may be called from any thread after init). Semantics:
 * TVM's DeviceAPI method of the same name (apache/tvm v0.27.0
 * include/tvm/runtime/device_api.h) as the contract states it, docs/contract.md.
 *===========================================================================*/

/* TVM GetAttr. *out_value: the attribute (None when not reported); strings are
 * backend-owned until shutdown. kExist never fails: an unknown device type or a
 * backend whose init failed gives 0. */
int dh_device_get_attr(DLDevice dev, dh_attr_kind_t kind, dh_any_t* out_value);
/* TVM GetTargetProperty: the live value of target option `name` of the backend's
 * target kind (target.h), None when the backend cannot tell or has no
 * get_target_property. Strings backend-owned. */
int dh_device_get_target_property(DLDevice dev, const char* name, dh_any_t* out_value);
/* TVM SetDevice: makes dev current for the calling thread. */
int dh_device_set_device(DLDevice dev);
/* TVM AllocDataSpace: nbytes of device memory, *out_ptr a handle (an address only with
 * DH_CAP_HOST_POINTER_ARITHMETIC); owned by the caller until
 * dh_device_free_data_space. alignment 0 means DH_ALLOC_ALIGNMENT; not a power of two:
 * "ValueError". Too large: "OutOfMemoryError". */
int dh_device_alloc_data_space(DLDevice dev, size_t nbytes, size_t alignment,
                               DLDataType type_hint, void** out_ptr);
/* TVM FreeDataSpace. NULL is a no-op. */
int dh_device_free_data_space(DLDevice dev, void* ptr);
/* TVM AllocWorkspace / FreeWorkspace: the backend's workspace entries, or data space
 * with DH_TEMP_ALLOC_ALIGNMENT when it has none. */
int dh_device_alloc_workspace(DLDevice dev, size_t nbytes, DLDataType type_hint, void** out_ptr);
int dh_device_free_workspace(DLDevice dev, void* ptr);
/* Pinned (page-locked) host memory for benchmarks and async copies
 * (DH_CAP_PINNED_HOST): nbytes of host-addressable memory, owned by the caller until
 * dh_device_free_host. "NotImplementedError" when the backend has no alloc_host. */
int dh_device_alloc_host(DLDevice dev, size_t nbytes, void** out_ptr);
int dh_device_free_host(DLDevice dev, void* ptr);
/* TVM CreateStream: *out_stream a new stream owned by the caller until
 * dh_device_free_stream, or NULL on single-queue devices (DH_CAP_SINGLE_QUEUE). */
int dh_device_create_stream(DLDevice dev, dh_stream_t* out_stream);
/* TVM FreeStream: pending work still completes. NULL is a no-op. */
int dh_device_free_stream(DLDevice dev, dh_stream_t stream);
/* TVM SetStream / GetCurrentStream: the calling thread's current stream of dev
 * (tvm-ffi's environment stream, backend.h "The current stream"); NULL = default. */
int dh_device_set_stream(DLDevice dev, dh_stream_t stream);
int dh_device_get_current_stream(DLDevice dev, dh_stream_t* out_stream);
/* TVM StreamSync: returns once all work queued on stream before the call is done. */
int dh_device_stream_sync(DLDevice dev, dh_stream_t stream);
/* TVM SyncStreamFromTo: work queued on dst after the call waits for src's work
 * queued before it. */
int dh_device_sync_stream_from_to(DLDevice dev, dh_stream_t src, dh_stream_t dst);
/* Device-side timing (DH_CAP_EVENT_TIMING; backend.h event_*): an event owned by the
 * caller until dh_device_event_free, recorded on a stream; elapsed waits for `end`
 * and stores end - start in milliseconds. "NotImplementedError" when the backend has
 * no such entry. */
int dh_device_event_create(DLDevice dev, dh_event_t* out_event);
int dh_device_event_record(DLDevice dev, dh_event_t event, dh_stream_t stream);
int dh_device_event_elapsed_ms(DLDevice dev, dh_event_t start, dh_event_t end, double* out_ms);
int dh_device_event_free(DLDevice dev, dh_event_t event);

/*---------------------------------------------------------------------------
 * Raw twins: the same operation through the vendor API (backend.h "Raw twins"), for
 * the benchmarks' harness/raw ratio.
 *---------------------------------------------------------------------------*/

/* A twin set up for one operation on one device. Zero-initialisable; filled by
 * dh_device_raw_setup, owned by the caller until dh_device_raw_teardown. */
typedef struct dh_raw_context {
  const dh_raw_twin_t* twin; /* the backend's twin (manager-owned), NULL when not set up */
  void* ctx;                 /* the twin's context (twin-owned) */
} dh_raw_context_t;

/* Sets the twin of dev's backend up for op on buffers of nbytes (flags:
 * DH_RAW_PINNED, DH_RAW_HOST_SOURCE_RELEASED). "NotImplementedError" when the
 * backend has no twin or the twin lacks op. Call from the thread whose CPU binding
 * the twin's worker threads should inherit (bench/: the helper PUs). */
int dh_device_raw_setup(DLDevice dev, dh_raw_op_t op, size_t nbytes, uint32_t flags,
                        dh_raw_context_t* out_raw);

/* Runs the operation `repeat` times back to back and waits once; *out_device_ms (may
 * be NULL) the device time of the batch or -1 (backend.h dh_raw_twin_t.run). Inline:
 * it is the twin's timed loop, so it costs what a direct vendor-API program pays, no
 * dispatch. raw must be set up. Errors: the twin's, unprefixed. */
static inline int dh_device_raw_run(const dh_raw_context_t* raw, uint32_t repeat, double* out_device_ms) {
  return raw->twin->run(raw->ctx, repeat, out_device_ms);
}

/* Frees what dh_device_raw_setup made and zeroes *raw. A zeroed or NULL raw is a
 * no-op. */
void dh_device_raw_teardown(dh_raw_context_t* raw);

/* TVM DeviceAPI::CopyDataFromTo(DLTensor* from, DLTensor* to, stream): checks that
 * both tensors are compact (strides NULL or row-major), have equal byte sizes
 * (dh_tensor_nbytes: tvm-ffi's GetDataSize, sub-byte elements packed), and
 * that at least one side is CPU or both are on the same backend; then calls the
 * backend's flat copy with from->byte_offset / to->byte_offset, on the non-CPU
 * device's backend (CPU<->CPU uses the cpu backend when loaded, else memcpy).
 * Errors: "ValueError" naming the mismatch ("from has 12 bytes, to has 16 bytes",
 * "to is not contiguous: strides [1, 4] for shape [4, 4]"), "TypeError" for
 * NULL tensors or data. A backend that takes tensors (backend.h copy_tensor_from_to,
 * ABI 1.4: the TVM bridges of backends/tvm/) gets the DLTensors as given instead,
 * after the core checked only for NULL tensors, a missing shape and missing data: the
 * shape, stride, dtype and size rules, and the error kind, are then the backend's
 * (TVM's own checks, src/runtime/device_api.cc:146-150). */
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
