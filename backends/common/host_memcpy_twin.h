/*
 * backends/common/host_memcpy_twin.h — the "memcpy" raw twin (backend.h dh_raw_twin_t)
 * shared by the backends whose device memory is host memory (backends/cpu/cpu_raw.c,
 * backends/tvm/tvm_backend.c for tvm-cpu): the benchmarks' copies done with libc
 * memcpy between page-aligned, written buffers, and an empty call through a pointer for
 * STREAM_SYNC and LAUNCH. Compiled into each of those plugins (hidden symbols), not
 * into libdevharness.
 */
#ifndef DEVHARNESS_BACKENDS_COMMON_HOST_MEMCPY_TWIN_H_
#define DEVHARNESS_BACKENDS_COMMON_HOST_MEMCPY_TWIN_H_

#include <stddef.h>
#include <stdint.h>

#include "devharness/backend.h"

/* Set up op on nbytes for backend `who` ("cpu", "tvm-cpu"; names the backend in error
 * messages). The caller has checked the device. Ops: DH_RAW_COPY_H2D, _D2H, _D2D,
 * _BIDIR (two buffers each way, copied one after the other: one queue) and
 * DH_RAW_STREAM_SYNC; DH_RAW_LAUNCH only when `allow_launch` (an empty call), else
 * NotImplementedError with `no_launch_why`. Copies use page-aligned buffers (the same
 * relative alignment on both sides, as the bench's harness buffers,
 * DH_BENCH_BUFFER_ALIGN), each written once so no zero page is read. *out_ctx for
 * run/teardown; 0, or -1 with ValueError / NotImplementedError / OutOfMemoryError. */
int dh_common_host_memcpy_twin_setup(const char* who, int allow_launch, const char* no_launch_why,
                                     dh_raw_op_t op, size_t nbytes, void** out_ctx);

/* Runs the op `repeat` times, then the final wait (an empty call for STREAM_SYNC and
 * LAUNCH). *out_device_ms = -1 (no device timers). */
int dh_common_host_memcpy_twin_run(void* ctx, uint32_t repeat, double* out_device_ms);

/* Frees a context of setup; NULL is a no-op. */
void dh_common_host_memcpy_twin_teardown(void* ctx);

#endif /* DEVHARNESS_BACKENDS_COMMON_HOST_MEMCPY_TWIN_H_ */
