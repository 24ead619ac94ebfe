/*
 * backends/cuda/cuda_internal.h — shared between the cuda backend's sources. Not
 * installed. The files, each calling only the ones below it (no call cycles;
 * tests/layering/call_graph.t checks):
 *
 *   cuda_backend.c  the vtable and dh_backend_entry; shutdown in order
 *   cuda_kernels.c  module functions (noop, fill, memory_peak_bandwidth), the fatbin
 *   cuda_raw.c      raw driver-API twins for the benchmarks (dh_cuda_raw_twin)
 *   cuda_stream.c   streams, stream_sync, sync_stream_from_to, timing events
 *   cuda_memory.c   data space, workspaces, pinned host memory, staging, copies
 *   cuda_device.c   driver loading, errors, device checks, contexts, attributes
 *
 * Design of the backend (each point is a documented choice of this backend):
 *  - Contexts: one primary context per device (cuDevicePrimaryCtxRetain), retained
 *    lazily on first use and released in shutdown; before every driver call that needs
 *    it, it is made current on the calling thread (cuCtxSetCurrent) unless
 *    cuCtxGetCurrent says it already is (a thread-local read in the driver).
 *  - Memory: cuMemAlloc_v2 / cuMemFree_v2. Data-space pointers are CUdeviceptr values
 *    cast to void*: device addresses, not host-dereferenceable, so no
 *    DH_CAP_HOST_POINTER_ARITHMETIC; offsets arrive in the copy offsets / byte_offset.
 *    cuMemAlloc aligns to >= 256 bytes; a larger requested alignment is honoured by
 *    over-allocating (the base is remembered for free). 0 bytes gives NULL.
 *  - Pinned host memory: cuMemHostAlloc(CU_MEMHOSTALLOC_PORTABLE) / cuMemFreeHost.
 *  - Workspaces: plain data space (cuMemAlloc), 256-byte aligned.
 *  - Copies: cuMemcpy{HtoD,DtoH,DtoD}Async_v2 (cuMemcpyPeerAsync across devices) on
 *    the given stream. Host source rule (TVM: the source may be reused once the call
 *    returns) without a per-call wait: pageable H2D sources, and pinned ones of up to
 *    DH_CUDA_STAGE_PINNED_MAX bytes, are memcpy'd into backend-owned pinned staging
 *    slots and the copy is enqueued from there (the call returns once the bytes are
 *    staged, as the driver itself does for small pageable copies), chunk by chunk when
 *    larger than a slot; larger pinned sources (cuPointerGetAttribute MEMORY_TYPE =
 *    HOST) are copied directly and the call waits for that copy only (an event
 *    recorded after it). Slots: cuda_internal.h DH_CUDA_STAGE_*. D2H and D2D stay
 *    asynchronous; a host destination is valid after stream_sync (for a pageable
 *    destination the driver itself returns only once the copy is done).
 *  - Streams: cuStreamCreate(CU_STREAM_NON_BLOCKING). The NULL stream handle is the
 *    *legacy* default stream (the plugin calls the non-_ptsz entry points); created
 *    streams do not implicitly synchronise with it, so order NULL-stream work against
 *    them with sync_stream_from_to. The current stream is per thread and per device.
 *  - sync_stream_from_to: an event (CU_EVENT_DISABLE_TIMING) recorded on src, waited
 *    on by dst (cuStreamWaitEvent), then destroyed (the driver keeps it alive until
 *    it completes).
 *  - Events (DH_CAP_EVENT_TIMING): cuEventCreate with timing, cuEventElapsedTime.
 *  - fork: CUDA cannot be used in a child forked after cuInit ran in its parent, so
 *    init runs lazily (the core's rule) and, in such a child, every entry that needs
 *    the driver fails with a RuntimeError that says so (kExist still answers).
 *  - Kernels: backends/cuda/kernels.cu, embedded fatbin, cuModuleLoadData once per
 *    device, launched on the calling thread's current stream.
 *
 * Errors: every CUresult other than CUDA_SUCCESS becomes
 * dh_error_set(DH_KIND_RUNTIME_ERROR or DH_KIND_OUT_OF_MEMORY_ERROR, "<call>(<args>): <NAME>: <text>").
 */
#ifndef DEVHARNESS_BACKENDS_CUDA_INTERNAL_H_
#define DEVHARNESS_BACKENDS_CUDA_INTERNAL_H_

#include <dlpack/dlpack.h>
#include <pthread.h>
#include <stddef.h>

#include "devharness/backend.h"

#include "cuda_driver.h"

/* Devices beyond this are ignored (devharness probes at most 64 ids). */
#define DH_CUDA_MAX_DEVICES 64
/* cuMemAlloc's guaranteed alignment, bytes (CUDA C Programming Guide: >= 256). */
#define DH_CUDA_BASE_ALIGNMENT 256

/* H2D staging (cuda_memory.c): pageable host->device copies are memcpy'd
 * into backend-owned pinned slots and enqueued from there, so the call returns once the
 * bytes are staged (the host source is free, TVM's rule) without waiting for the
 * device. A copy is cut into chunks (dh_cuda_stage_chunk) so that the DMA of chunk i
 * overlaps the memcpy of chunk i+1. Pinned sources of up to DH_CUDA_STAGE_PINNED_MAX
 * bytes are staged the same way, so a small upload returns without waiting for the
 * device; larger pinned sources are copied directly and the call waits for that copy
 * only (an event recorded after it). DH_CUDA_STAGE_SLOTS slots per device, allocated
 * on the first staged copy, each guarded by an event recorded after the copy that
 * reads it; a slot is reused once its event has completed.
 * The threshold is the size up to which the host's memcpy into a slot costs no more
 * than waiting for the device to read the source (docs/measurements/2026-11.md "CUDA staging"). */
#define DH_CUDA_STAGE_SLOTS 8
#define DH_CUDA_STAGE_SLOT_BYTES ((size_t)1 << 20)
#define DH_CUDA_STAGE_PINNED_MAX ((size_t)16 << 10)
/* Chunks: at least this many per copy ... */
#define DH_CUDA_STAGE_MIN_CHUNKS 4
/* ... of at least this many bytes (fewer chunks below 4 x 64 KiB), at most a slot. */
#define DH_CUDA_STAGE_CHUNK_MIN ((size_t)64 << 10)

/* Bytes of the next chunk of a staged copy of `total` bytes with `left` still to go:
 * total / DH_CUDA_STAGE_MIN_CHUNKS rounded up, clamped to [DH_CUDA_STAGE_CHUNK_MIN,
 * DH_CUDA_STAGE_SLOT_BYTES], at most `left` (3 MiB + 5 bytes: 4 chunks, 1 MiB: 4 of
 * 256 KiB, 64 KiB: one). Used by the backend and its raw twin. */
static inline size_t dh_cuda_stage_chunk(size_t total, size_t left) {
  size_t c = total / DH_CUDA_STAGE_MIN_CHUNKS + (total % DH_CUDA_STAGE_MIN_CHUNKS != 0);
  if (c < DH_CUDA_STAGE_CHUNK_MIN) c = DH_CUDA_STAGE_CHUNK_MIN;
  if (c > DH_CUDA_STAGE_SLOT_BYTES) c = DH_CUDA_STAGE_SLOT_BYTES;
  return left < c ? left : c;
}
/* The pinned staging threshold in use: DH_CUDA_STAGE_PINNED_MAX, or the byte count in
 * the environment variable DEVHARNESS_CUDA_STAGE_PINNED_MAX (read once by
 * dh_cuda_init; 0 = never stage a pinned source), so the threshold can be
 * swept (docs/benchmarks.md). The raw twin under the same contract uses it too. */
#define DH_CUDA_STAGE_PINNED_MAX_ENV "DEVHARNESS_CUDA_STAGE_PINNED_MAX"
extern size_t dh_cuda_stage_pinned_max;

typedef struct dh_cuda_stage_slot {
  void* host;     /* cuMemHostAlloc'd, DH_CUDA_STAGE_SLOT_BYTES */
  CUevent done;   /* recorded after the last copy that read `host` */
  int pending;    /* `done` was recorded and not yet waited for */
  int busy;       /* held by a copying thread (atomic CAS 0 -> 1) */
} dh_cuda_stage_slot_t;

/* Per-device state. Fields set once under `mu` and published by the *_ready flags
 * (read with acquire loads), so readers need no lock afterwards. */
typedef struct dh_cuda_device {
  pthread_mutex_t mu;
  CUdevice dev;
  int ctx_ready;      /* primary context retained */
  CUcontext ctx;
  int module_ready;   /* embedded fatbin loaded, kernels resolved */
  CUmodule module;
  CUfunction fn_noop, fn_fill;
  int stage_ready;    /* staging slots allocated */
  dh_cuda_stage_slot_t stage[DH_CUDA_STAGE_SLOTS];
  unsigned stage_next; /* next slot to try (atomic) */
  unsigned stage_last; /* slot released last: tried first while its copy is done, so a
                          copy-then-sync loop keeps writing one cache-warm slot (atomic) */
  int strings_ready;  /* cached strings below filled */
  char name[256];           /* cuDeviceGetName */
  char compute_version[16]; /* "9.0" */
  char thread_dims[64];     /* "[1024, 1024, 64]" */
  char arch[16];            /* "sm_90a" */
} dh_cuda_device_t;

/* The resolved driver table (cuda_device.c). Valid while the backend is available. */
extern dh_cuda_driver_t dh_cuda_drv;
extern dh_cuda_device_t dh_cuda_devices[DH_CUDA_MAX_DEVICES];

/* The raw twin table (cuda_raw.c). */
extern const dh_raw_twin_t dh_cuda_raw_twin;

/* Stores ("RuntimeError" or "OutOfMemoryError" for CUDA_ERROR_OUT_OF_MEMORY,
 * "<formatted call>: <CUDA_ERROR_NAME>: <driver's text>") and returns -1. */
int dh_cuda_fail(CUresult r, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/* Name and text of a CUresult, from the driver when it has cuGetErrorName /
 * cuGetErrorString, else from a built-in table. Static storage. */
void dh_cuda_error_text(CUresult r, const char** out_name, const char** out_text);

/* 0 when dev is a present CUDA device; else -1 with ValueError (wrong device type) or
 * IndexError (no such id, or no devices at all, with the unavailable reason). `op`
 * names the operation in the message. */
int dh_cuda_check_device(DLDevice dev, const char* op);

/* dh_cuda_check_device, then retains the primary context (once) and makes it current
 * on the calling thread. *out (may be NULL) gets the device state. */
int dh_cuda_enter(DLDevice dev, const char* op, dh_cuda_device_t** out);

/* Loads the embedded kernels on device d (once); its context must be current. */
int dh_cuda_ensure_module(dh_cuda_device_t* d, int id);

/* Enqueues the empty kernel on stream s of dev (entered by the call). */
int dh_cuda_launch_noop(DLDevice dev, CUstream s);

/* The calling thread's current stream of device_id (valid id). */
CUstream dh_cuda_current_stream(int device_id);

/* Writes the TVM cuda target arch for compute capability major.minor: "sm_XY", with
 * the "a" suffix from 9.0 on ("sm_90a"). */
void dh_cuda_arch_name(int major, int minor, char* buf, size_t size);

/* ---- cuda_device.c */

/* init: dlopens libcuda.so.1, resolves the driver table, cuInit, enumerates devices.
 * Returns 0 even without a device (dh_cuda_unavailable_reason says why). */
int dh_cuda_init(void);
/* Releases the primary contexts and the driver (after dh_cuda_memory_release and
 * dh_cuda_kernels_release). */
void dh_cuda_device_shutdown(void);
/* Devices whose driver state may be touched now: 0 when unavailable or in a child
 * forked after init. */
int dh_cuda_live_devices(void);
/* "13.0" from cuDriverGetVersion, or "unknown". Static storage. */
const char* dh_cuda_driver_version_string(void);
/* cuDeviceGetAttribute(a) of device d into *out; `aname` names it in errors. */
int dh_cuda_attr_int(dh_cuda_device_t* d, int id, CUdevice_attribute a, const char* aname,
                     int* out);
/* The vtable entries unavailable_reason, get_attr, get_target_property, set_device
 * (backend.h "Declaring and binding a backend's entries"). */
DH_BACKEND_DECLARE_DEVICE_ENTRIES(dh_cuda);

/* ---- cuda_memory.c (the vtable entries of the same names, backend.h) */

DH_BACKEND_DECLARE_MEMORY_ENTRIES(dh_cuda);
DH_BACKEND_DECLARE_WORKSPACE_ENTRIES(dh_cuda);
DH_BACKEND_DECLARE_HOST_ENTRIES(dh_cuda);
/* Shutdown: frees every device's staging slots and the over-aligned records. */
void dh_cuda_memory_release(void);

/* ---- cuda_stream.c (the vtable entries of the same names, backend.h) */

DH_BACKEND_DECLARE_STREAM_ENTRIES(dh_cuda);
DH_BACKEND_DECLARE_EVENT_ENTRIES(dh_cuda);

/* ---- cuda_kernels.c */

/* Module functions (backend.h dh_backend_func_t): noop(Device), fill(DLTensorPtr, Int),
 * memory_peak_bandwidth(Device) -> Float bytes/s, pci_bus_id(Device) -> Str. */
int dh_cuda_func_noop(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result);
int dh_cuda_func_fill(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result);
/* peer_access(Device dev, Int peer_device_id) -> Str (backend.h DH_FUNC_PEER_ACCESS):
 * cuDeviceCanAccessPeer(dev, peer) in words. */
int dh_cuda_func_peer_access(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result);
int dh_cuda_func_memory_peak_bandwidth(void* self, const dh_any_t* args, int32_t num_args,
                                       dh_any_t* result);
/* pci_bus_id(Device) -> Str "dddd:bb:dd.f" (cuDeviceGetPCIBusId, lower-cased). */
int dh_cuda_func_pci_bus_id(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result);
/* Shutdown: unloads every device's module. */
void dh_cuda_kernels_release(void);

#endif /* DEVHARNESS_BACKENDS_CUDA_INTERNAL_H_ */
