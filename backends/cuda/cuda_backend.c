/*
 * backends/cuda/cuda_backend.c — the CUDA backend (plugin libdevharness_cuda.so).
 *
 * TVM's CUDA DeviceAPI (apache/tvm v0.27.0 src/backend/cuda/runtime/cuda_device_api.cc)
 * over the CUDA *driver* API, which is dlopen'd ("libcuda.so.1") in init: the plugin links no CUDA library,
 * so it loads on machines with the toolkit and no driver and reports why it has no
 * device (docs/contract.md; backends/cuda/README.md).
 *
 * Design (each point is a documented choice of this backend):
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
 * dh_error_set("RuntimeError" | "OutOfMemoryError", "<call>(<args>): <NAME>: <text>").
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/backend.h"
#include "devharness/error.h"
#include "devharness/tensor.h"

#include "cuda_driver.h"
#include "cuda_internal.h"

/* The embedded fatbin: `static const unsigned char dh_cuda_fatbin[]`, generated
 * from kernels.cu by backends/cuda/backend.mk into $(BUILD)/gen/cuda/. */
#include "kernels_fatbin.h"

/*===========================================================================
 * State
 *===========================================================================*/

dh_cuda_driver_t dh_cuda_drv;
static int g_available;         /* 1 when >= 1 device is usable */
static int g_num_devices;       /* devices reported by cuDeviceGetCount, capped */
static char g_reason[768];      /* unavailable_reason when !g_available */
static int g_driver_version;    /* cuDriverGetVersion, e.g. 13000 */
static char g_driver_version_str[32];
/* Set in a child forked after init (pthread_atfork; glibc drops the handler when the
 * plugin is dlclosed). The CUDA driver cannot be used in such a child: every call,
 * cuInit included, returns CUDA_ERROR_NOT_INITIALIZED. */
static volatile int g_forked_after_init;
static int g_atfork_registered;
static void on_fork_child(void) { g_forked_after_init = 1; }

dh_cuda_device_t dh_cuda_devices[DH_CUDA_MAX_DEVICES];

/* Current stream per thread per device (TVM SetStream / GetCurrentStream). */
/* The current stream is tvm-ffi's environment stream (backend.h dh_env_get_stream),
 * as in TVM's CUDA DeviceAPI: a stream PyTorch or TVM set is the one kernels run on. */
static CUstream cuda_env_stream(int device_id) {
  DLDevice d = {kDLCUDA, device_id};
  return (CUstream)dh_env_get_stream(d);
}

/* Over-aligned allocations: aligned pointer -> cuMemAlloc base. */
typedef struct overaligned {
  CUdeviceptr aligned, base;
  struct overaligned* next;
} overaligned_t;
static pthread_mutex_t g_overaligned_mu = PTHREAD_MUTEX_INITIALIZER;
static overaligned_t* g_overaligned;

/*===========================================================================
 * Errors
 *===========================================================================*/

static const struct {
  int code;
  const char* name;
  const char* text;
} k_cu_errors[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {4, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {34, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {35, "CUDA_ERROR_INSUFFICIENT_DRIVER",
     "CUDA driver version is insufficient for CUDA runtime version"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device"},
    {218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "the provided PTX was compiled with an unsupported toolchain"},
    {400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {600, "CUDA_ERROR_NOT_READY", "device not ready"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

void dh_cuda_error_text(CUresult r, const char** out_name, const char** out_text) {
  const char* name = NULL;
  const char* text = NULL;
  if (dh_cuda_drv.get_error_name && dh_cuda_drv.get_error_name(r, &name) != CUDA_SUCCESS)
    name = NULL;
  if (dh_cuda_drv.get_error_string && dh_cuda_drv.get_error_string(r, &text) != CUDA_SUCCESS)
    text = NULL;
  for (size_t i = 0; i < sizeof k_cu_errors / sizeof k_cu_errors[0]; i++) {
    if (k_cu_errors[i].code == (int)r) {
      if (!name) name = k_cu_errors[i].name;
      if (!text) text = k_cu_errors[i].text;
    }
  }
  *out_name = name ? name : "CUDA_ERROR_(unknown code)";
  *out_text = text ? text : "unrecognised CUresult";
}

int dh_cuda_fail(CUresult r, const char* fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  const char *name, *text;
  dh_cuda_error_text(r, &name, &text);
  return dh_error_set(r == CUDA_ERROR_OUT_OF_MEMORY ? "OutOfMemoryError" : "RuntimeError",
                      "%s: %s: %s", what, name, text);
}

/*===========================================================================
 * Devices and contexts
 *===========================================================================*/

static int is_host_type(int32_t t) { return t == kDLCPU || t == kDLCUDAHost; }

int dh_cuda_check_device(DLDevice dev, const char* op) {
  /* Messages do not repeat "cuda:<id>: <op>": the core's dispatch prefixes that. */
  if (dev.device_type != kDLCUDA)
    return dh_error_set("ValueError", "cuda: %s: device type %d is not kDLCUDA (%d)", op,
                        (int)dev.device_type, (int)kDLCUDA);
  if (!g_available)
    return dh_error_set("IndexError", "the cuda backend has no devices (%s)", g_reason);
  if (g_forked_after_init)
    return dh_error_set("RuntimeError",
                        "this process was forked after the cuda backend was initialised in its "
                        "parent; the CUDA driver cannot be used in such a child (initialise "
                        "devharness backends after fork, or exec)");
  if (dev.device_id < 0 || dev.device_id >= g_num_devices)
    return dh_error_set("IndexError", "device id %d is out of range (the cuda backend has %d device%s)",
                        (int)dev.device_id, g_num_devices, g_num_devices == 1 ? "" : "s");
  return 0;
}

/* Retains the primary context of device d (once). Caller holds no lock. */
static int ensure_context(dh_cuda_device_t* d, int id) {
  (void)id; /* the core's dispatch prefixes "cuda:<id>: <op>: " to errors */
  if (__atomic_load_n(&d->ctx_ready, __ATOMIC_ACQUIRE)) return 0;
  int rc = 0;
  pthread_mutex_lock(&d->mu);
  if (!d->ctx_ready) {
    CUresult r = dh_cuda_drv.primary_ctx_retain(&d->ctx, d->dev);
    if (r != CUDA_SUCCESS) {
      rc = dh_cuda_fail(r, "cuDevicePrimaryCtxRetain");
    } else {
      __atomic_store_n(&d->ctx_ready, 1, __ATOMIC_RELEASE);
    }
  }
  pthread_mutex_unlock(&d->mu);
  return rc;
}

int dh_cuda_enter(DLDevice dev, const char* op, dh_cuda_device_t** out) {
  if (dh_cuda_check_device(dev, op) != 0) return -1;
  dh_cuda_device_t* d = &dh_cuda_devices[dev.device_id];
  if (ensure_context(d, dev.device_id) != 0) return -1;
  /* No cuCtxSetCurrent when the context is already current on this thread. The
   * driver's own answer is used rather than a cache of ours, so code that changes the
   * current context behind the backend's back (another library) is still handled. */
  CUcontext cur = NULL;
  if (dh_cuda_drv.ctx_get_current(&cur) != CUDA_SUCCESS || cur != d->ctx) {
    CUresult r = dh_cuda_drv.ctx_set_current(d->ctx);
    if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "%s: cuCtxSetCurrent", op);
  }
  if (out) *out = d;
  return 0;
}

/* Loads the embedded module on device d and resolves the kernels (once). The
 * device's context must be current. */
int dh_cuda_ensure_module(dh_cuda_device_t* d, int id) {
  (void)id; /* the core's dispatch prefixes "cuda:<id>: <op>: " to errors */
  if (__atomic_load_n(&d->module_ready, __ATOMIC_ACQUIRE)) return 0;
  int rc = 0;
  pthread_mutex_lock(&d->mu);
  if (!d->module_ready) {
    CUresult r = dh_cuda_drv.module_load_data(&d->module, dh_cuda_fatbin);
    if (r != CUDA_SUCCESS) {
      rc = dh_cuda_fail(r,
                        "cuModuleLoadData(embedded fatbin, %zu bytes: SASS sm_75, sm_80, sm_86, "
                        "sm_89, sm_90a + compute_90 PTX, built with CUDA %d.%d; driver %s)",
                        sizeof dh_cuda_fatbin, CUDA_VERSION / 1000, (CUDA_VERSION % 1000) / 10,
                        g_driver_version_str);
    } else if ((r = dh_cuda_drv.module_get_function(&d->fn_noop, d->module, "dh_cuda_noop")) !=
               CUDA_SUCCESS) {
      rc = dh_cuda_fail(r, "cuModuleGetFunction(\"dh_cuda_noop\")");
    } else if ((r = dh_cuda_drv.module_get_function(&d->fn_fill, d->module, "dh_cuda_fill")) !=
               CUDA_SUCCESS) {
      rc = dh_cuda_fail(r, "cuModuleGetFunction(\"dh_cuda_fill\")");
    }
    if (rc != 0 && d->module) {
      dh_cuda_drv.module_unload(d->module);
      d->module = NULL;
    }
    if (rc == 0) __atomic_store_n(&d->module_ready, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&d->mu);
  return rc;
}

/*===========================================================================
 * H2D staging slots (cuda_internal.h DH_CUDA_STAGE_*)
 *===========================================================================*/

/* Allocates the staging slots of d (once). The device's context must be current. */
static int stage_ensure(dh_cuda_device_t* d) {
  if (__atomic_load_n(&d->stage_ready, __ATOMIC_ACQUIRE)) return 0;
  int rc = 0;
  pthread_mutex_lock(&d->mu);
  if (!d->stage_ready) {
    int i;
    for (i = 0; i < DH_CUDA_STAGE_SLOTS && rc == 0; i++) {
      dh_cuda_stage_slot_t* sl = &d->stage[i];
      CUresult r = dh_cuda_drv.mem_host_alloc(&sl->host, DH_CUDA_STAGE_SLOT_BYTES,
                                              CU_MEMHOSTALLOC_PORTABLE);
      if (r != CUDA_SUCCESS) {
        sl->host = NULL;
        rc = dh_cuda_fail(r, "cuMemHostAlloc(%zu) for an H2D staging slot",
                          DH_CUDA_STAGE_SLOT_BYTES);
      } else if ((r = dh_cuda_drv.event_create(&sl->done, CU_EVENT_DISABLE_TIMING)) !=
                 CUDA_SUCCESS) {
        sl->done = NULL;
        rc = dh_cuda_fail(r, "cuEventCreate(CU_EVENT_DISABLE_TIMING) for an H2D staging slot");
      }
    }
    if (rc != 0) {
      for (i = 0; i < DH_CUDA_STAGE_SLOTS; i++) {
        if (d->stage[i].done) dh_cuda_drv.event_destroy(d->stage[i].done);
        if (d->stage[i].host) dh_cuda_drv.mem_free_host(d->stage[i].host);
        memset(&d->stage[i], 0, sizeof d->stage[i]);
      }
    } else {
      __atomic_store_n(&d->stage_ready, 1, __ATOMIC_RELEASE);
    }
  }
  pthread_mutex_unlock(&d->mu);
  return rc;
}

/* Frees the slots of d (shutdown; context current, no copy in flight on the host). */
static void stage_free(dh_cuda_device_t* d) {
  if (!d->stage_ready) return;
  for (int i = 0; i < DH_CUDA_STAGE_SLOTS; i++) {
    dh_cuda_stage_slot_t* sl = &d->stage[i];
    if (sl->done) {
      dh_cuda_drv.event_synchronize(sl->done);
      dh_cuda_drv.event_destroy(sl->done);
    }
    if (sl->host) dh_cuda_drv.mem_free_host(sl->host);
    memset(sl, 0, sizeof *sl);
  }
  d->stage_ready = 0;
}

/* Takes a free slot (lock-free: round robin + compare-and-swap on `busy`) and waits
 * for the copy that last read it. Release with stage_release. */
static int stage_acquire(dh_cuda_device_t* d, dh_cuda_stage_slot_t** out) {
  for (unsigned tries = 1;; ++tries) {
    unsigned i = __atomic_fetch_add(&d->stage_next, 1, __ATOMIC_RELAXED) % DH_CUDA_STAGE_SLOTS;
    dh_cuda_stage_slot_t* sl = &d->stage[i];
    int expected = 0;
    if (__atomic_compare_exchange_n(&sl->busy, &expected, 1, 0, __ATOMIC_ACQUIRE,
                                    __ATOMIC_RELAXED)) {
      if (sl->pending) {
        CUresult r = dh_cuda_drv.event_synchronize(sl->done);
        if (r != CUDA_SUCCESS) {
          __atomic_store_n(&sl->busy, 0, __ATOMIC_RELEASE);
          return dh_cuda_fail(r, "cuEventSynchronize on an H2D staging slot");
        }
        sl->pending = 0;
      }
      *out = sl;
      return 0;
    }
    if (tries % DH_CUDA_STAGE_SLOTS == 0) sched_yield(); /* more copying threads than slots */
  }
}

static void stage_release(dh_cuda_stage_slot_t* sl) {
  __atomic_store_n(&sl->busy, 0, __ATOMIC_RELEASE);
}

/* H2D through the slots, chunk by chunk; returns once every byte of src is staged. */
static int h2d_staged(dh_cuda_device_t* d, CUdeviceptr dst, size_t to_offset, const char* src,
                      size_t nbytes, CUstream s) {
  if (stage_ensure(d)) return -1;
  for (size_t off = 0; off < nbytes;) {
    size_t chunk = nbytes - off < DH_CUDA_STAGE_SLOT_BYTES ? nbytes - off : DH_CUDA_STAGE_SLOT_BYTES;
    dh_cuda_stage_slot_t* sl;
    if (stage_acquire(d, &sl)) return -1;
    memcpy(sl->host, src + off, chunk);
    CUresult r = dh_cuda_drv.memcpy_htod_async(dst + off, sl->host, chunk, s);
    if (r != CUDA_SUCCESS) {
      stage_release(sl);
      return dh_cuda_fail(r, "cuMemcpyHtoDAsync_v2(%zu bytes, to_offset %zu)", chunk,
                          to_offset + off);
    }
    r = dh_cuda_drv.event_record(sl->done, s);
    if (r != CUDA_SUCCESS) {
      /* The copy reading the slot is queued and cannot be tracked: drain the stream
       * before the slot can be reused. */
      dh_cuda_drv.stream_synchronize(s);
      stage_release(sl);
      return dh_cuda_fail(r, "cuEventRecord after a staged host-to-device copy");
    }
    sl->pending = 1;
    stage_release(sl);
    off += chunk;
  }
  return 0;
}

/* H2D straight from a pinned source; waits for this copy only. */
static int h2d_pinned_wait(dh_cuda_device_t* d, CUdeviceptr dst, size_t to_offset,
                           const void* src, size_t nbytes, CUstream s) {
  if (stage_ensure(d)) return -1;
  CUresult r = dh_cuda_drv.memcpy_htod_async(dst, src, nbytes, s);
  if (r != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuMemcpyHtoDAsync_v2(%zu bytes, to_offset %zu)", nbytes, to_offset);
  dh_cuda_stage_slot_t* sl; /* borrowed for its event */
  if (stage_acquire(d, &sl)) {
    dh_cuda_drv.stream_synchronize(s);
    return -1;
  }
  r = dh_cuda_drv.event_record(sl->done, s);
  if (r == CUDA_SUCCESS) r = dh_cuda_drv.event_synchronize(sl->done);
  stage_release(sl);
  if (r != CUDA_SUCCESS) {
    dh_cuda_drv.stream_synchronize(s);
    return dh_cuda_fail(r, "waiting for a pinned host-to-device copy (cuEventRecord/Synchronize)");
  }
  return 0;
}

static int attr_int(dh_cuda_device_t* d, int id, CUdevice_attribute a, const char* aname,
                    int* out) {
  (void)id; /* the core's dispatch prefixes "cuda:<id>: <op>: " to errors */
  CUresult r = dh_cuda_drv.device_get_attribute(out, a, d->dev);
  if (r != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuDeviceGetAttribute(%s)", aname);
  return 0;
}
#define ATTR_INT(d, id, a, out) attr_int((d), (id), (a), #a, (out))

/* An Int attribute for get_attr / get_target_property: Int, or None when this driver
 * does not know the attribute (CUDA_ERROR_INVALID_VALUE / CUDA_ERROR_NOT_SUPPORTED;
 * TVM leaves unsupported attributes unset); other failures are errors. */
static int attr_any(dh_cuda_device_t* d, int id, CUdevice_attribute a, const char* aname,
                    dh_any_t* out) {
  (void)id; /* the core's dispatch prefixes "cuda:<id>: <op>: " to errors */
  int v = 0;
  CUresult r = dh_cuda_drv.device_get_attribute(&v, a, d->dev);
  if (r == CUDA_ERROR_INVALID_VALUE || r == CUDA_ERROR_NOT_SUPPORTED) {
    *out = dh_any_none();
    return 0;
  }
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuDeviceGetAttribute(%s)", aname);
  *out = dh_any_int(v);
  return 0;
}
#define ATTR_ANY(a) attr_any(d, id, (a), #a, out)

/* Fills the cached strings of device d (name, compute version, thread dims, arch). */
static int ensure_strings(dh_cuda_device_t* d, int id) {
  if (__atomic_load_n(&d->strings_ready, __ATOMIC_ACQUIRE)) return 0;
  int rc = 0;
  pthread_mutex_lock(&d->mu);
  if (!d->strings_ready) {
    int major = 0, minor = 0, bx = 0, by = 0, bz = 0;
    CUresult r = dh_cuda_drv.device_get_name(d->name, (int)sizeof d->name, d->dev);
    if (r != CUDA_SUCCESS) rc = dh_cuda_fail(r, "cuDeviceGetName");
    if (rc == 0) rc = ATTR_INT(d, id, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &major);
    if (rc == 0) rc = ATTR_INT(d, id, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &minor);
    if (rc == 0) rc = ATTR_INT(d, id, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &bx);
    if (rc == 0) rc = ATTR_INT(d, id, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, &by);
    if (rc == 0) rc = ATTR_INT(d, id, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, &bz);
    if (rc == 0) {
      d->name[sizeof d->name - 1] = '\0';
      snprintf(d->compute_version, sizeof d->compute_version, "%d.%d", major, minor);
      snprintf(d->thread_dims, sizeof d->thread_dims, "[%d, %d, %d]", bx, by, bz);
      dh_cuda_arch_name(major, minor, d->arch, sizeof d->arch);
      __atomic_store_n(&d->strings_ready, 1, __ATOMIC_RELEASE);
    }
  }
  pthread_mutex_unlock(&d->mu);
  return rc;
}

void dh_cuda_arch_name(int major, int minor, char* buf, size_t size) {
  /* TVM cuda target arch "sm_XY"; architecture-specific "a" variants from 9.0 on
   * (sm_90a, sm_100a, sm_120a), which is what nvcc needs for the full feature set. */
  snprintf(buf, size, "sm_%d%d%s", major, minor, major >= 9 ? "a" : "");
}

/*===========================================================================
 * Lifecycle
 *===========================================================================*/

static void set_reason(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
static void set_reason(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_reason, sizeof g_reason, fmt, ap);
  va_end(ap);
}

static void unload_driver(void) {
  if (dh_cuda_drv.lib) dlclose(dh_cuda_drv.lib);
  memset(&dh_cuda_drv, 0, sizeof dh_cuda_drv);
}

static int cuda_init(void) {
  g_available = 0;
  g_num_devices = 0;
  g_driver_version = 0;
  snprintf(g_driver_version_str, sizeof g_driver_version_str, "unknown");
  memset(&dh_cuda_drv, 0, sizeof dh_cuda_drv);
  for (int i = 0; i < DH_CUDA_MAX_DEVICES; i++) {
    memset(&dh_cuda_devices[i], 0, sizeof dh_cuda_devices[i]);
    pthread_mutex_init(&dh_cuda_devices[i].mu, NULL);
  }

  /* Always "libcuda.so.1" (the driver's soname; libcuda.so is the toolkit's link
   * stub), found by the dynamic loader's search: LD_LIBRARY_PATH, then ld.so.cache. */
  dlerror();
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    set_reason("libcuda.so.1 not found: %s", e ? e : "dlopen failed");
    return 0;
  }
  dh_cuda_drv.lib = lib;
  *(void**)&dh_cuda_drv.get_error_name = dlsym(lib, "cuGetErrorName");
  *(void**)&dh_cuda_drv.get_error_string = dlsym(lib, "cuGetErrorString");
  *(void**)&dh_cuda_drv.driver_get_version = dlsym(lib, "cuDriverGetVersion");
  *(void**)&dh_cuda_drv.init = dlsym(lib, "cuInit");
  if (!dh_cuda_drv.init) {
    set_reason("libcuda.so.1 has no symbol cuInit (not an NVIDIA driver library?)");
    unload_driver();
    return 0;
  }
  if (dh_cuda_drv.driver_get_version &&
      dh_cuda_drv.driver_get_version(&g_driver_version) == CUDA_SUCCESS && g_driver_version > 0) {
    snprintf(g_driver_version_str, sizeof g_driver_version_str, "%d.%d",
             g_driver_version / 1000, (g_driver_version % 1000) / 10);
  }
  CUresult r = dh_cuda_drv.init(0);
  if (r != CUDA_SUCCESS) {
    const char *name, *text;
    dh_cuda_error_text(r, &name, &text);
    set_reason("cuInit failed: %s (%d): %s (driver %s)", name, (int)r, text,
               g_driver_version_str);
    unload_driver();
    return 0;
  }
#define DH_CUDA_RESOLVE(field, sym, params)                                              \
  *(void**)&dh_cuda_drv.field = dlsym(lib, sym);                                         \
  if (!dh_cuda_drv.field) {                                                              \
    set_reason("libcuda.so.1 (driver %s) lacks %s; a newer NVIDIA driver is needed",     \
               g_driver_version_str, sym);                                               \
    unload_driver();                                                                     \
    return 0;                                                                            \
  }
  DH_CUDA_REQUIRED_FUNCS(DH_CUDA_RESOLVE)
#undef DH_CUDA_RESOLVE
  *(void**)&dh_cuda_drv.event_elapsed_time = dlsym(lib, "cuEventElapsedTime_v2");
  if (!dh_cuda_drv.event_elapsed_time)
    *(void**)&dh_cuda_drv.event_elapsed_time = dlsym(lib, "cuEventElapsedTime");
  if (!dh_cuda_drv.event_elapsed_time) {
    set_reason("libcuda.so.1 (driver %s) lacks cuEventElapsedTime", g_driver_version_str);
    unload_driver();
    return 0;
  }

  int count = 0;
  r = dh_cuda_drv.device_get_count(&count);
  if (r != CUDA_SUCCESS) {
    const char *name, *text;
    dh_cuda_error_text(r, &name, &text);
    set_reason("cuDeviceGetCount failed: %s (%d): %s", name, (int)r, text);
    unload_driver();
    return 0;
  }
  if (count <= 0) {
    set_reason("no CUDA device (cuDeviceGetCount returned 0; driver %s)", g_driver_version_str);
    unload_driver();
    return 0;
  }
  if (count > DH_CUDA_MAX_DEVICES) count = DH_CUDA_MAX_DEVICES;
  for (int i = 0; i < count; i++) {
    r = dh_cuda_drv.device_get(&dh_cuda_devices[i].dev, i);
    if (r != CUDA_SUCCESS) {
      const char *name, *text;
      dh_cuda_error_text(r, &name, &text);
      set_reason("cuDeviceGet(%d) failed: %s (%d): %s", i, name, (int)r, text);
      unload_driver();
      return 0;
    }
  }
  g_num_devices = count;
  g_available = 1;
  g_reason[0] = '\0';
  g_forked_after_init = 0;
  if (!g_atfork_registered && pthread_atfork(NULL, NULL, on_fork_child) == 0)
    g_atfork_registered = 1;
  return 0;
}

static void cuda_shutdown(void) {
  if (g_available && !g_forked_after_init) { /* a forked child must not touch the driver */
    for (int i = 0; i < g_num_devices; i++) {
      dh_cuda_device_t* d = &dh_cuda_devices[i];
      if (d->ctx_ready) {
        dh_cuda_drv.ctx_set_current(d->ctx);
        stage_free(d);
        if (d->module) dh_cuda_drv.module_unload(d->module);
        dh_cuda_drv.ctx_set_current(NULL);
        dh_cuda_drv.primary_ctx_release(d->dev);
      }
    }
  }
  pthread_mutex_lock(&g_overaligned_mu);
  while (g_overaligned) {
    overaligned_t* n = g_overaligned->next;
    free(g_overaligned);
    g_overaligned = n;
  }
  pthread_mutex_unlock(&g_overaligned_mu);
  for (int i = 0; i < DH_CUDA_MAX_DEVICES; i++) {
    pthread_mutex_destroy(&dh_cuda_devices[i].mu);
    memset(&dh_cuda_devices[i], 0, sizeof dh_cuda_devices[i]);
  }
  g_available = 0;
  g_num_devices = 0;
  set_reason("the cuda backend was shut down");
  unload_driver();
}

static const char* cuda_unavailable_reason(void) { return g_available ? NULL : g_reason; }

/*===========================================================================
 * Attributes
 *===========================================================================*/

static int cuda_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (!out) return dh_error_set("ValueError", "cuda: get_attr: out_value is NULL");
  *out = dh_any_none();
  if (kind == DH_ATTR_EXIST) {
    /* Never an error (TVM kExist). */
    *out = dh_any_int(dev.device_type == kDLCUDA && g_available && dev.device_id >= 0 &&
                      dev.device_id < g_num_devices);
    return 0;
  }
  if (kind < 0 || kind >= DH_ATTR_KIND_COUNT)
    return dh_error_set("ValueError", "cuda: get_attr: unknown attribute kind %d (valid: 0..%d)",
                        (int)kind, DH_ATTR_KIND_COUNT - 1);
  if (dh_cuda_check_device(dev, "get_attr") != 0) return -1;
  int id = dev.device_id;
  dh_cuda_device_t* d = &dh_cuda_devices[id];
  switch (kind) {
    case DH_ATTR_MAX_THREADS_PER_BLOCK:
      return ATTR_ANY(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    case DH_ATTR_WARP_SIZE:
      return ATTR_ANY(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    case DH_ATTR_MAX_SHARED_MEMORY_PER_BLOCK:
      return ATTR_ANY(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    case DH_ATTR_COMPUTE_VERSION:
      if (ensure_strings(d, id)) return -1;
      *out = dh_any_str(d->compute_version);
      return 0;
    case DH_ATTR_DEVICE_NAME:
      if (ensure_strings(d, id)) return -1;
      *out = dh_any_str(d->name);
      return 0;
    case DH_ATTR_MAX_CLOCK_RATE: /* kHz */
      return ATTR_ANY(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    case DH_ATTR_MULTI_PROCESSOR_COUNT:
      return ATTR_ANY(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    case DH_ATTR_MAX_THREAD_DIMENSIONS:
      if (ensure_strings(d, id)) return -1;
      *out = dh_any_str(d->thread_dims);
      return 0;
    case DH_ATTR_MAX_REGISTERS_PER_BLOCK:
      return ATTR_ANY(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    case DH_ATTR_API_VERSION:
      *out = dh_any_int(CUDA_VERSION); /* SDK compiled against, e.g. 13000 */
      return 0;
    case DH_ATTR_DRIVER_VERSION:
      *out = dh_any_str(g_driver_version_str); /* "13.0" */
      return 0;
    case DH_ATTR_L2_CACHE_SIZE_BYTES:
      return ATTR_ANY(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    case DH_ATTR_TOTAL_GLOBAL_MEMORY: {
      size_t total = 0;
      CUresult r = dh_cuda_drv.device_total_mem(&total, d->dev);
      if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuDeviceTotalMem_v2");
      *out = dh_any_int((int64_t)total);
      return 0;
    }
    case DH_ATTR_AVAILABLE_GLOBAL_MEMORY: {
      size_t free_b = 0, total = 0;
      if (dh_cuda_enter(dev, "get_attr(kAvailableGlobalMemory)", NULL)) return -1;
      CUresult r = dh_cuda_drv.mem_get_info(&free_b, &total);
      if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuMemGetInfo_v2");
      *out = dh_any_int((int64_t)free_b);
      return 0;
    }
    case DH_ATTR_GCN_ARCH:            /* ROCm only */
    case DH_ATTR_IMAGE_PITCH_ALIGNMENT: /* TVM's CUDA API does not report it */
    default:
      return 0; /* None */
  }
}

static int cuda_get_target_property(DLDevice dev, const char* name, dh_any_t* out) {
  if (!out) return dh_error_set("ValueError", "cuda: get_target_property: out_value is NULL");
  *out = dh_any_none();
  if (!name) return dh_error_set("ValueError", "cuda: get_target_property: name is NULL");
  if (dh_cuda_check_device(dev, "get_target_property") != 0) return -1;
  int id = dev.device_id;
  dh_cuda_device_t* d = &dh_cuda_devices[id];
  static const struct {
    const char* option;
    CUdevice_attribute attr;
    const char* attr_name;
  } ints[] = {
      {"max_num_threads", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK"},
      {"max_threads_per_block", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK"},
      {"thread_warp_size", CU_DEVICE_ATTRIBUTE_WARP_SIZE, "WARP_SIZE"},
      {"max_shared_memory_per_block", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
       "MAX_SHARED_MEMORY_PER_BLOCK"},
      {"registers_per_block", CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, "MAX_REGISTERS_PER_BLOCK"},
      {"l2_cache_size_bytes", CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2_CACHE_SIZE"},
      {"multi_processor_count", CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "MULTIPROCESSOR_COUNT"},
  };
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
    if (strcmp(name, ints[i].option) == 0) {
      return attr_any(d, id, ints[i].attr, ints[i].attr_name, out);
    }
  }
  if (strcmp(name, "arch") == 0 || strcmp(name, "device_name") == 0) {
    if (ensure_strings(d, id)) return -1;
    *out = dh_any_str(name[0] == 'a' ? d->arch : d->name);
    return 0;
  }
  return 0; /* None: not a live property (kind, keys, tag, host, ...) */
}

/*===========================================================================
 * Device, memory
 *===========================================================================*/

static int cuda_set_device(DLDevice dev) { return dh_cuda_enter(dev, "set_device", NULL); }

static int cuda_alloc_data_space(DLDevice dev, size_t nbytes, size_t alignment,
                                 DLDataType type_hint, void** out_ptr) {
  (void)type_hint;
  if (!out_ptr) return dh_error_set("ValueError", "cuda: alloc_data_space: out_ptr is NULL");
  *out_ptr = NULL;
  if (alignment == 0) alignment = DH_ALLOC_ALIGNMENT;
  if (alignment & (alignment - 1))
    return dh_error_set("ValueError",
                        "cuda: alloc_data_space: alignment %zu is not a power of two",
                        alignment);
  if (dh_cuda_enter(dev, "alloc_data_space", NULL)) return -1;
  if (nbytes == 0) return 0; /* NULL handle; free_data_space(NULL) is a no-op */
  size_t request = nbytes;
  if (alignment > DH_CUDA_BASE_ALIGNMENT) {
    if (nbytes > SIZE_MAX - alignment)
      return dh_error_set("OutOfMemoryError",
                          "cuda: alloc_data_space(%zu bytes, alignment %zu): size overflows",
                          nbytes, alignment);
    request = nbytes + alignment;
  }
  CUdeviceptr p = 0;
  CUresult r = dh_cuda_drv.mem_alloc(&p, request);
  if (r != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuMemAlloc_v2(%zu)", request);
  if (request != nbytes) {
    overaligned_t* n = malloc(sizeof *n);
    if (!n) {
      dh_cuda_drv.mem_free(p);
      return dh_error_set("OutOfMemoryError", "cuda: alloc_data_space: out of host memory");
    }
    n->base = p;
    n->aligned = (p + alignment - 1) & ~(CUdeviceptr)(alignment - 1);
    pthread_mutex_lock(&g_overaligned_mu);
    n->next = g_overaligned;
    g_overaligned = n;
    pthread_mutex_unlock(&g_overaligned_mu);
    p = n->aligned;
  }
  *out_ptr = (void*)(uintptr_t)p;
  return 0;
}

static int cuda_free_data_space(DLDevice dev, void* ptr) {
  if (!ptr) return 0; /* NULL is a no-op, even without devices */
  if (dh_cuda_enter(dev, "free_data_space", NULL)) return -1;
  CUdeviceptr p = (CUdeviceptr)(uintptr_t)ptr;
  pthread_mutex_lock(&g_overaligned_mu);
  for (overaligned_t** pp = &g_overaligned; *pp; pp = &(*pp)->next) {
    if ((*pp)->aligned == p) {
      overaligned_t* n = *pp;
      p = n->base;
      *pp = n->next;
      free(n);
      break;
    }
  }
  pthread_mutex_unlock(&g_overaligned_mu);
  CUresult r = dh_cuda_drv.mem_free(p);
  if (r != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuMemFree_v2(0x%" PRIx64 ")", (uint64_t)p);
  return 0;
}

static int cuda_alloc_workspace(DLDevice dev, size_t nbytes, DLDataType type_hint, void** out) {
  return cuda_alloc_data_space(dev, nbytes, DH_TEMP_ALLOC_ALIGNMENT, type_hint, out);
}
static int cuda_free_workspace(DLDevice dev, void* ptr) { return cuda_free_data_space(dev, ptr); }

static int cuda_alloc_host(DLDevice dev, size_t nbytes, void** out_ptr) {
  if (!out_ptr) return dh_error_set("ValueError", "cuda: alloc_host: out_ptr is NULL");
  *out_ptr = NULL;
  if (dh_cuda_enter(dev, "alloc_host", NULL)) return -1;
  if (nbytes == 0) return 0;
  CUresult r = dh_cuda_drv.mem_host_alloc(out_ptr, nbytes, CU_MEMHOSTALLOC_PORTABLE);
  if (r != CUDA_SUCCESS) {
    *out_ptr = NULL;
    return dh_cuda_fail(r, "cuMemHostAlloc(%zu, CU_MEMHOSTALLOC_PORTABLE)", nbytes);
  }
  return 0;
}

static int cuda_free_host(DLDevice dev, void* ptr) {
  if (!ptr) return 0; /* NULL is a no-op, even without devices */
  if (dh_cuda_enter(dev, "free_host", NULL)) return -1;
  CUresult r = dh_cuda_drv.mem_free_host(ptr);
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuMemFreeHost(%p)", ptr);
  return 0;
}

/*===========================================================================
 * Copies
 *===========================================================================*/

static int cuda_copy_data_from_to(const void* from, size_t from_offset, void* to,
                                  size_t to_offset, size_t nbytes, DLDevice dev_from,
                                  DLDevice dev_to, DLDataType type_hint, dh_stream_t stream) {
  (void)type_hint;
  CUstream s = (CUstream)stream;
  int from_host = is_host_type(dev_from.device_type);
  int to_host = is_host_type(dev_to.device_type);
  if (from_host && to_host)
    return dh_error_set("ValueError",
                        "cuda: copy_data_from_to: neither side is a CUDA device (from type %d, "
                        "to type %d)", (int)dev_from.device_type, (int)dev_to.device_type);
  if (!from_host && dh_cuda_check_device(dev_from, "copy_data_from_to (from)")) return -1;
  if (!to_host && dh_cuda_check_device(dev_to, "copy_data_from_to (to)")) return -1;
  if (nbytes == 0) return 0;
  if (!from) return dh_error_set("ValueError", "cuda: copy_data_from_to: from is NULL (%zu bytes)", nbytes);
  if (!to) return dh_error_set("ValueError", "cuda: copy_data_from_to: to is NULL (%zu bytes)", nbytes);
  CUresult r;
  if (from_host) {
    /* H2D. The host source must not be read after return (see the file comment):
     * staged when small or pageable, else direct with a wait for this copy. */
    dh_cuda_device_t* dt;
    if (dh_cuda_enter(dev_to, "copy_data_from_to", &dt)) return -1;
    CUdeviceptr dst = (CUdeviceptr)(uintptr_t)to + to_offset;
    const char* src = (const char*)from + from_offset;
    if (nbytes > DH_CUDA_STAGE_PINNED_MAX) {
      unsigned int mt = 0;
      if (dh_cuda_drv.pointer_get_attribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                            (CUdeviceptr)(uintptr_t)src) == CUDA_SUCCESS &&
          mt == CU_MEMORYTYPE_HOST)
        return h2d_pinned_wait(dt, dst, to_offset, src, nbytes, s);
    }
    return h2d_staged(dt, dst, to_offset, src, nbytes, s);
  }
  if (to_host) {
    if (dh_cuda_enter(dev_from, "copy_data_from_to", NULL)) return -1;
    CUdeviceptr src = (CUdeviceptr)(uintptr_t)from + from_offset;
    r = dh_cuda_drv.memcpy_dtoh_async((char*)to + to_offset, src, nbytes, s);
    if (r != CUDA_SUCCESS)
      return dh_cuda_fail(r, "cuMemcpyDtoHAsync_v2(%zu bytes, from_offset %zu)", nbytes, from_offset);
    return 0;
  }
  /* Device to device: on the stream of dev_from (TVM does the same). */
  dh_cuda_device_t *df, *dt;
  if (dev_from.device_id != dev_to.device_id &&
      dh_cuda_enter(dev_to, "copy_data_from_to", &dt))
    return -1;
  if (dh_cuda_enter(dev_from, "copy_data_from_to", &df)) return -1; /* the stream's context */
  if (dev_from.device_id == dev_to.device_id) dt = df;
  CUdeviceptr src = (CUdeviceptr)(uintptr_t)from + from_offset;
  CUdeviceptr dst = (CUdeviceptr)(uintptr_t)to + to_offset;
  if (dev_from.device_id == dev_to.device_id) {
    r = dh_cuda_drv.memcpy_dtod_async(dst, src, nbytes, s);
    if (r != CUDA_SUCCESS)
      return dh_cuda_fail(r, "cuMemcpyDtoDAsync_v2(%zu bytes, from_offset %zu, to_offset %zu)",
                          nbytes, from_offset, to_offset);
  } else {
    r = dh_cuda_drv.memcpy_peer_async(dst, dt->ctx, src, df->ctx, nbytes, s);
    if (r != CUDA_SUCCESS)
      return dh_cuda_fail(r, "cuMemcpyPeerAsync(%zu bytes, cuda:%d -> cuda:%d)",
                          nbytes, (int)dev_from.device_id, (int)dev_to.device_id);
  }
  return 0;
}

/*===========================================================================
 * Streams
 *===========================================================================*/

static int cuda_create_stream(DLDevice dev, dh_stream_t* out_stream) {
  if (!out_stream) return dh_error_set("ValueError", "cuda: create_stream: out_stream is NULL");
  *out_stream = NULL;
  if (dh_cuda_enter(dev, "create_stream", NULL)) return -1;
  CUstream s = NULL;
  CUresult r = dh_cuda_drv.stream_create(&s, CU_STREAM_NON_BLOCKING);
  if (r != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuStreamCreate(CU_STREAM_NON_BLOCKING)");
  *out_stream = (dh_stream_t)s;
  return 0;
}

static int cuda_free_stream(DLDevice dev, dh_stream_t stream) {
  if (!stream) return 0; /* NULL is a no-op, even without devices */
  if (dh_cuda_enter(dev, "free_stream", NULL)) return -1;
  if (cuda_env_stream(dev.device_id) == (CUstream)stream) dh_env_set_stream(dev, NULL);
  /* Pending work completes; the driver releases the stream afterwards. */
  CUresult r = dh_cuda_drv.stream_destroy((CUstream)stream);
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuStreamDestroy_v2");
  return 0;
}

static int cuda_set_stream(DLDevice dev, dh_stream_t stream) {
  if (dh_cuda_check_device(dev, "set_stream")) return -1;
  return dh_env_set_stream(dev, stream);
}

static int cuda_get_current_stream(DLDevice dev, dh_stream_t* out_stream) {
  if (!out_stream) return dh_error_set("ValueError", "cuda: get_current_stream: out_stream is NULL");
  *out_stream = NULL;
  if (dh_cuda_check_device(dev, "get_current_stream")) return -1;
  *out_stream = (dh_stream_t)cuda_env_stream(dev.device_id);
  return 0;
}

CUstream dh_cuda_current_stream(int device_id) { return cuda_env_stream(device_id); }

static int cuda_stream_sync(DLDevice dev, dh_stream_t stream) {
  if (dh_cuda_enter(dev, "stream_sync", NULL)) return -1;
  CUresult r = dh_cuda_drv.stream_synchronize((CUstream)stream);
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuStreamSynchronize");
  return 0;
}

static int cuda_sync_stream_from_to(DLDevice dev, dh_stream_t src, dh_stream_t dst) {
  if (dh_cuda_enter(dev, "sync_stream_from_to", NULL)) return -1;
  if (src == dst) return 0;
  CUevent ev = NULL;
  CUresult r = dh_cuda_drv.event_create(&ev, CU_EVENT_DISABLE_TIMING);
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuEventCreate(CU_EVENT_DISABLE_TIMING)");
  r = dh_cuda_drv.event_record(ev, (CUstream)src);
  if (r != CUDA_SUCCESS) {
    dh_cuda_drv.event_destroy(ev);
    return dh_cuda_fail(r, "cuEventRecord(src stream)");
  }
  r = dh_cuda_drv.stream_wait_event((CUstream)dst, ev, 0);
  if (r != CUDA_SUCCESS) {
    dh_cuda_drv.event_destroy(ev);
    return dh_cuda_fail(r, "cuStreamWaitEvent(dst stream)");
  }
  r = dh_cuda_drv.event_destroy(ev); /* released by the driver once it completes */
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuEventDestroy_v2");
  return 0;
}

/*===========================================================================
 * Events (device-side timing)
 *===========================================================================*/

static int cuda_event_create(DLDevice dev, dh_event_t* out_event) {
  if (!out_event) return dh_error_set("ValueError", "cuda: event_create: out_event is NULL");
  *out_event = NULL;
  if (dh_cuda_enter(dev, "event_create", NULL)) return -1;
  CUevent ev = NULL;
  CUresult r = dh_cuda_drv.event_create(&ev, CU_EVENT_DEFAULT);
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuEventCreate(CU_EVENT_DEFAULT)");
  *out_event = (dh_event_t)ev;
  return 0;
}

static int cuda_event_record(DLDevice dev, dh_event_t event, dh_stream_t stream) {
  if (!event) return dh_error_set("ValueError", "cuda: event_record: event is NULL");
  if (dh_cuda_enter(dev, "event_record", NULL)) return -1;
  CUresult r = dh_cuda_drv.event_record((CUevent)event, (CUstream)stream);
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuEventRecord");
  return 0;
}

static int cuda_event_elapsed_ms(DLDevice dev, dh_event_t start, dh_event_t end, double* out_ms) {
  if (!start || !end || !out_ms)
    return dh_error_set("ValueError", "cuda: event_elapsed_ms: %s is NULL",
                        !start ? "start" : !end ? "end" : "out_ms");
  if (dh_cuda_enter(dev, "event_elapsed_ms", NULL)) return -1;
  CUresult r = dh_cuda_drv.event_synchronize((CUevent)end);
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuEventSynchronize(end)");
  float ms = 0;
  r = dh_cuda_drv.event_elapsed_time(&ms, (CUevent)start, (CUevent)end);
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuEventElapsedTime");
  *out_ms = ms;
  return 0;
}

static int cuda_event_free(DLDevice dev, dh_event_t event) {
  if (!event) return 0; /* NULL is a no-op, even without devices */
  if (dh_cuda_enter(dev, "event_free", NULL)) return -1;
  CUresult r = dh_cuda_drv.event_destroy((CUevent)event);
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuEventDestroy_v2");
  return 0;
}

/*===========================================================================
 * Module functions (backend.h: noop, fill, echo, raise)
 *===========================================================================*/

int dh_cuda_launch_noop(DLDevice dev, CUstream s) {
  dh_cuda_device_t* d;
  if (dh_cuda_enter(dev, "noop", &d)) return -1;
  if (dh_cuda_ensure_module(d, dev.device_id)) return -1;
  CUresult r = dh_cuda_drv.launch_kernel(d->fn_noop, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL);
  if (r != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuLaunchKernel(dh_cuda_noop, <<<1, 1>>>)");
  return 0;
}

static int fn_noop(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  (void)result;
  if (num_args != 1 || !args || args[0].type_index != DH_TYPE_DEVICE)
    return dh_error_set("TypeError", "cuda.noop: expected (Device dev), got %d argument%s%s%s",
                        (int)num_args, num_args == 1 ? "" : "s",
                        num_args >= 1 && args ? " with args[0] of type " : "",
                        num_args >= 1 && args ? dh_type_index_name(args[0].type_index) : "");
  DLDevice dev = args[0].v_device;
  if (dh_cuda_check_device(dev, "noop")) return -1;
  return dh_cuda_launch_noop(dev, cuda_env_stream(dev.device_id));
}

static int fn_fill(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  (void)result;
  if (num_args != 2 || !args)
    return dh_error_set("TypeError", "cuda.fill: expected (DLTensorPtr dst, Int value), got %d "
                                     "argument%s", (int)num_args, num_args == 1 ? "" : "s");
  if (dh_any_as_tensor(&args[0]) == NULL)
    return dh_error_set("TypeError", "cuda.fill: args[0] (dst) must be a non-NULL DLTensorPtr, got %s",
                        dh_type_index_name(args[0].type_index));
  if (args[1].type_index != DH_TYPE_INT)
    return dh_error_set("TypeError", "cuda.fill: args[1] (value) must be Int, got %s",
                        dh_type_index_name(args[1].type_index));
  const DLTensor* t = dh_any_as_tensor(&args[0]);
  DLDevice dev = t->device;
  if (dh_cuda_check_device(dev, "fill")) return -1;
  if (!dh_tensor_is_contiguous(t))
    return dh_error_set("ValueError", "cuda.fill: dst is not contiguous");
  size_t nbytes = 0;
  if (dh_tensor_nbytes(t, &nbytes)) return dh_error_prefix("cuda.fill: dst");
  if (t->byte_offset % 4 != 0 || nbytes % 4 != 0)
    return dh_error_set("ValueError",
                        "cuda.fill: byte_offset (%" PRIu64 ") and nbytes (%zu) must be multiples "
                        "of 4", (uint64_t)t->byte_offset, nbytes);
  if (nbytes == 0) return 0;
  if (!t->data) return dh_error_set("ValueError", "cuda.fill: dst->data is NULL (%zu bytes)", nbytes);
  dh_cuda_device_t* d;
  if (dh_cuda_enter(dev, "fill", &d)) return -1;
  if (dh_cuda_ensure_module(d, dev.device_id)) return -1;
  CUdeviceptr p = (CUdeviceptr)(uintptr_t)t->data + t->byte_offset;
  unsigned int value = (unsigned int)(uint32_t)args[1].v_int64;
  unsigned long long nwords = nbytes / 4;
  unsigned long long blocks = (nwords + 255) / 256;
  if (blocks > 65535) blocks = 65535; /* grid-stride loop covers the rest */
  void* params[] = {&p, &value, &nwords};
  CUresult r = dh_cuda_drv.launch_kernel(d->fn_fill, (unsigned)blocks, 1, 1, 256, 1, 1, 0,
                                         cuda_env_stream(dev.device_id), params, NULL);
  if (r != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuLaunchKernel(dh_cuda_fill, <<<%llu, 256>>>, %llu words)", blocks, nwords);
  return 0;
}

/* memory_peak_bandwidth(Device dev) -> Float bytes/s: 2 (double data rate) x memory
 * clock x bus width / 8, from CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE (kHz) and
 * CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH (bits), as CUDA's deviceQuery sample and
 * nvbandwidth quote it (H100 SXM: 2619 MHz x 5120 bits -> 3.35 TB/s). */
static int fn_memory_peak(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  if (num_args != 1 || !args || args[0].type_index != DH_TYPE_DEVICE)
    return dh_error_set("TypeError", "cuda.%s: expected (Device dev), got %d argument%s",
                        DH_FUNC_MEMORY_PEAK_BANDWIDTH, (int)num_args, num_args == 1 ? "" : "s");
  DLDevice dev = args[0].v_device;
  if (dh_cuda_check_device(dev, DH_FUNC_MEMORY_PEAK_BANDWIDTH)) return -1;
  dh_cuda_device_t* d = &dh_cuda_devices[dev.device_id];
  int khz = 0, bits = 0;
  if (attr_int(d, dev.device_id, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, "MEMORY_CLOCK_RATE", &khz) ||
      attr_int(d, dev.device_id, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH,
               "GLOBAL_MEMORY_BUS_WIDTH", &bits))
    return -1;
  if (result) *result = dh_any_float(2.0 * (double)khz * 1e3 * (double)bits / 8.0);
  return 0;
}

static const dh_backend_function_t k_functions[] = {
    {DH_FUNC_NOOP, fn_noop},
    {DH_FUNC_MEMORY_PEAK_BANDWIDTH, fn_memory_peak},
    {DH_FUNC_FILL, fn_fill},
    {DH_FUNC_ECHO, dh_backend_func_echo},
    {DH_FUNC_RAISE, dh_backend_func_raise},
};

/*===========================================================================
 * Entry
 *===========================================================================*/

static const dh_backend_t k_backend = {
    .struct_size = sizeof(dh_backend_t),
    .abi_major = DH_BACKEND_ABI_MAJOR,
    .abi_minor = DH_BACKEND_ABI_MINOR,
    .reserved = 0,
    .name = "cuda",
    .description = "NVIDIA GPUs through the CUDA driver API (libcuda.so.1, loaded at run time)",
    .device_type = kDLCUDA,
    .caps = DH_CAP_ASYNC_COPY | DH_CAP_EVENT_TIMING | DH_CAP_PINNED_HOST,
    .target_kind = "cuda",
    .target_kind_json = NULL,
    .init = cuda_init,
    .shutdown = cuda_shutdown,
    .unavailable_reason = cuda_unavailable_reason,
    .get_attr = cuda_get_attr,
    .get_target_property = cuda_get_target_property,
    .set_device = cuda_set_device,
    .alloc_data_space = cuda_alloc_data_space,
    .free_data_space = cuda_free_data_space,
    .alloc_workspace = cuda_alloc_workspace,
    .free_workspace = cuda_free_workspace,
    .alloc_host = cuda_alloc_host,
    .free_host = cuda_free_host,
    .copy_data_from_to = cuda_copy_data_from_to,
    .create_stream = cuda_create_stream,
    .free_stream = cuda_free_stream,
    .set_stream = cuda_set_stream,
    .get_current_stream = cuda_get_current_stream,
    .stream_sync = cuda_stream_sync,
    .sync_stream_from_to = cuda_sync_stream_from_to,
    .functions = k_functions,
    .num_functions = sizeof k_functions / sizeof k_functions[0],
    .event_create = cuda_event_create,
    .event_record = cuda_event_record,
    .event_elapsed_ms = cuda_event_elapsed_ms,
    .event_free = cuda_event_free,
    .raw = &dh_cuda_raw_twin,
};

__attribute__((visibility("default"))) const dh_backend_t* dh_backend_entry(void) {
  return &k_backend;
}
