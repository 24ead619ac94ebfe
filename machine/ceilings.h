/*
 * machine/ceilings.h — what each copy could reach at best, per device and direction
 * (docs/benchmarks.md "Ceilings"): the host link of the device's PCI function read from
 * sysfs, the device memory bandwidth of the target (tag) or the backend, and for
 * devices whose memory is host memory a host memcpy measured in the run; the table of
 * them that bench/'s summary and expectations read (machine/ceilings.c, the device side
 * machine/device_ceilings.c). Not thread-safe (the benchmark thread only).
 */
#ifndef DEVHARNESS_MACHINE_CEILINGS_H_
#define DEVHARNESS_MACHINE_CEILINGS_H_

#include <stddef.h>

#include "locality.h"

/* Copy directions, in the order of the benchmark names (copy/<dir>/...). */
enum { DH_MACHINE_DIR_H2D, DH_MACHINE_DIR_D2H, DH_MACHINE_DIR_D2D, DH_MACHINE_DIR_BIDIR, DH_MACHINE_DIR_COUNT };

/* One ceiling: gbps (10^9 bytes/s, bytes counted once; bidir: both directions summed)
 * and what it is, or gbps 0 and why it is unknown. */
typedef struct dh_machine_ceiling {
  double gbps;
  char what[512];
} dh_machine_ceiling_t;

/* A PCIe link as sysfs reports it (/sys/bus/pci/devices/<id>/). */
typedef struct dh_machine_pcie_link {
  double cur_gts, max_gts, host_gts; /* GT/s per lane: current, device max, upstream port max (0: unknown) */
  int cur_width, max_width, host_width;
  double gbps;          /* ceiling per direction: min(device max, upstream max) speed x width x encoding / 8 */
  int gen;              /* PCIe generation of that speed (1..6) */
  const char* encoding; /* "8b/10b", "128b/130b" or "242B/256B FLIT" */
} dh_machine_pcie_link_t;

/* Index of "h2d", "d2h", "d2d", "bidir"; -1 for anything else. */
int dh_machine_dir_index(const char* name);
/* The name of a direction index. */
const char* dh_machine_dir_name(int dir);

/* PCIe generation and payload GB/s per direction of `gts` GT/s x `width` lanes after
 * the line encoding (8b/10b for Gen1-2: 2.5 and 5 GT/s; 128b/130b for Gen3-5: 8, 16,
 * 32 GT/s; 242B/256B FLIT for Gen6: 64 GT/s). 0 for a speed that is no PCIe rate. */
double dh_machine_pcie_gbps(double gts, int width, int* gen, const char** encoding);

/* Reads the link of PCI function bus_id ("dddd:bb:dd.f") under sysfs root
 * ($DEVHARNESS_SYSFS_ROOT, else /sys; tests point it at a fake tree): current_link_*,
 * max_link_* of the function and max_link_* of its upstream port (the folder above it
 * in /sys/devices). 0, or -1 with the reason in why. */
int dh_machine_pcie_link_read(const char* bus_id, dh_machine_pcie_link_t* out, char* why, size_t size);

/* Host memcpy bandwidth (GB/s, bytes counted once), measured on the first call: the
 * best of 5 memcpy of 64 MiB between page-aligned buffers written beforehand
 * ($DEVHARNESS_BENCH_MEMCPY_MIB overrides the size); what it is in `what`. 0 when the
 * buffers cannot be allocated (why in what). */
double dh_machine_host_memcpy_gbps(char* what, size_t size);

/* Sets the ceiling of direction dir of device spec: gbps > 0 and what, or 0 and why
 * it is unknown (printf format). */
void dh_machine_ceiling_set(const char* spec, int dir, double gbps, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The ceiling of device spec's direction (name or index via dh_machine_dir_index); NULL
 * when none was set. */
const dh_machine_ceiling_t* dh_machine_ceiling_get(const char* spec, int dir);

/* The host-link ceiling of "the" GPU link from hwloc (the fastest PCI link of a
 * display / accelerator function; used for devices whose backend names no PCI
 * function) and its description for the context key ceiling.host_link (static). */
const char* dh_machine_find_host_link(double* gbps);

/* The ceilings of device d per direction, set in the table (dh_machine_ceiling_set).
 * A device whose memory is host memory (its backend reports the PCI bus id "", or a cpu
 * / ext_dev device whose backend reports none) gets the host memcpy
 * (dh_machine_host_memcpy_gbps) for every direction. Any other gets the host link of its
 * PCI function from sysfs, else of the machine's fastest GPU (dh_machine_find_host_link),
 * for h2d and d2h, twice that for bidir; and for d2d half of memory_gbps (a device
 * memory bandwidth the caller was given, from memory_source: bench's --expect target),
 * or with memory_gbps 0 half the backend's DH_FUNC_MEMORY_PEAK_BANDWIDTH, else unknown.
 * host_link receives "<N> GB/s per direction: <what>" when the link was read from
 * sysfs, else "". Call on the thread whose placement the memcpy should have (bench: the
 * pinned benchmark thread). */
void dh_machine_device_ceilings(const dh_machine_device_t* d, double memory_gbps, const char* memory_source,
                                char* host_link, size_t size);

#endif /* DEVHARNESS_MACHINE_CEILINGS_H_ */
