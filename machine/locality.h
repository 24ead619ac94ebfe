/*
 * machine/locality.h — where a device under test sits in this machine: its PCI function,
 * as its backend reports it (the optional function DH_FUNC_PCI_BUS_ID, (Device) -> Str
 * "dddd:bb:dd.f", "" for a device whose memory is host memory), and the NUMA node of the
 * devices (sysfs numa_node, hwloc). Used by bench/ (--pin auto, the ceilings). Not
 * thread-safe: call from one thread (the benchmark thread).
 */
#ifndef DEVHARNESS_MACHINE_LOCALITY_H_
#define DEVHARNESS_MACHINE_LOCALITY_H_

#include <stddef.h>

#include "devharness/backend.h"
#include "devharness/device_api.h"

/* One device under test: the device, the backend that drives it (from dh_device_select)
 * and its spec as dh_device_format writes it ("sim:0"). */
typedef struct dh_machine_device {
  DLDevice dev;
  const dh_backend_t* backend;
  char spec[64];
} dh_machine_device_t;

/* The PCI bus id d's backend reports (DH_FUNC_PCI_BUS_ID) copied into id (cut to size;
 * "" when the backend says the device's memory is host memory). Returns the length of
 * the reported id (>= size when it was cut), or -1 when the backend offers none or its
 * answer is not a string, with "<backend>.pci_bus_id: <error>" (or ": not offered") in
 * why; the thread's error is cleared either way. */
int dh_machine_pci_bus_id(const dh_machine_device_t* d, char* id, size_t size, char* why, size_t why_size);

/* The NUMA node (os index) of the devices under test: the sysfs numa_node of the PCI
 * function of the first device whose backend reports a well-formed one (hex digits,
 * ':' and '.'; dh_machine_pci_bus_id); else of the only GPU PCI function hwloc sees;
 * else the first NUMA node. why receives one line saying which and why (e.g. "no PCI
 * function: node 0 of 1"), and names a device on another node. */
int dh_machine_device_node(const dh_machine_device_t* devs, size_t ndev, char* why, size_t size);

#endif /* DEVHARNESS_MACHINE_LOCALITY_H_ */
