/*
 * backends/sim/sim.h — internal header of the simulated accelerator ("sim").
 *
 * NOT a public devharness header: it is for code built together with the sim
 * sources, i.e. the sim's own tests and the conformance suite's faulty backends.
 * A faulty backend is built from the sim core plus one file of its own:
 *
 *     $(eval $(call dh_plugin,faulty_x,$(SIM_CORE_SRCS) tests/.../faulty_x.c,))
 *
 * where faulty_x.c exports dh_backend_entry() returning a copy of dh_sim_backend
 * with a new name and one entry replaced (the replacement may call the original
 * through dh_sim_backend):
 *
 *     static dh_backend_t b;
 *     static int bad_stream_sync(DLDevice dev, dh_stream_t s) { (void)dev; (void)s; return 0; }
 *     const dh_backend_t* dh_backend_entry(void) {
 *       b = dh_sim_backend; b.name = "faulty_x"; b.stream_sync = bad_stream_sync;
 *       return &b;
 *     }
 *
 * The sim entries accept ANY non-CPU device_type as "a sim device" (only kDLCPU is
 * treated as host memory), so a faulty copy may also change b.device_type to avoid
 * clashing with the real sim plugin in one process.
 *
 * Model (see backends/sim/README.md for the full description):
 *   - DEVHARNESS_SIM_DEVICES devices (default 2), ids 0..n-1, device_type kDLExtDev (12).
 *   - Device memory: DEVHARNESS_SIM_MEMORY_BYTES per device (default 1 GiB), really
 *     malloc'd, behind OPAQUE handles. A handle encodes (tag, device id, generation,
 *     slot) in a non-canonical x86-64 address, so it is never a host address of the
 *     data (dereferencing it faults); every use validates it (unknown or freed handle
 *     -> ValueError), offsets are bounds-checked (ValueError).
 *   - Each stream (and each device's default NULL stream) is a worker thread running
 *     a FIFO queue of commands; copies, fills, kernels and event records are queued
 *     and the calls return at once (DH_CAP_ASYNC_COPY). A copy costs
 *     DEVHARNESS_SIM_LATENCY_NS (default 2000) plus DEVHARNESS_SIM_DELAY_NS_PER_KIB
 *     (default 64, i.e. ~16 GB/s) per KiB of worker time before its bytes land, so a
 *     missing wait shows as stale data.
 *
 * Symbols: everything the sim sources define is dh_sim_-prefixed and compiled with
 * -fvisibility=hidden (backend.mk), so only dh_backend_entry is exported; two sim-based
 * plugins in one process never interpose on each other.
 */
#ifndef DEVHARNESS_BACKENDS_SIM_SIM_H_
#define DEVHARNESS_BACKENDS_SIM_SIM_H_

#include <stddef.h>
#include <stdint.h>

#include "devharness/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device type the sim serves (DLPack kDLExtDev). */
#define DH_SIM_DEVICE_TYPE 12
/* Largest number of sim devices (DEVHARNESS_SIM_DEVICES is capped at this). */
#define DH_SIM_MAX_DEVICES 64

/* The sim backend's vtable (name "sim", device_type 12, caps ASYNC_COPY |
 * EVENT_TIMING | PINNED_HOST). Defined in backends/sim/sim_backend.c; entry.c returns
 * its address. Copy it to derive a faulty backend (see the file comment). Immutable. */
extern const dh_backend_t dh_sim_backend;

/* Enqueues fn(ctx) on `stream` of `dev` (NULL = the device's default stream). The
 * worker runs it in queue order: after every command queued on that stream before,
 * before every command queued after. Returns at once. fn runs on the worker thread,
 * must not block forever and must not call stream_sync/free_stream on its own stream
 * (that would deadlock); ctx is borrowed until fn runs.
 * Errors (-1 with dh_error_set): backend not initialised -> RuntimeError; invalid
 * device id -> IndexError; unknown/freed stream or a stream of another device ->
 * ValueError; fn NULL -> ValueError; out of host memory -> OutOfMemoryError.
 * Thread-safe. */
int dh_sim_enqueue_host_fn(DLDevice dev, dh_stream_t stream, void (*fn)(void* ctx), void* ctx);

/* Test access to the storage behind a device-memory handle: *out_bytes = first byte of
 * the allocation (as if byte_offset 0; NULL for a 0-byte allocation), *out_size = its
 * size in bytes. The pointer stays valid until the handle is freed; reading or writing
 * it races with queued work on the handle (sync the stream first).
 * Errors: invalid device id -> IndexError; unknown/freed handle or a handle of another
 * device -> ValueError; NULL outputs -> ValueError. Thread-safe. */
int dh_sim_handle_bytes(DLDevice dev, void* handle, uint8_t** out_bytes, size_t* out_size);

#ifdef __cplusplus
}
#endif
#endif /* DEVHARNESS_BACKENDS_SIM_SIM_H_ */
