/*
 * bench/ceilings.h — what each copy could reach at best, per device and direction
 * (docs/benchmarks.md "Ceilings"): the host link of the device's PCI function read from
 * sysfs, the device memory bandwidth of the target (tag) or the backend, and for
 * devices whose memory is host memory a host memcpy measured in the run. Internal to
 * bench/; not thread-safe (the benchmark thread only). Needs no backend: bench/devices.c
 * asks the devices and hands the answers in.
 */
#ifndef DEVHARNESS_BENCH_CEILINGS_H_
#define DEVHARNESS_BENCH_CEILINGS_H_

#include <stddef.h>

/* Copy directions, in the order of the benchmark names (copy/<dir>/...). */
enum { DH_DIR_H2D, DH_DIR_D2H, DH_DIR_D2D, DH_DIR_BIDIR, DH_DIR_COUNT };

/* One ceiling: gbps (10^9 bytes/s, bytes counted once; bidir: both directions summed)
 * and what it is, or gbps 0 and why it is unknown. */
typedef struct dh_bench_ceiling {
  double gbps;
  char what[512];
} dh_bench_ceiling_t;

/* A PCIe link as sysfs reports it (/sys/bus/pci/devices/<id>/). */
typedef struct dh_bench_pcie_link {
  double cur_gts, max_gts, host_gts; /* GT/s per lane: current, device max, upstream port max (0: unknown) */
  int cur_width, max_width, host_width;
  double gbps;          /* ceiling per direction: min(device max, upstream max) speed x width x encoding / 8 */
  int gen;              /* PCIe generation of that speed (1..6) */
  const char* encoding; /* "8b/10b", "128b/130b" or "242B/256B FLIT" */
} dh_bench_pcie_link_t;

/* Index of "h2d", "d2h", "d2d", "bidir"; -1 for anything else. */
int dh_bench_dir_index(const char* name);
/* The name of a direction index. */
const char* dh_bench_dir_name(int dir);

/* PCIe generation and payload GB/s per direction of `gts` GT/s x `width` lanes after
 * the line encoding (8b/10b for Gen1-2: 2.5 and 5 GT/s; 128b/130b for Gen3-5: 8, 16,
 * 32 GT/s; 242B/256B FLIT for Gen6: 64 GT/s). 0 for a speed that is no PCIe rate. */
double dh_bench_pcie_gbps(double gts, int width, int* gen, const char** encoding);

/* Reads the link of PCI function bus_id ("dddd:bb:dd.f") under sysfs root
 * ($DEVHARNESS_SYSFS_ROOT, else /sys; tests point it at a fake tree): current_link_*,
 * max_link_* of the function and max_link_* of its upstream port (the folder above it
 * in /sys/devices). 0, or -1 with the reason in why. */
int dh_bench_pcie_link_read(const char* bus_id, dh_bench_pcie_link_t* out, char* why, size_t size);

/* Host memcpy bandwidth (GB/s, bytes counted once), measured on the first call: the
 * best of 5 memcpy of 64 MiB between page-aligned buffers written beforehand
 * ($DEVHARNESS_BENCH_MEMCPY_MIB overrides the size); what it is in `what`. 0 when the
 * buffers cannot be allocated (why in what). */
double dh_bench_host_memcpy_gbps(char* what, size_t size);

/* Sets the ceiling of direction dir of device spec: gbps > 0 and what, or 0 and why
 * it is unknown (printf format). */
void dh_bench_ceiling_set(const char* spec, int dir, double gbps, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The ceiling of device spec's direction (name or index via dh_bench_dir_index); NULL
 * when none was set. */
const dh_bench_ceiling_t* dh_bench_ceiling_get(const char* spec, int dir);

/* The host-link ceiling of "the" GPU link from hwloc (the fastest PCI link of a
 * display / accelerator function; used for devices whose backend names no PCI
 * function) and its description for the context key ceiling.host_link (static). */
const char* dh_bench_find_host_link(double* gbps);

#endif /* DEVHARNESS_BENCH_CEILINGS_H_ */
