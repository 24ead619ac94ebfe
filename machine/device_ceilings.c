/*
 * machine/device_ceilings.c — the ceilings of one device under test (machine/ceilings.h
 * dh_machine_device_ceilings), from what the device says: its PCI function
 * (DH_FUNC_PCI_BUS_ID, machine/locality.h) for the host link in sysfs, the device memory
 * bandwidth the caller was given or the backend's DH_FUNC_MEMORY_PEAK_BANDWIDTH for D2D,
 * a measured host memcpy for devices whose memory is host memory.
 */
#include <stdio.h>
#include <string.h>

#include "ceilings.h"
#include "devharness/device_api.h"
#include "devharness/error.h"

/* The device's PCI function into id: 0 with an id, 1 when its memory is host memory
 * (the backend says "", or a cpu / ext_dev device whose backend names none), -1 when
 * unknown (why). */
static int pci_function(const dh_machine_device_t* d, char* id, size_t idsize, char* why, size_t size) {
  if (dh_machine_pci_bus_id(d, id, idsize, why, size) >= 0) return id[0] ? 0 : 1;
  return d->dev.device_type == kDLCPU || d->dev.device_type == kDLExtDev ? 1 : -1;
}

/* H2D, D2H and bidir of a device behind a PCIe link; the link read from sysfs into
 * host_link, else "". */
static void link_ceilings(const dh_machine_device_t* d, int found, const char* id, const char* why, char* host_link,
                          size_t size) {
  dh_machine_pcie_link_t l;
  char err[512], what[384];
  double gbps = 0;
  if (found == 0 && dh_machine_pcie_link_read(id, &l, err, sizeof err) == 0) {
    gbps = l.gbps;
    snprintf(what, sizeof what,
             "host link PCIe Gen%d x%d, %s, of %s from sysfs (device max %.1f GT/s x%d, upstream port max %.1f "
             "GT/s x%d, current %.1f GT/s x%d)",
             l.gen, l.max_width < l.host_width || !l.host_width ? l.max_width : l.host_width, l.encoding, id,
             l.max_gts, l.max_width, l.host_gts, l.host_width, l.cur_gts, l.cur_width);
    snprintf(host_link, size, "%.2f GB/s per direction: %s", gbps, what);
  } else {
    double hw = 0;
    const char* desc = dh_machine_find_host_link(&hw);
    if (found != 0) snprintf(err, sizeof err, "%s", why);
    if (hw > 0) {
      gbps = hw;
      snprintf(what, sizeof what, "host link of the machine's fastest GPU (%s), not matched to the device: %.200s",
               desc, err);
    } else {
      snprintf(what, sizeof what, "unknown: no PCI link: %.300s", err);
    }
  }
  dh_machine_ceiling_set(d->spec, DH_MACHINE_DIR_H2D, gbps, "%s", what);
  dh_machine_ceiling_set(d->spec, DH_MACHINE_DIR_D2H, gbps, "%s", what);
  dh_machine_ceiling_set(d->spec, DH_MACHINE_DIR_BIDIR, 2 * gbps, "%s%s", gbps > 0 ? "2 x " : "", what);
}

/* D2D: the memory bandwidth given (gbps, from source), else the backend's peak; half (a
 * copy reads and writes). */
static void memory_ceiling(const dh_machine_device_t* d, double gbps, const char* source) {
  if (gbps > 0) {
    dh_machine_ceiling_set(d->spec, DH_MACHINE_DIR_D2D, gbps / 2,
                           "device memory %.0f GB/s / 2 (a copy reads and writes), memory_bandwidth_gbps of the "
                           "--expect target (%.300s)",
                           gbps, source);
    return;
  }
  dh_any_t arg = dh_any_device(d->dev), rv = dh_any_none();
  if (dh_device_call(d->dev, DH_FUNC_MEMORY_PEAK_BANDWIDTH, &arg, 1, &rv) == 0 && rv.type_index == DH_TYPE_FLOAT &&
      rv.v_float64 > 0) {
    dh_machine_ceiling_set(d->spec, DH_MACHINE_DIR_D2D, rv.v_float64 / 2e9,
                           "device memory %.0f GB/s / 2 (a copy reads and writes), %s.%s", rv.v_float64 / 1e9,
                           d->backend->name, DH_FUNC_MEMORY_PEAK_BANDWIDTH);
    return;
  }
  dh_error_clear();
  dh_machine_ceiling_set(d->spec, DH_MACHINE_DIR_D2D, 0,
                         "unknown: no memory_bandwidth_gbps (bench --expect TAG names a target with one) and %s has "
                         "no %s",
                         d->backend->name, DH_FUNC_MEMORY_PEAK_BANDWIDTH);
}

void dh_machine_device_ceilings(const dh_machine_device_t* d, double memory_gbps, const char* memory_source,
                                char* host_link, size_t size) {
  char id[64] = "", why[384] = "";
  host_link[0] = '\0';
  int found = pci_function(d, id, sizeof id, why, sizeof why);
  if (found == 1) {
    char what[256];
    double m = dh_machine_host_memcpy_gbps(what, sizeof what);
    for (int k = 0; k < DH_MACHINE_DIR_COUNT; ++k)
      dh_machine_ceiling_set(d->spec, k, m,
                             m > 0 ? "%s (the device's memory is host memory; copies that fit in the CPU caches can "
                                     "exceed it)"
                                   : "unknown: %s",
                             what);
  } else {
    link_ceilings(d, found, id, why, host_link, size);
    memory_ceiling(d, memory_gbps, memory_source);
  }
}
