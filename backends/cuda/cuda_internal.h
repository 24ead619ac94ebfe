/*
 * backends/cuda/cuda_internal.h — shared between the cuda backend's sources
 * (cuda_backend.c: DeviceAPI; cuda_raw.c: raw driver-API twins). Not installed.
 */
#ifndef DEVHARNESS_BACKENDS_CUDA_INTERNAL_H_
#define DEVHARNESS_BACKENDS_CUDA_INTERNAL_H_

#include <dlpack/dlpack.h>
#include <pthread.h>
#include <stddef.h>

#include "devharness/backend.h"

#include "cuda_driver.h"

/* Devices beyond this are ignored (devharness probes at most 64 ids). */
#define DH_CUDA_MAX_DEVICES 64
/* cuMemAlloc's guaranteed alignment, bytes (CUDA C Programming Guide: >= 256). */
#define DH_CUDA_BASE_ALIGNMENT 256

/* H2D staging (cuda_backend.c "Copies"): pageable host->device copies are memcpy'd
 * into backend-owned pinned slots and enqueued from there, so the call returns once the
 * bytes are staged (the host source is free, TVM's rule) without waiting for the
 * device; copies larger than a slot are pipelined through the slots in
 * DH_CUDA_STAGE_SLOT_BYTES chunks (the DMA of chunk i overlaps the memcpy of chunk
 * i+1). Pinned sources of up to DH_CUDA_STAGE_PINNED_MAX bytes are staged the same way
 * (the memcpy costs less than waiting for the DMA); larger pinned sources are copied
 * directly and the call waits for that copy only (an event recorded after it). DH_CUDA_STAGE_SLOTS slots per
 * device, allocated on the first staged copy, each guarded by an event recorded after
 * the copy that reads it; a slot is reused once its event has completed. */
#define DH_CUDA_STAGE_SLOTS 8
#define DH_CUDA_STAGE_SLOT_BYTES ((size_t)1 << 20)
#define DH_CUDA_STAGE_PINNED_MAX ((size_t)256 << 10)

typedef struct dh_cuda_stage_slot {
  void* host;     /* cuMemHostAlloc'd, DH_CUDA_STAGE_SLOT_BYTES */
  CUevent done;   /* recorded after the last copy that read `host` */
  int pending;    /* `done` was recorded and not yet waited for */
  int busy;       /* held by a copying thread (atomic CAS 0 -> 1) */
} dh_cuda_stage_slot_t;

/* Per-device state. Fields set once under `mu` and published by the *_ready flags
 * (read with acquire loads), so readers need no lock afterwards. */
typedef struct dh_cuda_device {
  pthread_mutex_t mu;
  CUdevice dev;
  int ctx_ready;      /* primary context retained */
  CUcontext ctx;
  int module_ready;   /* embedded fatbin loaded, kernels resolved */
  CUmodule module;
  CUfunction fn_noop, fn_fill;
  int stage_ready;    /* staging slots allocated */
  dh_cuda_stage_slot_t stage[DH_CUDA_STAGE_SLOTS];
  unsigned stage_next; /* next slot to try (atomic) */
  int strings_ready;  /* cached strings below filled */
  char name[256];           /* cuDeviceGetName */
  char compute_version[16]; /* "9.0" */
  char thread_dims[64];     /* "[1024, 1024, 64]" */
  char arch[16];            /* "sm_90a" */
} dh_cuda_device_t;

/* The resolved driver table (cuda_backend.c). Valid while the backend is available. */
extern dh_cuda_driver_t dh_cuda_drv;
extern dh_cuda_device_t dh_cuda_devices[DH_CUDA_MAX_DEVICES];

/* The raw twin table (cuda_raw.c). */
extern const dh_raw_twin_t dh_cuda_raw_twin;

/* Stores ("RuntimeError" or "OutOfMemoryError" for CUDA_ERROR_OUT_OF_MEMORY,
 * "<formatted call>: <CUDA_ERROR_NAME>: <driver's text>") and returns -1. */
int dh_cuda_fail(CUresult r, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/* Name and text of a CUresult, from the driver when it has cuGetErrorName /
 * cuGetErrorString, else from a built-in table. Static storage. */
void dh_cuda_error_text(CUresult r, const char** out_name, const char** out_text);

/* 0 when dev is a present CUDA device; else -1 with ValueError (wrong device type) or
 * IndexError (no such id, or no devices at all, with the unavailable reason). `op`
 * names the operation in the message. */
int dh_cuda_check_device(DLDevice dev, const char* op);

/* dh_cuda_check_device, then retains the primary context (once) and makes it current
 * on the calling thread. *out (may be NULL) gets the device state. */
int dh_cuda_enter(DLDevice dev, const char* op, dh_cuda_device_t** out);

/* Loads the embedded kernels on device d (once); its context must be current. */
int dh_cuda_ensure_module(dh_cuda_device_t* d, int id);

/* Enqueues the empty kernel on stream s of dev (entered by the call). */
int dh_cuda_launch_noop(DLDevice dev, CUstream s);

/* The calling thread's current stream of device_id (valid id). */
CUstream dh_cuda_current_stream(int device_id);

/* Writes the TVM cuda target arch for compute capability major.minor: "sm_XY", with
 * the "a" suffix from 9.0 on ("sm_90a"). */
void dh_cuda_arch_name(int major, int minor, char* buf, size_t size);

#endif /* DEVHARNESS_BACKENDS_CUDA_INTERNAL_H_ */
