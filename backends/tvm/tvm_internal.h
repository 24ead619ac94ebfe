/*
 * backends/tvm/tvm_internal.h — private declarations shared by the tvm-* backends'
 * files. Not installed. Every C file here is compiled once per flavour, with
 * -DDH_TVM_CUDA=0 (libdevharness_tvm-cpu.so) or 1 (libdevharness_tvm-cuda.so), by
 * backends/tvm/backend.mk. Each file calls only the ones below it
 * (tests/layering/call_graph.t checks each flavour):
 *   tvm_backend.c   the vtable and dh_backend_entry
 *   tvm_raw.c       tvm-cpu's raw twin (backends/common/host_memcpy_twin.c)
 *   tvm_libs.c      any TVM DeviceAPI: DEVHARNESS_TVM_LIBS probed, one backend per
 *                   device_api.<name> (more_backends; cpu flavour only)
 *   tvm_stream.c    stream entries
 *   tvm_memory.c    data space, workspaces, copies
 *   tvm_device.c    loading TVM and the adapter (init), the device sets of the
 *                   libraries, availability, attributes
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

#ifndef DH_TVM_CUDA
#error "compile with -DDH_TVM_CUDA=0 (tvm-cpu) or 1 (tvm-cuda): backends/tvm/backend.mk"
#endif
#ifndef DH_TVM_ROOT_DEFAULT
#define DH_TVM_ROOT_DEFAULT ""
#endif
#ifndef DH_TVM_FFI_ROOT_DEFAULT
#define DH_TVM_FFI_ROOT_DEFAULT ""
#endif

#define DH_TVM_TYPE_BASE 48
#if DH_TVM_CUDA
#define DH_TVM_TVM_TYPE kDLCUDA
#define DH_TVM_BACKEND_NAME "tvm-cuda"
#define DH_TVM_EXTRA_LIB "libtvm_runtime_cuda.so"
/* No DH_CAP_ASYNC_COPY: with no pinned host memory (alloc_host) every copy the suite
 * can ask of TVM's CUDA CopyDataFromTo touches pageable host memory or stays on the
 * device, and the D2H into pageable memory returns once done (cap.async_copy failed on
 * an H200 while it was claimed). */
#define DH_TVM_CAPS 0u
#define DH_TVM_TARGET_KIND "cuda"
#else
#define DH_TVM_TVM_TYPE kDLCPU
#define DH_TVM_BACKEND_NAME "tvm-cpu"
#define DH_TVM_EXTRA_LIB NULL
/* TVM's CPU DeviceAPI keeps the base CreateStream (nullptr: one queue) and answers
 * SupportsDevicePointerArithmeticsOnHost() true (apache/tvm 0.27
 * src/runtime/device_api.cc:163, src/runtime/cpu_device_api.cc:124). */
#define DH_TVM_CAPS (DH_CAP_SINGLE_QUEUE | DH_CAP_HOST_POINTER_ARITHMETIC)
#define DH_TVM_TARGET_KIND NULL
#endif
#define DH_TVM_DEVICE_TYPE (DH_TVM_TYPE_BASE + DH_TVM_TVM_TYPE)


#if DH_TVM_CUDA
#define DH_TVM_MORE_BACKENDS NULL
#define DH_TVM_RAW_TWIN NULL /* the cuda backend's CUDA-driver twin is the raw API for the same GPU */
#else
extern const dh_raw_twin_t dh_tvm_raw_twin; /* tvm_raw.c */
#define DH_TVM_RAW_TWIN (&dh_tvm_raw_twin)
#define DH_TVM_MORE_BACKENDS dh_tvm_more_backends
#endif

/* ---- tvm_device.c: the device sets of the libraries named by DEVHARNESS_TVM_LIBS
 * and of the TVM RPC servers named by DEVHARNESS_TVM_RPC (found by tvm_libs.c in the
 * cpu flavour; README.md "Any TVM DeviceAPI", "Remote devices over TVM RPC") */
#define DH_TVM_MAX_SETS 8 /* device sets from libraries, per process */
#define DH_TVM_MAX_LIBS 8 /* libraries in DEVHARNESS_TVM_LIBS */
typedef struct dh_tvm_set {
  char name[48];                   /* backend name: "tvm-" + the DeviceAPI's name */
  char api_name[64];               /* the global function: "device_api.ext_dev" */
  char description[PATH_MAX + 96]; /* for `devharness info` */
  int32_t dh_type;                 /* devharness device type (README.md "Device types") */
  int32_t tvm_type;                /* TVM's DLDeviceType of the name */
  int32_t count;                   /* devices (kExist from id 0), after dh_tvm_set_init */
  uint32_t caps;                   /* found by the probe (tvm_libs.c) */
  int lib;                         /* index into dh_tvm_libs of the library that registers it */
  char rpc_host[256];              /* TVM RPC sets: the server, or the tracker when rpc_key
                                      is set (rpc_port > 0), else "" */
  int rpc_port;
  char rpc_key[64];                /* TVM RPC sets through a tracker: the key asked for
                                      (KEY@HOST:PORT in DEVHARNESS_TVM_RPC), else "" */
  int32_t base_type;               /* TVM RPC sets: the remote DLDeviceType (tvm_type is
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
/* init of set i: dh_tvm_load, every accepted library (once), then the set's DeviceAPI
 * and its device count. Returns 0 (a set with no device says why in its reason). */
int dh_tvm_set_init(int i);
/* The set serving devharness device type t, or NULL. */
dh_tvm_set_t* dh_tvm_set_of(int32_t t);
/* TVM's DeviceAPI* for a devharness device of this plugin (the flavour's or a set's). */
void* dh_tvm_api_of(DLDevice dev);

extern const dh_tvm_adapter_t* dh_tvm_a; /* the adapter's table; NULL without a device */
extern void* dh_tvm_api;                 /* TVM's DeviceAPI* for DH_TVM_TVM_TYPE */
extern int32_t dh_tvm_count;             /* devices */
extern char dh_tvm_reason[3 * PATH_MAX]; /* why no device */

/* Stores TVM's error e of operation op (its kind, else RuntimeError); returns -1. */
int dh_tvm_err(const char* op, const dh_tvm_err_t* e);
/* TVM's device for a devharness device: kDLCPU stays, DH_TVM_DEVICE_TYPE becomes DH_TVM_TVM_TYPE. */
DLDevice dh_tvm_to_tvm(DLDevice d);
/* 0 when TVM is loaded; else -1 IndexError naming op and the reason. */
int dh_tvm_ready(DLDevice dev, const char* op);
/* The vtable entries (backend.h "Declaring and binding a backend's entries"); no
 * shutdown entry (the vtable leaves it NULL). */
int dh_tvm_init(void);
int dh_tvm_device_count(int32_t* out);
DH_BACKEND_DECLARE_DEVICE_ENTRIES(dh_tvm);

/* ---- tvm_libs.c (cpu flavour; NULL entry in tvm-cuda) */
/* more_backends (backend.h, ABI 1.3): probes each library of DEVHARNESS_TVM_LIBS in a
 * forked child and returns one backend per device_api.<name> it registers. */
size_t dh_tvm_more_backends(const dh_backend_t** out, size_t max, dh_backend_refuse_fn refuse);

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
/* How long a tracker request may wait for a free server: three quarters of
 * DEVHARNESS_TVM_PROBE_TIMEOUT_S (1..3600 s, default 30), so that a probe child says why
 * before its own timeout ends it (tvm_device.c). */
int dh_tvm_rpc_timeout_s(void);
/* A TVM RPC session to the server host:port (key "") or to the server of `key` that the
 * tracker at host:port hands out; *out_index its session table index (tvm_device.c).
 * 0, or -1 with e naming host:port and why. */
int dh_tvm_rpc_open(const char* host, int port, const char* key, int* out_index, dh_tvm_err_t* e);

/* ---- tvm_stream.c */
DH_BACKEND_DECLARE_STREAM_ENTRIES(dh_tvm);

#endif /* DEVHARNESS_BACKENDS_TVM_INTERNAL_H_ */
