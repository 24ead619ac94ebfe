/*
 * backends/cuda/cuda_memory.c — the cuda backend's memory: data space (cuMemAlloc_v2,
 * over-aligned on request), workspaces, pinned host memory (cuMemHostAlloc), the H2D
 * staging slots (cuda_internal.h DH_CUDA_STAGE_*) and copy_data_from_to
 * (cuMemcpy*Async_v2). Calls down into cuda_device.c only.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/backend.h"
#include "devharness/error.h"
#include "devharness/tensor.h"

#include "cuda_driver.h"
#include "cuda_internal.h"

/* Over-aligned allocations: aligned pointer -> cuMemAlloc base. */
typedef struct overaligned {
  CUdeviceptr aligned, base;
  struct overaligned* next;
} overaligned_t;
static pthread_mutex_t g_overaligned_mu = PTHREAD_MUTEX_INITIALIZER;
static overaligned_t* g_overaligned;

static int is_host_type(int32_t t) { return t == kDLCPU || t == kDLCUDAHost; }

/*===========================================================================
 * H2D staging slots (cuda_internal.h DH_CUDA_STAGE_*)
 *===========================================================================*/

/* Allocates the staging slots of d (once). The device's context must be current. */
static int stage_ensure(dh_cuda_device_t* d) {
  if (__atomic_load_n(&d->stage_ready, __ATOMIC_ACQUIRE)) return 0;
  int rc = 0;
  pthread_mutex_lock(&d->mu);
  if (!d->stage_ready) {
    int i;
    for (i = 0; i < DH_CUDA_STAGE_SLOTS && rc == 0; i++) {
      dh_cuda_stage_slot_t* sl = &d->stage[i];
      CUresult r = dh_cuda_drv.mem_host_alloc(&sl->host, DH_CUDA_STAGE_SLOT_BYTES,
                                              CU_MEMHOSTALLOC_PORTABLE);
      if (r != CUDA_SUCCESS) {
        sl->host = NULL;
        rc = dh_cuda_fail(r, "cuMemHostAlloc(%zu) for an H2D staging slot",
                          DH_CUDA_STAGE_SLOT_BYTES);
      } else if ((r = dh_cuda_drv.event_create(&sl->done, CU_EVENT_DISABLE_TIMING)) !=
                 CUDA_SUCCESS) {
        sl->done = NULL;
        rc = dh_cuda_fail(r, "cuEventCreate(CU_EVENT_DISABLE_TIMING) for an H2D staging slot");
      }
    }
    if (rc != 0) {
      for (i = 0; i < DH_CUDA_STAGE_SLOTS; i++) {
        if (d->stage[i].done) dh_cuda_drv.event_destroy(d->stage[i].done);
        if (d->stage[i].host) dh_cuda_drv.mem_free_host(d->stage[i].host);
        memset(&d->stage[i], 0, sizeof d->stage[i]);
      }
    } else {
      __atomic_store_n(&d->stage_ready, 1, __ATOMIC_RELEASE);
    }
  }
  pthread_mutex_unlock(&d->mu);
  return rc;
}

/* Frees the slots of d (shutdown; context current, no copy in flight on the host). */
static void stage_free(dh_cuda_device_t* d) {
  if (!d->stage_ready) return;
  for (int i = 0; i < DH_CUDA_STAGE_SLOTS; i++) {
    dh_cuda_stage_slot_t* sl = &d->stage[i];
    if (sl->done) {
      dh_cuda_drv.event_synchronize(sl->done);
      dh_cuda_drv.event_destroy(sl->done);
    }
    if (sl->host) dh_cuda_drv.mem_free_host(sl->host);
    memset(sl, 0, sizeof *sl);
  }
  d->stage_ready = 0;
}

/* The slot released last, if no thread holds it and the copy that read it is done
 * (cuEventQuery); else NULL. Reusing it keeps the staging memcpy in the CPU's cache. */
static dh_cuda_stage_slot_t* stage_try_last(dh_cuda_device_t* d) {
  dh_cuda_stage_slot_t* sl = &d->stage[__atomic_load_n(&d->stage_last, __ATOMIC_RELAXED) %
                                       DH_CUDA_STAGE_SLOTS];
  int expected = 0;
  if (!__atomic_compare_exchange_n(&sl->busy, &expected, 1, 0, __ATOMIC_ACQUIRE,
                                   __ATOMIC_RELAXED))
    return NULL;
  if (sl->pending) {
    if (dh_cuda_drv.event_query(sl->done) != CUDA_SUCCESS) { /* not done, or failed: */
      __atomic_store_n(&sl->busy, 0, __ATOMIC_RELEASE);       /* the round robin waits */
      return NULL;
    }
    sl->pending = 0;
  }
  return sl;
}

/* Takes a free slot (lock-free: the last released one when its copy is done, else round
 * robin + compare-and-swap on `busy`) and waits for the copy that last read it. Release
 * with stage_release. */
static int stage_acquire(dh_cuda_device_t* d, dh_cuda_stage_slot_t** out) {
  if ((*out = stage_try_last(d)) != NULL) return 0;
  for (unsigned tries = 1;; ++tries) {
    unsigned i = __atomic_fetch_add(&d->stage_next, 1, __ATOMIC_RELAXED) % DH_CUDA_STAGE_SLOTS;
    dh_cuda_stage_slot_t* sl = &d->stage[i];
    int expected = 0;
    if (__atomic_compare_exchange_n(&sl->busy, &expected, 1, 0, __ATOMIC_ACQUIRE,
                                    __ATOMIC_RELAXED)) {
      if (sl->pending) {
        CUresult r = dh_cuda_drv.event_synchronize(sl->done);
        if (r != CUDA_SUCCESS) {
          __atomic_store_n(&sl->busy, 0, __ATOMIC_RELEASE);
          return dh_cuda_fail(r, "cuEventSynchronize on an H2D staging slot");
        }
        sl->pending = 0;
      }
      *out = sl;
      return 0;
    }
    if (tries % DH_CUDA_STAGE_SLOTS == 0) sched_yield(); /* more copying threads than slots */
  }
}

static void stage_release(dh_cuda_device_t* d, dh_cuda_stage_slot_t* sl) {
  __atomic_store_n(&d->stage_last, (unsigned)(sl - d->stage), __ATOMIC_RELAXED);
  __atomic_store_n(&sl->busy, 0, __ATOMIC_RELEASE);
}

/* H2D through the slots, chunk by chunk; returns once every byte of src is staged. */
static int h2d_staged(dh_cuda_device_t* d, CUdeviceptr dst, size_t to_offset, const char* src,
                      size_t nbytes, CUstream s) {
  if (stage_ensure(d)) return -1;
  for (size_t off = 0; off < nbytes;) {
    size_t chunk = dh_cuda_stage_chunk(nbytes, nbytes - off);
    dh_cuda_stage_slot_t* sl;
    if (stage_acquire(d, &sl)) return -1;
    memcpy(sl->host, src + off, chunk);
    CUresult r = dh_cuda_drv.memcpy_htod_async(dst + off, sl->host, chunk, s);
    if (r != CUDA_SUCCESS) {
      stage_release(d, sl);
      return dh_cuda_fail(r, "cuMemcpyHtoDAsync_v2(%zu bytes, to_offset %zu)", chunk,
                          to_offset + off);
    }
    r = dh_cuda_drv.event_record(sl->done, s);
    if (r != CUDA_SUCCESS) {
      /* The copy reading the slot is queued and cannot be tracked: drain the stream
       * before the slot can be reused. */
      dh_cuda_drv.stream_synchronize(s);
      stage_release(d, sl);
      return dh_cuda_fail(r, "cuEventRecord after a staged host-to-device copy");
    }
    sl->pending = 1;
    stage_release(d, sl);
    off += chunk;
  }
  return 0;
}

/* H2D straight from a pinned source; waits for this copy only. */
static int h2d_pinned_wait(dh_cuda_device_t* d, CUdeviceptr dst, size_t to_offset,
                           const void* src, size_t nbytes, CUstream s) {
  if (stage_ensure(d)) return -1;
  CUresult r = dh_cuda_drv.memcpy_htod_async(dst, src, nbytes, s);
  if (r != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuMemcpyHtoDAsync_v2(%zu bytes, to_offset %zu)", nbytes, to_offset);
  dh_cuda_stage_slot_t* sl; /* borrowed for its event */
  if (stage_acquire(d, &sl)) {
    dh_cuda_drv.stream_synchronize(s);
    return -1;
  }
  r = dh_cuda_drv.event_record(sl->done, s);
  if (r == CUDA_SUCCESS) r = dh_cuda_drv.event_synchronize(sl->done);
  stage_release(d, sl);
  if (r != CUDA_SUCCESS) {
    dh_cuda_drv.stream_synchronize(s);
    return dh_cuda_fail(r, "waiting for a pinned host-to-device copy (cuEventRecord/Synchronize)");
  }
  return 0;
}

void dh_cuda_memory_release(void) {
  int n = dh_cuda_live_devices(); /* a forked child must not touch the driver */
  for (int i = 0; i < n; i++) {
    dh_cuda_device_t* d = &dh_cuda_devices[i];
    if (d->ctx_ready) {
      dh_cuda_drv.ctx_set_current(d->ctx);
      stage_free(d);
    }
  }
  pthread_mutex_lock(&g_overaligned_mu);
  while (g_overaligned) {
    overaligned_t* n = g_overaligned->next;
    free(g_overaligned);
    g_overaligned = n;
  }
  pthread_mutex_unlock(&g_overaligned_mu);
}

/*===========================================================================
 * Memory
 *===========================================================================*/

int dh_cuda_alloc_data_space(DLDevice dev, size_t nbytes, size_t alignment,
                             DLDataType type_hint, void** out_ptr) {
  (void)type_hint;
  if (!out_ptr) return dh_error_set(DH_KIND_VALUE_ERROR, "cuda: alloc_data_space: out_ptr is NULL");
  *out_ptr = NULL;
  if (alignment == 0) alignment = DH_ALLOC_ALIGNMENT;
  if (alignment & (alignment - 1))
    return dh_error_set(DH_KIND_VALUE_ERROR,
                        "cuda: alloc_data_space: alignment %zu is not a power of two",
                        alignment);
  if (dh_cuda_enter(dev, "alloc_data_space", NULL)) return -1;
  if (nbytes == 0) return 0; /* NULL handle; free_data_space(NULL) is a no-op */
  size_t request = nbytes;
  if (alignment > DH_CUDA_BASE_ALIGNMENT) {
    if (nbytes > SIZE_MAX - alignment)
      return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR,
                          "cuda: alloc_data_space(%zu bytes, alignment %zu): size overflows",
                          nbytes, alignment);
    request = nbytes + alignment;
  }
  CUdeviceptr p = 0;
  CUresult r = dh_cuda_drv.mem_alloc(&p, request);
  if (r != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuMemAlloc_v2(%zu)", request);
  if (request != nbytes) {
    overaligned_t* n = malloc(sizeof *n);
    if (!n) {
      dh_cuda_drv.mem_free(p);
      return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "cuda: alloc_data_space: out of host memory");
    }
    n->base = p;
    n->aligned = (p + alignment - 1) & ~(CUdeviceptr)(alignment - 1);
    pthread_mutex_lock(&g_overaligned_mu);
    n->next = g_overaligned;
    g_overaligned = n;
    pthread_mutex_unlock(&g_overaligned_mu);
    p = n->aligned;
  }
  *out_ptr = (void*)(uintptr_t)p;
  return 0;
}

int dh_cuda_free_data_space(DLDevice dev, void* ptr) {
  if (!ptr) return 0; /* NULL is a no-op, even without devices */
  if (dh_cuda_enter(dev, "free_data_space", NULL)) return -1;
  CUdeviceptr p = (CUdeviceptr)(uintptr_t)ptr;
  pthread_mutex_lock(&g_overaligned_mu);
  for (overaligned_t** pp = &g_overaligned; *pp; pp = &(*pp)->next) {
    if ((*pp)->aligned == p) {
      overaligned_t* n = *pp;
      p = n->base;
      *pp = n->next;
      free(n);
      break;
    }
  }
  pthread_mutex_unlock(&g_overaligned_mu);
  CUresult r = dh_cuda_drv.mem_free(p);
  if (r != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuMemFree_v2(0x%" PRIx64 ")", (uint64_t)p);
  return 0;
}

int dh_cuda_alloc_workspace(DLDevice dev, size_t nbytes, DLDataType type_hint, void** out) {
  return dh_cuda_alloc_data_space(dev, nbytes, DH_TEMP_ALLOC_ALIGNMENT, type_hint, out);
}
int dh_cuda_free_workspace(DLDevice dev, void* ptr) { return dh_cuda_free_data_space(dev, ptr); }

int dh_cuda_alloc_host(DLDevice dev, size_t nbytes, void** out_ptr) {
  if (!out_ptr) return dh_error_set(DH_KIND_VALUE_ERROR, "cuda: alloc_host: out_ptr is NULL");
  *out_ptr = NULL;
  if (dh_cuda_enter(dev, "alloc_host", NULL)) return -1;
  if (nbytes == 0) return 0;
  CUresult r = dh_cuda_drv.mem_host_alloc(out_ptr, nbytes, CU_MEMHOSTALLOC_PORTABLE);
  if (r != CUDA_SUCCESS) {
    *out_ptr = NULL;
    return dh_cuda_fail(r, "cuMemHostAlloc(%zu, CU_MEMHOSTALLOC_PORTABLE)", nbytes);
  }
  return 0;
}

int dh_cuda_free_host(DLDevice dev, void* ptr) {
  if (!ptr) return 0; /* NULL is a no-op, even without devices */
  if (dh_cuda_enter(dev, "free_host", NULL)) return -1;
  CUresult r = dh_cuda_drv.mem_free_host(ptr);
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuMemFreeHost(%p)", ptr);
  return 0;
}

/*===========================================================================
 * Copies
 *===========================================================================*/

int dh_cuda_copy_data_from_to(const void* from, size_t from_offset, void* to,
                              size_t to_offset, size_t nbytes, DLDevice dev_from,
                              DLDevice dev_to, DLDataType type_hint, dh_stream_t stream) {
  (void)type_hint;
  CUstream s = (CUstream)stream;
  int from_host = is_host_type(dev_from.device_type);
  int to_host = is_host_type(dev_to.device_type);
  if (from_host && to_host)
    return dh_error_set(DH_KIND_VALUE_ERROR,
                        "cuda: copy_data_from_to: neither side is a CUDA device (from type %d, "
                        "to type %d)", (int)dev_from.device_type, (int)dev_to.device_type);
  if (!from_host && dh_cuda_check_device(dev_from, "copy_data_from_to (from)")) return -1;
  if (!to_host && dh_cuda_check_device(dev_to, "copy_data_from_to (to)")) return -1;
  if (nbytes == 0) return 0;
  if (!from) return dh_error_set(DH_KIND_VALUE_ERROR, "cuda: copy_data_from_to: from is NULL (%zu bytes)", nbytes);
  if (!to) return dh_error_set(DH_KIND_VALUE_ERROR, "cuda: copy_data_from_to: to is NULL (%zu bytes)", nbytes);
  CUresult r;
  if (from_host) {
    /* H2D. The host source must not be read after return (see the file comment):
     * staged when small or pageable, else direct with a wait for this copy. */
    dh_cuda_device_t* dt;
    if (dh_cuda_enter(dev_to, "copy_data_from_to", &dt)) return -1;
    CUdeviceptr dst = (CUdeviceptr)(uintptr_t)to + to_offset;
    const char* src = (const char*)from + from_offset;
    if (nbytes > dh_cuda_stage_pinned_max) {
      unsigned int mt = 0;
      if (dh_cuda_drv.pointer_get_attribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                            (CUdeviceptr)(uintptr_t)src) == CUDA_SUCCESS &&
          mt == CU_MEMORYTYPE_HOST)
        return h2d_pinned_wait(dt, dst, to_offset, src, nbytes, s);
    }
    return h2d_staged(dt, dst, to_offset, src, nbytes, s);
  }
  if (to_host) {
    if (dh_cuda_enter(dev_from, "copy_data_from_to", NULL)) return -1;
    CUdeviceptr src = (CUdeviceptr)(uintptr_t)from + from_offset;
    r = dh_cuda_drv.memcpy_dtoh_async((char*)to + to_offset, src, nbytes, s);
    if (r != CUDA_SUCCESS)
      return dh_cuda_fail(r, "cuMemcpyDtoHAsync_v2(%zu bytes, from_offset %zu)", nbytes, from_offset);
    return 0;
  }
  /* Device to device: on the stream of dev_from (TVM does the same). */
  dh_cuda_device_t *df, *dt;
  if (dev_from.device_id != dev_to.device_id &&
      dh_cuda_enter(dev_to, "copy_data_from_to", &dt))
    return -1;
  if (dh_cuda_enter(dev_from, "copy_data_from_to", &df)) return -1; /* the stream's context */
  if (dev_from.device_id == dev_to.device_id) dt = df;
  CUdeviceptr src = (CUdeviceptr)(uintptr_t)from + from_offset;
  CUdeviceptr dst = (CUdeviceptr)(uintptr_t)to + to_offset;
  if (dev_from.device_id == dev_to.device_id) {
    r = dh_cuda_drv.memcpy_dtod_async(dst, src, nbytes, s);
    if (r != CUDA_SUCCESS)
      return dh_cuda_fail(r, "cuMemcpyDtoDAsync_v2(%zu bytes, from_offset %zu, to_offset %zu)",
                          nbytes, from_offset, to_offset);
  } else {
    r = dh_cuda_drv.memcpy_peer_async(dst, dt->ctx, src, df->ctx, nbytes, s);
    if (r != CUDA_SUCCESS)
      return dh_cuda_fail(r, "cuMemcpyPeerAsync(%zu bytes, cuda:%d -> cuda:%d)",
                          nbytes, (int)dev_from.device_id, (int)dev_to.device_id);
  }
  return 0;
}

