/*
 * backends/opencl/opencl.c — the OpenCL backend (libdevharness_opencl.so).
 *
 * TVM's OpenCL DeviceAPI (src/runtime/opencl/opencl_device_api.cc; FACTS.md §1) over
 * the Khronos ICD loader (ocl-icd), tested on PoCL 3.1's CPU device (FACTS.md §6) and
 * written to work unchanged on any vendor's driver. Built against
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
 *    in this process: one context and one default in-order queue
 *    (CL_QUEUE_PROFILING_ENABLE) per device. A fork() child of a process that had opened
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
 *  - Streams: in-order queues with profiling; NULL = the device's default queue;
 *    sync_stream_from_to = marker on src + barrier with that event on dst.
 *  - Kernels: noop and fill from embedded OpenCL C, built once per device context
 *    lazily under a lock.
 *
 * Thread-safety: after init every entry may be called from any thread. The registry
 * has one mutex; kernel argument setting + enqueue take a per-device mutex (a cl_kernel
 * is not thread-safe for clSetKernelArg). No library constructors: nothing runs before
 * init, so a process may fork before initialising the backend.
 */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS

#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "devharness/backend.h"
#include "devharness/error.h"
#include "devharness/tensor.h"

#ifndef CL_DEVICE_IMAGE_PITCH_ALIGNMENT
#define CL_DEVICE_IMAGE_PITCH_ALIGNMENT 0x104A
#endif
#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif
#ifndef CL_DEVICE_GLOBAL_FREE_MEMORY_AMD
#define CL_DEVICE_GLOBAL_FREE_MEMORY_AMD 0x4039
#endif

#define OCL_DEVICE_TYPE 4 /* kDLOpenCL */
#define OCL_MAX_DEVICES 64
#define OCL_REASON_MAX 256

/*===========================================================================
 * OpenCL error names
 *===========================================================================*/

static const char* ocl_err_name(cl_int e) {
  switch (e) {
#define E(x) case x: return #x;
    E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE)
    E(CL_COMPILER_NOT_AVAILABLE) E(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY) E(CL_PROFILING_INFO_NOT_AVAILABLE)
    E(CL_MEM_COPY_OVERLAP) E(CL_IMAGE_FORMAT_MISMATCH) E(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    E(CL_BUILD_PROGRAM_FAILURE) E(CL_MAP_FAILURE) E(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) E(CL_COMPILE_PROGRAM_FAILURE)
    E(CL_LINKER_NOT_AVAILABLE) E(CL_LINK_PROGRAM_FAILURE) E(CL_DEVICE_PARTITION_FAILED)
    E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) E(CL_INVALID_VALUE) E(CL_INVALID_DEVICE_TYPE)
    E(CL_INVALID_PLATFORM) E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT)
    E(CL_INVALID_QUEUE_PROPERTIES) E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_HOST_PTR)
    E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    E(CL_INVALID_IMAGE_SIZE) E(CL_INVALID_SAMPLER) E(CL_INVALID_BINARY)
    E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_PROGRAM) E(CL_INVALID_PROGRAM_EXECUTABLE)
    E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL_DEFINITION) E(CL_INVALID_KERNEL)
    E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
    E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION) E(CL_INVALID_WORK_GROUP_SIZE)
    E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_EVENT_WAIT_LIST)
    E(CL_INVALID_EVENT) E(CL_INVALID_OPERATION) E(CL_INVALID_GL_OBJECT)
    E(CL_INVALID_BUFFER_SIZE) E(CL_INVALID_MIP_LEVEL) E(CL_INVALID_GLOBAL_WORK_SIZE)
    E(CL_INVALID_PROPERTY) E(CL_INVALID_IMAGE_DESCRIPTOR) E(CL_INVALID_COMPILER_OPTIONS)
    E(CL_INVALID_LINKER_OPTIONS) E(CL_INVALID_DEVICE_PARTITION_COUNT)
    E(CL_PLATFORM_NOT_FOUND_KHR)
#undef E
    default: return "unknown OpenCL error";
  }
}

/* Error kind for a failed OpenCL call: resource exhaustion -> OutOfMemoryError. */
static const char* ocl_err_kind(cl_int e) {
  return (e == CL_MEM_OBJECT_ALLOCATION_FAILURE || e == CL_OUT_OF_RESOURCES ||
          e == CL_OUT_OF_HOST_MEMORY)
             ? "OutOfMemoryError"
             : "RuntimeError";
}

#define OCL_FAIL(what, e) \
  dh_error_set(ocl_err_kind(e), "%s failed: %s (%d)", (what), ocl_err_name(e), (int)(e))

/*===========================================================================
 * Global state
 *===========================================================================*/

typedef struct ocl_device {
  cl_platform_id platform;
  cl_device_id device;
  int platform_index, device_index;
  cl_context ctx;
  cl_command_queue default_queue;

  /* cached clGetDeviceInfo values (strings live until shutdown) */
  char name[256];
  char vendor[256];
  char version[256];        /* CL_DEVICE_VERSION, "OpenCL 3.0 PoCL ..." */
  char compute_version[32]; /* "3.0" */
  char driver_version[256];
  char thread_dims_json[96];
  char extensions_has_amd_query;
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

  /* bytes of live data space (PoCL overcommits: we refuse past global_mem_size) */
  size_t live_bytes;

  /* built-in kernels, built lazily once (kernel_lock) */
  pthread_mutex_t kernel_lock;
  int kernels_built; /* 1 ok, -1 failed */
  cl_program program;
  cl_kernel k_noop;
  cl_kernel k_fill;
} ocl_device_t;

static ocl_device_t* g_dev;
static int g_ndev;
static char g_reason[OCL_REASON_MAX];
static int g_inited;
/* Devices are probed at init (in a forked child) and opened on first real use. */
static int g_realized;      /* 0 not yet, 1 open in this process, -1 failed */
static int g_stale;         /* set in a fork() child of a process that had opened them */
static int g_atfork_registered;
static char g_realize_error[OCL_REASON_MAX];
static pthread_mutex_t g_realize_lock = PTHREAD_MUTEX_INITIALIZER;

/* current stream per thread per device (TVM SetStream/GetCurrentStream) */
static _Thread_local dh_stream_t tls_stream[OCL_MAX_DEVICES];
static _Thread_local int tls_device = 0; /* set_device; OpenCL has no current device */

/*===========================================================================
 * Handle registry: every pointer we hand out, so bad ones are errors not crashes
 *===========================================================================*/

typedef enum { H_BUFFER = 1, H_HOST = 2, H_STREAM = 3, H_EVENT = 4 } hkind_t;

typedef struct ocl_stream {
  cl_command_queue q;
  int dev;
} ocl_stream_t;

typedef struct ocl_event {
  cl_event ev; /* NULL until recorded */
  int dev;
} ocl_event_t;

typedef struct hentry {
  void* key;
  hkind_t kind;
  int dev;
  size_t size;  /* buffers, host blocks: bytes */
  cl_mem mem;   /* H_HOST: the backing CL_MEM_ALLOC_HOST_PTR buffer */
  struct hentry* next;
} hentry_t;

#define HBUCKETS 1024
static hentry_t* g_htab[HBUCKETS];
static pthread_mutex_t g_hlock = PTHREAD_MUTEX_INITIALIZER;

static size_t hhash(const void* p) {
  uintptr_t x = (uintptr_t)p;
  x ^= x >> 17;
  x *= 0x9E3779B97F4A7C15ull;
  return (size_t)(x >> 40) % HBUCKETS;
}

/* Adds an entry; -1 OutOfMemoryError. Caller does not hold the lock. */
static int hreg_add(void* key, hkind_t kind, int dev, size_t size, cl_mem mem) {
  hentry_t* e = calloc(1, sizeof *e);
  if (!e) return dh_error_set("OutOfMemoryError", "opencl: out of host memory for a handle");
  e->key = key; e->kind = kind; e->dev = dev; e->size = size; e->mem = mem;
  pthread_mutex_lock(&g_hlock);
  size_t b = hhash(key);
  e->next = g_htab[b];
  g_htab[b] = e;
  pthread_mutex_unlock(&g_hlock);
  return 0;
}

/* Looks up key of kind; copies the entry to *out. 1 found, 0 not. */
static int hreg_find(const void* key, hkind_t kind, hentry_t* out) {
  int found = 0;
  pthread_mutex_lock(&g_hlock);
  for (hentry_t* e = g_htab[hhash(key)]; e; e = e->next)
    if (e->key == key && e->kind == kind) {
      if (out) *out = *e;
      found = 1;
      break;
    }
  pthread_mutex_unlock(&g_hlock);
  return found;
}

/* Removes key of kind; copies it to *out. 1 removed, 0 not found. */
static int hreg_remove(const void* key, hkind_t kind, hentry_t* out) {
  int found = 0;
  pthread_mutex_lock(&g_hlock);
  for (hentry_t** pe = &g_htab[hhash(key)]; *pe; pe = &(*pe)->next) {
    hentry_t* e = *pe;
    if (e->key == key && e->kind == kind) {
      if (out) *out = *e;
      *pe = e->next;
      free(e);
      found = 1;
      break;
    }
  }
  pthread_mutex_unlock(&g_hlock);
  return found;
}

/*===========================================================================
 * Device validation helpers
 *===========================================================================*/

static int check_dev(DLDevice dev, const char* where) {
  if (dev.device_type != OCL_DEVICE_TYPE)
    return dh_error_set("ValueError", "opencl: %s: device type %d is not opencl (%d)", where,
                        (int)dev.device_type, OCL_DEVICE_TYPE);
  if (dev.device_id < 0 || dev.device_id >= g_ndev) {
    if (g_ndev == 0)
      return dh_error_set("IndexError", "opencl: %s: device id %d is invalid: no devices (%s)",
                          where, (int)dev.device_id, g_reason);
    return dh_error_set("IndexError", "opencl: %s: device id %d out of range [0, %d)", where,
                        (int)dev.device_id, g_ndev);
  }
  return 0;
}

/* Resolves a stream handle of device d to its queue (NULL -> default queue). */
static int ensure_realized(void);

static int resolve_queue(int d, dh_stream_t stream, const char* where, cl_command_queue* out) {
  if (ensure_realized() != 0) return dh_error_prefix("opencl:%d: %s", d, where);
  if (stream == NULL) {
    *out = g_dev[d].default_queue;
    return 0;
  }
  hentry_t e;
  if (!hreg_find(stream, H_STREAM, &e))
    return dh_error_set("ValueError", "opencl: %s: stream %p is not a live opencl stream",
                        where, stream);
  if (e.dev != d)
    return dh_error_set("ValueError", "opencl: %s: stream %p belongs to opencl:%d, not opencl:%d",
                        where, stream, e.dev, d);
  *out = ((ocl_stream_t*)stream)->q;
  return 0;
}

/*===========================================================================
 * Init / shutdown
 *===========================================================================*/

static int64_t dev_info_u64(cl_device_id d, cl_device_info p, size_t width) {
  if (width == sizeof(cl_ulong)) {
    cl_ulong v = 0;
    if (clGetDeviceInfo(d, p, sizeof v, &v, NULL) != CL_SUCCESS) return 0;
    return (int64_t)v;
  }
  if (width == sizeof(cl_uint)) {
    cl_uint v = 0;
    if (clGetDeviceInfo(d, p, sizeof v, &v, NULL) != CL_SUCCESS) return 0;
    return (int64_t)v;
  }
  size_t v = 0;
  if (clGetDeviceInfo(d, p, sizeof v, &v, NULL) != CL_SUCCESS) return 0;
  return (int64_t)v;
}

static void dev_info_str(cl_device_id d, cl_device_info p, char* buf, size_t n) {
  buf[0] = '\0';
  if (clGetDeviceInfo(d, p, n - 1, buf, NULL) != CL_SUCCESS) {
    /* too long for buf: fetch all and truncate */
    size_t need = 0;
    if (clGetDeviceInfo(d, p, 0, NULL, &need) == CL_SUCCESS && need > 0) {
      char* tmp = malloc(need + 1);
      if (tmp && clGetDeviceInfo(d, p, need, tmp, NULL) == CL_SUCCESS) {
        tmp[need] = '\0';
        snprintf(buf, n, "%s", tmp);
      }
      free(tmp);
    }
  }
  buf[n - 1] = '\0';
  /* trim trailing spaces (some drivers pad names) */
  size_t len = strlen(buf);
  while (len > 0 && buf[len - 1] == ' ') buf[--len] = '\0';
}

static void fill_device_info(ocl_device_t* od) {
  cl_device_id d = od->device;
  dev_info_str(d, CL_DEVICE_NAME, od->name, sizeof od->name);
  dev_info_str(d, CL_DEVICE_VENDOR, od->vendor, sizeof od->vendor);
  dev_info_str(d, CL_DEVICE_VERSION, od->version, sizeof od->version);
  dev_info_str(d, CL_DRIVER_VERSION, od->driver_version, sizeof od->driver_version);
  /* "OpenCL <major>.<minor> <vendor info>" -> "<major>.<minor>" (TVM kComputeVersion) */
  const char* v = od->version;
  if (strncmp(v, "OpenCL ", 7) == 0) v += 7;
  size_t n = strcspn(v, " ");
  if (n >= sizeof od->compute_version) n = sizeof od->compute_version - 1;
  memcpy(od->compute_version, v, n);
  od->compute_version[n] = '\0';
  od->version_major = od->version_minor = 0;
  if (sscanf(od->compute_version, "%d.%d", &od->version_major, &od->version_minor) != 2)
    od->version_major = od->version_minor = 0;

  od->max_work_group_size = dev_info_u64(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(size_t));
  od->local_mem_size = dev_info_u64(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(cl_ulong));
  od->compute_units = dev_info_u64(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cl_uint));
  od->max_clock_mhz = dev_info_u64(d, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof(cl_uint));
  od->global_mem_size = dev_info_u64(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(cl_ulong));
  od->global_mem_cache_size = dev_info_u64(d, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof(cl_ulong));
  od->max_mem_alloc_size = dev_info_u64(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(cl_ulong));
  od->mem_base_addr_align_bits = dev_info_u64(d, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(cl_uint));

  /* work-item sizes: JSON of 3 positive ints (dimensions past the device's are 1) */
  size_t sizes[3] = {1, 1, 1};
  cl_uint dims = (cl_uint)dev_info_u64(d, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof(cl_uint));
  if (dims >= 1) {
    size_t* all = calloc(dims, sizeof(size_t));
    if (all && clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, dims * sizeof(size_t), all,
                               NULL) == CL_SUCCESS)
      for (cl_uint i = 0; i < dims && i < 3; ++i) sizes[i] = all[i] ? all[i] : 1;
    free(all);
  }
  snprintf(od->thread_dims_json, sizeof od->thread_dims_json, "[%zu, %zu, %zu]", sizes[0],
           sizes[1], sizes[2]);

  /* extensions that tell us more */
  size_t ext_len = 0;
  od->extensions_has_amd_query = 0;
  int has_img_from_buf = 0;
  if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_len) == CL_SUCCESS && ext_len) {
    char* ext = malloc(ext_len + 1);
    if (ext && clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, ext_len, ext, NULL) == CL_SUCCESS) {
      ext[ext_len] = '\0';
      od->extensions_has_amd_query = strstr(ext, "cl_amd_device_attribute_query") != NULL;
      has_img_from_buf = strstr(ext, "cl_khr_image2d_from_buffer") != NULL;
    }
    free(ext);
  }
  od->image_pitch_alignment = 0;
  if (od->version_major >= 2 || has_img_from_buf)
    od->image_pitch_alignment = dev_info_u64(d, CL_DEVICE_IMAGE_PITCH_ALIGNMENT, sizeof(cl_uint));
}

/* Releases the OpenCL objects of a realised device (not its cached info). */
static void release_device(ocl_device_t* od) {
  if (od->k_noop) clReleaseKernel(od->k_noop);
  if (od->k_fill) clReleaseKernel(od->k_fill);
  if (od->program) clReleaseProgram(od->program);
  if (od->default_queue) {
    clFinish(od->default_queue);
    clReleaseCommandQueue(od->default_queue);
  }
  if (od->ctx) clReleaseContext(od->ctx);
  od->k_noop = od->k_fill = NULL;
  od->program = NULL;
  od->default_queue = NULL;
  od->ctx = NULL;
  od->kernels_built = 0;
}

/* Enumerates platforms and devices in this process and caches their info (no
 * contexts). On no platform/device: *out_n = 0 and reason set. -1 only on OOM. */
static int probe_in_process(ocl_device_t** out_dev, int* out_n, char* reason, size_t rsz) {
  *out_dev = NULL;
  *out_n = 0;
  reason[0] = '\0';
  cl_uint nplat = 0;
  cl_int err = clGetPlatformIDs(0, NULL, &nplat);
  if (err != CL_SUCCESS || nplat == 0) {
    snprintf(reason, rsz, "no OpenCL platform (clGetPlatformIDs: %s)",
             err != CL_SUCCESS ? ocl_err_name(err) : "0 platforms");
    return 0;
  }
  cl_platform_id* plats = calloc(nplat, sizeof *plats);
  if (!plats) return dh_error_set("OutOfMemoryError", "opencl: init: out of host memory");
  err = clGetPlatformIDs(nplat, plats, NULL);
  if (err != CL_SUCCESS) {
    free(plats);
    snprintf(reason, rsz, "no OpenCL platform (clGetPlatformIDs: %s)", ocl_err_name(err));
    return 0;
  }
  cl_uint total = 0;
  cl_int last_dev_err = CL_SUCCESS;
  for (cl_uint p = 0; p < nplat; ++p) {
    cl_uint nd = 0;
    cl_int e = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
    if (e != CL_SUCCESS) { last_dev_err = e; nd = 0; }
    total += nd;
  }
  if (total == 0) {
    snprintf(reason, rsz, "no OpenCL device on %u platform(s) (clGetDeviceIDs: %s)", nplat,
             last_dev_err != CL_SUCCESS ? ocl_err_name(last_dev_err) : "0 devices");
    free(plats);
    return 0;
  }
  if (total > OCL_MAX_DEVICES) total = OCL_MAX_DEVICES;
  ocl_device_t* devs = calloc(total, sizeof *devs);
  if (!devs) {
    free(plats);
    return dh_error_set("OutOfMemoryError", "opencl: init: out of host memory");
  }
  int n = 0;
  for (cl_uint p = 0; p < nplat && n < (int)total; ++p) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS || nd == 0)
      continue;
    cl_device_id* ids = calloc(nd, sizeof *ids);
    if (!ids || clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, ids, NULL) != CL_SUCCESS) {
      free(ids);
      continue;
    }
    for (cl_uint i = 0; i < nd && n < (int)total; ++i) {
      ocl_device_t* od = &devs[n++];
      od->platform = plats[p];
      od->device = ids[i];
      od->platform_index = (int)p;
      od->device_index = (int)i;
      fill_device_info(od);
    }
    free(ids);
  }
  free(plats);
  *out_dev = devs;
  *out_n = n;
  return 0;
}

/* Reads exactly n bytes from fd within the deadline (ms since start). 0 ok, -1 not. */
static int read_full(int fd, void* buf, size_t n, int timeout_ms) {
  char* p = buf;
  while (n > 0) {
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    int r = poll(&pfd, 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    ssize_t got = read(fd, p, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return -1;
    p += got;
    n -= (size_t)got;
  }
  return 0;
}

static int write_full(int fd, const void* buf, size_t n) {
  const char* p = buf;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Enumerates in a forked child, so this process never starts the driver (PoCL's
 * pthread device starts worker threads in clGetPlatformIDs; they do not survive a later
 * fork(), and the conformance runner forks after init). 0: done (devices, or none and
 * `reason` says why, including a driver that crashed or hung in the child); -1: no
 * child could be started (the caller then probes in process). */
static int probe_in_child(ocl_device_t** out_dev, int* out_n, char* reason, size_t rsz) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    close(fds[0]);
    ocl_device_t* devs = NULL;
    int n = 0;
    char why[OCL_REASON_MAX];
    memset(why, 0, sizeof why);
    int rc = probe_in_process(&devs, &n, why, sizeof why);
    int32_t hdr[2] = {rc == 0 ? 0 : -1, n};
    if (write_full(fds[1], hdr, sizeof hdr) == 0 && write_full(fds[1], why, sizeof why) == 0)
      write_full(fds[1], devs, (size_t)n * sizeof *devs);
    _exit(0); /* no atexit handlers, no driver teardown */
  }
  close(fds[1]);
  int32_t hdr[2] = {-1, 0};
  char why[OCL_REASON_MAX] = "";
  ocl_device_t* devs = NULL;
  int ok = read_full(fds[0], hdr, sizeof hdr, 20000) == 0 && hdr[0] == 0 && hdr[1] >= 0 &&
           hdr[1] <= OCL_MAX_DEVICES && read_full(fds[0], why, sizeof why, 20000) == 0;
  if (ok && hdr[1] > 0) {
    devs = calloc((size_t)hdr[1], sizeof *devs);
    ok = devs && read_full(fds[0], devs, (size_t)hdr[1] * sizeof *devs, 20000) == 0;
  }
  close(fds[0]);
  if (!ok) kill(pid, SIGKILL);
  int st = 0;
  pid_t w;
  while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR) {
  }
  if (!ok) {
    free(devs);
    /* the driver crashed or hung while enumerating: doing it again in this process
     * would crash or hang the caller too, so the backend has no devices */
    if (w == pid && WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL)
      snprintf(reason, rsz, "OpenCL driver crashed while enumerating devices (signal %d in "
               "clGetPlatformIDs/clGetDeviceInfo)", WTERMSIG(st));
    else if (w == pid && WIFSIGNALED(st))
      snprintf(reason, rsz, "OpenCL driver hung while enumerating devices (no answer in 20 s)");
    else
      snprintf(reason, rsz, "OpenCL device probe failed (exit status %d)",
               w == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    *out_dev = NULL;
    *out_n = 0;
    return 0;
  }
  why[sizeof why - 1] = '\0';
  /* handles from the child mean nothing here */
  for (int i = 0; i < hdr[1]; ++i) {
    devs[i].platform = NULL;
    devs[i].device = NULL;
  }
  *out_dev = devs;
  *out_n = hdr[1];
  snprintf(reason, rsz, "%s", why);
  return 0;
}

static void atfork_child(void) {
  if (__atomic_load_n(&g_realized, __ATOMIC_ACQUIRE) == 1) g_stale = 1;
}

static int ocl_init(void) {
  if (g_inited) return 0;
  g_ndev = 0;
  g_reason[0] = '\0';
  g_realize_error[0] = '\0';
  g_realized = 0;
  g_stale = 0;
  const char* mode = getenv("DEVHARNESS_OPENCL_PROBE");
  int in_process = mode && !strcmp(mode, "inprocess");
  int rc = -1;
  if (!in_process) rc = probe_in_child(&g_dev, &g_ndev, g_reason, sizeof g_reason);
  if (rc != 0 && probe_in_process(&g_dev, &g_ndev, g_reason, sizeof g_reason) != 0) return -1;
  for (int i = 0; i < g_ndev; ++i) pthread_mutex_init(&g_dev[i].kernel_lock, NULL);
  if (!g_atfork_registered) {
    pthread_atfork(NULL, NULL, atfork_child);
    g_atfork_registered = 1;
  }
  g_inited = 1;
  return 0;
}

/* Creates contexts and default queues on first real use, in this process. Matches the
 * probed devices by (platform index, device index) and name. */
static int realize_locked(void) {
  cl_uint nplat = 0;
  cl_int e = clGetPlatformIDs(0, NULL, &nplat);
  if (e != CL_SUCCESS || nplat == 0) {
    snprintf(g_realize_error, sizeof g_realize_error,
             "clGetPlatformIDs failed at first use: %s", ocl_err_name(e));
    return -1;
  }
  cl_platform_id* plats = calloc(nplat, sizeof *plats);
  if (!plats || clGetPlatformIDs(nplat, plats, NULL) != CL_SUCCESS) {
    free(plats);
    snprintf(g_realize_error, sizeof g_realize_error, "clGetPlatformIDs failed at first use");
    return -1;
  }
  int rc = 0;
  for (int i = 0; i < g_ndev && rc == 0; ++i) {
    ocl_device_t* od = &g_dev[i];
    cl_uint nd = 0;
    cl_device_id* ids = NULL;
    if ((cl_uint)od->platform_index >= nplat ||
        clGetDeviceIDs(plats[od->platform_index], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) !=
            CL_SUCCESS ||
        (cl_uint)od->device_index >= nd || !(ids = calloc(nd, sizeof *ids)) ||
        clGetDeviceIDs(plats[od->platform_index], CL_DEVICE_TYPE_ALL, nd, ids, NULL) !=
            CL_SUCCESS) {
      free(ids);
      snprintf(g_realize_error, sizeof g_realize_error,
               "opencl:%d (platform %d device %d) is gone at first use", i, od->platform_index,
               od->device_index);
      rc = -1;
      break;
    }
    od->platform = plats[od->platform_index];
    od->device = ids[od->device_index];
    free(ids);
    char name[256];
    dev_info_str(od->device, CL_DEVICE_NAME, name, sizeof name);
    if (strcmp(name, od->name) != 0) {
      snprintf(g_realize_error, sizeof g_realize_error,
               "opencl:%d changed between init and first use: '%.60s' became '%.60s'", i,
               od->name, name);
      rc = -1;
      break;
    }
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)od->platform, 0};
    od->ctx = clCreateContext(props, 1, &od->device, NULL, NULL, &e);
    if (e != CL_SUCCESS || !od->ctx) {
      od->ctx = NULL;
      snprintf(g_realize_error, sizeof g_realize_error, "opencl:%d: clCreateContext: %s", i,
               ocl_err_name(e));
      rc = -1;
      break;
    }
    od->default_queue = clCreateCommandQueue(od->ctx, od->device, CL_QUEUE_PROFILING_ENABLE, &e);
    if (e != CL_SUCCESS || !od->default_queue) {
      od->default_queue = NULL;
      snprintf(g_realize_error, sizeof g_realize_error, "opencl:%d: clCreateCommandQueue: %s", i,
               ocl_err_name(e));
      rc = -1;
      break;
    }
  }
  free(plats);
  if (rc != 0)
    for (int i = 0; i < g_ndev; ++i) release_device(&g_dev[i]);
  return rc;
}

/* Fast path: one load. 0 when the devices are usable in this process. */
static int ensure_realized(void) {
  if (__atomic_load_n(&g_realized, __ATOMIC_ACQUIRE) == 1 && !g_stale) return 0;
  if (g_stale)
    return dh_error_set("RuntimeError",
                        "opencl: the OpenCL driver was started in a parent process before "
                        "fork(); its worker threads do not exist in this child, so OpenCL "
                        "cannot be used here (initialise after fork)");
  pthread_mutex_lock(&g_realize_lock);
  int st = g_realized;
  if (st == 0) {
    st = realize_locked() == 0 ? 1 : -1;
    __atomic_store_n(&g_realized, st, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&g_realize_lock);
  if (st == 1) return 0;
  return dh_error_set("RuntimeError", "opencl: cannot open the devices: %s", g_realize_error);
}

static void ocl_shutdown(void) {
  int live = g_realized == 1 && !g_stale;
  /* free whatever the callers leaked (OpenCL objects only when they belong to us) */
  pthread_mutex_lock(&g_hlock);
  for (size_t b = 0; b < HBUCKETS; ++b) {
    hentry_t* e = g_htab[b];
    while (e) {
      hentry_t* n = e->next;
      switch (e->kind) {
        case H_BUFFER:
          if (live) clReleaseMemObject((cl_mem)e->key);
          break;
        case H_HOST:
          if (live) {
            clEnqueueUnmapMemObject(g_dev[e->dev].default_queue, e->mem, e->key, 0, NULL, NULL);
            clFinish(g_dev[e->dev].default_queue);
            clReleaseMemObject(e->mem);
          }
          break;
        case H_STREAM: {
          ocl_stream_t* s = e->key;
          if (live) {
            clFinish(s->q);
            clReleaseCommandQueue(s->q);
          }
          free(s);
          break;
        }
        case H_EVENT: {
          ocl_event_t* ev = e->key;
          if (live && ev->ev) clReleaseEvent(ev->ev);
          free(ev);
          break;
        }
      }
      free(e);
      e = n;
    }
    g_htab[b] = NULL;
  }
  pthread_mutex_unlock(&g_hlock);
  for (int i = 0; i < g_ndev; ++i) {
    if (live) release_device(&g_dev[i]);
    pthread_mutex_destroy(&g_dev[i].kernel_lock);
  }
  free(g_dev);
  g_dev = NULL;
  g_ndev = 0;
  g_realized = 0;
  g_inited = 0;
}

static const char* ocl_unavailable_reason(void) {
  return g_ndev > 0 ? NULL : (g_reason[0] ? g_reason : "OpenCL backend not initialised");
}

/*===========================================================================
 * Attributes (TVM OpenCLWorkspace::GetAttr)
 *===========================================================================*/

static int ocl_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (!out) return dh_error_set("ValueError", "opencl: get_attr: out_value is NULL");
  *out = dh_any_none();
  if (kind == DH_ATTR_EXIST) {
    int ok = dev.device_type == OCL_DEVICE_TYPE && dev.device_id >= 0 && dev.device_id < g_ndev;
    *out = dh_any_int(ok ? 1 : 0);
    return 0;
  }
  if (kind < 0 || kind >= DH_ATTR_KIND_COUNT)
    return dh_error_set("ValueError", "opencl: get_attr: unknown attribute kind %d (valid 0..%d)",
                        (int)kind, DH_ATTR_KIND_COUNT - 1);
  if (check_dev(dev, "get_attr") != 0) return -1;
  ocl_device_t* od = &g_dev[dev.device_id];
  switch ((dh_attr_kind_t)kind) {
    case DH_ATTR_MAX_THREADS_PER_BLOCK: *out = dh_any_int(od->max_work_group_size); break;
    case DH_ATTR_WARP_SIZE: *out = dh_any_int(1); break; /* TVM: 1 by default */
    case DH_ATTR_MAX_SHARED_MEMORY_PER_BLOCK: *out = dh_any_int(od->local_mem_size); break;
    case DH_ATTR_COMPUTE_VERSION:
      if (od->compute_version[0]) *out = dh_any_str(od->compute_version);
      break;
    case DH_ATTR_DEVICE_NAME: *out = dh_any_str(od->name); break;
    case DH_ATTR_MAX_CLOCK_RATE: /* MHz -> kHz; None when the device says 0 */
      if (od->max_clock_mhz > 0) *out = dh_any_int(od->max_clock_mhz * 1000);
      break;
    case DH_ATTR_MULTI_PROCESSOR_COUNT: *out = dh_any_int(od->compute_units); break;
    case DH_ATTR_MAX_THREAD_DIMENSIONS: *out = dh_any_str(od->thread_dims_json); break;
    case DH_ATTR_MAX_REGISTERS_PER_BLOCK: break; /* None: OpenCL has no such query */
    case DH_ATTR_GCN_ARCH: break;                /* None: ROCm only */
    case DH_ATTR_API_VERSION: *out = dh_any_int(CL_TARGET_OPENCL_VERSION); break;
    case DH_ATTR_DRIVER_VERSION: *out = dh_any_str(od->driver_version); break;
    case DH_ATTR_L2_CACHE_SIZE_BYTES:
      if (od->global_mem_cache_size > 0) *out = dh_any_int(od->global_mem_cache_size);
      break;
    case DH_ATTR_TOTAL_GLOBAL_MEMORY: *out = dh_any_int(od->global_mem_size); break;
    case DH_ATTR_AVAILABLE_GLOBAL_MEMORY:
      if (od->extensions_has_amd_query && ensure_realized() == 0) {
        size_t free_kb[2] = {0, 0};
        if (clGetDeviceInfo(od->device, CL_DEVICE_GLOBAL_FREE_MEMORY_AMD, sizeof free_kb,
                            free_kb, NULL) == CL_SUCCESS) {
          int64_t avail = (int64_t)free_kb[0] * 1024;
          if (avail > od->global_mem_size) avail = od->global_mem_size;
          *out = dh_any_int(avail);
        }
      }
      break; /* else None: core OpenCL cannot tell */
    case DH_ATTR_IMAGE_PITCH_ALIGNMENT:
      if (od->image_pitch_alignment > 0) *out = dh_any_int(od->image_pitch_alignment);
      break;
    default: break;
  }
  return 0;
}

/* opencl target kind options (common.md; FACTS.md §2). None for what we cannot tell. */
static int ocl_get_target_property(DLDevice dev, const char* name, dh_any_t* out) {
  if (!out) return dh_error_set("ValueError", "opencl: get_target_property: out_value is NULL");
  *out = dh_any_none();
  if (!name) return dh_error_set("ValueError", "opencl: get_target_property: name is NULL");
  if (check_dev(dev, "get_target_property") != 0) return -1;
  ocl_device_t* od = &g_dev[dev.device_id];
  if (!strcmp(name, "kind")) *out = dh_any_str("opencl");
  else if (!strcmp(name, "max_num_threads")) *out = dh_any_int(od->max_work_group_size);
  else if (!strcmp(name, "thread_warp_size")) *out = dh_any_int(1);
  else if (!strcmp(name, "max_shared_memory_per_block")) *out = dh_any_int(od->local_mem_size);
  else if (!strcmp(name, "device_name")) *out = dh_any_str(od->name);
  else if (!strcmp(name, "compute_units")) *out = dh_any_int(od->compute_units);
  else if (!strcmp(name, "global_memory_bytes")) *out = dh_any_int(od->global_mem_size);
  else if (!strcmp(name, "opencl_version")) {
    if (od->compute_version[0]) *out = dh_any_str(od->compute_version);
  } else if (!strcmp(name, "driver_version")) *out = dh_any_str(od->driver_version);
  else if (!strcmp(name, "max_clock_rate_khz")) {
    if (od->max_clock_mhz > 0) *out = dh_any_int(od->max_clock_mhz * 1000);
  }
  return 0;
}

static int ocl_set_device(DLDevice dev) {
  if (check_dev(dev, "set_device") != 0) return -1;
  tls_device = dev.device_id;
  return 0;
}

/*===========================================================================
 * Memory
 *===========================================================================*/

static int alloc_buffer(DLDevice dev, size_t nbytes, size_t alignment, const char* where,
                        void** out_ptr) {
  if (!out_ptr) return dh_error_set("ValueError", "opencl: %s: out_ptr is NULL", where);
  *out_ptr = NULL;
  if (check_dev(dev, where) != 0) return -1;
  if (alignment != 0 && (alignment & (alignment - 1)) != 0)
    return dh_error_set("ValueError", "opencl: %s: alignment %zu is not a power of two", where,
                        alignment);
  if (nbytes == 0) return 0; /* documented: zero bytes -> NULL, freeing NULL is a no-op */
  if (ensure_realized() != 0) return dh_error_prefix("opencl:%d: %s", dev.device_id, where);
  ocl_device_t* od = &g_dev[dev.device_id];
  /* alignment: cl_mem handles are opaque; the device aligns every buffer to
   * CL_DEVICE_MEM_BASE_ADDR_ALIGN (PoCL: 128 bytes) and no host address exists to check. */
  if ((int64_t)nbytes < 0 || (int64_t)nbytes > od->max_mem_alloc_size)
    return dh_error_set("OutOfMemoryError",
                        "opencl:%d: %s: %zu bytes exceed CL_DEVICE_MAX_MEM_ALLOC_SIZE (%" PRId64
                        " bytes)",
                        dev.device_id, where, nbytes, od->max_mem_alloc_size);
  pthread_mutex_lock(&g_hlock);
  int over = (int64_t)(od->live_bytes + nbytes) > od->global_mem_size;
  if (!over) od->live_bytes += nbytes;
  size_t live = od->live_bytes;
  pthread_mutex_unlock(&g_hlock);
  if (over)
    return dh_error_set("OutOfMemoryError",
                        "opencl:%d: %s: %zu bytes do not fit: %zu bytes live of "
                        "CL_DEVICE_GLOBAL_MEM_SIZE %" PRId64 " bytes",
                        dev.device_id, where, nbytes, live, od->global_mem_size);
  cl_int e = CL_SUCCESS;
  cl_mem m = clCreateBuffer(od->ctx, CL_MEM_READ_WRITE, nbytes, NULL, &e);
  if (e != CL_SUCCESS || !m) {
    pthread_mutex_lock(&g_hlock);
    od->live_bytes -= nbytes;
    pthread_mutex_unlock(&g_hlock);
    if (e == CL_INVALID_BUFFER_SIZE) e = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return OCL_FAIL("clCreateBuffer", e);
  }
  if (hreg_add(m, H_BUFFER, dev.device_id, nbytes, NULL) != 0) {
    clReleaseMemObject(m);
    pthread_mutex_lock(&g_hlock);
    od->live_bytes -= nbytes;
    pthread_mutex_unlock(&g_hlock);
    return -1;
  }
  *out_ptr = m;
  return 0;
}

static int free_buffer(DLDevice dev, void* ptr, const char* where) {
  if (check_dev(dev, where) != 0) return -1;
  if (!ptr) return 0;
  if (ensure_realized() != 0) return dh_error_prefix("opencl:%d: %s", dev.device_id, where);
  hentry_t e;
  if (!hreg_find(ptr, H_BUFFER, &e))
    return dh_error_set("ValueError", "opencl:%d: %s: %p is not a live opencl buffer",
                        dev.device_id, where, ptr);
  if (e.dev != dev.device_id)
    return dh_error_set("ValueError", "opencl:%d: %s: buffer %p belongs to opencl:%d",
                        dev.device_id, where, ptr, e.dev);
  if (!hreg_remove(ptr, H_BUFFER, &e))
    return dh_error_set("ValueError", "opencl:%d: %s: %p was freed concurrently",
                        dev.device_id, where, ptr);
  pthread_mutex_lock(&g_hlock);
  g_dev[e.dev].live_bytes -= e.size;
  pthread_mutex_unlock(&g_hlock);
  /* OpenCL keeps the object alive until enqueued commands using it are done. */
  cl_int err = clReleaseMemObject((cl_mem)ptr);
  if (err != CL_SUCCESS) return OCL_FAIL("clReleaseMemObject", err);
  return 0;
}

static int ocl_alloc_data_space(DLDevice dev, size_t nbytes, size_t alignment,
                                DLDataType type_hint, void** out_ptr) {
  (void)type_hint;
  return alloc_buffer(dev, nbytes, alignment, "alloc_data_space", out_ptr);
}

static int ocl_free_data_space(DLDevice dev, void* ptr) {
  return free_buffer(dev, ptr, "free_data_space");
}

static int ocl_alloc_workspace(DLDevice dev, size_t nbytes, DLDataType type_hint, void** out) {
  (void)type_hint;
  return alloc_buffer(dev, nbytes, DH_TEMP_ALLOC_ALIGNMENT, "alloc_workspace", out);
}

static int ocl_free_workspace(DLDevice dev, void* ptr) {
  return free_buffer(dev, ptr, "free_workspace");
}

/* Pinned host memory: a CL_MEM_ALLOC_HOST_PTR buffer mapped for read/write. */
static int ocl_alloc_host(DLDevice dev, size_t nbytes, void** out_ptr) {
  if (!out_ptr) return dh_error_set("ValueError", "opencl: alloc_host: out_ptr is NULL");
  *out_ptr = NULL;
  if (check_dev(dev, "alloc_host") != 0) return -1;
  if (nbytes == 0) return 0;
  if (ensure_realized() != 0) return dh_error_prefix("opencl:%d: alloc_host", dev.device_id);
  ocl_device_t* od = &g_dev[dev.device_id];
  if ((int64_t)nbytes < 0 || (int64_t)nbytes > od->max_mem_alloc_size)
    return dh_error_set("OutOfMemoryError",
                        "opencl:%d: alloc_host: %zu bytes exceed CL_DEVICE_MAX_MEM_ALLOC_SIZE "
                        "(%" PRId64 " bytes)",
                        dev.device_id, nbytes, od->max_mem_alloc_size);
  cl_int e = CL_SUCCESS;
  cl_mem m = clCreateBuffer(od->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, nbytes, NULL, &e);
  if (e != CL_SUCCESS || !m) return OCL_FAIL("clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)", e);
  void* p = clEnqueueMapBuffer(od->default_queue, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                               nbytes, 0, NULL, NULL, &e);
  if (e != CL_SUCCESS || !p) {
    clReleaseMemObject(m);
    return OCL_FAIL("clEnqueueMapBuffer", e);
  }
  if (hreg_add(p, H_HOST, dev.device_id, nbytes, m) != 0) {
    clEnqueueUnmapMemObject(od->default_queue, m, p, 0, NULL, NULL);
    clFinish(od->default_queue);
    clReleaseMemObject(m);
    return -1;
  }
  *out_ptr = p;
  return 0;
}

static int ocl_free_host(DLDevice dev, void* ptr) {
  if (check_dev(dev, "free_host") != 0) return -1;
  if (!ptr) return 0;
  if (ensure_realized() != 0) return dh_error_prefix("opencl:%d: free_host", dev.device_id);
  hentry_t e;
  if (!hreg_remove(ptr, H_HOST, &e))
    return dh_error_set("ValueError", "opencl:%d: free_host: %p is not pinned memory from "
                        "alloc_host", dev.device_id, ptr);
  cl_command_queue q = g_dev[e.dev].default_queue;
  cl_int err = clEnqueueUnmapMemObject(q, e.mem, ptr, 0, NULL, NULL);
  if (err == CL_SUCCESS) err = clFinish(q);
  clReleaseMemObject(e.mem);
  if (err != CL_SUCCESS) return OCL_FAIL("clEnqueueUnmapMemObject", err);
  return 0;
}

/*===========================================================================
 * Copies
 *===========================================================================*/

/* Checks that [off, off+n) lies inside live buffer `buf` of device d. */
static int check_range(void* buf, int d, size_t off, size_t n, const char* side) {
  hentry_t e;
  if (!buf)
    return dh_error_set("ValueError", "opencl:%d: copy_data_from_to: %s is NULL", d, side);
  if (!hreg_find(buf, H_BUFFER, &e))
    return dh_error_set("ValueError",
                        "opencl:%d: copy_data_from_to: %s %p is not a live opencl buffer", d,
                        side, buf);
  if (e.dev != d)
    return dh_error_set("ValueError",
                        "opencl:%d: copy_data_from_to: %s buffer %p belongs to opencl:%d", d,
                        side, buf, e.dev);
  if (off > e.size || n > e.size - off)
    return dh_error_set("ValueError",
                        "opencl:%d: copy_data_from_to: %s range [%zu, %zu) exceeds the buffer "
                        "of %zu bytes",
                        d, side, off, off + n, e.size);
  return 0;
}

static int ocl_copy(const void* from, size_t from_offset, void* to, size_t to_offset,
                    size_t nbytes, DLDevice dev_from, DLDevice dev_to, DLDataType type_hint,
                    dh_stream_t stream) {
  (void)type_hint;
  int from_cl = dev_from.device_type == OCL_DEVICE_TYPE;
  int to_cl = dev_to.device_type == OCL_DEVICE_TYPE;
  if (from_cl && check_dev(dev_from, "copy_data_from_to") != 0) return -1;
  if (to_cl && check_dev(dev_to, "copy_data_from_to") != 0) return -1;
  if (!from_cl && dev_from.device_type != kDLCPU && dev_from.device_type != kDLCUDAHost)
    return dh_error_set("ValueError", "opencl: copy_data_from_to: source device type %d is "
                        "neither opencl nor host", (int)dev_from.device_type);
  if (!to_cl && dev_to.device_type != kDLCPU && dev_to.device_type != kDLCUDAHost)
    return dh_error_set("ValueError", "opencl: copy_data_from_to: destination device type %d "
                        "is neither opencl nor host", (int)dev_to.device_type);
  if (!from_cl && !to_cl) {
    if (nbytes == 0) return 0;
    if (!from || !to)
      return dh_error_set("ValueError", "opencl: copy_data_from_to: NULL host pointer");
    memmove((char*)to + to_offset, (const char*)from + from_offset, nbytes);
    return 0;
  }
  /* the stream belongs to the OpenCL side (the destination for D2D) */
  int sd = to_cl ? dev_to.device_id : dev_from.device_id;
  cl_command_queue q;
  if (resolve_queue(sd, stream, "copy_data_from_to", &q) != 0) return -1;
  if (nbytes == 0) return 0; /* no-op, even on the NULL handle of a zero-byte allocation */
  if (from_cl && check_range((void*)from, dev_from.device_id, from_offset, nbytes, "source") != 0)
    return -1;
  if (to_cl && check_range(to, dev_to.device_id, to_offset, nbytes, "destination") != 0)
    return -1;
  cl_int e;
  if (!from_cl) { /* H2D: blocking, so the host source is consumed when we return */
    if (!from) return dh_error_set("ValueError", "opencl: copy_data_from_to: source is NULL");
    e = clEnqueueWriteBuffer(q, (cl_mem)to, CL_TRUE, to_offset, nbytes,
                             (const char*)from + from_offset, 0, NULL, NULL);
    if (e != CL_SUCCESS) return OCL_FAIL("clEnqueueWriteBuffer", e);
    return 0;
  }
  if (!to_cl) { /* D2H: queued; the host destination is valid after stream_sync */
    if (!to) return dh_error_set("ValueError", "opencl: copy_data_from_to: destination is NULL");
    e = clEnqueueReadBuffer(q, (cl_mem)from, CL_FALSE, from_offset, nbytes,
                            (char*)to + to_offset, 0, NULL, NULL);
    if (e != CL_SUCCESS) return OCL_FAIL("clEnqueueReadBuffer", e);
    clFlush(q);
    return 0;
  }
  /* D2D */
  if (dev_from.device_id != dev_to.device_id) {
    /* different contexts: through host memory, blocking on both queues */
    void* tmp = malloc(nbytes);
    if (!tmp) return dh_error_set("OutOfMemoryError", "opencl: copy_data_from_to: no host "
                                  "memory for a %zu-byte staging buffer", nbytes);
    cl_command_queue sq = g_dev[dev_from.device_id].default_queue;
    e = clEnqueueReadBuffer(sq, (cl_mem)from, CL_TRUE, from_offset, nbytes, tmp, 0, NULL, NULL);
    if (e == CL_SUCCESS)
      e = clEnqueueWriteBuffer(q, (cl_mem)to, CL_TRUE, to_offset, nbytes, tmp, 0, NULL, NULL);
    free(tmp);
    if (e != CL_SUCCESS) return OCL_FAIL("cross-device copy", e);
    return 0;
  }
  if (from == to && from_offset < to_offset + nbytes && to_offset < from_offset + nbytes) {
    if (from_offset == to_offset) return 0;
    /* overlapping ranges of one buffer (CL_MEM_COPY_OVERLAP): via a temporary buffer */
    cl_mem tmp = clCreateBuffer(g_dev[sd].ctx, CL_MEM_READ_WRITE, nbytes, NULL, &e);
    if (e != CL_SUCCESS || !tmp) return OCL_FAIL("clCreateBuffer(temporary)", e);
    e = clEnqueueCopyBuffer(q, (cl_mem)from, tmp, from_offset, 0, nbytes, 0, NULL, NULL);
    if (e == CL_SUCCESS)
      e = clEnqueueCopyBuffer(q, tmp, (cl_mem)to, 0, to_offset, nbytes, 0, NULL, NULL);
    clReleaseMemObject(tmp); /* freed by OpenCL once the copies are done */
    if (e != CL_SUCCESS) return OCL_FAIL("clEnqueueCopyBuffer", e);
    clFlush(q);
    return 0;
  }
  e = clEnqueueCopyBuffer(q, (cl_mem)from, (cl_mem)to, from_offset, to_offset, nbytes, 0, NULL,
                          NULL);
  if (e != CL_SUCCESS) return OCL_FAIL("clEnqueueCopyBuffer", e);
  clFlush(q);
  return 0;
}

/*===========================================================================
 * Streams
 *===========================================================================*/

static int ocl_create_stream(DLDevice dev, dh_stream_t* out) {
  if (!out) return dh_error_set("ValueError", "opencl: create_stream: out_stream is NULL");
  *out = NULL;
  if (check_dev(dev, "create_stream") != 0) return -1;
  if (ensure_realized() != 0) return dh_error_prefix("opencl:%d: create_stream", dev.device_id);
  ocl_device_t* od = &g_dev[dev.device_id];
  ocl_stream_t* s = calloc(1, sizeof *s);
  if (!s) return dh_error_set("OutOfMemoryError", "opencl: create_stream: out of host memory");
  cl_int e = CL_SUCCESS;
  s->q = clCreateCommandQueue(od->ctx, od->device, CL_QUEUE_PROFILING_ENABLE, &e);
  s->dev = dev.device_id;
  if (e != CL_SUCCESS || !s->q) {
    free(s);
    return OCL_FAIL("clCreateCommandQueue", e);
  }
  if (hreg_add(s, H_STREAM, dev.device_id, 0, NULL) != 0) {
    clReleaseCommandQueue(s->q);
    free(s);
    return -1;
  }
  *out = s;
  return 0;
}

static int ocl_free_stream(DLDevice dev, dh_stream_t stream) {
  if (check_dev(dev, "free_stream") != 0) return -1;
  if (!stream) return 0;
  if (ensure_realized() != 0) return dh_error_prefix("opencl:%d: free_stream", dev.device_id);
  hentry_t e;
  if (!hreg_find(stream, H_STREAM, &e))
    return dh_error_set("ValueError", "opencl:%d: free_stream: %p is not a live opencl stream",
                        dev.device_id, stream);
  if (e.dev != dev.device_id)
    return dh_error_set("ValueError", "opencl:%d: free_stream: stream %p belongs to opencl:%d",
                        dev.device_id, stream, e.dev);
  if (!hreg_remove(stream, H_STREAM, NULL))
    return dh_error_set("ValueError", "opencl:%d: free_stream: %p was freed concurrently",
                        dev.device_id, stream);
  ocl_stream_t* s = stream;
  cl_int err = clFinish(s->q); /* no lost work */
  clReleaseCommandQueue(s->q);
  free(s);
  if (tls_stream[dev.device_id] == stream) tls_stream[dev.device_id] = NULL;
  if (err != CL_SUCCESS) return OCL_FAIL("clFinish", err);
  return 0;
}

static int ocl_set_stream(DLDevice dev, dh_stream_t stream) {
  if (check_dev(dev, "set_stream") != 0) return -1;
  if (stream == NULL) {
    tls_stream[dev.device_id] = NULL;
    return 0;
  }
  cl_command_queue q;
  if (resolve_queue(dev.device_id, stream, "set_stream", &q) != 0) return -1;
  tls_stream[dev.device_id] = stream;
  return 0;
}

static int ocl_get_current_stream(DLDevice dev, dh_stream_t* out) {
  if (!out) return dh_error_set("ValueError", "opencl: get_current_stream: out_stream is NULL");
  *out = NULL;
  if (check_dev(dev, "get_current_stream") != 0) return -1;
  dh_stream_t s = tls_stream[dev.device_id];
  if (s && !hreg_find(s, H_STREAM, NULL)) { /* freed by another thread */
    tls_stream[dev.device_id] = NULL;
    s = NULL;
  }
  *out = s;
  return 0;
}

static int ocl_stream_sync(DLDevice dev, dh_stream_t stream) {
  if (check_dev(dev, "stream_sync") != 0) return -1;
  cl_command_queue q;
  if (resolve_queue(dev.device_id, stream, "stream_sync", &q) != 0) return -1;
  cl_int e = clFinish(q);
  if (e != CL_SUCCESS) return OCL_FAIL("clFinish", e);
  return 0;
}

static int ocl_sync_stream_from_to(DLDevice dev, dh_stream_t src, dh_stream_t dst) {
  if (check_dev(dev, "sync_stream_from_to") != 0) return -1;
  cl_command_queue qs, qd;
  if (resolve_queue(dev.device_id, src, "sync_stream_from_to (src)", &qs) != 0) return -1;
  if (resolve_queue(dev.device_id, dst, "sync_stream_from_to (dst)", &qd) != 0) return -1;
  if (qs == qd) return 0;
  cl_event ev = NULL;
  cl_int e = clEnqueueMarkerWithWaitList(qs, 0, NULL, &ev);
  if (e != CL_SUCCESS) return OCL_FAIL("clEnqueueMarkerWithWaitList", e);
  clFlush(qs); /* the marker must reach the device before dst waits on it */
  e = clEnqueueBarrierWithWaitList(qd, 1, &ev, NULL);
  clReleaseEvent(ev);
  if (e != CL_SUCCESS) return OCL_FAIL("clEnqueueBarrierWithWaitList", e);
  clFlush(qd);
  return 0;
}

/*===========================================================================
 * Built-in kernels
 *===========================================================================*/

static const char k_source[] =
    "__kernel void dh_noop(void) {}\n"
    "__kernel void dh_fill(__global uint* dst, ulong first_word, ulong nwords, uint value) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < nwords) dst[first_word + i] = value;\n"
    "}\n";

/* Builds the program once per device context. Called with od->kernel_lock held. */
static int build_kernels_locked(ocl_device_t* od, int d) {
  if (od->kernels_built == 1) return 0;
  if (od->kernels_built == -1)
    return dh_error_set("RuntimeError", "opencl:%d: built-in kernels failed to build earlier", d);
  cl_int e = CL_SUCCESS;
  const char* src = k_source;
  size_t len = sizeof k_source - 1;
  od->program = clCreateProgramWithSource(od->ctx, 1, &src, &len, &e);
  if (e != CL_SUCCESS) {
    od->kernels_built = -1;
    return OCL_FAIL("clCreateProgramWithSource", e);
  }
  e = clBuildProgram(od->program, 1, &od->device, "", NULL, NULL);
  if (e != CL_SUCCESS) {
    char log[512] = "";
    clGetProgramBuildInfo(od->program, od->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log,
                          NULL);
    log[sizeof log - 1] = '\0';
    od->kernels_built = -1;
    return dh_error_set("RuntimeError", "opencl:%d: clBuildProgram failed: %s (%d): %s", d,
                        ocl_err_name(e), (int)e, log);
  }
  od->k_noop = clCreateKernel(od->program, "dh_noop", &e);
  if (e == CL_SUCCESS) od->k_fill = clCreateKernel(od->program, "dh_fill", &e);
  if (e != CL_SUCCESS) {
    od->kernels_built = -1;
    return OCL_FAIL("clCreateKernel", e);
  }
  od->kernels_built = 1;
  return 0;
}

static int ensure_kernels(int d) {
  ocl_device_t* od = &g_dev[d];
  pthread_mutex_lock(&od->kernel_lock);
  int rc = build_kernels_locked(od, d);
  pthread_mutex_unlock(&od->kernel_lock);
  return rc;
}

/* Enqueues the empty kernel (global size 1) on q; optional event out. */
static int enqueue_noop(int d, cl_command_queue q, cl_event* ev) {
  if (ensure_kernels(d) != 0) return -1;
  size_t gsz = 1;
  cl_int e = clEnqueueNDRangeKernel(q, g_dev[d].k_noop, 1, NULL, &gsz, NULL, 0, NULL, ev);
  if (e != CL_SUCCESS) return OCL_FAIL("clEnqueueNDRangeKernel(dh_noop)", e);
  return 0;
}

static int arg_device(const dh_any_t* a, DLDevice* out, const char* fn) {
  if (a->type_index != DH_TYPE_DEVICE)
    return dh_error_set("TypeError", "opencl.%s: argument 0 must be Device, got %s", fn,
                        dh_type_index_name(a->type_index));
  *out = a->v_device;
  return 0;
}

static int fn_noop(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self;
  if (rv) *rv = dh_any_none();
  if (n < 1 || !args)
    return dh_error_set("TypeError", "opencl.noop: expected 1 argument (Device), got %d", (int)n);
  DLDevice dev;
  if (arg_device(&args[0], &dev, "noop") != 0) return -1;
  if (check_dev(dev, "noop") != 0) return -1;
  cl_command_queue q;
  if (resolve_queue(dev.device_id, tls_stream[dev.device_id], "noop", &q) != 0) return -1;
  if (enqueue_noop(dev.device_id, q, NULL) != 0) return -1;
  clFlush(q);
  return 0;
}

static int fn_fill(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self;
  if (rv) *rv = dh_any_none();
  if (n < 2 || !args)
    return dh_error_set("TypeError", "opencl.fill: expected 2 arguments (DLTensorPtr, Int), "
                        "got %d", (int)n);
  if (args[0].type_index != DH_TYPE_DL_TENSOR_PTR || !args[0].v_ptr)
    return dh_error_set("TypeError", "opencl.fill: argument 0 must be DLTensorPtr, got %s",
                        dh_type_index_name(args[0].type_index));
  if (args[1].type_index != DH_TYPE_INT && args[1].type_index != DH_TYPE_BOOL)
    return dh_error_set("TypeError", "opencl.fill: argument 1 must be Int, got %s",
                        dh_type_index_name(args[1].type_index));
  const DLTensor* t = args[0].v_ptr;
  uint32_t value = (uint32_t)args[1].v_int64;
  if (check_dev(t->device, "fill") != 0) return -1;
  int d = t->device.device_id;
  if (!dh_tensor_is_contiguous(t))
    return dh_error_set("ValueError", "opencl.fill: dst is not contiguous");
  size_t nbytes = 0;
  if (dh_tensor_nbytes(t, &nbytes) != 0) return dh_error_prefix("opencl.fill");
  if (t->byte_offset % 4 != 0 || nbytes % 4 != 0)
    return dh_error_set("ValueError", "opencl.fill: byte_offset (%" PRIu64 ") and nbytes (%zu) "
                        "must be multiples of 4", (uint64_t)t->byte_offset, nbytes);
  if (nbytes == 0) return 0;
  hentry_t e;
  if (!hreg_find(t->data, H_BUFFER, &e))
    return dh_error_set("ValueError", "opencl.fill: dst->data %p is not a live opencl buffer",
                        t->data);
  if (e.dev != d)
    return dh_error_set("ValueError", "opencl.fill: dst->data %p belongs to opencl:%d, not "
                        "opencl:%d", t->data, e.dev, d);
  if (t->byte_offset > e.size || nbytes > e.size - t->byte_offset)
    return dh_error_set("ValueError", "opencl.fill: range [%" PRIu64 ", %" PRIu64 ") exceeds "
                        "the buffer of %zu bytes", (uint64_t)t->byte_offset,
                        (uint64_t)(t->byte_offset + nbytes), e.size);
  cl_command_queue q;
  if (resolve_queue(d, tls_stream[d], "fill", &q) != 0) return -1;
  if (ensure_kernels(d) != 0) return -1;
  ocl_device_t* od = &g_dev[d];
  cl_mem m = (cl_mem)t->data;
  cl_ulong first = t->byte_offset / 4, nw = nbytes / 4;
  cl_uint v = value;
  size_t gsz = (size_t)((nw + 63) / 64 * 64);
  pthread_mutex_lock(&od->kernel_lock); /* clSetKernelArg is not thread-safe per kernel */
  cl_int err = clSetKernelArg(od->k_fill, 0, sizeof m, &m);
  if (err == CL_SUCCESS) err = clSetKernelArg(od->k_fill, 1, sizeof first, &first);
  if (err == CL_SUCCESS) err = clSetKernelArg(od->k_fill, 2, sizeof nw, &nw);
  if (err == CL_SUCCESS) err = clSetKernelArg(od->k_fill, 3, sizeof v, &v);
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(q, od->k_fill, 1, NULL, &gsz, NULL, 0, NULL, NULL);
  pthread_mutex_unlock(&od->kernel_lock);
  if (err != CL_SUCCESS) return OCL_FAIL("clEnqueueNDRangeKernel(dh_fill)", err);
  clFlush(q);
  return 0;
}

static int fn_echo(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self;
  if (n < 1 || !args)
    return dh_error_set("TypeError", "opencl.echo: expected (Int index, any...), got %d "
                        "arguments", (int)n);
  if (args[0].type_index != DH_TYPE_INT)
    return dh_error_set("TypeError", "opencl.echo: argument 0 must be Int, got %s",
                        dh_type_index_name(args[0].type_index));
  int64_t i = args[0].v_int64;
  if (i < 0 || i >= (int64_t)n - 1)
    return dh_error_set("IndexError", "opencl.echo: index %" PRId64 " out of range [0, %d)", i,
                        (int)n - 1);
  if (rv) *rv = args[1 + i];
  return 0;
}

/* Reads a string argument (RawStr or SmallStr) into buf. */
static int arg_str(const dh_any_t* a, char* buf, size_t n, const char** out) {
  if (a->type_index == DH_TYPE_RAW_STR && a->v_c_str) { *out = a->v_c_str; return 0; }
  if (a->type_index == DH_TYPE_SMALL_STR) {
    size_t len = a->small_str_len < 8 ? a->small_str_len : 8;
    if (len >= n) len = n - 1;
    memcpy(buf, a->v_bytes, len);
    buf[len] = '\0';
    *out = buf;
    return 0;
  }
  return -1;
}

static int fn_raise(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self; (void)rv;
  if (n < 2 || !args)
    return dh_error_set("TypeError", "opencl.raise: expected (RawStr kind, RawStr message), got "
                        "%d arguments", (int)n);
  char b0[16], b1[16];
  const char *kind, *msg;
  if (arg_str(&args[0], b0, sizeof b0, &kind) != 0)
    return dh_error_set("TypeError", "opencl.raise: argument 0 must be RawStr, got %s",
                        dh_type_index_name(args[0].type_index));
  if (arg_str(&args[1], b1, sizeof b1, &msg) != 0)
    return dh_error_set("TypeError", "opencl.raise: argument 1 must be RawStr, got %s",
                        dh_type_index_name(args[1].type_index));
  return dh_error_set(kind, "%s", msg);
}

static const dh_backend_function_t k_functions[] = {
    {DH_FUNC_NOOP, fn_noop},
    {DH_FUNC_FILL, fn_fill},
    {DH_FUNC_ECHO, fn_echo},
    {DH_FUNC_RAISE, fn_raise},
};

/*===========================================================================
 * Events (OpenCL profiling)
 *===========================================================================*/

static int ocl_event_create(DLDevice dev, dh_event_t* out) {
  if (!out) return dh_error_set("ValueError", "opencl: event_create: out_event is NULL");
  *out = NULL;
  if (check_dev(dev, "event_create") != 0) return -1;
  ocl_event_t* ev = calloc(1, sizeof *ev);
  if (!ev) return dh_error_set("OutOfMemoryError", "opencl: event_create: out of host memory");
  ev->dev = dev.device_id;
  if (hreg_add(ev, H_EVENT, dev.device_id, 0, NULL) != 0) {
    free(ev);
    return -1;
  }
  *out = ev;
  return 0;
}

static int find_event(DLDevice dev, dh_event_t event, const char* where) {
  hentry_t e;
  if (!event || !hreg_find(event, H_EVENT, &e))
    return dh_error_set("ValueError", "opencl:%d: %s: %p is not a live opencl event",
                        dev.device_id, where, event);
  if (e.dev != dev.device_id)
    return dh_error_set("ValueError", "opencl:%d: %s: event %p belongs to opencl:%d",
                        dev.device_id, where, event, e.dev);
  return 0;
}

static int ocl_event_record(DLDevice dev, dh_event_t event, dh_stream_t stream) {
  if (check_dev(dev, "event_record") != 0) return -1;
  if (find_event(dev, event, "event_record") != 0) return -1;
  cl_command_queue q;
  if (resolve_queue(dev.device_id, stream, "event_record", &q) != 0) return -1;
  ocl_event_t* ev = event;
  cl_event ne = NULL;
  cl_int e = clEnqueueMarkerWithWaitList(q, 0, NULL, &ne);
  if (e != CL_SUCCESS) return OCL_FAIL("clEnqueueMarkerWithWaitList", e);
  clFlush(q);
  if (ev->ev) clReleaseEvent(ev->ev);
  ev->ev = ne;
  return 0;
}

static int ocl_event_elapsed_ms(DLDevice dev, dh_event_t start, dh_event_t end, double* out) {
  if (!out) return dh_error_set("ValueError", "opencl: event_elapsed_ms: out_ms is NULL");
  *out = 0;
  if (check_dev(dev, "event_elapsed_ms") != 0) return -1;
  if (find_event(dev, start, "event_elapsed_ms (start)") != 0) return -1;
  if (find_event(dev, end, "event_elapsed_ms (end)") != 0) return -1;
  if (ensure_realized() != 0) return dh_error_prefix("opencl:%d: event_elapsed_ms", dev.device_id);
  ocl_event_t *s = start, *t = end;
  if (!s->ev || !t->ev)
    return dh_error_set("ValueError", "opencl:%d: event_elapsed_ms: %s event was never recorded",
                        dev.device_id, !s->ev ? "start" : "end");
  cl_event both[2] = {s->ev, t->ev};
  cl_int e = clWaitForEvents(2, both);
  if (e != CL_SUCCESS) return OCL_FAIL("clWaitForEvents", e);
  cl_ulong t0 = 0, t1 = 0;
  e = clGetEventProfilingInfo(s->ev, CL_PROFILING_COMMAND_END, sizeof t0, &t0, NULL);
  if (e == CL_SUCCESS)
    e = clGetEventProfilingInfo(t->ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
  if (e != CL_SUCCESS) return OCL_FAIL("clGetEventProfilingInfo", e);
  *out = ((double)t1 - (double)t0) / 1e6;
  return 0;
}

static int ocl_event_free(DLDevice dev, dh_event_t event) {
  if (check_dev(dev, "event_free") != 0) return -1;
  if (!event) return 0;
  if (find_event(dev, event, "event_free") != 0) return -1;
  if (!hreg_remove(event, H_EVENT, NULL))
    return dh_error_set("ValueError", "opencl:%d: event_free: %p was freed concurrently",
                        dev.device_id, event);
  ocl_event_t* ev = event;
  if (ev->ev && !g_stale) clReleaseEvent(ev->ev);
  free(ev);
  return 0;
}

/*===========================================================================
 * Raw twin: the same operations through OpenCL directly (benchmarks)
 *===========================================================================*/

typedef struct raw_ctx {
  int dev;
  dh_raw_op_t op;
  size_t nbytes;
  uint32_t flags;
  cl_command_queue q;
  cl_mem a, b;        /* device buffers */
  cl_mem pinned;      /* backing buffer of host when pinned */
  void* host;         /* host side of H2D / D2H */
} raw_ctx_t;

static void raw_teardown(void* p) {
  raw_ctx_t* c = p;
  if (!c) return;
  if (c->q) clFinish(c->q);
  if (c->pinned) {
    if (c->host) clEnqueueUnmapMemObject(c->q, c->pinned, c->host, 0, NULL, NULL);
    clFinish(c->q);
    clReleaseMemObject(c->pinned);
  } else {
    free(c->host);
  }
  if (c->a) clReleaseMemObject(c->a);
  if (c->b) clReleaseMemObject(c->b);
  if (c->q) clReleaseCommandQueue(c->q);
  free(c);
}

static int raw_setup(DLDevice dev, dh_raw_op_t op, size_t nbytes, uint32_t flags, void** out) {
  if (!out) return dh_error_set("ValueError", "opencl raw: out_ctx is NULL");
  *out = NULL;
  if (check_dev(dev, "raw setup") != 0) return -1;
  if (ensure_realized() != 0) return dh_error_prefix("opencl:%d: raw setup", dev.device_id);
  if (op < DH_RAW_COPY_H2D || op > DH_RAW_LAUNCH)
    return dh_error_set("NotImplementedError", "opencl raw: op %d is not implemented", (int)op);
  ocl_device_t* od = &g_dev[dev.device_id];
  int is_copy = op == DH_RAW_COPY_H2D || op == DH_RAW_COPY_D2H || op == DH_RAW_COPY_D2D;
  if (is_copy && nbytes == 0)
    return dh_error_set("ValueError", "opencl raw: nbytes must be > 0 for copies");
  if (is_copy && (int64_t)nbytes > od->max_mem_alloc_size)
    return dh_error_set("OutOfMemoryError", "opencl raw: %zu bytes exceed "
                        "CL_DEVICE_MAX_MEM_ALLOC_SIZE", nbytes);
  raw_ctx_t* c = calloc(1, sizeof *c);
  if (!c) return dh_error_set("OutOfMemoryError", "opencl raw: out of host memory");
  c->dev = dev.device_id; c->op = op; c->nbytes = nbytes; c->flags = flags;
  cl_int e = CL_SUCCESS;
  c->q = clCreateCommandQueue(od->ctx, od->device, CL_QUEUE_PROFILING_ENABLE, &e);
  if (e != CL_SUCCESS) { c->q = NULL; raw_teardown(c); return OCL_FAIL("clCreateCommandQueue", e); }
  if (is_copy) {
    c->a = clCreateBuffer(od->ctx, CL_MEM_READ_WRITE, nbytes, NULL, &e);
    if (e != CL_SUCCESS) { c->a = NULL; raw_teardown(c); return OCL_FAIL("clCreateBuffer", e); }
  }
  if (op == DH_RAW_COPY_D2D) {
    c->b = clCreateBuffer(od->ctx, CL_MEM_READ_WRITE, nbytes, NULL, &e);
    if (e != CL_SUCCESS) { c->b = NULL; raw_teardown(c); return OCL_FAIL("clCreateBuffer", e); }
  }
  if (op == DH_RAW_COPY_H2D || op == DH_RAW_COPY_D2H) {
    if (flags & DH_RAW_PINNED) {
      c->pinned = clCreateBuffer(od->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, nbytes, NULL,
                                 &e);
      if (e != CL_SUCCESS) { c->pinned = NULL; raw_teardown(c); return OCL_FAIL("clCreateBuffer", e); }
      c->host = clEnqueueMapBuffer(c->q, c->pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, nbytes,
                                   0, NULL, NULL, &e);
      if (e != CL_SUCCESS) { c->host = NULL; raw_teardown(c); return OCL_FAIL("clEnqueueMapBuffer", e); }
    } else {
      c->host = malloc(nbytes);
      if (!c->host) { raw_teardown(c); return dh_error_set("OutOfMemoryError", "opencl raw: host"); }
    }
    memset(c->host, 0x5a, nbytes);
  }
  if (op == DH_RAW_LAUNCH && ensure_kernels(dev.device_id) != 0) { raw_teardown(c); return -1; }
  *out = c;
  return 0;
}

/* Device time is measured exactly as the harness's events measure it (event_record):
 * a profiled marker before and after the batch, END(after) - END(before), so the
 * harness/raw ratio compares like with like. */
static int raw_run(void* p, uint32_t repeat, double* out_ms) {
  raw_ctx_t* c = p;
  if (out_ms) *out_ms = -1;
  if (!c) return dh_error_set("ValueError", "opencl raw: run: ctx is NULL");
  int want = out_ms != NULL && c->op != DH_RAW_STREAM_SYNC;
  cl_event m0 = NULL, m1 = NULL;
  cl_int e = CL_SUCCESS;
  if (want) {
    e = clEnqueueMarkerWithWaitList(c->q, 0, NULL, &m0);
    if (e == CL_SUCCESS) clFlush(c->q);
  }
  for (uint32_t i = 0; i < repeat && e == CL_SUCCESS; ++i) {
    switch (c->op) {
      case DH_RAW_COPY_H2D: /* blocking, as the harness must (host source consumed) */
        e = clEnqueueWriteBuffer(c->q, c->a, CL_TRUE, 0, c->nbytes, c->host, 0, NULL, NULL);
        break;
      case DH_RAW_COPY_D2H:
        e = clEnqueueReadBuffer(c->q, c->a, CL_FALSE, 0, c->nbytes, c->host, 0, NULL, NULL);
        break;
      case DH_RAW_COPY_D2D:
        e = clEnqueueCopyBuffer(c->q, c->a, c->b, 0, 0, c->nbytes, 0, NULL, NULL);
        break;
      case DH_RAW_STREAM_SYNC: e = clFinish(c->q); break;
      case DH_RAW_LAUNCH: {
        size_t g = 1;
        e = clEnqueueNDRangeKernel(c->q, g_dev[c->dev].k_noop, 1, NULL, &g, NULL, 0, NULL, NULL);
        break;
      }
    }
  }
  if (want && e == CL_SUCCESS) e = clEnqueueMarkerWithWaitList(c->q, 0, NULL, &m1);
  cl_int fe = clFinish(c->q);
  if (e == CL_SUCCESS) e = fe;
  if (e == CL_SUCCESS && m0 && m1) {
    cl_ulong t0 = 0, t1 = 0;
    if (clGetEventProfilingInfo(m0, CL_PROFILING_COMMAND_END, sizeof t0, &t0, NULL) ==
            CL_SUCCESS &&
        clGetEventProfilingInfo(m1, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) ==
            CL_SUCCESS)
      *out_ms = ((double)t1 - (double)t0) / 1e6;
  }
  if (m0) clReleaseEvent(m0);
  if (m1) clReleaseEvent(m1);
  if (e != CL_SUCCESS) return OCL_FAIL("opencl raw run", e);
  return 0;
}

static const dh_raw_twin_t k_raw = {
    .struct_size = sizeof(dh_raw_twin_t),
    .api_name = "OpenCL",
    .setup = raw_setup,
    .run = raw_run,
    .teardown = raw_teardown,
};

/*===========================================================================
 * The backend
 *===========================================================================*/

static const dh_backend_t k_backend = {
    .struct_size = sizeof(dh_backend_t),
    .abi_major = DH_BACKEND_ABI_MAJOR,
    .abi_minor = DH_BACKEND_ABI_MINOR,
    .reserved = 0,
    .name = "opencl",
    .description = "OpenCL through the ICD loader (cl_mem handles, in-order profiling queues)",
    .device_type = OCL_DEVICE_TYPE,
    .caps = DH_CAP_ASYNC_COPY | DH_CAP_EVENT_TIMING | DH_CAP_PINNED_HOST,
    .target_kind = "opencl",
    .target_kind_json = NULL,
    .init = ocl_init,
    .shutdown = ocl_shutdown,
    .unavailable_reason = ocl_unavailable_reason,
    .get_attr = ocl_get_attr,
    .get_target_property = ocl_get_target_property,
    .set_device = ocl_set_device,
    .alloc_data_space = ocl_alloc_data_space,
    .free_data_space = ocl_free_data_space,
    .alloc_workspace = ocl_alloc_workspace,
    .free_workspace = ocl_free_workspace,
    .alloc_host = ocl_alloc_host,
    .free_host = ocl_free_host,
    .copy_data_from_to = ocl_copy,
    .create_stream = ocl_create_stream,
    .free_stream = ocl_free_stream,
    .set_stream = ocl_set_stream,
    .get_current_stream = ocl_get_current_stream,
    .stream_sync = ocl_stream_sync,
    .sync_stream_from_to = ocl_sync_stream_from_to,
    .functions = k_functions,
    .num_functions = sizeof k_functions / sizeof k_functions[0],
    .event_create = ocl_event_create,
    .event_record = ocl_event_record,
    .event_elapsed_ms = ocl_event_elapsed_ms,
    .event_free = ocl_event_free,
    .raw = &k_raw,
};

/* Plugin entry point (backend.h DH_BACKEND_ENTRY_SYMBOL). Does no work: init does. */
__attribute__((visibility("default"))) const dh_backend_t* dh_backend_entry(void) {
  return &k_backend;
}
