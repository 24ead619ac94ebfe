/*
 * backends/vulkan/vulkan_memory.c — memory: data space, pooled workspaces, pinned
 * host memory (alloc_host) and copy_data_from_to (staging, deferred D2H memcpy, device
 * reads and writes of pinned memory), over the buffers of vulkan_buffers.c. See vulkan_internal.h (Memory, Copies).
 */
#include "vulkan_internal.h"

/*===========================================================================
 * Memory
 *===========================================================================*/
int dh_vulkan_alloc_data_space(DLDevice dev, size_t nbytes, size_t alignment, DLDataType hint,
                               void** out) {
  (void)hint;
  dh_vulkan_device_t* d = NULL;
  if (!out) return dh_error_set(DH_KIND_VALUE_ERROR, "alloc_data_space: out_ptr is NULL");
  *out = NULL;
  if (dh_vulkan_check_dev(dev, &d)) return -1;
  if (alignment & (alignment - 1))
    return dh_error_set(DH_KIND_VALUE_ERROR, "alignment %zu is not a power of two", alignment);
  dh_vulkan_buf_t* b = NULL;
  if (dh_vulkan_buf_create(d, dev.device_id, nbytes, 0, &b)) return -1;
  if (dh_vulkan_val_check()) {
    dh_vulkan_buf_destroy(d, b);
    return -1;
  }
  *out = b;
  return 0;
}


int dh_vulkan_free_data_space(DLDevice dev, void* ptr) {
  dh_vulkan_device_t* d = NULL;
  if (dh_vulkan_check_dev(dev, &d)) return -1;
  if (!ptr) return 0;
  dh_vulkan_buf_t* b = NULL;
  if (dh_vulkan_check_buf(ptr, dev.device_id, "free_data_space: ptr", &b)) return -1;
  if (b->buffer && dh_vulkan_device_wait_all(d)) return -1;
  dh_vulkan_buf_destroy(d, b);
  return dh_vulkan_val_check();
}

/* Workspaces: data-space buffers recycled through a per-device pool (as TVM's
 * WorkspacePool): free_workspace waits for the device's queued work (like
 * free_data_space), then keeps the buffer, up to DH_VULKAN_WS_CACHE bytes in all;
 * alloc_workspace reuses a pooled buffer of at least nbytes and at most twice that. */
#define DH_VULKAN_WS_CACHE ((size_t)64 << 20)

int dh_vulkan_alloc_workspace(DLDevice dev, size_t nbytes, DLDataType hint, void** out) {
  dh_vulkan_device_t* d = NULL;
  if (!out) return dh_error_set(DH_KIND_VALUE_ERROR, "alloc_workspace: out_ptr is NULL");
  *out = NULL;
  if (dh_vulkan_check_dev(dev, &d)) return -1;
  if (nbytes > 0) {
    size_t want_max = 2 * (nbytes < 4096 ? 4096 : nbytes);
    pthread_mutex_lock(&d->ws_lock);
    dh_vulkan_buf_t **best = NULL, **pp;
    for (pp = &d->ws_free; *pp; pp = &(*pp)->next)
      if ((*pp)->cap >= nbytes && (*pp)->cap <= want_max && (!best || (*pp)->cap < (*best)->cap))
        best = pp;
    dh_vulkan_buf_t* b = NULL;
    if (best) {
      b = *best;
      *best = b->next;
      b->next = NULL;
      d->ws_bytes -= b->cap;
      b->size = nbytes;
    }
    pthread_mutex_unlock(&d->ws_lock);
    if (b) {
      *out = b;
      return 0;
    }
  }
  return dh_vulkan_alloc_data_space(dev, nbytes, DH_TEMP_ALLOC_ALIGNMENT, hint, out);
}

int dh_vulkan_free_workspace(DLDevice dev, void* ptr) {
  dh_vulkan_device_t* d = NULL;
  if (dh_vulkan_check_dev(dev, &d)) return -1;
  if (!ptr) return 0;
  dh_vulkan_buf_t* b = NULL;
  if (dh_vulkan_check_buf(ptr, dev.device_id, "free_workspace: ptr", &b)) return -1;
  if (!b->buffer || b->cap > DH_VULKAN_WS_CACHE) return dh_vulkan_free_data_space(dev, ptr);
  if (dh_vulkan_device_wait_all(d)) return -1;
  pthread_mutex_lock(&d->ws_lock);
  while (d->ws_free && d->ws_bytes + b->cap > DH_VULKAN_WS_CACHE) {
    dh_vulkan_buf_t* old = d->ws_free;
    d->ws_free = old->next;
    d->ws_bytes -= old->cap;
    dh_vulkan_buf_destroy(d, old);
  }
  b->next = d->ws_free;
  d->ws_free = b;
  d->ws_bytes += b->cap;
  pthread_mutex_unlock(&d->ws_lock);
  return dh_vulkan_val_check();
}

int dh_vulkan_alloc_host(DLDevice dev, size_t nbytes, void** out) {
  dh_vulkan_device_t* d = NULL;
  if (!out) return dh_error_set(DH_KIND_VALUE_ERROR, "alloc_host: out_ptr is NULL");
  *out = NULL;
  if (dh_vulkan_check_dev(dev, &d)) return -1;
  dh_vulkan_buf_t* b = NULL;
  if (dh_vulkan_buf_create(d, dev.device_id, nbytes, 1, &b)) return -1;
  pthread_mutex_lock(&d->pinned_lock);
  b->next = d->pinned;
  d->pinned = b;
  pthread_mutex_unlock(&d->pinned_lock);
  *out = b->mapped;
  return 0;
}

int dh_vulkan_free_host(DLDevice dev, void* ptr) {
  dh_vulkan_device_t* d = NULL;
  if (dh_vulkan_check_dev(dev, &d)) return -1;
  if (!ptr) return 0;
  pthread_mutex_lock(&d->pinned_lock);
  dh_vulkan_buf_t** pp = &d->pinned;
  while (*pp && (*pp)->mapped != ptr) pp = &(*pp)->next;
  dh_vulkan_buf_t* b = *pp;
  if (b) *pp = b->next;
  pthread_mutex_unlock(&d->pinned_lock);
  if (!b) return dh_error_set(DH_KIND_VALUE_ERROR, "free_host: %p was not returned by alloc_host on vulkan:%d",
                              ptr, (int)dev.device_id);
  /* a D2H copy may still be writing into it (see pinned_find) */
  if (dh_vulkan_device_wait_all(d)) return -1;
  dh_vulkan_buf_destroy(d, b);
  return 0;
}

/*===========================================================================
 * Copies
 *===========================================================================*/
void dh_vulkan_cmd_host_barrier(VkCommandBuffer cb) {
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                        .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
  dh_vulkan_fn.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb,
                       0, NULL, 0, NULL);
}

int dh_vulkan_range_check(const dh_vulkan_buf_t* b, size_t off, size_t n, const char* what) {
  if (off > b->size || n > b->size - off)
    return dh_error_set(DH_KIND_VALUE_ERROR,
                        "%s range [%zu, %zu) is outside the %" PRIu64 "-byte vulkan buffer", what,
                        off, off + n, (uint64_t)b->size);
  return 0;
}

/* The pinned (alloc_host) buffer holding host bytes [p, p + n), or NULL. A D2H copy
 * into pinned memory is written there by the device directly (no staging, no
 * deferred memcpy); free_host waits for the device first. */
static dh_vulkan_buf_t* pinned_find(dh_vulkan_device_t* d, const void* p, size_t n, size_t* out_off) {
  dh_vulkan_buf_t* hit = NULL;
  pthread_mutex_lock(&d->pinned_lock);
  for (dh_vulkan_buf_t* b = d->pinned; b; b = b->next) {
    uintptr_t lo = (uintptr_t)b->mapped, q = (uintptr_t)p;
    if (q >= lo && q - lo <= b->size && n <= b->size - (q - lo)) {
      *out_off = q - lo;
      hit = b;
      break;
    }
  }
  pthread_mutex_unlock(&d->pinned_lock);
  return hit;
}

/* One queued copy on stream s of device d. Kinds: 0 H2D, 1 D2H, 2 D2D. */
static int enqueue_copy(dh_vulkan_device_t* d, dh_vulkan_stream_t* s, int kind, const void* host_src,
                        void* host_dst, dh_vulkan_buf_t* src, size_t src_off, dh_vulkan_buf_t* dst,
                        size_t dst_off, size_t nbytes) {
  dh_vulkan_sub_t sub = {0};
  size_t pin_off = 0;
  dh_vulkan_buf_t *pin_dst = NULL, *pin_src = NULL;
  if (kind == 1 && d->pinned && (pin_dst = pinned_find(d, host_dst, nbytes, &pin_off)) != NULL) {
    kind = 2; /* device -> pinned buffer */
    dst = pin_dst;
    dst_off = pin_off;
  } else if (kind == 0 && nbytes > dh_vulkan_stage_pinned_max && d->pinned &&
             (pin_src = pinned_find(d, host_src, nbytes, &pin_off)) != NULL) {
    /* Large pinned buffer -> device, read by the device directly (no staging memcpy);
     * the host source must not be read after the call returns, so the call waits for
     * this copy. Up to dh_vulkan_stage_pinned_max a pinned source is staged like a pageable
     * one instead: the memcpy costs less than the wait, and the call returns at once. */
    kind = 2;
    src = pin_src;
    src_off = pin_off;
  }
  if (kind != 2 && dh_vulkan_staging_get(d, s->dev, nbytes, &sub.staging)) return -1;
  if (kind == 0) memcpy(sub.staging->mapped, host_src, nbytes);
  pthread_mutex_lock(&s->lock);
  if (dh_vulkan_stream_begin(d, s, &sub.cb)) {
    pthread_mutex_unlock(&s->lock);
    dh_vulkan_staging_put(d, sub.staging);
    return -1;
  }
  VkBufferCopy region = {.size = nbytes};
  if (kind == 0) {
    region.srcOffset = 0;
    region.dstOffset = dst_off;
    dh_vulkan_fn.vkCmdCopyBuffer(sub.cb, sub.staging->buffer, dst->buffer, 1, &region);
  } else if (kind == 1) {
    region.srcOffset = src_off;
    region.dstOffset = 0;
    dh_vulkan_fn.vkCmdCopyBuffer(sub.cb, src->buffer, sub.staging->buffer, 1, &region);
    dh_vulkan_cmd_host_barrier(sub.cb);
    sub.host_dst = host_dst;
    sub.host_nbytes = nbytes;
  } else {
    region.srcOffset = src_off;
    region.dstOffset = dst_off;
    dh_vulkan_fn.vkCmdCopyBuffer(sub.cb, src->buffer, dst->buffer, 1, &region);
    if (pin_dst) dh_vulkan_cmd_host_barrier(sub.cb);
  }
  int rc = dh_vulkan_stream_submit(d, s, &sub);
  if (rc == 0 && pin_src) rc = dh_vulkan_stream_drain(d, s);
  pthread_mutex_unlock(&s->lock);
  return rc;
}

int dh_vulkan_copy_data_from_to(const void* from, size_t from_offset, void* to, size_t to_offset,
                                size_t nbytes, DLDevice dev_from, DLDevice dev_to,
                                DLDataType hint, dh_stream_t stream) {
  (void)hint;
  int from_host = dev_from.device_type == kDLCPU || dev_from.device_type == kDLCUDAHost;
  int to_host = dev_to.device_type == kDLCPU || dev_to.device_type == kDLCUDAHost;
  if (!from_host && dev_from.device_type != kDLVulkan)
    return dh_error_set(DH_KIND_VALUE_ERROR, "copy source device type %d is neither CPU nor vulkan",
                        (int)dev_from.device_type);
  if (!to_host && dev_to.device_type != kDLVulkan)
    return dh_error_set(DH_KIND_VALUE_ERROR, "copy destination device type %d is neither CPU nor vulkan",
                        (int)dev_to.device_type);
  if (!from) return dh_error_set(DH_KIND_VALUE_ERROR, "copy source pointer is NULL");
  if (!to) return dh_error_set(DH_KIND_VALUE_ERROR, "copy destination pointer is NULL");
  if (from_host && to_host) {
    if (nbytes) memmove((char*)to + to_offset, (const char*)from + from_offset, nbytes);
    return 0;
  }
  dh_vulkan_device_t *df = NULL, *dt = NULL;
  dh_vulkan_buf_t *bf = NULL, *bt = NULL;
  if (!from_host) {
    if (dh_vulkan_check_dev(dev_from, &df) || dh_vulkan_check_buf(from, dev_from.device_id, "copy source", &bf) ||
        dh_vulkan_range_check(bf, from_offset, nbytes, "copy source"))
      return -1;
  }
  if (!to_host) {
    if (dh_vulkan_check_dev(dev_to, &dt) || dh_vulkan_check_buf(to, dev_to.device_id, "copy destination", &bt) ||
        dh_vulkan_range_check(bt, to_offset, nbytes, "copy destination"))
      return -1;
  }
  DLDevice sdev = from_host ? dev_to : dev_from;
  dh_vulkan_device_t* d = from_host ? dt : df;
  dh_vulkan_stream_t* s = NULL;
  if (dh_vulkan_resolve_stream(d, sdev.device_id, stream, &s)) return -1;
  if (nbytes == 0) return 0;
  int rc;
  if (from_host) {
    rc = enqueue_copy(d, s, 0, (const char*)from + from_offset, NULL, NULL, 0, bt, to_offset, nbytes);
  } else if (to_host) {
    rc = enqueue_copy(d, s, 1, NULL, (char*)to + to_offset, bf, from_offset, NULL, 0, nbytes);
  } else if (dev_from.device_id == dev_to.device_id) {
    rc = enqueue_copy(d, s, 2, NULL, NULL, bf, from_offset, bt, to_offset, nbytes);
  } else {
    /* Across devices: through host memory, synchronously. */
    void* tmp = malloc(nbytes);
    if (!tmp) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "no host memory for a %zu-byte bounce", nbytes);
    dh_vulkan_stream_t* ds = dt->default_stream;
    rc = enqueue_copy(df, s, 1, NULL, tmp, bf, from_offset, NULL, 0, nbytes);
    if (!rc) {
      pthread_mutex_lock(&s->lock);
      rc = dh_vulkan_stream_drain(df, s);
      pthread_mutex_unlock(&s->lock);
    }
    if (!rc) rc = enqueue_copy(dt, ds, 0, tmp, NULL, NULL, 0, bt, to_offset, nbytes);
    if (!rc) {
      pthread_mutex_lock(&ds->lock);
      rc = dh_vulkan_stream_drain(dt, ds);
      pthread_mutex_unlock(&ds->lock);
    }
    free(tmp);
  }
  if (rc) return -1;
  return dh_vulkan_val_check();
}

/* Destroys every buffer of a list linked through next. */
static void destroy_list(dh_vulkan_device_t* d, dh_vulkan_buf_t* head) {
  for (dh_vulkan_buf_t* b = head; b;) {
    dh_vulkan_buf_t* nx = b->next;
    dh_vulkan_buf_destroy(d, b);
    b = nx;
  }
}

/* At shutdown (device idle, streams destroyed, so retired staging is back in the cache). */
void dh_vulkan_memory_release(dh_vulkan_device_t* d) {
  destroy_list(d, d->pinned);
  destroy_list(d, d->staging_free);
  pthread_mutex_destroy(&d->staging_lock);
  pthread_mutex_destroy(&d->pinned_lock);
  destroy_list(d, d->ws_free);
  pthread_mutex_destroy(&d->ws_lock);
}
