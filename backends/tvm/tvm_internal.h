/*
 * backends/tvm/tvm_internal.h — private declarations shared by the tvm-* backends'
 * files. Not installed. Every C file here is compiled once per flavour, with
 * -DDH_TVM_CUDA=0 (libdevharness_tvm-cpu.so) or 1 (libdevharness_tvm-cuda.so), by
 * backends/tvm/backend.mk. Each file calls only the ones below it
 * (tests/layering/call_graph.t checks each flavour):
 *   tvm_backend.c   the vtable and dh_backend_entry
 *   tvm_raw.c       tvm-cpu's raw twin (backends/common/host_memcpy_twin.c)
 *   tvm_stream.c    stream entries
 *   tvm_memory.c    data space, workspaces, copies
 *   tvm_device.c    loading TVM and the adapter (init), availability, attributes
 *   tvm_adapter.cc  the C++ adapter over tvm::runtime::DeviceAPI, a library of its own
 *                   (tvm/libdh_tvm_adapter.so) that tvm_device.c dlopens
 */
#ifndef DEVHARNESS_BACKENDS_TVM_INTERNAL_H_
#define DEVHARNESS_BACKENDS_TVM_INTERNAL_H_

#include <limits.h>
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
#define DH_TVM_CAPS DH_CAP_ASYNC_COPY
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
#define DH_TVM_RAW_TWIN NULL /* the cuda backend's CUDA-driver twin is the raw API for the same GPU */
#else
extern const dh_raw_twin_t dh_tvm_raw_twin; /* tvm_raw.c */
#define DH_TVM_RAW_TWIN (&dh_tvm_raw_twin)
#endif

/* ---- tvm_device.c */
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

/* ---- tvm_memory.c */
DH_BACKEND_DECLARE_MEMORY_ENTRIES(dh_tvm);
DH_BACKEND_DECLARE_WORKSPACE_ENTRIES(dh_tvm);

/* ---- tvm_stream.c */
DH_BACKEND_DECLARE_STREAM_ENTRIES(dh_tvm);

#endif /* DEVHARNESS_BACKENDS_TVM_INTERNAL_H_ */
