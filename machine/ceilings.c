/*
 * machine/ceilings.c — the ceilings of copies per device and direction (machine/ceilings.h):
 * PCIe links from sysfs, the host link from hwloc, a measured host memcpy, and the table
 * the summary, the expectations and the context read.
 */
#include <hwloc.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ceilings.h"

static const char* const kDirs[DH_MACHINE_DIR_COUNT] = {"h2d", "d2h", "d2d", "bidir"};

int dh_machine_dir_index(const char* name) {
  for (int i = 0; i < DH_MACHINE_DIR_COUNT; ++i)
    if (name && strcmp(name, kDirs[i]) == 0) return i;
  return -1;
}

const char* dh_machine_dir_name(int dir) { return dir >= 0 && dir < DH_MACHINE_DIR_COUNT ? kDirs[dir] : "?"; }

/*--- the table ---*/
typedef struct dev_ceilings {
  char spec[64];
  dh_machine_ceiling_t dir[DH_MACHINE_DIR_COUNT];
  int set[DH_MACHINE_DIR_COUNT];
} dev_ceilings_t;
static dev_ceilings_t g_dev[64];
static size_t g_ndev;

static dev_ceilings_t* find_dev(const char* spec, int create) {
  for (size_t i = 0; i < g_ndev; ++i)
    if (strcmp(g_dev[i].spec, spec) == 0) return &g_dev[i];
  if (!create || g_ndev >= sizeof g_dev / sizeof g_dev[0]) return NULL;
  dev_ceilings_t* d = &g_dev[g_ndev++];
  memset(d, 0, sizeof *d);
  snprintf(d->spec, sizeof d->spec, "%s", spec);
  return d;
}

void dh_machine_ceiling_set(const char* spec, int dir, double gbps, const char* fmt, ...) {
  dev_ceilings_t* d = find_dev(spec, 1);
  if (!d || dir < 0 || dir >= DH_MACHINE_DIR_COUNT) return;
  d->dir[dir].gbps = gbps > 0 && isfinite(gbps) ? gbps : 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->dir[dir].what, sizeof d->dir[dir].what, fmt, ap);
  va_end(ap);
  d->set[dir] = 1;
}

const dh_machine_ceiling_t* dh_machine_ceiling_get(const char* spec, int dir) {
  dev_ceilings_t* d = find_dev(spec, 0);
  if (!d || dir < 0 || dir >= DH_MACHINE_DIR_COUNT || !d->set[dir]) return NULL;
  return &d->dir[dir];
}

/*--- PCIe links from sysfs ---*/
double dh_machine_pcie_gbps(double gts, int width, int* gen, const char** encoding) {
  static const struct {
    double gts;
    int gen;
    double payload; /* payload bits per transferred bit */
    const char* encoding;
  } kGens[] = {{2.5, 1, 8.0 / 10, "8b/10b"},       {5.0, 2, 8.0 / 10, "8b/10b"},
               {8.0, 3, 128.0 / 130, "128b/130b"}, {16.0, 4, 128.0 / 130, "128b/130b"},
               {32.0, 5, 128.0 / 130, "128b/130b"}, {64.0, 6, 242.0 / 256, "242B/256B FLIT"}};
  for (size_t i = 0; i < sizeof kGens / sizeof kGens[0]; ++i) {
    if (fabs(gts - kGens[i].gts) > 0.01 || width <= 0) continue;
    if (gen) *gen = kGens[i].gen;
    if (encoding) *encoding = kGens[i].encoding;
    return gts * width * kGens[i].payload / 8.0;
  }
  return 0;
}

static const char* sysfs_root(void) {
  const char* r = getenv("DEVHARNESS_SYSFS_ROOT");
  return r && *r ? r : "/sys";
}

/* The first number in dir/name ("16.0 GT/s PCIe", "16"); 0 when absent or not a number. */
static double read_number(const char* dir, const char* name) {
  char path[PATH_MAX], buf[64] = "";
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  char* end = NULL;
  double v = strtod(buf, &end);
  return end != buf && isfinite(v) && v > 0 ? v : 0;
}

/* 1 when bus_id is "dddd:bb:dd.f" in hex (nothing else reaches a path). */
static int bus_id_ok(const char* id) {
  unsigned dom, bus, dev, fn;
  char tail;
  return id && strlen(id) == 12 && sscanf(id, "%4x:%2x:%2x.%1x%c", &dom, &bus, &dev, &fn, &tail) == 4;
}

int dh_machine_pcie_link_read(const char* bus_id, dh_machine_pcie_link_t* out, char* why, size_t size) {
  memset(out, 0, sizeof *out);
  if (!bus_id_ok(bus_id)) {
    snprintf(why, size, "PCI bus id '%.40s' is not dddd:bb:dd.f", bus_id ? bus_id : "");
    return -1;
  }
  char link[PATH_MAX], real[PATH_MAX];
  snprintf(link, sizeof link, "%s/bus/pci/devices/%s", sysfs_root(), bus_id);
  if (!realpath(link, real)) {
    snprintf(why, size, "%s: no such PCI function in sysfs", link);
    return -1;
  }
  out->cur_gts = read_number(real, "current_link_speed");
  out->cur_width = (int)read_number(real, "current_link_width");
  out->max_gts = read_number(real, "max_link_speed");
  out->max_width = (int)read_number(real, "max_link_width");
  char* slash = strrchr(real, '/'); /* the upstream port: the folder above */
  if (slash) {
    *slash = '\0';
    out->host_gts = read_number(real, "max_link_speed");
    out->host_width = (int)read_number(real, "max_link_width");
  }
  double gts = out->max_gts;
  int width = out->max_width;
  if (out->host_gts > 0 && out->host_gts < gts) gts = out->host_gts;
  if (out->host_width > 0 && out->host_width < width) width = out->host_width;
  out->gbps = dh_machine_pcie_gbps(gts, width, &out->gen, &out->encoding);
  if (out->gbps <= 0) {
    snprintf(why, size, "%s: max_link_speed %.1f GT/s x%d is no PCIe link rate (a virtual function?)", link,
             out->max_gts, out->max_width);
    return -1;
  }
  return 0;
}

/*--- host memcpy ---*/
static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double dh_machine_host_memcpy_gbps(char* what, size_t size) {
  static double gbps = -1;
  static char desc[256];
  if (gbps < 0) {
    const char* env = getenv("DEVHARNESS_BENCH_MEMCPY_MIB");
    long mib = env ? strtol(env, NULL, 10) : 64;
    if (mib < 1 || mib > 4096) mib = 64;
    size_t n = (size_t)mib << 20;
    char* a = aligned_alloc(4096, n);
    char* b = aligned_alloc(4096, n);
    gbps = 0;
    if (!a || !b) {
      snprintf(desc, sizeof desc, "host memcpy not measured: cannot allocate 2 x %ld MiB", mib);
    } else {
      memset(a, 1, n);
      memset(b, 2, n);
      double best = INFINITY;
      for (int i = 0; i < 6; ++i) { /* the first is a warm-up */
        double t0 = now_s();
        memcpy(i % 2 ? a : b, i % 2 ? b : a, n);
        double t = now_s() - t0;
        if (i > 0 && t > 0) best = fmin(best, t);
      }
      gbps = isfinite(best) ? (double)n / best / 1e9 : 0;
      snprintf(desc, sizeof desc, "host memcpy measured in this run: best of 5 x %ld MiB, bytes counted once", mib);
    }
    free(a);
    free(b);
  }
  snprintf(what, size, "%s", desc);
  return gbps;
}

/*--- the machine's GPU link from hwloc ---*/
const char* dh_machine_find_host_link(double* gbps_out) {
  static char desc[256];
  static double gbps = -1;
  if (gbps >= 0) {
    *gbps_out = gbps;
    return desc;
  }
  gbps = 0;
  snprintf(desc, sizeof desc, "unknown: hwloc sees no GPU PCI function");
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return *gbps_out = 0, desc;
  hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    return *gbps_out = 0, desc;
  }
  for (hwloc_obj_t o = hwloc_get_next_pcidev(topo, NULL); o; o = hwloc_get_next_pcidev(topo, o)) {
    unsigned cls = o->attr->pcidev.class_id >> 8;
    if (cls != 0x03 && cls != 0x12) continue; /* display controller, processing accelerator */
    double g = o->attr->pcidev.linkspeed;
    if (g > gbps) {
      gbps = g;
      snprintf(desc, sizeof desc,
               "%.2f GB/s per direction: hwloc PCI link of %04x:%02x:%02x.%x (vendor %04x device %04x)", g,
               o->attr->pcidev.domain, o->attr->pcidev.bus, o->attr->pcidev.dev, o->attr->pcidev.func,
               o->attr->pcidev.vendor_id, o->attr->pcidev.device_id);
    }
  }
  hwloc_topology_destroy(topo);
  *gbps_out = gbps;
  return desc;
}
