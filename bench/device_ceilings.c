/*
 * bench/device_ceilings.c — the ceilings of each device under test (bench/ceilings.h),
 * from what the device says: its PCI function (DH_FUNC_PCI_BUS_ID) for the host link in
 * sysfs, the --expect target's memory_bandwidth_gbps or the backend's
 * DH_FUNC_MEMORY_PEAK_BANDWIDTH for D2D, a measured host memcpy for devices whose memory
 * is host memory. Each ceiling goes into the context as ceiling.<spec>.<dir>.
 */
#include <stdio.h>
#include <string.h>

#include "ceilings.h"
#include "devharness/device_api.h"
#include "devharness/error.h"
#include "expect.h"
#include "run.h"

/* The device's PCI function into id: 0 with an id, 1 when its memory is host memory
 * (the backend says "", or a cpu / ext_dev device whose backend names none), -1 when
 * unknown (why). */
static int pci_function(const dh_bench_device_t* d, char* id, size_t idsize, char* why, size_t size) {
  dh_any_t arg = dh_any_device(d->dev), rv = dh_any_none();
  dh_byte_array_t s;
  if (dh_device_call(d->dev, DH_FUNC_PCI_BUS_ID, &arg, 1, &rv) == 0 && dh_any_as_str(&rv, &s) == 0) {
    snprintf(id, idsize, "%.*s", (int)s.size, s.data);
    dh_any_release(&rv); /* an id of 8 bytes or more is a Str object */
    return id[0] ? 0 : 1;
  }
  dh_any_release(&rv);
  snprintf(why, size, "%s.%s: %s", d->backend->name, DH_FUNC_PCI_BUS_ID,
           dh_error_message() && *dh_error_message() ? dh_error_message() : "not offered");
  dh_error_clear();
  return d->dev.device_type == kDLCPU || d->dev.device_type == kDLExtDev ? 1 : -1;
}

/* H2D, D2H and bidir of a device behind a PCIe link. */
static void link_ceilings(const dh_bench_device_t* d, int found, const char* id, const char* why) {
  dh_bench_pcie_link_t l;
  char err[512], what[384];
  double gbps = 0;
  if (found == 0 && dh_bench_pcie_link_read(id, &l, err, sizeof err) == 0) {
    gbps = l.gbps;
    snprintf(what, sizeof what,
             "host link PCIe Gen%d x%d, %s, of %s from sysfs (device max %.1f GT/s x%d, upstream port max %.1f "
             "GT/s x%d, current %.1f GT/s x%d)",
             l.gen, l.max_width < l.host_width || !l.host_width ? l.max_width : l.host_width, l.encoding, id,
             l.max_gts, l.max_width, l.host_gts, l.host_width, l.cur_gts, l.cur_width);
    char key[128], val[512];
    snprintf(key, sizeof key, "ceiling.%s.host_link", d->spec);
    snprintf(val, sizeof val, "%.2f GB/s per direction: %s", gbps, what);
    dh_gb_add_context(key, val);
  } else {
    double hw = 0;
    const char* desc = dh_bench_find_host_link(&hw);
    if (found != 0) snprintf(err, sizeof err, "%s", why);
    if (hw > 0) {
      gbps = hw;
      snprintf(what, sizeof what, "host link of the machine's fastest GPU (%s), not matched to the device: %.200s",
               desc, err);
    } else {
      snprintf(what, sizeof what, "unknown: no PCI link: %.300s", err);
    }
  }
  dh_bench_ceiling_set(d->spec, DH_DIR_H2D, gbps, "%s", what);
  dh_bench_ceiling_set(d->spec, DH_DIR_D2H, gbps, "%s", what);
  dh_bench_ceiling_set(d->spec, DH_DIR_BIDIR, 2 * gbps, "%s%s", gbps > 0 ? "2 x " : "", what);
}

/* D2D: the target's memory bandwidth, else the backend's peak; half (a copy reads and writes). */
static void memory_ceiling(const dh_bench_device_t* d) {
  const char* source = NULL;
  double gbps = dh_bench_expect_memory_gbps(d->dev.device_type, &source);
  if (gbps > 0) {
    dh_bench_ceiling_set(d->spec, DH_DIR_D2D, gbps / 2,
                         "device memory %.0f GB/s / 2 (a copy reads and writes), memory_bandwidth_gbps of the "
                         "--expect target (%.300s)",
                         gbps, source);
    return;
  }
  dh_any_t arg = dh_any_device(d->dev), rv = dh_any_none();
  if (dh_device_call(d->dev, DH_FUNC_MEMORY_PEAK_BANDWIDTH, &arg, 1, &rv) == 0 && rv.type_index == DH_TYPE_FLOAT &&
      rv.v_float64 > 0) {
    dh_bench_ceiling_set(d->spec, DH_DIR_D2D, rv.v_float64 / 2e9,
                         "device memory %.0f GB/s / 2 (a copy reads and writes), %s.%s", rv.v_float64 / 1e9,
                         d->backend->name, DH_FUNC_MEMORY_PEAK_BANDWIDTH);
    return;
  }
  dh_error_clear();
  dh_bench_ceiling_set(d->spec, DH_DIR_D2D, 0,
                       "unknown: no memory_bandwidth_gbps (bench --expect TAG names a target with one) and %s has "
                       "no %s",
                       d->backend->name, DH_FUNC_MEMORY_PEAK_BANDWIDTH);
}

void dh_bench_find_ceilings(const dh_bench_device_t* devs, size_t ndev) {
  for (size_t i = 0; i < ndev; ++i) {
    const dh_bench_device_t* d = &devs[i];
    char id[64] = "", why[384] = "";
    int found = pci_function(d, id, sizeof id, why, sizeof why);
    if (found == 1) {
      char what[256];
      double m = dh_bench_host_memcpy_gbps(what, sizeof what);
      for (int k = 0; k < DH_DIR_COUNT; ++k)
        dh_bench_ceiling_set(d->spec, k, m, m > 0 ? "%s (the device's memory is host memory; copies that fit in the CPU caches can exceed it)"
                                    : "unknown: %s",
                             what);
    } else {
      link_ceilings(d, found, id, why);
      memory_ceiling(d);
    }
    for (int k = 0; k < DH_DIR_COUNT; ++k) {
      const dh_bench_ceiling_t* c = dh_bench_ceiling_get(d->spec, k);
      char key[128], val[640];
      snprintf(key, sizeof key, "ceiling.%s.%s", d->spec, dh_bench_dir_name(k));
      if (c->gbps > 0) snprintf(val, sizeof val, "%.2f GB/s: %s", c->gbps, c->what);
      else snprintf(val, sizeof val, "%s", c->what);
      dh_gb_add_context(key, val);
    }
  }
}
