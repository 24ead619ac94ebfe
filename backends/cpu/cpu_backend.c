/*
 * backends/cpu/cpu_backend.c — the host CPU as a devharness device (plugin
 * libdevharness_cpu.so): the vtable and the plugin entry. The entries live in the
 * files listed in cpu_internal.h.
 * *
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
#include "devharness/backend.h"

#include "cpu_internal.h"

static const dh_backend_function_t dh_cpu_functions[] = {
    {DH_FUNC_NOOP, dh_cpu_func_noop},
    {DH_FUNC_FILL, dh_cpu_func_fill},
    {DH_FUNC_ECHO, dh_backend_func_echo},
    {DH_FUNC_RAISE, dh_backend_func_raise},
    {DH_FUNC_TRAP, dh_cpu_func_trap},
};

/*===========================================================================
 * The vtable and entry point
 *===========================================================================*/

static const dh_backend_t dh_cpu_backend = {
    DH_BACKEND_HEADER_FIELDS,
    .name = "cpu",
    .description = "host CPU (libc memory, hwloc topology); single queue",
    .device_type = kDLCPU,
    .caps = DH_CAP_SINGLE_QUEUE | DH_CAP_HOST_POINTER_ARITHMETIC,
    .target_kind = "cpu",
    .target_kind_json = NULL,
    DH_BACKEND_BIND_LIFECYCLE_ENTRIES(dh_cpu),
    DH_BACKEND_BIND_DEVICE_ENTRIES(dh_cpu),
    DH_BACKEND_BIND_MEMORY_ENTRIES(dh_cpu),
    .alloc_workspace = NULL,
    .free_workspace = NULL,
    .alloc_host = NULL, /* host memory is already "pinned" from the cpu's point of view */
    .free_host = NULL,
    DH_BACKEND_BIND_STREAM_ENTRIES(dh_cpu),
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
