/*
 * backends/cuda/cuda_device.c — the cuda backend's devices: the driver table
 * (libcuda.so.1 loaded with dlopen in dh_cuda_init, never linked), the error
 * mapping (CUresult -> dh_error_set), device checks and primary contexts, attributes
 * and target properties (TVM's CUDA DeviceAPI GetAttr, apache/tvm v0.27.0
 * src/backend/cuda/runtime/cuda_device_api.cc). The lowest file of the backend: it
 * calls no other file of it (cuda_internal.h has the file map).
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/backend.h"
#include "devharness/error.h"
#include "devharness/tensor.h"

#include "backends/common/env_bytes.h"
#include "cuda_driver.h"
#include "cuda_internal.h"

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

CUstream dh_cuda_current_stream(int device_id) {
  /* tvm-ffi's environment stream (backend.h dh_env_get_stream), as in TVM's CUDA
   * DeviceAPI: a stream PyTorch or TVM set is the one kernels run on. */
  DLDevice d = {kDLCUDA, device_id};
  return (CUstream)dh_env_get_stream(d);
}

const char* dh_cuda_driver_version_string(void) { return g_driver_version_str; }

int dh_cuda_live_devices(void) {
  return g_available && !g_forked_after_init ? g_num_devices : 0;
}

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
  return dh_error_set(r == CUDA_ERROR_OUT_OF_MEMORY ? DH_KIND_OUT_OF_MEMORY_ERROR : DH_KIND_RUNTIME_ERROR,
                      "%s: %s: %s", what, name, text);
}

/*===========================================================================
 * Devices and contexts
 *===========================================================================*/

int dh_cuda_check_device(DLDevice dev, const char* op) {
  /* Messages do not repeat "cuda:<id>: <op>": the core's dispatch prefixes that. */
  if (dev.device_type != kDLCUDA)
    return dh_error_set(DH_KIND_VALUE_ERROR, "cuda: %s: device type %d is not kDLCUDA (%d)", op,
                        (int)dev.device_type, (int)kDLCUDA);
  if (!g_available)
    return dh_error_set(DH_KIND_INDEX_ERROR, "the cuda backend has no devices (%s)", g_reason);
  if (g_forked_after_init)
    return dh_error_set(DH_KIND_RUNTIME_ERROR,
                        "this process was forked after the cuda backend was initialised in its "
                        "parent; the CUDA driver cannot be used in such a child (initialise "
                        "devharness backends after fork, or exec)");
  return DH_BACKEND_CHECK_DEVICE(dev, g_num_devices,
                                 "device id %d is out of range (the cuda backend has %d device%s)",
                                 (int)dev.device_id, g_num_devices, g_num_devices == 1 ? "" : "s");
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

int dh_cuda_attr_int(dh_cuda_device_t* d, int id, CUdevice_attribute a, const char* aname,
                     int* out) {
  (void)id; /* the core's dispatch prefixes "cuda:<id>: <op>: " to errors */
  CUresult r = dh_cuda_drv.device_get_attribute(out, a, d->dev);
  if (r != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuDeviceGetAttribute(%s)", aname);
  return 0;
}
#define ATTR_INT(d, id, a, out) dh_cuda_attr_int((d), (id), (a), #a, (out))

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

size_t dh_cuda_stage_pinned_max = DH_CUDA_STAGE_PINNED_MAX;

/* Reads DH_CUDA_STAGE_PINNED_MAX_ENV (decimal bytes) into dh_cuda_stage_pinned_max;
 * -1 with the reason set when it is not a byte count. */
static int read_stage_pinned_max(void) {
  char why[256];
  if (dh_common_env_bytes(DH_CUDA_STAGE_PINNED_MAX_ENV, DH_CUDA_STAGE_PINNED_MAX,
                          &dh_cuda_stage_pinned_max, why, sizeof why) != 0) {
    set_reason("%s", why);
    return -1;
  }
  return 0;
}

/* Forgets any earlier state: no driver, no device, fresh device records. */
static void reset_state(void) {
  g_available = 0;
  g_num_devices = 0;
  g_driver_version = 0;
  snprintf(g_driver_version_str, sizeof g_driver_version_str, "unknown");
  memset(&dh_cuda_drv, 0, sizeof dh_cuda_drv);
  for (int i = 0; i < DH_CUDA_MAX_DEVICES; i++) {
    memset(&dh_cuda_devices[i], 0, sizeof dh_cuda_devices[i]);
    pthread_mutex_init(&dh_cuda_devices[i].mu, NULL);
  }
}

/* dlopens the driver, reads its version and runs cuInit. 0, or -1 with the reason set
 * and the library closed. */
static int open_driver(void) {
  /* Always "libcuda.so.1" (the driver's soname; libcuda.so is the toolkit's link
   * stub), found by the dynamic loader's search: LD_LIBRARY_PATH, then ld.so.cache. */
  dlerror();
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    set_reason("libcuda.so.1 not found: %s", e ? e : "dlopen failed");
    return -1;
  }
  dh_cuda_drv.lib = lib;
  *(void**)&dh_cuda_drv.get_error_name = dlsym(lib, "cuGetErrorName");
  *(void**)&dh_cuda_drv.get_error_string = dlsym(lib, "cuGetErrorString");
  *(void**)&dh_cuda_drv.driver_get_version = dlsym(lib, "cuDriverGetVersion");
  *(void**)&dh_cuda_drv.device_can_access_peer = dlsym(lib, "cuDeviceCanAccessPeer");
  *(void**)&dh_cuda_drv.init = dlsym(lib, "cuInit");
  if (!dh_cuda_drv.init) {
    set_reason("libcuda.so.1 has no symbol cuInit (not an NVIDIA driver library?)");
    unload_driver();
    return -1;
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
    return -1;
  }
  return 0;
}

/* Looks up every driver function the backend calls (DH_CUDA_REQUIRED_FUNCS and
 * cuEventElapsedTime). 0, or -1 with the reason naming the missing one and the
 * library closed. */
static int resolve_functions(void) {
  void* lib = dh_cuda_drv.lib;
#define DH_CUDA_RESOLVE(field, sym, params)                                              \
  *(void**)&dh_cuda_drv.field = dlsym(lib, sym);                                         \
  if (!dh_cuda_drv.field) {                                                              \
    set_reason("libcuda.so.1 (driver %s) lacks %s; a newer NVIDIA driver is needed",     \
               g_driver_version_str, sym);                                               \
    unload_driver();                                                                     \
    return -1;                                                                           \
  }
  DH_CUDA_REQUIRED_FUNCS(DH_CUDA_RESOLVE)
#undef DH_CUDA_RESOLVE
  *(void**)&dh_cuda_drv.device_get_pci_bus_id = dlsym(lib, "cuDeviceGetPCIBusId");
  *(void**)&dh_cuda_drv.event_elapsed_time = dlsym(lib, "cuEventElapsedTime_v2");
  if (!dh_cuda_drv.event_elapsed_time)
    *(void**)&dh_cuda_drv.event_elapsed_time = dlsym(lib, "cuEventElapsedTime");
  if (!dh_cuda_drv.event_elapsed_time) {
    set_reason("libcuda.so.1 (driver %s) lacks cuEventElapsedTime", g_driver_version_str);
    unload_driver();
    return -1;
  }
  return 0;
}

/* Counts the devices (at most DH_CUDA_MAX_DEVICES) and gets their handles into
 * dh_cuda_devices. The count (> 0), or -1 with the reason set and the library closed. */
static int find_devices(void) {
  int count = 0;
  CUresult r = dh_cuda_drv.device_get_count(&count);
  if (r != CUDA_SUCCESS) {
    const char *name, *text;
    dh_cuda_error_text(r, &name, &text);
    set_reason("cuDeviceGetCount failed: %s (%d): %s", name, (int)r, text);
    unload_driver();
    return -1;
  }
  if (count <= 0) {
    set_reason("no CUDA device (cuDeviceGetCount returned 0; driver %s)", g_driver_version_str);
    unload_driver();
    return -1;
  }
  if (count > DH_CUDA_MAX_DEVICES) count = DH_CUDA_MAX_DEVICES;
  for (int i = 0; i < count; i++) {
    r = dh_cuda_drv.device_get(&dh_cuda_devices[i].dev, i);
    if (r != CUDA_SUCCESS) {
      const char *name, *text;
      dh_cuda_error_text(r, &name, &text);
      set_reason("cuDeviceGet(%d) failed: %s (%d): %s", i, name, (int)r, text);
      unload_driver();
      return -1;
    }
  }
  return count;
}

int dh_cuda_init(void) {
  reset_state();
  /* Each step sets the reason when it fails: the backend then has no device. */
  if (read_stage_pinned_max() != 0 || open_driver() != 0 || resolve_functions() != 0) return 0;
  int count = find_devices();
  if (count < 0) return 0;
  g_num_devices = count;
  g_available = 1;
  g_reason[0] = '\0';
  g_forked_after_init = 0;
  if (!g_atfork_registered && pthread_atfork(NULL, NULL, on_fork_child) == 0)
    g_atfork_registered = 1;
  return 0;
}

void dh_cuda_device_shutdown(void) {
  int n = dh_cuda_live_devices(); /* a forked child must not touch the driver */
  for (int i = 0; i < n; i++) {
    dh_cuda_device_t* d = &dh_cuda_devices[i];
    if (d->ctx_ready) {
      dh_cuda_drv.ctx_set_current(NULL);
      dh_cuda_drv.primary_ctx_release(d->dev);
    }
  }
  for (int i = 0; i < DH_CUDA_MAX_DEVICES; i++) {
    pthread_mutex_destroy(&dh_cuda_devices[i].mu);
    memset(&dh_cuda_devices[i], 0, sizeof dh_cuda_devices[i]);
  }
  g_available = 0;
  g_num_devices = 0;
  set_reason("the cuda backend was shut down");
  unload_driver();
}

const char* dh_cuda_unavailable_reason(void) { return g_available ? NULL : g_reason; }

/*===========================================================================
 * Attributes
 *===========================================================================*/

int dh_cuda_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (!out) return dh_error_set(DH_KIND_VALUE_ERROR, "cuda: get_attr: out_value is NULL");
  *out = dh_any_none();
  if (kind == DH_ATTR_EXIST) {
    /* Never an error (TVM kExist). */
    *out = dh_any_int(dev.device_type == kDLCUDA && g_available && dev.device_id >= 0 &&
                      dev.device_id < g_num_devices);
    return 0;
  }
  if (kind < 0 || kind >= DH_ATTR_KIND_COUNT)
    return dh_error_set(DH_KIND_VALUE_ERROR, "cuda: get_attr: unknown attribute kind %d (valid: 0..%d)",
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

int dh_cuda_get_target_property(DLDevice dev, const char* name, dh_any_t* out) {
  if (!out) return dh_error_set(DH_KIND_VALUE_ERROR, "cuda: get_target_property: out_value is NULL");
  *out = dh_any_none();
  if (!name) return dh_error_set(DH_KIND_VALUE_ERROR, "cuda: get_target_property: name is NULL");
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

int dh_cuda_set_device(DLDevice dev) { return dh_cuda_enter(dev, "set_device", NULL); }
