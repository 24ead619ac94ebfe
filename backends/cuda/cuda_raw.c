/*
 * backends/cuda/cuda_raw.c — the cuda backend's raw twins (backend.h dh_raw_twin_t,
 * api_name "CUDA driver"): the benchmarks' copy/sync/launch done straight through the
 * driver API, so the harness's own overhead shows as a ratio.
 *
 *  DH_RAW_COPY_H2D / D2H: cuMemcpyHtoDAsync_v2 / cuMemcpyDtoHAsync_v2 between a host
 *      buffer (cuMemHostAlloc when DH_RAW_PINNED, else malloc'd pageable memory) and a
 *      cuMemAlloc'd buffer, on a private non-blocking stream; `repeat` copies, then one
 *      cuStreamSynchronize. (Unlike the harness's H2D, no sync per copy: that is the
 *      difference the ratio shows.)
 *  DH_RAW_COPY_D2D: cuMemcpyDtoDAsync_v2 between two device buffers.
 *  DH_RAW_STREAM_SYNC: cuStreamSynchronize on the idle stream, `repeat` times.
 *  DH_RAW_LAUNCH: cuLaunchKernel(dh_cuda_noop, <<<1, 1>>>) `repeat` times, then sync.
 * Device time: CU_EVENT_DEFAULT events recorded before and after the batch,
 * cuEventElapsedTime; -1 for STREAM_SYNC (nothing runs on the device).
 *
 * Thread-safety: a context is used by one thread at a time (the benchmark's).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/backend.h"
#include "devharness/error.h"

#include "cuda_internal.h"

typedef struct raw_ctx {
  DLDevice dev;
  dh_raw_op_t op;
  size_t nbytes;
  uint32_t flags;
  CUstream stream;
  CUevent start, end;
  CUdeviceptr d0, d1;
  void* host;
  int host_pinned;
} raw_ctx_t;

static void raw_teardown(void* p) {
  raw_ctx_t* c = (raw_ctx_t*)p;
  if (!c) return;
  if (dh_cuda_enter(c->dev, "raw teardown", NULL) == 0) {
    if (c->stream) dh_cuda_drv.stream_synchronize(c->stream);
    if (c->stream) dh_cuda_drv.stream_destroy(c->stream);
    if (c->start) dh_cuda_drv.event_destroy(c->start);
    if (c->end) dh_cuda_drv.event_destroy(c->end);
    if (c->d0) dh_cuda_drv.mem_free(c->d0);
    if (c->d1) dh_cuda_drv.mem_free(c->d1);
    if (c->host && c->host_pinned) dh_cuda_drv.mem_free_host(c->host);
  }
  if (c->host && !c->host_pinned) free(c->host);
  free(c);
}

static int raw_setup(DLDevice dev, dh_raw_op_t op, size_t nbytes, uint32_t flags, void** out_ctx) {
  if (!out_ctx) return dh_error_set("ValueError", "cuda raw: setup: out_ctx is NULL");
  *out_ctx = NULL;
  if (op < DH_RAW_COPY_H2D || op > DH_RAW_LAUNCH)
    return dh_error_set("NotImplementedError", "cuda raw: op %d is not implemented", (int)op);
  dh_cuda_device_t* d;
  if (dh_cuda_enter(dev, "raw setup", &d)) return -1;
  raw_ctx_t* c = calloc(1, sizeof *c);
  if (!c) return dh_error_set("OutOfMemoryError", "cuda raw: setup: out of host memory");
  c->dev = dev;
  c->op = op;
  c->nbytes = nbytes;
  c->flags = flags;
  size_t n = nbytes ? nbytes : 1;
  CUresult r;
  int id = dev.device_id;
  if ((r = dh_cuda_drv.stream_create(&c->stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) {
    dh_cuda_fail(r, "cuda:%d: raw: cuStreamCreate", id);
    goto fail;
  }
  if ((r = dh_cuda_drv.event_create(&c->start, CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
      (r = dh_cuda_drv.event_create(&c->end, CU_EVENT_DEFAULT)) != CUDA_SUCCESS) {
    dh_cuda_fail(r, "cuda:%d: raw: cuEventCreate", id);
    goto fail;
  }
  if (op == DH_RAW_COPY_H2D || op == DH_RAW_COPY_D2H || op == DH_RAW_COPY_D2D) {
    if ((r = dh_cuda_drv.mem_alloc(&c->d0, n)) != CUDA_SUCCESS) {
      dh_cuda_fail(r, "cuda:%d: raw: cuMemAlloc_v2(%zu)", id, n);
      goto fail;
    }
  }
  if (op == DH_RAW_COPY_D2D) {
    if ((r = dh_cuda_drv.mem_alloc(&c->d1, n)) != CUDA_SUCCESS) {
      dh_cuda_fail(r, "cuda:%d: raw: cuMemAlloc_v2(%zu)", id, n);
      goto fail;
    }
  }
  if (op == DH_RAW_COPY_H2D || op == DH_RAW_COPY_D2H) {
    if (flags & DH_RAW_PINNED) {
      if ((r = dh_cuda_drv.mem_host_alloc(&c->host, n, CU_MEMHOSTALLOC_PORTABLE)) != CUDA_SUCCESS) {
        c->host = NULL;
        dh_cuda_fail(r, "cuda:%d: raw: cuMemHostAlloc(%zu)", id, n);
        goto fail;
      }
      c->host_pinned = 1;
    } else {
      c->host = malloc(n);
      if (!c->host) {
        dh_error_set("OutOfMemoryError", "cuda raw: setup: cannot malloc %zu bytes", n);
        goto fail;
      }
    }
    memset(c->host, 0x5a, n); /* touch every page (pageable: fault it in now) */
  }
  if (op == DH_RAW_LAUNCH && dh_cuda_ensure_module(d, id)) goto fail;
  *out_ctx = c;
  return 0;
fail:
  raw_teardown(c);
  return -1;
}

static int raw_one(raw_ctx_t* c) {
  CUresult r = CUDA_SUCCESS;
  int id = c->dev.device_id;
  switch (c->op) {
    case DH_RAW_COPY_H2D:
      if (c->nbytes) r = dh_cuda_drv.memcpy_htod_async(c->d0, c->host, c->nbytes, c->stream);
      if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuda:%d: raw: cuMemcpyHtoDAsync_v2(%zu)", id, c->nbytes);
      return 0;
    case DH_RAW_COPY_D2H:
      if (c->nbytes) r = dh_cuda_drv.memcpy_dtoh_async(c->host, c->d0, c->nbytes, c->stream);
      if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuda:%d: raw: cuMemcpyDtoHAsync_v2(%zu)", id, c->nbytes);
      return 0;
    case DH_RAW_COPY_D2D:
      if (c->nbytes) r = dh_cuda_drv.memcpy_dtod_async(c->d1, c->d0, c->nbytes, c->stream);
      if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuda:%d: raw: cuMemcpyDtoDAsync_v2(%zu)", id, c->nbytes);
      return 0;
    case DH_RAW_STREAM_SYNC:
      r = dh_cuda_drv.stream_synchronize(c->stream);
      if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuda:%d: raw: cuStreamSynchronize", id);
      return 0;
    case DH_RAW_LAUNCH:
      r = dh_cuda_drv.launch_kernel(dh_cuda_devices[id].fn_noop, 1, 1, 1, 1, 1, 1, 0, c->stream,
                                    NULL, NULL);
      if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuda:%d: raw: cuLaunchKernel(dh_cuda_noop)", id);
      return 0;
  }
  return dh_error_set("NotImplementedError", "cuda raw: op %d", (int)c->op);
}

static int raw_run(void* p, uint32_t repeat, double* out_device_ms) {
  raw_ctx_t* c = (raw_ctx_t*)p;
  if (!c) return dh_error_set("ValueError", "cuda raw: run: ctx is NULL");
  if (out_device_ms) *out_device_ms = -1;
  if (dh_cuda_enter(c->dev, "raw run", NULL)) return -1;
  int id = c->dev.device_id;
  int timed = out_device_ms && c->op != DH_RAW_STREAM_SYNC;
  CUresult r;
  if (timed && (r = dh_cuda_drv.event_record(c->start, c->stream)) != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuda:%d: raw: cuEventRecord(start)", id);
  for (uint32_t i = 0; i < repeat; i++)
    if (raw_one(c)) return -1;
  if (timed && (r = dh_cuda_drv.event_record(c->end, c->stream)) != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuda:%d: raw: cuEventRecord(end)", id);
  if (c->op != DH_RAW_STREAM_SYNC && (r = dh_cuda_drv.stream_synchronize(c->stream)) != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuda:%d: raw: cuStreamSynchronize", id);
  if (timed) {
    float ms = 0;
    if ((r = dh_cuda_drv.event_elapsed_time(&ms, c->start, c->end)) != CUDA_SUCCESS)
      return dh_cuda_fail(r, "cuda:%d: raw: cuEventElapsedTime", id);
    *out_device_ms = ms;
  }
  return 0;
}

const dh_raw_twin_t dh_cuda_raw_twin = {
    .struct_size = sizeof(dh_raw_twin_t),
    .api_name = "CUDA driver",
    .setup = raw_setup,
    .run = raw_run,
    .teardown = raw_teardown,
};
