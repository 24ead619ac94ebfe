/*
 * backends/cpu/cpu_internal.h — private declarations shared by the cpu backend's
 * files. Not installed. Each file calls only the ones below it (tests/backends/
 * call_graph.t checks it):
 *   cpu_backend.c  the vtable and dh_backend_entry
 *   cpu_kernels.c  module functions noop, fill
 *   cpu_raw.c      the raw twin ("memcpy", backends/common/host_memcpy_twin.c)
 *   cpu_stream.c   streams (a single queue: NULL), syncs
 *   cpu_memory.c   data space, copy_data_from_to
 *   cpu_device.c   device facts (init), availability, attributes, set_device
 */
#ifndef DEVHARNESS_BACKENDS_CPU_INTERNAL_H_
#define DEVHARNESS_BACKENDS_CPU_INTERNAL_H_

#include <stdatomic.h>
#include <stdint.h>

#include "devharness/backend.h"

/* Device facts, read once by init (cpu_device.c). */
typedef struct dh_cpu_info {
  int initialised;
  char model[256];        /* kDeviceName */
  char driver[128];       /* kDriverVersion: kernel release */
  char mtriple[96];       /* "x86_64-linux-gnu" */
  int64_t cores;          /* physical cores (hwloc), else online CPUs */
  int64_t pus;            /* hardware threads */
  int64_t l2_bytes;       /* first L2 cache, 0 = unknown */
  int64_t total_memory;   /* bytes, sysinfo totalram * mem_unit as TVM computes it */
  int64_t max_clock_khz;  /* 0 = unknown */
} dh_cpu_info_t;
extern dh_cpu_info_t dh_cpu_info;

/* Bytes handed out by alloc_data_space and not yet freed (cpu_memory.c adds and
 * subtracts; kAvailableGlobalMemory subtracts them). */
extern atomic_llong dh_cpu_live_bytes;

/* ---- cpu_device.c (the vtable entries: backend.h "Declaring and binding a backend's
 * entries") */
DH_BACKEND_DECLARE_LIFECYCLE_ENTRIES(dh_cpu);
DH_BACKEND_DECLARE_DEVICE_ENTRIES(dh_cpu);
/* The error of dh_cpu_check_device for a dev that is not cpu:0: -1 with ValueError
 * (type) or IndexError (id). */
int dh_cpu_bad_device(DLDevice dev);
/* 0 when dev is cpu:0; else dh_cpu_bad_device(dev). Inline: every copy, sync and
 * launch checks its device, and a call would be a visible part of a tiny copy's cost
 * (docs/measurements/2026-11.md "The cpu's 4 B ratio"). */
static inline int dh_cpu_check_device(DLDevice dev) {
  if (__builtin_expect(dev.device_type != kDLCPU || !dh_backend_device_id_valid(dev.device_id, 1), 0))
    return dh_cpu_bad_device(dev);
  return 0;
}

/* ---- cpu_memory.c */
DH_BACKEND_DECLARE_MEMORY_ENTRIES(dh_cpu);

/* ---- cpu_stream.c */
DH_BACKEND_DECLARE_STREAM_ENTRIES(dh_cpu);

/* ---- cpu_kernels.c: noop(Device), fill(DLTensorPtr, Int) */
int dh_cpu_func_noop(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result);
int dh_cpu_func_fill(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result);
/* trap(Device): fails at once (backend.h DH_FUNC_TRAP; cpu_kernels.c) */
int dh_cpu_func_trap(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result);

/* ---- cpu_raw.c */
extern const dh_raw_twin_t dh_cpu_raw_twin;

#endif /* DEVHARNESS_BACKENDS_CPU_INTERNAL_H_ */
