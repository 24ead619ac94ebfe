/*
 * backends/cpu/cpu_device.c — the cpu backend's device: facts read once by init
 * (hwloc, sysinfo, cpufreq), availability, attributes, target properties, set_device.
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

#include "cpu_internal.h"

/*===========================================================================
 * Device facts, read once by init
 *===========================================================================*/


dh_cpu_info_t dh_cpu_info;

/* Bytes handed out by alloc_data_space and not yet freed (malloc_usable_size of each).
 * The kernel backs pages lazily, so MemAvailable alone would not drop after an
 * allocation; kAvailableGlobalMemory subtracts these. */
atomic_llong dh_cpu_live_bytes;

/* Copies the value of the first "key : value" line of `path` whose key starts with
 * `key` into out. Returns 1 when found. */
int dh_cpu_read_keyed_line(const char* path, const char* key, char* out, size_t out_size) {
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

int dh_cpu_init(void) {
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

void dh_cpu_shutdown(void) { dh_cpu_info.initialised = 0; }

const char* dh_cpu_unavailable_reason(void) { return NULL; }

/* cpu:0 is the only device. */
int dh_cpu_bad_device(DLDevice dev) {
  if (dev.device_type != kDLCPU)
    return dh_error_set(DH_KIND_VALUE_ERROR, "cpu: device type %d is not kDLCPU (1)", (int)dev.device_type);
  return DH_BACKEND_CHECK_DEVICE(dev, 1, "cpu: device id %d out of range (1 device: 0)",
                                 (int)dev.device_id);
}

/*===========================================================================
 * Attributes
 *===========================================================================*/

int dh_cpu_get_attr(DLDevice dev, int32_t kind, dh_any_t* out_value) {
  if (out_value == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "cpu: get_attr: out_value is NULL");
  *out_value = dh_any_none();
  if (kind == DH_ATTR_EXIST) {
    *out_value = dh_any_int(dev.device_type == kDLCPU && dev.device_id == 0);
    return 0;
  }
  if (kind < 0 || kind >= DH_ATTR_KIND_COUNT)
    return dh_error_set(DH_KIND_VALUE_ERROR, "cpu: unknown attribute kind %d (valid: 0..%d)", (int)kind,
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
int dh_cpu_get_target_property(DLDevice dev, const char* name, dh_any_t* out_value) {
  if (name == NULL || out_value == NULL)
    return dh_error_set(DH_KIND_VALUE_ERROR, "cpu: get_target_property: NULL name or out_value");
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

int dh_cpu_set_device(DLDevice dev) { return dh_cpu_check_device(dev); }
