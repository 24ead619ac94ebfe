/*
 * machine/locality.c — where the devices under test are (machine/locality.h): the PCI
 * bus id their backend reports, and their NUMA node for --pin auto: the sysfs numa_node
 * of the device's PCI function, else of the only GPU PCI function hwloc sees, else the
 * first NUMA node, each time saying why.
 */
#include <ctype.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/device_api.h"
#include "devharness/error.h"
#include "locality.h"

int dh_machine_pci_bus_id(const dh_machine_device_t* d, char* id, size_t size, char* why, size_t why_size) {
  dh_any_t arg = dh_any_device(d->dev), rv = dh_any_none();
  dh_byte_array_t s;
  if (dh_device_call(d->dev, DH_FUNC_PCI_BUS_ID, &arg, 1, &rv) == 0 && dh_any_as_str(&rv, &s) == 0) {
    snprintf(id, size, "%.*s", (int)s.size, s.data);
    dh_any_release(&rv); /* an id of 8 bytes or more is a Str object */
    return (int)s.size;
  }
  dh_any_release(&rv);
  snprintf(why, why_size, "%s.%s: %s", d->backend->name, DH_FUNC_PCI_BUS_ID,
           dh_error_message() && *dh_error_message() ? dh_error_message() : "not offered");
  dh_error_clear();
  return -1;
}

/* sysfs numa_node of PCI function bus ("dddd:bb:dd.f"): >= 0, -1 when the firmware gives
 * none, -2 when unreadable (why says which). */
static int sysfs_node(const char* bus, char* why, size_t size) {
  char path[160];
  snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/numa_node", bus);
  FILE* f = fopen(path, "r");
  int node = -2;
  if (f) {
    if (fscanf(f, "%d", &node) != 1) node = -2;
    fclose(f);
  }
  if (node == -2) snprintf(why, size, "%s unreadable", path);
  else if (node < 0) snprintf(why, size, "%s is %d (the firmware gives no node)", path, node);
  return node;
}

/* The device's PCI bus id into bus (lower case), 1 when it reports a well-formed one. */
static int device_bus_id(const dh_machine_device_t* d, char* bus, size_t size) {
  char why[256];
  int n = dh_machine_pci_bus_id(d, bus, size, why, sizeof why);
  int ok = n > 0 && (size_t)n < size && strlen(bus) == (size_t)n;
  for (int i = 0; ok && i < n; ++i) ok = isxdigit((unsigned char)bus[i]) || bus[i] == ':' || bus[i] == '.';
  for (int i = 0; ok && i < n; ++i) bus[i] = (char)tolower((unsigned char)bus[i]);
  return ok;
}

/* The bus id of the only display / processing-accelerator PCI function hwloc sees, 1
 * when there is exactly one. */
static int only_gpu_function(char* bus, size_t size) {
  hwloc_topology_t topo;
  int n = 0;
  if (hwloc_topology_init(&topo) != 0) return 0;
  hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(topo) == 0)
    for (hwloc_obj_t o = hwloc_get_next_pcidev(topo, NULL); o; o = hwloc_get_next_pcidev(topo, o)) {
      unsigned cls = o->attr->pcidev.class_id >> 8;
      if (cls != 0x03 && cls != 0x12) continue;
      if (++n == 1)
        snprintf(bus, size, "%04x:%02x:%02x.%x", o->attr->pcidev.domain, o->attr->pcidev.bus, o->attr->pcidev.dev,
                 o->attr->pcidev.func);
    }
  hwloc_topology_destroy(topo);
  return n == 1;
}

/* The os index of the first NUMA node and the number of nodes. */
static int first_node(int* count) {
  hwloc_topology_t topo;
  int node = 0;
  *count = 0;
  if (hwloc_topology_init(&topo) != 0) return 0;
  if (hwloc_topology_load(topo) == 0) {
    *count = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    hwloc_obj_t o = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, 0);
    if (o) node = (int)o->os_index;
  }
  hwloc_topology_destroy(topo);
  return node;
}

int dh_machine_device_node(const dh_machine_device_t* devs, size_t ndev, char* why, size_t size) {
  char bus[64], note[256] = "", more[256] = "";
  int nodes, fallback = first_node(&nodes), node = -2;
  const char* who = NULL;
  for (size_t i = 0; i < ndev; ++i) {
    if (!device_bus_id(&devs[i], bus, sizeof bus)) continue;
    int n = sysfs_node(bus, note, sizeof note);
    if (node == -2 && n >= 0) {
      node = n;
      who = devs[i].spec;
      snprintf(why, size, "%s's PCI function %s: sysfs numa_node %d of %d nodes", who, bus, n, nodes);
    } else if (n >= 0 && n != node && !more[0]) {
      snprintf(more, sizeof more, "; %s is on node %d, the first device's node is used", devs[i].spec, n);
    }
  }
  if (node == -2 && only_gpu_function(bus, sizeof bus)) {
    int n = sysfs_node(bus, note, sizeof note);
    if (n >= 0) {
      node = n;
      snprintf(why, size, "no device reports its PCI function; the only GPU PCI function hwloc sees, %s: sysfs "
               "numa_node %d of %d nodes", bus, n, nodes);
    }
  }
  if (node == -2) {
    node = fallback;
    snprintf(why, size, "no PCI function%s%s: node %d of %d", note[0] ? " with a node; " : "", note, node,
             nodes > 0 ? nodes : 1);
  }
  if (more[0] && strlen(why) + strlen(more) < size) strcat(why, more);
  return node;
}
