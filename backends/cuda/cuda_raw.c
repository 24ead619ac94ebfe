/*
 * backends/cuda/cuda_raw.c — the cuda backend's raw twins (backend.h dh_raw_twin_t,
 * api_name "CUDA driver"): the benchmarks' copy/sync/launch done straight through the
 * driver API, so the harness's own overhead shows as a ratio.
 *
 *  DH_RAW_COPY_H2D / D2H: cuMemcpyHtoDAsync_v2 / cuMemcpyDtoHAsync_v2 between a host
 *      buffer (cuMemHostAlloc when DH_RAW_PINNED, else malloc'd pageable memory) and a
 *      cuMemAlloc'd buffer, on a private non-blocking stream; `repeat` copies, then one
 *      cuStreamSynchronize: the fastest use of the API (the source is read until the
 *      final sync).
 *  DH_RAW_COPY_H2D (and BIDIR's H2D) with DH_RAW_HOST_SOURCE_RELEASED: the harness's contract (the
 *      source is free once each copy is issued) done the best way the driver allows:
 *      the source is memcpy'd into the twin's own pinned slots (RAW_SLOTS of
 *      min(nbytes, RAW_SLOT_MAX) bytes, each guarded by an event) and enqueued from
 *      there in dh_cuda_stage_chunk chunks, as the backend does; a pinned source above
 *      dh_cuda_stage_pinned_max (the backend's threshold) is copied directly and waited
 *      for (event) before the next copy. Like the backend, it reuses the slot it used
 *      last while that slot's copy is done (cuEventQuery), so a copy-then-sync loop
 *      writes one cache-warm slot.
 *  DH_RAW_COPY_BIDIR: cuMemcpyHtoDAsync_v2 on one stream and cuMemcpyDtoHAsync_v2 on a
 *      second one at once (nvbandwidth's bidirectional copy), then both synchronised;
 *      no device time (two streams). With pageable memory the H2D goes first
 *      (bidir_order): a D2H into pageable memory returns only once it is done; with
 *      pinned memory the D2H, as the bench issues the harness's pair.
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

#define RAW_SLOTS 8
#define RAW_SLOT_MAX DH_CUDA_STAGE_SLOT_BYTES

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
  /* BIDIR */
  CUstream stream2;
  void* host2;
  /* H2D (and BIDIR's H2D) with DH_RAW_HOST_SOURCE_RELEASED */
  void* slot[RAW_SLOTS];
  CUevent slot_done[RAW_SLOTS];
  int slot_pending[RAW_SLOTS];
  unsigned slot_next;
  unsigned slot_last; /* slot used last, reused while its copy is done */
  size_t slot_bytes;
} raw_ctx_t;

static void free_host(raw_ctx_t* c, void* p) {
  if (!p) return;
  if (c->host_pinned) dh_cuda_drv.mem_free_host(p);
  else free(p);
}

static void raw_teardown(void* p) {
  raw_ctx_t* c = (raw_ctx_t*)p;
  if (!c) return;
  if (dh_cuda_enter(c->dev, "raw teardown", NULL) == 0) {
    if (c->stream) dh_cuda_drv.stream_synchronize(c->stream);
    if (c->stream2) dh_cuda_drv.stream_synchronize(c->stream2);
    if (c->stream) dh_cuda_drv.stream_destroy(c->stream);
    if (c->stream2) dh_cuda_drv.stream_destroy(c->stream2);
    for (int i = 0; i < RAW_SLOTS; i++) {
      if (c->slot_done[i]) dh_cuda_drv.event_destroy(c->slot_done[i]);
      if (c->slot[i]) dh_cuda_drv.mem_free_host(c->slot[i]);
    }
    if (c->start) dh_cuda_drv.event_destroy(c->start);
    if (c->end) dh_cuda_drv.event_destroy(c->end);
    if (c->d0) dh_cuda_drv.mem_free(c->d0);
    if (c->d1) dh_cuda_drv.mem_free(c->d1);
    if (c->host_pinned) {
      free_host(c, c->host);
      free_host(c, c->host2);
    }
  }
  if (!c->host_pinned) {
    free(c->host);
    free(c->host2);
  }
  free(c);
}

/* The twin's streams (a second one for DH_RAW_COPY_BIDIR) and its timing events.
 * 0, or -1 with the error set (what was made stays in c for raw_teardown). */
static int setup_streams(raw_ctx_t* c) {
  int id = c->dev.device_id;
  CUresult r;
  if ((r = dh_cuda_drv.stream_create(&c->stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuda:%d: raw: cuStreamCreate", id);
  if ((r = dh_cuda_drv.event_create(&c->start, CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
      (r = dh_cuda_drv.event_create(&c->end, CU_EVENT_DEFAULT)) != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuda:%d: raw: cuEventCreate", id);
  if (c->op == DH_RAW_COPY_BIDIR &&
      (r = dh_cuda_drv.stream_create(&c->stream2, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuda:%d: raw: cuStreamCreate", id);
  return 0;
}

/* The device buffers of a copy op, n bytes each: d0 for every copy, d1 for D2D and
 * BIDIR. 0, or -1 with the error set. */
static int setup_device_buffers(raw_ctx_t* c, size_t n) {
  int id = c->dev.device_id;
  dh_raw_op_t op = c->op;
  int bidir = op == DH_RAW_COPY_BIDIR;
  CUresult r;
  if ((op == DH_RAW_COPY_H2D || op == DH_RAW_COPY_D2H || op == DH_RAW_COPY_D2D || bidir) &&
      (r = dh_cuda_drv.mem_alloc(&c->d0, n)) != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuda:%d: raw: cuMemAlloc_v2(%zu)", id, n);
  if ((op == DH_RAW_COPY_D2D || bidir) && (r = dh_cuda_drv.mem_alloc(&c->d1, n)) != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuda:%d: raw: cuMemAlloc_v2(%zu)", id, n);
  return 0;
}

/* The host buffers of H2D, D2H (one) and BIDIR (two), n bytes each, pinned with
 * DH_RAW_PINNED, else 4096-aligned like the bench's; written, so every page is faulted
 * in now. 0, or -1 with the error set. */
static int setup_host_buffers(raw_ctx_t* c, size_t n) {
  dh_raw_op_t op = c->op;
  int bidir = op == DH_RAW_COPY_BIDIR;
  if (op != DH_RAW_COPY_H2D && op != DH_RAW_COPY_D2H && !bidir) return 0;
  for (int k = 0; k < 1 + bidir; k++) {
    void** hp = k ? &c->host2 : &c->host;
    if (c->flags & DH_RAW_PINNED) {
      CUresult r = dh_cuda_drv.mem_host_alloc(hp, n, CU_MEMHOSTALLOC_PORTABLE);
      if (r != CUDA_SUCCESS) {
        *hp = NULL;
        return dh_cuda_fail(r, "cuda:%d: raw: cuMemHostAlloc(%zu)", c->dev.device_id, n);
      }
      c->host_pinned = 1;
    } else {
      *hp = aligned_alloc(4096, (n + 4095) & ~(size_t)4095);
      if (!*hp)
        return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "cuda raw: setup: cannot malloc %zu bytes", n);
    }
    memset(*hp, 0x5a, n);
  }
  return 0;
}

/* The pinned staging slots and their events of an H2D (or BIDIR) under
 * DH_RAW_HOST_SOURCE_RELEASED; nothing otherwise. 0, or -1 with the error set. */
static int setup_slots(raw_ctx_t* c, size_t n) {
  int id = c->dev.device_id;
  if ((c->op != DH_RAW_COPY_H2D && c->op != DH_RAW_COPY_BIDIR) || !(c->flags & DH_RAW_HOST_SOURCE_RELEASED))
    return 0;
  c->slot_bytes = n < RAW_SLOT_MAX ? n : RAW_SLOT_MAX;
  for (int i = 0; i < RAW_SLOTS; i++) {
    CUresult r = dh_cuda_drv.mem_host_alloc(&c->slot[i], c->slot_bytes, CU_MEMHOSTALLOC_PORTABLE);
    if (r != CUDA_SUCCESS) {
      c->slot[i] = NULL;
      return dh_cuda_fail(r, "cuda:%d: raw: cuMemHostAlloc(%zu) for a staging slot", id, c->slot_bytes);
    }
    if ((r = dh_cuda_drv.event_create(&c->slot_done[i], CU_EVENT_DISABLE_TIMING)) != CUDA_SUCCESS) {
      c->slot_done[i] = NULL;
      return dh_cuda_fail(r, "cuda:%d: raw: cuEventCreate", id);
    }
  }
  return 0;
}

/* Writes every device buffer before the first run (from the written host buffer, or
 * a temporary pattern for D2D) and waits for it. 0, or -1 with the error set. */
static int write_device_buffers(raw_ctx_t* c, size_t n) {
  if (!c->d0 && !c->d1) return 0;
  void* pat = c->host;
  void* tmp = NULL;
  if (!pat) {
    tmp = malloc(n);
    if (!tmp) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "cuda raw: setup: cannot malloc %zu bytes", n);
    memset(tmp, 0x5a, n);
    pat = tmp;
  }
  CUresult r = CUDA_SUCCESS;
  if (c->d0) r = dh_cuda_drv.memcpy_htod_async(c->d0, pat, n, c->stream);
  if (r == CUDA_SUCCESS && c->d1) r = dh_cuda_drv.memcpy_htod_async(c->d1, pat, n, c->stream);
  if (r == CUDA_SUCCESS) r = dh_cuda_drv.stream_synchronize(c->stream);
  free(tmp);
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuda:%d: raw: writing the device buffers", c->dev.device_id);
  return 0;
}

static int raw_setup(DLDevice dev, dh_raw_op_t op, size_t nbytes, uint32_t flags, void** out_ctx) {
  if (!out_ctx) return dh_error_set(DH_KIND_VALUE_ERROR, "cuda raw: setup: out_ctx is NULL");
  *out_ctx = NULL;
  if (op < DH_RAW_COPY_H2D || op > DH_RAW_COPY_BIDIR)
    return dh_error_set(DH_KIND_NOT_IMPLEMENTED_ERROR, "cuda raw: op %d is not implemented", (int)op);
  dh_cuda_device_t* d;
  if (dh_cuda_enter(dev, "raw setup", &d)) return -1;
  raw_ctx_t* c = calloc(1, sizeof *c);
  if (!c) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "cuda raw: setup: out of host memory");
  c->dev = dev;
  c->op = op;
  c->nbytes = nbytes;
  c->flags = flags;
  size_t n = nbytes ? nbytes : 1;
  if (setup_streams(c) || setup_device_buffers(c, n) || setup_host_buffers(c, n) || setup_slots(c, n) ||
      write_device_buffers(c, n) || (op == DH_RAW_LAUNCH && dh_cuda_ensure_module(d, dev.device_id))) {
    raw_teardown(c);
    return -1;
  }
  *out_ctx = c;
  return 0;
}

/* One H2D under the host-source-released contract (see the file comment). */
static int raw_h2d_released(raw_ctx_t* c) {
  int id = c->dev.device_id;
  CUresult r;
  if (c->host_pinned && c->nbytes > dh_cuda_stage_pinned_max) {
    if ((r = dh_cuda_drv.memcpy_htod_async(c->d0, c->host, c->nbytes, c->stream)) != CUDA_SUCCESS ||
        (r = dh_cuda_drv.event_record(c->slot_done[0], c->stream)) != CUDA_SUCCESS ||
        (r = dh_cuda_drv.event_synchronize(c->slot_done[0])) != CUDA_SUCCESS)
      return dh_cuda_fail(r, "cuda:%d: raw: pinned H2D + wait (%zu)", id, c->nbytes);
    return 0;
  }
  for (size_t off = 0; off < c->nbytes;) {
    size_t chunk = dh_cuda_stage_chunk(c->nbytes, c->nbytes - off); /* as the backend */
    unsigned i = c->slot_last;
    if (c->slot_pending[i] && dh_cuda_drv.event_query(c->slot_done[i]) != CUDA_SUCCESS) {
      i = c->slot_next++ % RAW_SLOTS;
      if (c->slot_pending[i] && (r = dh_cuda_drv.event_synchronize(c->slot_done[i])) != CUDA_SUCCESS)
        return dh_cuda_fail(r, "cuda:%d: raw: cuEventSynchronize(slot)", id);
    }
    c->slot_last = i;
    memcpy(c->slot[i], (const char*)c->host + off, chunk);
    if ((r = dh_cuda_drv.memcpy_htod_async(c->d0 + off, c->slot[i], chunk, c->stream)) != CUDA_SUCCESS ||
        (r = dh_cuda_drv.event_record(c->slot_done[i], c->stream)) != CUDA_SUCCESS)
      return dh_cuda_fail(r, "cuda:%d: raw: staged H2D (%zu)", id, chunk);
    c->slot_pending[i] = 1;
    off += chunk;
  }
  return 0;
}

static int raw_one(raw_ctx_t* c) {
  CUresult r = CUDA_SUCCESS;
  int id = c->dev.device_id;
  switch (c->op) {
    case DH_RAW_COPY_BIDIR: /* pageable: the H2D first (bidir_order), pinned: the D2H */
      if (!c->nbytes) return 0;
      if (c->host_pinned && (r = dh_cuda_drv.memcpy_dtoh_async(c->host2, c->d1, c->nbytes,
                                                              c->stream2)) != CUDA_SUCCESS)
        return dh_cuda_fail(r, "cuda:%d: raw: bidirectional D2H (%zu)", id, c->nbytes);
      if (c->flags & DH_RAW_HOST_SOURCE_RELEASED) {
        if (raw_h2d_released(c)) return -1;
      } else if ((r = dh_cuda_drv.memcpy_htod_async(c->d0, c->host, c->nbytes, c->stream)) !=
                 CUDA_SUCCESS) {
        return dh_cuda_fail(r, "cuda:%d: raw: bidirectional H2D (%zu)", id, c->nbytes);
      }
      if (!c->host_pinned && (r = dh_cuda_drv.memcpy_dtoh_async(c->host2, c->d1, c->nbytes,
                                                               c->stream2)) != CUDA_SUCCESS)
        return dh_cuda_fail(r, "cuda:%d: raw: bidirectional D2H (%zu)", id, c->nbytes);
      return 0;
    case DH_RAW_COPY_H2D:
      if (c->flags & DH_RAW_HOST_SOURCE_RELEASED) return c->nbytes ? raw_h2d_released(c) : 0;
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
  return dh_error_set(DH_KIND_NOT_IMPLEMENTED_ERROR, "cuda raw: op %d", (int)c->op);
}

static int raw_run(void* p, uint32_t repeat, double* out_device_ms) {
  raw_ctx_t* c = (raw_ctx_t*)p;
  if (!c) return dh_error_set(DH_KIND_VALUE_ERROR, "cuda raw: run: ctx is NULL");
  if (out_device_ms) *out_device_ms = -1;
  if (dh_cuda_enter(c->dev, "raw run", NULL)) return -1;
  int id = c->dev.device_id;
  int timed = out_device_ms && c->op != DH_RAW_STREAM_SYNC && c->op != DH_RAW_COPY_BIDIR;
  CUresult r;
  if (timed && (r = dh_cuda_drv.event_record(c->start, c->stream)) != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuda:%d: raw: cuEventRecord(start)", id);
  for (uint32_t i = 0; i < repeat; i++)
    if (raw_one(c)) return -1;
  if (timed && (r = dh_cuda_drv.event_record(c->end, c->stream)) != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuda:%d: raw: cuEventRecord(end)", id);
  if (c->op != DH_RAW_STREAM_SYNC && (r = dh_cuda_drv.stream_synchronize(c->stream)) != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuda:%d: raw: cuStreamSynchronize", id);
  if (c->stream2 && (r = dh_cuda_drv.stream_synchronize(c->stream2)) != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuda:%d: raw: cuStreamSynchronize (second stream)", id);
  if (timed) {
    float ms = 0;
    if ((r = dh_cuda_drv.event_elapsed_time(&ms, c->start, c->end)) != CUDA_SUCCESS)
      return dh_cuda_fail(r, "cuda:%d: raw: cuEventElapsedTime", id);
    *out_device_ms = ms;
  }
  return 0;
}

const dh_raw_twin_t dh_cuda_raw_twin = {
    DH_RAW_TWIN_FIELDS("CUDA driver", raw_setup, raw_run, raw_teardown),
    .bidir_order = DH_RAW_BIDIR_PAGEABLE_H2D_FIRST, /* a D2H into pageable memory returns once done */
};
