/*
 * backends/opencl/opencl_internal.h — private declarations shared by the files of the
 * OpenCL backend (libdevharness_opencl.so). Not installed, not part of the plugin ABI.
 *
 * TVM's OpenCL DeviceAPI (apache/tvm v0.27.0
 * src/backend/opencl/runtime/opencl_device_api.cc) over the Khronos ICD loader (ocl-icd),
 * tested on PoCL 3.1's CPU device (Debian 12 pocl-opencl-icd 3.1) and written to work unchanged on any vendor's driver. Built against
 * CL_TARGET_OPENCL_VERSION 120 so it runs on OpenCL 1.2 drivers too; newer queries
 * (CL_DEVICE_IMAGE_PITCH_ALIGNMENT) are made only when the device supports them.
 *
 * Design (see backends/opencl/README.md for the full contract notes):
 *  - Devices: every platform of clGetPlatformIDs, then every device of
 *    clGetDeviceIDs(CL_DEVICE_TYPE_ALL), in that order -> ids 0, 1, ... init enumerates
 *    them in a short-lived forked child and caches their clGetDeviceInfo values, so the
 *    calling process does not start the driver (PoCL's pthread device starts worker
 *    threads in clGetPlatformIDs, and they do not survive a later fork(): a child would
 *    hang in its first clFinish). Attributes come from that cache. The first operation
 *    that needs OpenCL (alloc, stream, copy, kernel, event, raw twin) opens the devices
 *    in this process: one context and one default in-order queue per device. A fork() child of a process that had opened
 *    them gets a RuntimeError saying so instead of a hang. DEVHARNESS_OPENCL_PROBE=
 *    inprocess skips the forked probe (debuggers); a failed probe falls back to it.
 *  - Memory: alloc_data_space returns the cl_mem itself (opaque; offsets go through
 *    the copy offsets / DLTensor.byte_offset). nbytes 0 returns NULL (freeing NULL is a
 *    no-op). Every live handle (buffers, pinned host blocks, streams, events) is kept in
 *    a registry, so a stale or foreign pointer is a ValueError, never a crash.
 *  - Copies: H2D is a blocking clEnqueueWriteBuffer (the host source is consumed before
 *    the call returns, whatever memory it is); D2H is a non-blocking read, valid after
 *    stream_sync; D2D is clEnqueueCopyBuffer (overlapping ranges of one buffer go through
 *    a temporary buffer; different devices through host memory, blocking).
 *  - Streams: in-order queues; NULL = the device's default queue;
 *    sync_stream_from_to = marker on src + barrier with that event on dst. A queue is
 *    plain (no CL_QUEUE_PROFILING_ENABLE, as TVM's queues) until the first event_record
 *    on it replaces it by a profiling one (dh_opencl_queue_t below): profiling makes
 *    every clFinish dearer on some drivers (NVIDIA's).
 *  - Kernels: noop and fill from embedded OpenCL C, built once per device context
 *    lazily under a lock.
 *
 * Thread-safety: after init every entry may be called from any thread. The registry
 * has one mutex; kernel argument setting + enqueue take a per-device mutex (a cl_kernel
 * is not thread-safe for clSetKernelArg). No library constructors: nothing runs before
 * init, so a process may fork before initialising the backend.
 *
 * Files (one job each; each calls only the files below it in this list, checked by
 * tests/layering/call_graph.t):
 *   opencl_backend.c  the dh_backend_t table and dh_backend_entry
 *   opencl_raw.c      the raw twin (benchmarks)
 *   opencl_kernels.c  the embedded OpenCL C program and the module functions
 *                     noop / fill / echo / raise
 *   opencl_memory.c   data space / workspaces, pinned host memory, copies
 *   opencl_stream.c   streams (command queues), current stream per thread, stream_sync,
 *                     sync_stream_from_to, events
 *   opencl_device.c   enumeration (forked probe), init/shutdown, opening the devices on
 *                     first use, get_attr, get_target_property, set_device, the
 *                     pocl-affinity option (ABI 1.6)
 *   opencl_handles.c  the handle registry (every pointer handed out)
 *   opencl_queue.c    command queues: plain until the first event_record, then
 *                     profiling (dh_opencl_queue_t)
 *   opencl_error.c    OpenCL error codes -> names and devharness error kinds
 *
 * Symbols: every object is compiled with -fvisibility=hidden (backend.mk) and the
 * declarations below are also wrapped in `#pragma GCC visibility push(hidden)`, so the
 * only exported symbol of the plugin is dh_backend_entry. Symbols shared between these
 * files are prefixed dh_opencl_; everything else is static to its file.
 */
#ifndef DEVHARNESS_BACKENDS_OPENCL_INTERNAL_H
#define DEVHARNESS_BACKENDS_OPENCL_INTERNAL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS

#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "devharness/backend.h"
#include "devharness/error.h"

#ifndef CL_DEVICE_IMAGE_PITCH_ALIGNMENT
#define CL_DEVICE_IMAGE_PITCH_ALIGNMENT 0x104A
#endif
#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif
#ifndef CL_DEVICE_GLOBAL_FREE_MEMORY_AMD
#define CL_DEVICE_GLOBAL_FREE_MEMORY_AMD 0x4039
#endif

#define DH_OPENCL_DEVICE_TYPE 4 /* kDLOpenCL */
#define DH_OPENCL_MAX_DEVICES 64
#define DH_OPENCL_REASON_MAX 256

/* Only after the system and OpenCL headers: the OpenCL entry points live in libOpenCL
 * and must keep default visibility. */
#pragma GCC visibility push(hidden)

/*===========================================================================
 * OpenCL errors (opencl_error.c)
 *===========================================================================*/

/* Name of an OpenCL error code, e.g. "CL_INVALID_VALUE"; "unknown OpenCL error" for a
 * code it does not know. Returns a static string (never NULL). Thread-safe. */
const char* dh_opencl_err_name(cl_int e);

/* devharness error kind for a failed OpenCL call: resource exhaustion
 * (CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY) ->
 * "OutOfMemoryError", anything else "RuntimeError". Static string. Thread-safe. */
const char* dh_opencl_err_kind(cl_int e);

/* Sets the thread's error for OpenCL call `what` that returned `e` and evaluates to -1
 * (dh_error_set), e.g. "clFinish failed: CL_INVALID_COMMAND_QUEUE (-36)". */
#define DH_OPENCL_FAIL(what, e) \
  dh_error_set(dh_opencl_err_kind(e), "%s failed: %s (%d)", (what), dh_opencl_err_name(e), (int)(e))

/*===========================================================================
 * Devices (opencl_device.c)
 *===========================================================================*/

/* One OpenCL device. The cached info is filled at init (in the probe child, then copied
 * over the pipe, so it must stay plain data); the cl_* handles are valid only once the
 * devices are opened in this process (dh_opencl_ensure_realized). */
/* An in-order command queue that starts plain, without CL_QUEUE_PROFILING_ENABLE (as
 * TVM's OpenCLWorkspace creates its queues, apache/tvm v0.27.0
 * src/backend/opencl/runtime/opencl_device_api.cc), and is replaced once by a profiling
 * queue on the first event_record on it (dh_opencl_queue_profiled; TVM recreates its queue
 * when its timer starts, OpenCLWorkspace::EnableQueueProfiling in opencl_common.h): a
 * profiling queue makes every clFinish dearer on NVIDIA's OpenCL (docs/benchmarks.md,
 * "On an NVIDIA H100").
 *
 * Ordering across the switch: the new queue first waits on a user event that is set
 * only once the old queue has finished, and a thread that enqueued on the old queue
 * while the switch happened finishes that queue itself (dh_opencl_queue_settle), so the
 * commands of one thread stay in order. Both queues are kept until the stream (device)
 * is released, so a thread that read the old one never uses a released queue. */
typedef struct dh_opencl_queue {
  cl_command_queue q;       /* the current queue: read with dh_opencl_queue_get (atomic) */
  cl_command_queue retired; /* the plain queue q replaced; NULL while q is plain (atomic) */
} dh_opencl_queue_t;

typedef struct dh_opencl_device {
  cl_platform_id platform;
  cl_device_id device;
  int platform_index, device_index;
  cl_context ctx;
  dh_opencl_queue_t default_queue;
  pthread_mutex_t queue_lock; /* serialises the switch of any of its queues to profiling */

  /* cached clGetDeviceInfo values (strings live until shutdown) */
  char name[256];
  char vendor[256];
  char version[256];        /* CL_DEVICE_VERSION, "OpenCL 3.0 PoCL ..." */
  char compute_version[32]; /* "3.0" */
  char driver_version[256];
  char thread_dims_json[96];
  char extensions_has_amd_query;
  /* pci_bus_id: "dddd:bb:dd.f" (cl_khr_pci_bus_info), "" for a CPU device, else why
   * not known in pci_why */
  char pci_bus_id[32];
  char pci_why[128];
  int version_major, version_minor;
  int64_t max_work_group_size;
  int64_t local_mem_size;
  int64_t compute_units;
  int64_t max_clock_mhz;
  int64_t global_mem_size;
  int64_t global_mem_cache_size;
  int64_t max_mem_alloc_size;
  int64_t mem_base_addr_align_bits;
  int64_t image_pitch_alignment; /* 0 = not reported */

  /* bytes of live data space (PoCL overcommits: we refuse past global_mem_size);
   * guarded by the registry lock (dh_opencl_hreg_lock, opencl_handles.c) */
  size_t live_bytes;

  /* built-in kernels, built lazily once (kernel_lock; opencl_kernels.c) */
  pthread_mutex_t kernel_lock;
  int kernels_built; /* 1 ok, -1 failed */
  cl_program program;
  cl_kernel k_noop;
  cl_kernel k_fill;
} dh_opencl_device_t;

/*===========================================================================
 * Command queues (opencl_queue.c)
 *===========================================================================*/

/* Opens `slot` with a new plain in-order queue of (ctx, device). 0, or -1 RuntimeError /
 * OutOfMemoryError (slot->q NULL). Not concurrent with other uses of the slot. */
int dh_opencl_queue_open(cl_context ctx, cl_device_id device, dh_opencl_queue_t* slot);

/* Finishes and releases the slot's queues (current and retired; either may be NULL)
 * and empties it. 0, or -1 with the clFinish error (released anyway). Not concurrent
 * with other uses of the slot. */
int dh_opencl_queue_release(dh_opencl_queue_t* slot);

/* The current queue of `slot` (an atomic load). Thread-safe. */
static inline cl_command_queue dh_opencl_queue_get(dh_opencl_queue_t* slot) {
  return __atomic_load_n(&slot->q, __ATOMIC_ACQUIRE);
}

/* After enqueueing on `used` (read from `slot`): when the slot was switched to a
 * profiling queue meanwhile, finishes `used`, so that this thread's next command, on
 * the new queue, runs after this one (dh_opencl_queue_t). 0, or -1 with the clFinish error.
 * One atomic load when nothing changed. Thread-safe. */
int dh_opencl_queue_settle(dh_opencl_queue_t* slot, cl_command_queue used);

/* The profiling queue of `slot` (a queue of device `od`) in *out: the current queue
 * when it is one already, else a new CL_QUEUE_PROFILING_ENABLE queue replaces the plain
 * one (ordering as in dh_opencl_queue_t; blocks until the plain queue has finished, as TVM's
 * EnableQueueProfiling does). 0, or -1 RuntimeError / OutOfMemoryError (the slot keeps
 * its plain queue). Thread-safe (od->queue_lock). */
int dh_opencl_queue_profiled(dh_opencl_device_t* od, dh_opencl_queue_t* slot, cl_command_queue* out);

/* The devices, ids 0 .. dh_opencl_ndev-1 (NULL / 0 before init, after shutdown, or when
 * there is none). Written only by init and shutdown; read-only in between, so other
 * threads may read them without a lock. */
extern dh_opencl_device_t* dh_opencl_dev;
extern int dh_opencl_ndev;

/* Set in a fork() child of a process that had opened the devices (pthread_atfork):
 * the driver's worker threads are gone, so no OpenCL object may be used or released. */
extern int dh_opencl_stale;

/* 0 when `dev` is an opencl device id in [0, dh_opencl_ndev). Else -1 with ValueError
 * (wrong device type) or IndexError (id out of range; says "no devices" and why when
 * there are none), naming `where` (the entry point). Thread-safe. */
int dh_opencl_check_dev(DLDevice dev, const char* where);

/* Opens the devices in this process on first use (contexts + default queues; lazily,
 * under a lock; fast path one atomic load). 0 when usable; -1 RuntimeError when they
 * cannot be opened (reason kept and repeated on every later call) or when this is a
 * fork() child of a process that had opened them. Thread-safe. */
int dh_opencl_ensure_realized(void);

/* backend.h vtable entries (semantics there and in README.md; the prototypes: backend.h
 * "Declaring and binding a backend's entries"). */
DH_BACKEND_DECLARE_LIFECYCLE_ENTRIES(dh_opencl);
DH_BACKEND_DECLARE_DEVICE_ENTRIES(dh_opencl);

/* ABI 1.6 (opencl_device.c): the backend's one option, pocl-affinity 0|1, unlisted (no
 * command offers it; `devharness bench` gives it from --pin): PoCL's POCL_AFFINITY,
 * written into this process's environment unless it holds one already, before init
 * starts the driver. dh_opencl_set_option: backend.h set_option. */
#define DH_OPENCL_NUM_OPTIONS 1
extern const dh_backend_option_t dh_opencl_options[DH_OPENCL_NUM_OPTIONS];
int dh_opencl_set_option(const char* name, const char* value);

/*===========================================================================
 * Handle registry (opencl_handles.c) and memory (opencl_memory.c)
 *===========================================================================*/

/* Kinds of handle the backend hands out. */
typedef enum { H_BUFFER = 1, H_HOST = 2, H_STREAM = 3, H_EVENT = 4 } hkind_t;

/* A stream handle (dh_stream_t points to one; owned by the registry entry). */
typedef struct dh_opencl_stream {
  dh_opencl_queue_t queue;
  int dev;
} dh_opencl_stream_t;

/* An event handle (dh_event_t points to one; owned by the registry entry). */
typedef struct dh_opencl_event {
  cl_event ev; /* NULL until recorded */
  int dev;
} dh_opencl_event_t;

/* A registry entry: one live handle. */
typedef struct hentry {
  void* key;
  hkind_t kind;
  int dev;
  size_t size;  /* buffers, host blocks: bytes */
  cl_mem mem;   /* H_HOST: the backing CL_MEM_ALLOC_HOST_PTR buffer */
  struct hentry* next;
} hentry_t;

/* Registers handle `key` of `kind` on device `dev` (`size` bytes for buffers and host
 * blocks, `mem` the backing buffer of a host block). 0, or -1 OutOfMemoryError. The
 * caller does not hold the registry lock. Thread-safe. */
int dh_opencl_hreg_add(void* key, hkind_t kind, int dev, size_t size, cl_mem mem);

/* Looks up `key` of `kind`; copies the entry to *out (may be NULL). 1 found, 0 not.
 * Never sets an error. Thread-safe. */
int dh_opencl_hreg_find(const void* key, hkind_t kind, hentry_t* out);

/* Removes `key` of `kind`; copies the entry to *out (may be NULL). 1 removed, 0 not
 * found. Never sets an error. Thread-safe. */
int dh_opencl_hreg_remove(const void* key, hkind_t kind, hentry_t* out);

/* Shutdown: frees every handle still registered (what the callers leaked), releasing
 * the OpenCL objects only when `live` (the devices are open in this process and it is
 * not a stale fork() child; devs = the device table, for the host blocks' queues).
 * Empties the registry. Not concurrent with other entries. */
void dh_opencl_hreg_release_all(int live, const dh_opencl_device_t* devs);

/* The registry's mutex; opencl_memory.c also guards dh_opencl_device_t.live_bytes with it. */
extern pthread_mutex_t dh_opencl_hreg_lock;

/* backend.h vtable entries. */
DH_BACKEND_DECLARE_MEMORY_ENTRIES(dh_opencl);
DH_BACKEND_DECLARE_WORKSPACE_ENTRIES(dh_opencl);
DH_BACKEND_DECLARE_HOST_ENTRIES(dh_opencl);

/*===========================================================================
 * Streams and events (opencl_stream.c)
 *===========================================================================*/

/* Resolves stream handle `stream` of device d (already checked) to its queue slot in
 * *out_slot (NULL -> the device's default queue) and the slot's current queue in
 * *out_q. Opens the devices first. 0, or -1: RuntimeError (devices cannot be opened),
 * ValueError (not a live stream, or one of another device), naming `where`. A caller
 * that enqueues on *out_q calls dh_opencl_queue_settle(slot, q) after it. Thread-safe. */
int dh_opencl_resolve_queue(int d, dh_stream_t stream, const char* where, dh_opencl_queue_t** out_slot,
                            cl_command_queue* out_q);




/* The calling thread's current stream of device d (set_stream; NULL = default queue),
 * as stored: it is not checked for liveness (dh_opencl_resolve_queue does that). d must be
 * a checked device id. */
dh_stream_t dh_opencl_thread_stream(int d);

/* backend.h vtable entries. */
DH_BACKEND_DECLARE_STREAM_ENTRIES(dh_opencl);
DH_BACKEND_DECLARE_EVENT_ENTRIES(dh_opencl);

/*===========================================================================
 * Kernels and module functions (opencl_kernels.c)
 *===========================================================================*/

/* Builds the embedded program and its kernels (dh_noop, dh_fill) for device d's
 * context once (first call; later calls return the cached result), under the device's
 * kernel_lock. The devices must be open (dh_opencl_ensure_realized). 0, or -1
 * RuntimeError / OutOfMemoryError with the build log. Thread-safe. */
int dh_opencl_ensure_kernels(int d);

/* Module functions noop / fill (dh_safe_call_t, self unused; semantics in backend.h;
 * echo / raise are the runtime's dh_backend_func_echo / _raise). Thread-safe. */
int dh_opencl_func_noop(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv);
int dh_opencl_func_fill(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv);
/* pci_bus_id(Device) -> Str (backend.h DH_FUNC_PCI_BUS_ID) from the cached device info. */
int dh_opencl_func_pci_bus_id(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv);

/*===========================================================================
 * Raw twin (opencl_raw.c)
 *===========================================================================*/

/* The raw twin (api_name "OpenCL"): the same operations through OpenCL directly. */
extern const dh_raw_twin_t dh_opencl_raw_twin;

#pragma GCC visibility pop

#endif /* DEVHARNESS_BACKENDS_OPENCL_INTERNAL_H */
