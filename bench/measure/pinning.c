/*
 * bench/measure/pinning.c — where the threads of a benchmark run execute (bench/steps.h,
 * bench/measure/measure.h): the benchmark thread bound with hwloc (--pin), the helper
 * PUs on which every thread that starts a backend's or a twin's worker runs, and the
 * binding of driver worker threads (PoCL's). docs/benchmarks.md "Method" gives the
 * reasons and what each choice changed.
 */
#include <errno.h>
#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/measure/measure.h"
#include "bench/steps.h"
#include "cmdline/cmdline.h"
#include "devharness/device_api.h"

/* --pin auto: the NUMA node of the devices under test (dh_bench_pin_locate) and why. */
static int g_auto_node;
static char g_auto_why[512] = "the devices' node was not looked for";

void dh_bench_pin_locate(const char* mode, const dh_bench_device_t* devs, size_t ndev) {
  if (strcmp(mode, "auto") == 0) g_auto_node = dh_machine_device_node(devs, ndev, g_auto_why, sizeof g_auto_why);
}

/* The first core (else PU) inside cpuset, or NULL. */
static hwloc_obj_t first_core_in(hwloc_topology_t topo, hwloc_const_cpuset_t set) {
  hwloc_obj_t obj = hwloc_get_next_obj_inside_cpuset_by_type(topo, set, HWLOC_OBJ_CORE, NULL);
  return obj ? obj : hwloc_get_next_obj_inside_cpuset_by_type(topo, set, HWLOC_OBJ_PU, NULL);
}

/* The NUMA node --pin node / auto binds host memory to, or NULL (none, core). */
static hwloc_obj_t pin_node(hwloc_topology_t topo, const char* mode) {
  if (strcmp(mode, "node") == 0) return hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, 0);
  if (strcmp(mode, "auto") != 0) return NULL;
  hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(topo, (unsigned)g_auto_node);
  return node ? node : hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, 0);
}

/* What --pin binds the benchmark thread to: core 0 (or PU 0), NUMA node 0, the first
 * core of the devices' NUMA node (auto; core 0 when that node has no CPUs), or NULL
 * (none, or hwloc has no such object); *what names it for messages. */
static hwloc_obj_t pin_target(hwloc_topology_t topo, const char* mode, const char** what) {
  static char auto_what[160];
  *what = "core 0";
  if (strcmp(mode, "none") == 0) return NULL;
  if (strcmp(mode, "node") == 0) {
    *what = "NUMA node 0";
    return hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, 0);
  }
  hwloc_obj_t node = pin_node(topo, mode);
  hwloc_obj_t core = node && !hwloc_bitmap_iszero(node->cpuset) ? first_core_in(topo, node->cpuset) : NULL;
  if (core) {
    snprintf(auto_what, sizeof auto_what, "%s %u of NUMA node %u", core->type == HWLOC_OBJ_CORE ? "core" : "PU",
             core->logical_index, node->os_index);
    *what = auto_what;
    return core;
  }
  if (node) *what = "core 0 (the devices' NUMA node has no CPUs)";
  hwloc_obj_t obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, 0);
  return obj ? obj : hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, 0);
}

/*--- helper threads ---*/
static cpu_set_t g_helper_cpus;
static int g_helper_cpus_set;

/* Removes from *cpus the PUs --pin `mode` will bind the benchmark thread to, when any
 * are left. Returns NULL when it did, else why not. */
static const char* without_bench_pus(const char* mode, cpu_set_t* cpus) {
  if (strcmp(mode, "none") == 0) return "--pin none";
  const char* why = "hwloc topology failed";
  hwloc_topology_t topo;
  int have_topo = hwloc_topology_init(&topo) == 0;
  if (have_topo && hwloc_topology_load(topo) == 0) {
    const char* what;
    hwloc_obj_t obj = pin_target(topo, mode, &what);
    cpu_set_t bench;
    CPU_ZERO(&bench);
    why = "the benchmark thread's PUs are all the process has";
    if (obj && hwloc_cpuset_to_glibc_sched_affinity(topo, obj->cpuset, &bench, sizeof bench) == 0) {
      cpu_set_t rest;
      CPU_ZERO(&rest);
      for (int i = 0; i < CPU_SETSIZE; ++i)
        if (CPU_ISSET(i, cpus) && !CPU_ISSET(i, &bench)) CPU_SET(i, &rest);
      if (CPU_COUNT(&rest) > 0) {
        *cpus = rest;
        why = NULL;
      }
    }
  }
  if (have_topo) hwloc_topology_destroy(topo);
  return why;
}

void dh_bench_place_helpers(const char* mode, char* desc, size_t size) {
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof cpus, &cpus) != 0) {
    snprintf(desc, size, "not placed: sched_getaffinity failed: %s", strerror(errno));
    return;
  }
  const char* why = without_bench_pus(mode, &cpus);
  g_helper_cpus = cpus;
  g_helper_cpus_set = 1;
  char list[160];
  size_t n = 0;
  list[0] = '\0';
  for (int i = 0; i < CPU_SETSIZE && n + 12 < sizeof list; ++i)
    if (CPU_ISSET(i, &cpus)) n += (size_t)snprintf(list + n, sizeof list - n, "%s%d", n ? "," : "", i);
  snprintf(desc, size,
           "worker threads the benchmarks make backends and twins start (default-stream workers "
           "started lazily, streams, raw twin contexts) created bound to PUs %s%s%s%s, harness "
           "and twin alike",
           list, why ? ": the process's PUs (" : ": the process's PUs less the benchmark thread's",
           why ? why : "", why ? ")" : "");
}

int dh_bench_as_helper(int (*fn)(void* arg), void* arg) {
  cpu_set_t old;
  int have = g_helper_cpus_set && sched_getaffinity(0, sizeof old, &old) == 0 &&
             sched_setaffinity(0, sizeof g_helper_cpus, &g_helper_cpus) == 0;
  int rc = fn(arg);
  if (have) sched_setaffinity(0, sizeof old, &old);
  return rc;
}

typedef struct create_stream_arg {
  DLDevice dev;
  dh_stream_t* out;
} create_stream_arg_t;

static int create_stream_fn(void* p) {
  create_stream_arg_t* a = p;
  return dh_device_create_stream(a->dev, a->out);
}

int dh_bench_helper_create_stream(DLDevice dev, dh_stream_t* out_stream) {
  create_stream_arg_t a = {dev, out_stream};
  return dh_bench_as_helper(create_stream_fn, &a);
}

/*--- the benchmark thread ---*/
/* Binds the calling thread's host memory (first touch of every buffer it writes) to
 * the devices' NUMA node with hwloc (--pin auto; the other modes bind no memory, as
 * before auto existed); what was done into desc. */
static void bind_memory(hwloc_topology_t topo, const char* mode, char* desc, size_t size) {
  hwloc_obj_t node = strcmp(mode, "auto") == 0 ? pin_node(topo, mode) : NULL;
  if (!node) {
    snprintf(desc, size, "host memory not bound (--pin %s)", mode);
  } else if (hwloc_set_membind(topo, node->nodeset, HWLOC_MEMBIND_BIND,
                               HWLOC_MEMBIND_THREAD | HWLOC_MEMBIND_BYNODESET) != 0) {
    snprintf(desc, size, "host memory not bound: hwloc_set_membind(node %u) failed: %s", node->os_index,
             strerror(errno));
  } else {
    snprintf(desc, size, "host memory the benchmark thread allocates bound to NUMA node %u (hwloc_set_membind)",
             node->os_index);
  }
}

void dh_bench_pin(const char* mode, char* desc, size_t size) {
  if (strcmp(mode, "none") == 0) {
    snprintf(desc, size, "not pinned (--pin none)");
    return;
  }
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
    snprintf(desc, size, "not pinned: hwloc topology failed");
    return;
  }
  const char* what;
  hwloc_obj_t obj = pin_target(topo, mode, &what);
  char mem[256];
  bind_memory(topo, mode, mem, sizeof mem);
  int is_auto = strcmp(mode, "auto") == 0;
  if (!obj || hwloc_set_cpubind(topo, obj->cpuset, HWLOC_CPUBIND_THREAD) != 0) {
    snprintf(desc, size, "not pinned: hwloc_set_cpubind(%s) failed: %s; %s", what, strerror(errno), mem);
  } else {
    char set[128];
    hwloc_bitmap_list_snprintf(set, sizeof set, obj->cpuset);
    snprintf(desc, size, "--pin %s: benchmark thread bound with hwloc to %s (PUs %s)%s%s%s; %s; backend threads "
             "created at init are not bound",
             mode, what, set, is_auto ? ", the devices' NUMA node (" : "", is_auto ? g_auto_why : "",
             is_auto ? ")" : "", mem);
  }
  hwloc_topology_destroy(topo);
}

/*--- driver worker threads ---*/
void dh_bench_place_driver_threads(const char* pin_mode, char* desc, size_t size) {
  const char* cur = getenv("POCL_AFFINITY");
  if (cur) {
    snprintf(desc, size, "PoCL pthread workers: POCL_AFFINITY=%s from the environment, left as is",
             dh_cmdline_quote(cur));
  } else if (strcmp(pin_mode, "none") == 0) {
    snprintf(desc, size, "PoCL pthread workers: not bound (--pin none)");
  } else if (dh_backend_option_set("pocl-affinity", "1") != 0) { /* the opencl backend's (ABI 1.6) */
    snprintf(desc, size, "PoCL pthread workers: not bound (%s)", dh_error_message());
    dh_error_clear();
  } else {
    snprintf(desc, size,
             "PoCL pthread workers: worker i bound to core i (POCL_AFFINITY=1, set by devharness "
             "bench because --pin %s; POCL_AFFINITY=0 in the environment keeps them unbound)",
             pin_mode);
  }
}
