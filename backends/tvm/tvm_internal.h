/*
 * backends/tvm/tvm_internal.h — private declarations shared by the files of the tvm
 * plugin (libdevharness_tvm.so). Not installed. Every backend of the plugin is a device
 * set: TVM's own DeviceAPIs (tvm-cpu, tvm-cuda: one per runtime library in TVM's lib
 * folder), those of the libraries named by --tvm-lib or DEVHARNESS_TVM_LIBS (tvm-<name>)
 * and those of the TVM RPC servers named by --rpc or DEVHARNESS_TVM_RPC
 * (tvm-rpc-<name>), all found by the
 * same code and asked for their capabilities at init (README.md "Device sets"). Each
 * file calls only the ones below it (tests/layering/call_graph.t checks it):
 *   tvm_backend.c   dh_backend_entry (set 0, tvm-cpu), more_backends and each set's
 *                   vtable
 *   tvm_raw.c       the raw twin of TVM's own CPU set (backends/common/host_memcpy_twin.c)
 *   tvm_libs.c      finding the sets: TVM's own runtime libraries by file, each library
 *                   of --tvm-lib and each server of --rpc probed in a forked child
 *   tvm_options.c   the plugin's options (ABI 1.6): --tvm-lib and --rpc declared,
 *                   checked and kept, after their environment fallbacks
 *   tvm_stream.c    stream entries
 *   tvm_memory.c    data space, workspaces, copies
 *   tvm_device.c    loading TVM and the adapter, a set's init (its DeviceAPI, devices and
 *                   capabilities), availability, attributes
 *   tvm_tracker.c   TVM's RPC tracker protocol, client side
 *   tvm_adapter.cc  the C++ adapter over tvm::runtime::DeviceAPI, a library of its own
 *                   (tvm/libdh_tvm_adapter.so) that tvm_device.c dlopens
 */
#ifndef DEVHARNESS_BACKENDS_TVM_INTERNAL_H_
#define DEVHARNESS_BACKENDS_TVM_INTERNAL_H_

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/tvm/tvm_adapter.h"
#include "devharness/backend.h"

#ifndef DH_TVM_ROOT_DEFAULT
#define DH_TVM_ROOT_DEFAULT ""
#endif
#ifndef DH_TVM_FFI_ROOT_DEFAULT
#define DH_TVM_FFI_ROOT_DEFAULT ""
#endif

/* TVM's own sets are served under devharness device type 48 + TVM's DLDeviceType
 * (tvm-cpu 49, tvm-cuda 50), so they load beside the cpu and cuda backends (README.md
 * "Device types"). */
#define DH_TVM_TYPE_BASE 48
/* TVM's core runtime library, which registers device_api.cpu (apache/tvm 0.27
 * src/runtime/cpu_device_api.cc), and the prefix of the per-device runtime libraries
 * beside it (libtvm_runtime_cuda.so registers device_api.cuda). */
#define DH_TVM_CORE_LIB "libtvm_runtime.so"
#define DH_TVM_LIB_PREFIX "libtvm_runtime_"

extern const dh_raw_twin_t dh_tvm_raw_twin; /* tvm_raw.c */

/* ---- tvm_device.c: the device sets (found by tvm_libs.c; README.md "Device sets",
 * "Any TVM DeviceAPI", "Remote devices over TVM RPC") */
#define DH_TVM_MAX_SETS 12 /* device sets per process, TVM's own included */
#define DH_TVM_MAX_LIBS 8 /* libraries of --tvm-lib and DEVHARNESS_TVM_LIBS */
typedef struct dh_tvm_set {
  char name[48];                   /* backend name: "tvm-" + the DeviceAPI's name */
  char api_name[64];               /* the global function: "device_api.ext_dev" */
  char description[PATH_MAX + 96]; /* for `devharness info` */
  int32_t dh_type;                 /* devharness device type (README.md "Device types") */
  int32_t tvm_type;                /* TVM's DLDeviceType of the name */
  int32_t count;                   /* devices (kExist from id 0), after dh_tvm_set_init */
  char own_lib[64];                /* TVM's own sets: the file of TVM's lib folder that
                                      registers api_name (DH_TVM_CORE_LIB or
                                      libtvm_runtime_<name>.so), else "" */
  int lib;                         /* index into dh_tvm_libs of the library that registers
                                      it; -1 for TVM's own and RPC sets */
  char rpc_host[256];              /* TVM RPC sets: the server, or the tracker when rpc_key
                                      is set (rpc_port > 0), else "" */
  int rpc_port;
  char rpc_key[64];                /* TVM RPC sets through a tracker: the key asked for
                                      (KEY@HOST:PORT in DEVHARNESS_TVM_RPC), else "" */
  int32_t base_type;               /* TVM's DLDeviceType of the name: tvm_type, but for an
                                      RPC set the remote one (whose tvm_type is
                                      (session index + 1) * 128 + it, after init) */
  void* api;                       /* TVM's DeviceAPI*, after dh_tvm_set_init */
  char reason[1024];               /* why no device */
  dh_backend_t backend;            /* what the loader registers (more_backends) */
} dh_tvm_set_t;
extern dh_tvm_set_t dh_tvm_sets[DH_TVM_MAX_SETS];
extern int dh_tvm_num_sets;
extern char* dh_tvm_libs[DH_TVM_MAX_LIBS]; /* accepted libraries (real paths), load order */
extern int dh_tvm_num_libs;

/* Loads TVM's libraries and the adapter, once per process (thread-safe): 0, or -1 with
 * dh_tvm_reason saying why. */
int dh_tvm_load(void);
/* The tvm package folder whose lib/ holds TVM's runtime libraries:
 * DEVHARNESS_TVM_ROOT, else the project venv's (compiled in); "" when neither. */
const char* dh_tvm_root(void);
/* init of set i: dh_tvm_load, then the set's library (TVM's own runtime library, or
 * every accepted one of DEVHARNESS_TVM_LIBS once, or a session to its RPC server), its
 * DeviceAPI and its device count. Returns 0 (a set with no device says why in its
 * reason). */
int dh_tvm_set_init(int i);
/* query_caps of set i (backend.h ABI 1.5), after its init: asked of its DeviceAPI,
 * never assumed per name: DH_CAP_HOST_POINTER_ARITHMETIC when
 * SupportsDevicePointerArithmeticsOnHost() is true of a kDLCPU device (TVM's flag
 * promises arithmetic only, and TVM's CUDA answers true: README.md "Capabilities"),
 * DH_CAP_SINGLE_QUEUE when
 * CreateStream on device 0 gives NULL (TVM's default: device_api.cc:163) or fails. A
 * set without a device has none. Always 0. */
int dh_tvm_set_caps(int i, uint32_t* out_caps);
/* unavailable_reason and device_count of set i. */
const char* dh_tvm_set_reason(int i);
int32_t dh_tvm_set_count(int i);
/* The set serving devharness device type t, or NULL. */
dh_tvm_set_t* dh_tvm_set_of(int32_t t);
/* TVM's DeviceAPI* for a devharness device of this plugin, NULL before its set's init. */
void* dh_tvm_api_of(DLDevice dev);

extern const dh_tvm_adapter_t* dh_tvm_a; /* the adapter's table; NULL until loaded */
extern char dh_tvm_reason[3 * PATH_MAX]; /* why TVM or the adapter did not load */

/* Stores TVM's error e of operation op (its kind, else RuntimeError); returns -1. */
int dh_tvm_err(const char* op, const dh_tvm_err_t* e);
/* TVM's device for a devharness device: kDLCPU stays, a set's type becomes TVM's. */
DLDevice dh_tvm_to_tvm(DLDevice d);
/* 0 when dev's set has its DeviceAPI; else -1 IndexError naming op and the reason. */
int dh_tvm_ready(DLDevice dev, const char* op);
/* The shared vtable entries (backend.h "Declaring and binding a backend's entries");
 * the lifecycle ones are per set (tvm_backend.c); no shutdown entry. */
int dh_tvm_get_attr(DLDevice dev, int32_t kind, dh_any_t* out);
int dh_tvm_get_target_property(DLDevice dev, const char* name, dh_any_t* out);
int dh_tvm_set_device(DLDevice dev);

/* ---- tvm_libs.c: finding the sets */
/* TVM's own sets, once per process: set 0 is tvm-cpu (device_api.cpu of
 * DH_TVM_CORE_LIB), then one set tvm-<name> per libtvm_runtime_<name>.so in
 * <dh_tvm_root()>/lib whose <name> is a TVM device type name (DLDeviceType2Str) of a
 * device (not a host-memory kind). Reads file names only: nothing is loaded. */
void dh_tvm_find_own_sets(void);
/* The sets of the servers of --rpc and the libraries of --tvm-lib (each after its
 * environment fallback: dh_tvm_option_values), once per process, each probed in a
 * forked child; a library or server that fails is
 * refused through refuse with one line naming it and why. */
void dh_tvm_find_more_sets(dh_backend_refuse_fn refuse);

/* ---- tvm_options.c: the plugin's options (ABI 1.6; README.md "Options") */
enum { DH_TVM_OPT_LIB, DH_TVM_OPT_RPC, DH_TVM_NUM_OPTIONS };
/* --tvm-lib PATH and --rpc [KEY@]HOST:PORT, both repeatable; static. */
extern const dh_backend_option_t dh_tvm_options[DH_TVM_NUM_OPTIONS];
/* set_option of set 0 (backend.h): checks and keeps one value ("--tvm-lib": not empty,
 * no ':', made absolute; "--rpc": [KEY@]HOST:PORT, port 1..65535, KEY 1..63 bytes, no
 * ','). 0, or -1 with a ValueError saying what is wrong with it. */
int dh_tvm_set_option(const char* name, const char* value);
/* Every value of option DH_TVM_OPT_*: its environment variable's list
 * (DEVHARNESS_TVM_LIBS, colon-separated; DEVHARNESS_TVM_RPC, comma-separated), then the
 * values given, with the same separator. malloc'd (the caller frees it); NULL when
 * there is none. */
char* dh_tvm_option_values(int option);

/* ---- tvm_memory.c */
DH_BACKEND_DECLARE_MEMORY_ENTRIES(dh_tvm);
DH_BACKEND_DECLARE_WORKSPACE_ENTRIES(dh_tvm);
/* ABI 1.4: the caller's DLTensors to TVM's CopyDataFromTo(DLTensor*) (tvm_memory.c) */
int dh_tvm_copy_tensor_from_to(const DLTensor* from, const DLTensor* to, dh_stream_t stream);

/* ---- tvm_tracker.c: TVM's RPC tracker protocol, client side (TVM ships it in Python
 * only): a server of `key` from the tracker at host:port, within timeout_s seconds; 0, or
 * -1 with one line in err naming what failed. */
typedef struct dh_tvm_tracker_reply {
  char host[256];    /* the server's address as the tracker knows it */
  int port;
  char matchkey[128]; /* the one-time key rpc.Connect passes ("client:" + it) */
} dh_tvm_tracker_reply_t;
int dh_tvm_tracker_request(const char* host, int port, const char* key, int timeout_s, dh_tvm_tracker_reply_t* out,
                           char* err, size_t esize);
/* Seconds a probe child (tvm_libs.c) may take: DEVHARNESS_TVM_PROBE_TIMEOUT_S, 1..3600,
 * else 30; a tracker request waits three quarters of it (tvm_device.c). */
int dh_tvm_probe_timeout_s(void);
/* A TVM RPC session to the server host:port (key "") or to the server of `key` that the
 * tracker at host:port hands out; *out_index its session table index (tvm_device.c).
 * 0, or -1 with e naming host:port and why. */
int dh_tvm_rpc_open(const char* host, int port, const char* key, int* out_index, dh_tvm_err_t* e);

/* ---- tvm_stream.c */
DH_BACKEND_DECLARE_STREAM_ENTRIES(dh_tvm);

#endif /* DEVHARNESS_BACKENDS_TVM_INTERNAL_H_ */
