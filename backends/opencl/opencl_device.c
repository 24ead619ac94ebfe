/*
 * backends/opencl/opencl_device.c — the OpenCL devices: enumeration (in a forked probe
 * child, see below), init / shutdown, opening the devices in this process on first use,
 * and what is answered from the cached device info: get_attr (TVM
 * OpenCLWorkspace::GetAttr), get_target_property (the opencl target kind), set_device.
 *
 * Devices: every platform of clGetPlatformIDs, then every device of
 * clGetDeviceIDs(CL_DEVICE_TYPE_ALL), in that order -> ids 0, 1, ... init enumerates
 * them in a short-lived forked child and caches their clGetDeviceInfo values, so the
 * calling process does not start the driver (PoCL's pthread device starts worker
 * threads in clGetPlatformIDs, and they do not survive a later fork(): a child would
 * hang in its first clFinish). The first operation that needs OpenCL opens the devices
 * in this process (dh_opencl_ensure_realized). No library constructors: nothing runs before
 * init, so a process may fork before initialising the backend.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "opencl_internal.h"

/*===========================================================================
 * Global state
 *===========================================================================*/

dh_opencl_device_t* dh_opencl_dev;
int dh_opencl_ndev;
static char g_reason[DH_OPENCL_REASON_MAX];
static int g_inited;
/* Devices are probed at init (in a forked child) and opened on first real use. */
static int g_realized;      /* 0 not yet, 1 open in this process, -1 failed */
int dh_opencl_stale;         /* set in a fork() child of a process that had opened them */
static int g_atfork_registered;
static char g_realize_error[DH_OPENCL_REASON_MAX];
static pthread_mutex_t g_realize_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int tls_device = 0; /* set_device; OpenCL has no current device */

/*===========================================================================
 * Device validation
 *===========================================================================*/

int dh_opencl_check_dev(DLDevice dev, const char* where) {
  if (dev.device_type != DH_OPENCL_DEVICE_TYPE)
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl: %s: device type %d is not opencl (%d)", where,
                        (int)dev.device_type, DH_OPENCL_DEVICE_TYPE);
  if (dh_opencl_ndev == 0) /* every id fails: the message says why there are none */
    return DH_BACKEND_CHECK_DEVICE(dev, 0, "opencl: %s: device id %d is invalid: no devices (%s)",
                                   where, (int)dev.device_id, g_reason);
  return DH_BACKEND_CHECK_DEVICE(dev, dh_opencl_ndev, "opencl: %s: device id %d out of range [0, %d)",
                                 where, (int)dev.device_id, dh_opencl_ndev);
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

/* The device's PCI function (cl_khr_pci_bus_info, CL_DEVICE_PCI_BUS_INFO_KHR), "" for
 * a CPU device (its memory is host memory), else the reason in pci_why. */
static void fill_pci_bus_id(dh_opencl_device_t* od, int has_pci_info) {
  cl_device_type type = 0;
  od->pci_bus_id[0] = od->pci_why[0] = '\0';
  if (clGetDeviceInfo(od->device, CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS &&
      (type & CL_DEVICE_TYPE_CPU))
    return;
  struct {
    cl_uint domain, bus, device, function;
  } info = {0, 0, 0, 0};
  if (!has_pci_info) {
    snprintf(od->pci_why, sizeof od->pci_why, "the device does not report cl_khr_pci_bus_info");
    return;
  }
  if (clGetDeviceInfo(od->device, 0x410F /* CL_DEVICE_PCI_BUS_INFO_KHR */, sizeof info, &info, NULL) !=
      CL_SUCCESS) {
    snprintf(od->pci_why, sizeof od->pci_why, "clGetDeviceInfo(CL_DEVICE_PCI_BUS_INFO_KHR) failed");
    return;
  }
  snprintf(od->pci_bus_id, sizeof od->pci_bus_id, "%04x:%02x:%02x.%x", info.domain & 0xffffu,
           info.bus & 0xffu, info.device & 0x1fu, info.function & 0x7u);
}

static void fill_device_info(dh_opencl_device_t* od) {
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
  int has_img_from_buf = 0, has_pci_info = 0;
  if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_len) == CL_SUCCESS && ext_len) {
    char* ext = malloc(ext_len + 1);
    if (ext && clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, ext_len, ext, NULL) == CL_SUCCESS) {
      ext[ext_len] = '\0';
      od->extensions_has_amd_query = strstr(ext, "cl_amd_device_attribute_query") != NULL;
      has_img_from_buf = strstr(ext, "cl_khr_image2d_from_buffer") != NULL;
      has_pci_info = strstr(ext, "cl_khr_pci_bus_info") != NULL;
    }
    free(ext);
  }
  od->image_pitch_alignment = 0;
  if (od->version_major >= 2 || has_img_from_buf)
    od->image_pitch_alignment = dev_info_u64(d, CL_DEVICE_IMAGE_PITCH_ALIGNMENT, sizeof(cl_uint));
  fill_pci_bus_id(od, has_pci_info);
}

/* Releases the OpenCL objects of a realised device (not its cached info). */
static void release_device(dh_opencl_device_t* od) {
  if (od->k_noop) clReleaseKernel(od->k_noop);
  if (od->k_fill) clReleaseKernel(od->k_fill);
  if (od->program) clReleaseProgram(od->program);
  dh_opencl_queue_release(&od->default_queue);
  dh_error_clear(); /* a failed finish at release changes nothing */
  if (od->ctx) clReleaseContext(od->ctx);
  od->k_noop = od->k_fill = NULL;
  od->program = NULL;
  od->ctx = NULL;
  od->kernels_built = 0;
}

/* Enumerates platforms and devices in this process and caches their info (no
 * contexts). On no platform/device: *out_n = 0 and reason set. -1 only on OOM. */
static int probe_in_process(dh_opencl_device_t** out_dev, int* out_n, char* reason, size_t rsz) {
  *out_dev = NULL;
  *out_n = 0;
  reason[0] = '\0';
  cl_uint nplat = 0;
  cl_int err = clGetPlatformIDs(0, NULL, &nplat);
  if (err != CL_SUCCESS || nplat == 0) {
    snprintf(reason, rsz, "no OpenCL platform (clGetPlatformIDs: %s)",
             err != CL_SUCCESS ? dh_opencl_err_name(err) : "0 platforms");
    return 0;
  }
  cl_platform_id* plats = calloc(nplat, sizeof *plats);
  if (!plats) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "opencl: init: out of host memory");
  err = clGetPlatformIDs(nplat, plats, NULL);
  if (err != CL_SUCCESS) {
    free(plats);
    snprintf(reason, rsz, "no OpenCL platform (clGetPlatformIDs: %s)", dh_opencl_err_name(err));
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
             last_dev_err != CL_SUCCESS ? dh_opencl_err_name(last_dev_err) : "0 devices");
    free(plats);
    return 0;
  }
  if (total > DH_OPENCL_MAX_DEVICES) total = DH_OPENCL_MAX_DEVICES;
  dh_opencl_device_t* devs = calloc(total, sizeof *devs);
  if (!devs) {
    free(plats);
    return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "opencl: init: out of host memory");
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
      dh_opencl_device_t* od = &devs[n++];
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
static int probe_in_child(dh_opencl_device_t** out_dev, int* out_n, char* reason, size_t rsz) {
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
    dh_opencl_device_t* devs = NULL;
    int n = 0;
    char why[DH_OPENCL_REASON_MAX];
    memset(why, 0, sizeof why);
    int rc = probe_in_process(&devs, &n, why, sizeof why);
    int32_t hdr[2] = {rc == 0 ? 0 : -1, n};
    if (write_full(fds[1], hdr, sizeof hdr) == 0 && write_full(fds[1], why, sizeof why) == 0)
      write_full(fds[1], devs, (size_t)n * sizeof *devs);
    _exit(0); /* no atexit handlers, no driver teardown */
  }
  close(fds[1]);
  int32_t hdr[2] = {-1, 0};
  char why[DH_OPENCL_REASON_MAX] = "";
  dh_opencl_device_t* devs = NULL;
  int ok = read_full(fds[0], hdr, sizeof hdr, 20000) == 0 && hdr[0] == 0 && hdr[1] >= 0 &&
           hdr[1] <= DH_OPENCL_MAX_DEVICES && read_full(fds[0], why, sizeof why, 20000) == 0;
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
  if (__atomic_load_n(&g_realized, __ATOMIC_ACQUIRE) == 1) dh_opencl_stale = 1;
}

/* PoCL's POCL_AFFINITY (pocl/pocl v3.1 doc/sphinx/source/using.rst, "Tuning pocl
 * behavior": 1 binds the pthread device's worker i to core i), read by PoCL when its
 * platform starts, i.e. at init or in the enumeration child, which inherits it. */
const dh_backend_option_t dh_opencl_options[DH_OPENCL_NUM_OPTIONS] = {
    {"pocl-affinity", "0|1",
     "PoCL's POCL_AFFINITY for this process, unless its environment has one: 1 binds PoCL's pthread workers one "
     "per core (devharness bench gives it from --pin)",
     DH_BACKEND_OPTION_UNLISTED},
};

int dh_opencl_set_option(const char* name, const char* value) {
  if (strcmp(name, dh_opencl_options[0].name) != 0) return dh_error_set(DH_KIND_KEY_ERROR, "opencl: no option --%s", name);
  if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0)
    return dh_error_set(DH_KIND_VALUE_ERROR, "expected 0 or 1 (PoCL's POCL_AFFINITY)");
  if (setenv("POCL_AFFINITY", value, 0) != 0)
    return dh_error_set(DH_KIND_RUNTIME_ERROR, "setenv failed: %s", strerror(errno));
  return 0;
}

int dh_opencl_init(void) {
  if (g_inited) return 0;
  dh_opencl_ndev = 0;
  g_reason[0] = '\0';
  g_realize_error[0] = '\0';
  g_realized = 0;
  dh_opencl_stale = 0;
  const char* mode = getenv("DEVHARNESS_OPENCL_PROBE");
  int in_process = mode && !strcmp(mode, "inprocess");
  int rc = -1;
  if (!in_process) rc = probe_in_child(&dh_opencl_dev, &dh_opencl_ndev, g_reason, sizeof g_reason);
  if (rc != 0 && probe_in_process(&dh_opencl_dev, &dh_opencl_ndev, g_reason, sizeof g_reason) != 0) return -1;
  for (int i = 0; i < dh_opencl_ndev; ++i) {
    pthread_mutex_init(&dh_opencl_dev[i].kernel_lock, NULL);
    pthread_mutex_init(&dh_opencl_dev[i].queue_lock, NULL);
  }
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
             "clGetPlatformIDs failed at first use: %s", dh_opencl_err_name(e));
    return -1;
  }
  cl_platform_id* plats = calloc(nplat, sizeof *plats);
  if (!plats || clGetPlatformIDs(nplat, plats, NULL) != CL_SUCCESS) {
    free(plats);
    snprintf(g_realize_error, sizeof g_realize_error, "clGetPlatformIDs failed at first use");
    return -1;
  }
  int rc = 0;
  for (int i = 0; i < dh_opencl_ndev && rc == 0; ++i) {
    dh_opencl_device_t* od = &dh_opencl_dev[i];
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
               dh_opencl_err_name(e));
      rc = -1;
      break;
    }
    if (dh_opencl_queue_open(od->ctx, od->device, &od->default_queue) != 0) {
      snprintf(g_realize_error, sizeof g_realize_error, "opencl:%d: %s", i, dh_error_message());
      dh_error_clear();
      rc = -1;
      break;
    }
  }
  free(plats);
  if (rc != 0)
    for (int i = 0; i < dh_opencl_ndev; ++i) release_device(&dh_opencl_dev[i]);
  return rc;
}

/* Fast path: one load. 0 when the devices are usable in this process. */
int dh_opencl_ensure_realized(void) {
  if (__atomic_load_n(&g_realized, __ATOMIC_ACQUIRE) == 1 && !dh_opencl_stale) return 0;
  if (dh_opencl_stale)
    return dh_error_set(DH_KIND_RUNTIME_ERROR,
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
  return dh_error_set(DH_KIND_RUNTIME_ERROR, "opencl: cannot open the devices: %s", g_realize_error);
}

void dh_opencl_shutdown(void) {
  int live = g_realized == 1 && !dh_opencl_stale;
  /* free whatever the callers leaked (OpenCL objects only when they belong to us) */
  dh_opencl_hreg_release_all(live, dh_opencl_dev);
  for (int i = 0; i < dh_opencl_ndev; ++i) {
    if (live) release_device(&dh_opencl_dev[i]);
    pthread_mutex_destroy(&dh_opencl_dev[i].kernel_lock);
    pthread_mutex_destroy(&dh_opencl_dev[i].queue_lock);
  }
  free(dh_opencl_dev);
  dh_opencl_dev = NULL;
  dh_opencl_ndev = 0;
  g_realized = 0;
  g_inited = 0;
}

const char* dh_opencl_unavailable_reason(void) {
  return dh_opencl_ndev > 0 ? NULL : (g_reason[0] ? g_reason : "OpenCL backend not initialised");
}

/*===========================================================================
 * Attributes (TVM OpenCLWorkspace::GetAttr)
 *===========================================================================*/

int dh_opencl_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (!out) return dh_error_set(DH_KIND_VALUE_ERROR, "opencl: get_attr: out_value is NULL");
  *out = dh_any_none();
  if (kind == DH_ATTR_EXIST) {
    int ok = dev.device_type == DH_OPENCL_DEVICE_TYPE && dev.device_id >= 0 && dev.device_id < dh_opencl_ndev;
    *out = dh_any_int(ok ? 1 : 0);
    return 0;
  }
  if (kind < 0 || kind >= DH_ATTR_KIND_COUNT)
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl: get_attr: unknown attribute kind %d (valid 0..%d)",
                        (int)kind, DH_ATTR_KIND_COUNT - 1);
  if (dh_opencl_check_dev(dev, "get_attr") != 0) return -1;
  dh_opencl_device_t* od = &dh_opencl_dev[dev.device_id];
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
      if (od->extensions_has_amd_query && dh_opencl_ensure_realized() == 0) {
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

/* opencl target kind options (targets/kinds/opencl.json; apache/tvm v0.27.0
 * src/backend/opencl/codegen/target_kind.cc). None for what we cannot tell. */
int dh_opencl_get_target_property(DLDevice dev, const char* name, dh_any_t* out) {
  if (!out) return dh_error_set(DH_KIND_VALUE_ERROR, "opencl: get_target_property: out_value is NULL");
  *out = dh_any_none();
  if (!name) return dh_error_set(DH_KIND_VALUE_ERROR, "opencl: get_target_property: name is NULL");
  if (dh_opencl_check_dev(dev, "get_target_property") != 0) return -1;
  dh_opencl_device_t* od = &dh_opencl_dev[dev.device_id];
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

int dh_opencl_set_device(DLDevice dev) {
  if (dh_opencl_check_dev(dev, "set_device") != 0) return -1;
  tls_device = dev.device_id;
  return 0;
}
