/*
 * backends/cpu/cpu.c — the host CPU as a devharness device (plugin libdevharness_cpu.so).
 *
 * One device, cpu:0 (DLPack kDLCPU). Memory is host memory (64-byte aligned,
 * pointer arithmetic allowed), copies are memcpy, and there is a single queue: every
 * operation completes before it returns, so streams are NULL and syncs are no-ops
 * (TVM's CPUDeviceAPI does the same). kTotalGlobalMemory is computed as TVM's
 * CPUDeviceAPI does (apache/tvm v0.27.0 src/runtime/cpu_device_api.cc: sysinfo(2)
 * totalram * mem_unit), not hwloc's NUMA-local figure, which leaves out memory the
 * kernel keeps outside the nodes. The topology (cores, hardware threads, L2, model)
 * comes from hwloc, loaded once in init and released right after reading; hwloc stays
 * the source of locality for the benchmarks. kMaxClockRate (kHz; TVM's CPU API leaves
 * it None) is cpufreq's cpuinfo_max_freq, else /proc/cpuinfo "cpu MHz" where the
 * cpufreq driver is absent (VMs), the figure PoCL reports too.
 */
#include <dlpack/dlpack.h>
#include <errno.h>
#include <hwloc.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "devharness/backend.h"
#include "devharness/error.h"
#include "devharness/tensor.h"

/*===========================================================================
 * Device facts, read once by init
 *===========================================================================*/

typedef struct dh_cpu_info {
  int initialised;
  char model[256];        /* kDeviceName */
  char driver[128];       /* kDriverVersion: kernel release */
  char mtriple[96];       /* "x86_64-linux-gnu" */
  int64_t cores;          /* physical cores (hwloc), else online CPUs */
  int64_t pus;            /* hardware threads */
  int64_t l2_bytes;       /* first L2 cache, 0 = unknown */
  int64_t total_memory;   /* bytes, sysinfo totalram * mem_unit as TVM computes it */
  int64_t max_clock_khz;  /* 0 = unknown */
} dh_cpu_info_t;

static dh_cpu_info_t dh_cpu_info;

/* Bytes handed out by alloc_data_space and not yet freed (malloc_usable_size of each).
 * The kernel backs pages lazily, so MemAvailable alone would not drop after an
 * allocation; kAvailableGlobalMemory subtracts these. */
static atomic_llong dh_cpu_live_bytes;

/* Copies the value of the first "key : value" line of `path` whose key starts with
 * `key` into out. Returns 1 when found. */
static int dh_cpu_read_keyed_line(const char* path, const char* key, char* out, size_t out_size) {
  FILE* f = fopen(path, "r");
  if (f == NULL) return 0;
  char line[512];
  int found = 0;
  size_t klen = strlen(key);
  while (!found && fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, key, klen) != 0) continue;
    char* colon = strchr(line, ':');
    if (colon == NULL) continue;
    char* v = colon + 1;
    while (*v == ' ' || *v == '\t') v++;
    size_t n = strcspn(v, "\n");
    if (n >= out_size) n = out_size - 1;
    memcpy(out, v, n);
    out[n] = '\0';
    found = 1;
  }
  fclose(f);
  return found;
}

/* Bytes of memory available now: /proc/meminfo MemAvailable, else free pages. */
static int64_t dh_cpu_available_memory(void) {
  char v[64];
  if (dh_cpu_read_keyed_line("/proc/meminfo", "MemAvailable", v, sizeof v)) {
    long long kib = strtoll(v, NULL, 10);
    if (kib > 0) return (int64_t)kib * 1024;
  }
  long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return (pages > 0 && page > 0) ? (int64_t)pages * page : 0;
}

static int dh_cpu_init(void) {
  if (dh_cpu_info.initialised) return 0;
  dh_cpu_info_t info;
  memset(&info, 0, sizeof info);

  hwloc_topology_t topo;
  int have_topo = hwloc_topology_init(&topo) == 0;
  if (have_topo && hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    have_topo = 0;
  }
  if (have_topo) {
    hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
    const char* model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
    if (model != NULL) snprintf(info.model, sizeof info.model, "%s", model);
    int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    int npus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    info.cores = ncores > 0 ? ncores : 0;
    info.pus = npus > 0 ? npus : 0;
    hwloc_obj_t l2 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L2CACHE, 0);
    if (l2 != NULL && l2->attr != NULL) info.l2_bytes = (int64_t)l2->attr->cache.size;
    hwloc_topology_destroy(topo);
  }
  /* Fallbacks when hwloc cannot tell. */
  if (info.model[0] == '\0' &&
      !dh_cpu_read_keyed_line("/proc/cpuinfo", "model name", info.model, sizeof info.model))
    snprintf(info.model, sizeof info.model, "unknown CPU");
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (info.pus == 0) info.pus = online > 0 ? online : 1;
  if (info.cores == 0) info.cores = info.pus;
  struct sysinfo si;
  if (sysinfo(&si) == 0) info.total_memory = (int64_t)si.totalram * (int64_t)si.mem_unit;
  if (info.total_memory == 0) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) info.total_memory = (int64_t)pages * page;
  }
  /* kHz, when the cpufreq driver exposes it (often absent in VMs). */
  FILE* f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
  if (f != NULL) {
    long long khz = 0;
    if (fscanf(f, "%lld", &khz) == 1 && khz > 0) info.max_clock_khz = khz;
    fclose(f);
  }
  char mhz[64];
  if (info.max_clock_khz == 0 && dh_cpu_read_keyed_line("/proc/cpuinfo", "cpu MHz", mhz, sizeof mhz)) {
    double v = strtod(mhz, NULL);
    if (v > 0 && v < 1e6) info.max_clock_khz = (int64_t)(v * 1000.0 + 0.5);
  }
  struct utsname u;
  if (uname(&u) == 0) {
    snprintf(info.driver, sizeof info.driver, "%s", u.release);
    snprintf(info.mtriple, sizeof info.mtriple, "%s-linux-gnu", u.machine);
  }
  info.initialised = 1;
  dh_cpu_info = info;
  return 0;
}

static void dh_cpu_shutdown(void) { dh_cpu_info.initialised = 0; }

static const char* dh_cpu_unavailable_reason(void) { return NULL; }

/* cpu:0 is the only device. */
static int dh_cpu_check_device(DLDevice dev) {
  if (dev.device_type != kDLCPU)
    return dh_error_set("ValueError", "cpu: device type %d is not kDLCPU (1)", (int)dev.device_type);
  if (dev.device_id != 0)
    return dh_error_set("IndexError", "cpu: device id %d out of range (1 device: 0)",
                        (int)dev.device_id);
  return 0;
}

/*===========================================================================
 * Attributes
 *===========================================================================*/

static int dh_cpu_get_attr(DLDevice dev, int32_t kind, dh_any_t* out_value) {
  if (out_value == NULL) return dh_error_set("ValueError", "cpu: get_attr: out_value is NULL");
  *out_value = dh_any_none();
  if (kind == DH_ATTR_EXIST) {
    *out_value = dh_any_int(dev.device_type == kDLCPU && dev.device_id == 0);
    return 0;
  }
  if (kind < 0 || kind >= DH_ATTR_KIND_COUNT)
    return dh_error_set("ValueError", "cpu: unknown attribute kind %d (valid: 0..%d)", (int)kind,
                        DH_ATTR_KIND_COUNT - 1);
  if (dh_cpu_check_device(dev) != 0) return -1;
  switch ((dh_attr_kind_t)kind) {
    case DH_ATTR_DEVICE_NAME: *out_value = dh_any_str(dh_cpu_info.model); break;
    case DH_ATTR_MULTI_PROCESSOR_COUNT: *out_value = dh_any_int(dh_cpu_info.cores); break;
    case DH_ATTR_L2_CACHE_SIZE_BYTES:
      if (dh_cpu_info.l2_bytes > 0) *out_value = dh_any_int(dh_cpu_info.l2_bytes);
      break;
    case DH_ATTR_TOTAL_GLOBAL_MEMORY: *out_value = dh_any_int(dh_cpu_info.total_memory); break;
    case DH_ATTR_AVAILABLE_GLOBAL_MEMORY: {
      /* min(MemAvailable, total) minus what this backend handed out: drops by >= N
       * after an N-byte allocation even before the pages are touched (may count
       * touched pages twice; never more than total). */
      int64_t avail = dh_cpu_available_memory();
      if (avail > dh_cpu_info.total_memory) avail = dh_cpu_info.total_memory;
      avail -= (int64_t)atomic_load(&dh_cpu_live_bytes);
      if (avail < 0) avail = 0;
      *out_value = dh_any_int(avail);
      break;
    }
    case DH_ATTR_MAX_CLOCK_RATE:
      if (dh_cpu_info.max_clock_khz > 0) *out_value = dh_any_int(dh_cpu_info.max_clock_khz);
      break;
    case DH_ATTR_DRIVER_VERSION:
      if (dh_cpu_info.driver[0]) *out_value = dh_any_str(dh_cpu_info.driver);
      break;
    default: break; /* GPU notions (threads per block, warp, ...): None */
  }
  return 0;
}

/* Options of the cpu target kind (targets/kinds/cpu.json). */
static int dh_cpu_get_target_property(DLDevice dev, const char* name, dh_any_t* out_value) {
  if (name == NULL || out_value == NULL)
    return dh_error_set("ValueError", "cpu: get_target_property: NULL name or out_value");
  *out_value = dh_any_none();
  if (dh_cpu_check_device(dev) != 0) return -1;
  if (strcmp(name, "mtriple") == 0) {
    if (dh_cpu_info.mtriple[0]) *out_value = dh_any_str(dh_cpu_info.mtriple);
  } else if (strcmp(name, "num-cores") == 0) {
    *out_value = dh_any_int(dh_cpu_info.cores);
  } else if (strcmp(name, "device_name") == 0) {
    *out_value = dh_any_str(dh_cpu_info.model);
  } else if (strcmp(name, "l2_cache_size_bytes") == 0) {
    if (dh_cpu_info.l2_bytes > 0) *out_value = dh_any_int(dh_cpu_info.l2_bytes);
  } else if (strcmp(name, "total_memory_bytes") == 0) {
    *out_value = dh_any_int(dh_cpu_info.total_memory);
  }
  /* mcpu, mattr and the common options: None (cannot tell) */
  return 0;
}

/*===========================================================================
 * Device, memory, copies
 *===========================================================================*/

static int dh_cpu_set_device(DLDevice dev) { return dh_cpu_check_device(dev); }

static int dh_cpu_alloc_data_space(DLDevice dev, size_t nbytes, size_t alignment,
                                   DLDataType type_hint, void** out_ptr) {
  (void)type_hint;
  if (out_ptr == NULL) return dh_error_set("ValueError", "cpu: alloc_data_space: out_ptr is NULL");
  *out_ptr = NULL;
  if (dh_cpu_check_device(dev) != 0) return -1;
  if (alignment != 0 && (alignment & (alignment - 1)) != 0)
    return dh_error_set("ValueError", "cpu: alignment %zu is not a power of two", alignment);
  if (alignment < DH_ALLOC_ALIGNMENT) alignment = DH_ALLOC_ALIGNMENT;
  /* Refuse what the machine cannot hold before asking malloc, which could succeed
   * lazily through overcommit and fault later. */
  if ((uint64_t)nbytes > (uint64_t)dh_cpu_info.total_memory)
    return dh_error_set("OutOfMemoryError",
                        "cpu: cannot allocate %zu bytes: the machine has %lld bytes", nbytes,
                        (long long)dh_cpu_info.total_memory);
  int err = posix_memalign(out_ptr, alignment, nbytes ? nbytes : 1);
  if (err != 0) {
    *out_ptr = NULL;
    return dh_error_set("OutOfMemoryError", "cpu: posix_memalign(%zu, %zu bytes) failed: %s",
                        alignment, nbytes, strerror(err));
  }
  atomic_fetch_add(&dh_cpu_live_bytes, (long long)malloc_usable_size(*out_ptr));
  return 0;
}

static int dh_cpu_free_data_space(DLDevice dev, void* ptr) {
  if (dh_cpu_check_device(dev) != 0) return -1;
  if (ptr == NULL) return 0;
  atomic_fetch_sub(&dh_cpu_live_bytes, (long long)malloc_usable_size(ptr));
  free(ptr);
  return 0;
}

static int dh_cpu_copy_data_from_to(const void* from, size_t from_offset, void* to,
                                    size_t to_offset, size_t nbytes, DLDevice dev_from,
                                    DLDevice dev_to, DLDataType type_hint, dh_stream_t stream) {
  (void)type_hint;
  if (dev_from.device_type != kDLCPU || dev_to.device_type != kDLCPU)
    return dh_error_set("ValueError", "cpu: copy between device types %d and %d: cpu copies "
                        "host to host only", (int)dev_from.device_type, (int)dev_to.device_type);
  if (stream != NULL)
    return dh_error_set("ValueError", "cpu: stream %p: the cpu has a single queue (NULL)", stream);
  if (nbytes == 0) return 0;
  if (from == NULL || to == NULL)
    return dh_error_set("ValueError", "cpu: copy_data_from_to: NULL %s",
                        from == NULL ? "source" : "destination");
  memmove((char*)to + to_offset, (const char*)from + from_offset, nbytes);
  return 0;
}

/*===========================================================================
 * Streams: a single queue; everything is complete when it returns
 *===========================================================================*/

static int dh_cpu_check_stream(DLDevice dev, dh_stream_t stream) {
  if (dh_cpu_check_device(dev) != 0) return -1;
  if (stream != NULL)
    return dh_error_set("ValueError", "cpu: stream %p: the cpu has a single queue (NULL)", stream);
  return 0;
}

static int dh_cpu_create_stream(DLDevice dev, dh_stream_t* out_stream) {
  if (out_stream == NULL) return dh_error_set("ValueError", "cpu: create_stream: out_stream is NULL");
  *out_stream = NULL; /* TVM: CreateStream may return nullptr for single-queue devices */
  return dh_cpu_check_device(dev);
}

static int dh_cpu_free_stream(DLDevice dev, dh_stream_t stream) {
  return dh_cpu_check_stream(dev, stream);
}

static int dh_cpu_set_stream(DLDevice dev, dh_stream_t stream) {
  if (dh_cpu_check_stream(dev, stream) != 0) return -1;
  return dh_env_set_stream(dev, stream); /* tvm-ffi's environment stream (backend.h) */
}

static int dh_cpu_get_current_stream(DLDevice dev, dh_stream_t* out_stream) {
  if (out_stream == NULL)
    return dh_error_set("ValueError", "cpu: get_current_stream: out_stream is NULL");
  if (dh_cpu_check_device(dev) != 0) return -1;
  *out_stream = dh_env_get_stream(dev);
  return 0;
}

static int dh_cpu_stream_sync(DLDevice dev, dh_stream_t stream) {
  return dh_cpu_check_stream(dev, stream);
}

static int dh_cpu_sync_stream_from_to(DLDevice dev, dh_stream_t src, dh_stream_t dst) {
  if (dh_cpu_check_stream(dev, src) != 0) return -1;
  return dh_cpu_check_stream(dev, dst);
}

/*===========================================================================
 * Module functions
 *===========================================================================*/

static int dh_cpu_f_noop(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  (void)result;
  if (num_args < 1 || args[0].type_index != DH_TYPE_DEVICE)
    return dh_error_set("TypeError", "cpu.noop: expected (Device)");
  return dh_cpu_check_device(args[0].v_device);
}

static int dh_cpu_f_fill(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  (void)result;
  if (num_args < 2 || dh_any_as_tensor(&args[0]) == NULL ||
      args[1].type_index != DH_TYPE_INT)
    return dh_error_set("TypeError", "cpu.fill: expected (DLTensorPtr dst, Int value)");
  const DLTensor* t = dh_any_as_tensor(&args[0]);
  size_t nbytes;
  if (t == NULL || t->data == NULL)
    return dh_error_set("TypeError", "cpu.fill: dst is a NULL tensor or has NULL data");
  if (dh_cpu_check_device(t->device) != 0) return -1;
  if (!dh_tensor_is_contiguous(t)) return dh_error_set("ValueError", "cpu.fill: dst is not contiguous");
  if (dh_tensor_nbytes(t, &nbytes) != 0) return -1;
  if (t->byte_offset % 4 || nbytes % 4)
    return dh_error_set("ValueError",
                        "cpu.fill: byte_offset %llu and nbytes %zu must be multiples of 4",
                        (unsigned long long)t->byte_offset, nbytes);
  uint32_t pattern = (uint32_t)args[1].v_int64;
  unsigned char* p = (unsigned char*)t->data + t->byte_offset;
  for (size_t i = 0; i < nbytes; i += 4) memcpy(p + i, &pattern, 4);
  return 0;
}

static const dh_backend_function_t dh_cpu_functions[] = {
    {DH_FUNC_NOOP, dh_cpu_f_noop},
    {DH_FUNC_FILL, dh_cpu_f_fill},
    {DH_FUNC_ECHO, dh_backend_func_echo},
    {DH_FUNC_RAISE, dh_backend_func_raise},
};

/*===========================================================================
 * Raw twin ("memcpy"): the same operations with libc directly
 *===========================================================================*/

typedef struct dh_cpu_raw_ctx {
  dh_raw_op_t op;
  size_t nbytes;
  unsigned char* a;
  unsigned char* b;
  unsigned char* c2; /* DH_RAW_COPY_BIDIR: the D2H pair c2 -> d2 */
  unsigned char* d2;
  void (*volatile empty)(void); /* called through a pointer the compiler cannot see */
} dh_cpu_raw_ctx_t;

__attribute__((noinline)) static void dh_cpu_raw_empty(void) { __asm__ volatile(""); }

static void dh_cpu_raw_teardown(void* ctx_) {
  dh_cpu_raw_ctx_t* c = ctx_;
  if (c == NULL) return;
  free(c->a);
  free(c->b);
  free(c->c2);
  free(c->d2);
  free(c);
}

static int dh_cpu_raw_setup(DLDevice dev, dh_raw_op_t op, size_t nbytes, uint32_t flags,
                            void** out_ctx) {
  (void)flags; /* memcpy is synchronous: pinned and host-source-released change nothing */
  if (out_ctx == NULL) return dh_error_set("ValueError", "cpu raw: out_ctx is NULL");
  *out_ctx = NULL;
  if (dh_cpu_check_device(dev) != 0) return -1;
  if (op < DH_RAW_COPY_H2D || op > DH_RAW_COPY_BIDIR)
    return dh_error_set("NotImplementedError", "cpu raw: unknown op %d", (int)op);
  dh_cpu_raw_ctx_t* c = calloc(1, sizeof *c);
  if (c == NULL) return dh_error_set("OutOfMemoryError", "cpu raw: no memory");
  c->op = op;
  c->nbytes = nbytes;
  c->empty = dh_cpu_raw_empty;
  if (op <= DH_RAW_COPY_D2D || op == DH_RAW_COPY_BIDIR) {
    /* Page-aligned, as the bench's harness buffers are (DH_BENCH_BUFFER_ALIGN): source
     * and destination at the same relative offset (0 mod 4096) on both sides. Two
     * malloc'ed buffers would sit 16 bytes apart modulo 4096, where glibc's memcpy can
     * be many times slower. Every buffer is written (no zero-page reads). */
    size_t an = ((nbytes ? nbytes : 1) + 4095) & ~(size_t)4095;
    int bidir = op == DH_RAW_COPY_BIDIR;
    c->a = aligned_alloc(4096, an);
    c->b = aligned_alloc(4096, an);
    if (bidir) {
      c->c2 = aligned_alloc(4096, an);
      c->d2 = aligned_alloc(4096, an);
    }
    if (c->a == NULL || c->b == NULL || (bidir && (c->c2 == NULL || c->d2 == NULL))) {
      dh_cpu_raw_teardown(c);
      return dh_error_set("OutOfMemoryError", "cpu raw: cannot allocate %d x %zu bytes",
                          bidir ? 4 : 2, nbytes);
    }
    memset(c->a, 0x5a, an);
    memset(c->b, 0xa5, an);
    if (bidir) {
      memset(c->c2, 0x5a, an);
      memset(c->d2, 0xa5, an);
    }
  }
  *out_ctx = c;
  return 0;
}

static int dh_cpu_raw_run(void* ctx_, uint32_t repeat, double* out_device_ms) {
  dh_cpu_raw_ctx_t* c = ctx_;
  if (c == NULL) return dh_error_set("ValueError", "cpu raw: NULL context");
  if (out_device_ms) *out_device_ms = -1; /* no device timers */
  for (uint32_t i = 0; i < repeat; i++) {
    switch (c->op) {
      case DH_RAW_COPY_H2D: memcpy(c->b, c->a, c->nbytes); break;
      case DH_RAW_COPY_D2H: memcpy(c->a, c->b, c->nbytes); break;
      case DH_RAW_COPY_D2D: memcpy(c->b, c->a, c->nbytes); break;
      case DH_RAW_COPY_BIDIR: /* one queue: the two directions one after the other */
        memcpy(c->b, c->a, c->nbytes);
        memcpy(c->d2, c->c2, c->nbytes);
        break;
      case DH_RAW_STREAM_SYNC:
      case DH_RAW_LAUNCH: c->empty(); break;
    }
  }
  if (c->op == DH_RAW_STREAM_SYNC || c->op == DH_RAW_LAUNCH) c->empty(); /* the final wait */
  return 0;
}

static const dh_raw_twin_t dh_cpu_raw_twin = {
    sizeof(dh_raw_twin_t), "memcpy", dh_cpu_raw_setup, dh_cpu_raw_run, dh_cpu_raw_teardown,
};

/*===========================================================================
 * The vtable and entry point
 *===========================================================================*/

static const dh_backend_t dh_cpu_backend = {
    .struct_size = sizeof(dh_backend_t),
    .abi_major = DH_BACKEND_ABI_MAJOR,
    .abi_minor = DH_BACKEND_ABI_MINOR,
    .name = "cpu",
    .description = "host CPU (libc memory, hwloc topology); single queue",
    .device_type = kDLCPU,
    .caps = DH_CAP_SINGLE_QUEUE | DH_CAP_HOST_POINTER_ARITHMETIC,
    .target_kind = "cpu",
    .target_kind_json = NULL,
    .init = dh_cpu_init,
    .shutdown = dh_cpu_shutdown,
    .unavailable_reason = dh_cpu_unavailable_reason,
    .get_attr = dh_cpu_get_attr,
    .get_target_property = dh_cpu_get_target_property,
    .set_device = dh_cpu_set_device,
    .alloc_data_space = dh_cpu_alloc_data_space,
    .free_data_space = dh_cpu_free_data_space,
    .alloc_workspace = NULL,
    .free_workspace = NULL,
    .alloc_host = NULL, /* host memory is already "pinned" from the cpu's point of view */
    .free_host = NULL,
    .copy_data_from_to = dh_cpu_copy_data_from_to,
    .create_stream = dh_cpu_create_stream,
    .free_stream = dh_cpu_free_stream,
    .set_stream = dh_cpu_set_stream,
    .get_current_stream = dh_cpu_get_current_stream,
    .stream_sync = dh_cpu_stream_sync,
    .sync_stream_from_to = dh_cpu_sync_stream_from_to,
    .functions = dh_cpu_functions,
    .num_functions = sizeof dh_cpu_functions / sizeof dh_cpu_functions[0],
    .event_create = NULL,
    .event_record = NULL,
    .event_elapsed_ms = NULL,
    .event_free = NULL,
    .raw = &dh_cpu_raw_twin,
};

/* The plugin entry point (backend.h): the cpu backend, static storage. */
__attribute__((visibility("default"))) const dh_backend_t* dh_backend_entry(void) {
  return &dh_cpu_backend;
}
