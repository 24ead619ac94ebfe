/*
 * backends/sim/sim_memory.c — the sim's memory: device buffers (reference-counted
 * objects in the device's handle table), the alloc/free and workspace entries, copy_data_from_to
 * (staged host sources, commands on the stream's worker) and the test access
 * dh_sim_handle_bytes (sim.h). Calls down into sim_stream.c and sim_device.c.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/error.h"
#include "devharness/tensor.h"
#include "sim_internal.h"

/*===========================================================================
 * Device buffers
 *===========================================================================*/

static void dh_sim_buffer_destroy(dh_sim_obj_t* obj) {
  dh_sim_buffer_t* b = (dh_sim_buffer_t*)obj;
  if (dh_sim_state.devices != NULL) {
    dh_sim_device_t* d = &dh_sim_state.devices[b->device_id];
    pthread_mutex_lock(&d->mu);
    d->used -= b->charged;
    pthread_mutex_unlock(&d->mu);
  }
  free(b->data);
  free(b);
}

int dh_sim_mem_alloc(dh_sim_device_t* d, size_t nbytes, size_t alignment, void** out_handle) {
  if (alignment == 0) alignment = DH_ALLOC_ALIGNMENT;
  if ((alignment & (alignment - 1)) != 0)
    return dh_error_set(DH_KIND_VALUE_ERROR, "sim:%d: alignment %zu is not a power of two", d->id,
                        alignment);
  if (alignment < DH_ALLOC_ALIGNMENT) alignment = DH_ALLOC_ALIGNMENT;
  /* Charge whole 64-byte blocks, as a device allocator would. */
  size_t charged = nbytes;
  if (charged % DH_ALLOC_ALIGNMENT) {
    if (charged > SIZE_MAX - DH_ALLOC_ALIGNMENT) charged = SIZE_MAX;
    else charged += DH_ALLOC_ALIGNMENT - charged % DH_ALLOC_ALIGNMENT;
  }
  /* Reserve first, so a request beyond the device never reaches malloc (which might
   * succeed lazily through overcommit). */
  pthread_mutex_lock(&d->mu);
  size_t avail = dh_sim_state.config.memory_bytes - d->used;
  if (charged > avail) {
    pthread_mutex_unlock(&d->mu);
    return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR,
                        "sim:%d: cannot allocate %zu bytes: %zu of %zu bytes available", d->id,
                        nbytes, avail, dh_sim_state.config.memory_bytes);
  }
  d->used += charged;
  pthread_mutex_unlock(&d->mu);

  dh_sim_buffer_t* b = calloc(1, sizeof *b);
  void* data = NULL;
  /* whole blocks, as charged: a device allocator hands out whole blocks */
  if (b == NULL || (nbytes > 0 && posix_memalign(&data, alignment, charged) != 0)) {
    free(b);
    pthread_mutex_lock(&d->mu);
    d->used -= charged;
    pthread_mutex_unlock(&d->mu);
    return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "sim:%d: host malloc of %zu bytes failed", d->id,
                        nbytes);
  }
  atomic_init(&b->obj.refs, 1);
  b->obj.destroy = dh_sim_buffer_destroy;
  b->device_id = d->id;
  b->data = data;
  b->size = nbytes;
  b->charged = charged;
  if (dh_sim_table_add(&d->buffers, DH_SIM_KIND_BUFFER, d->id, &b->obj, out_handle) != 0) {
    dh_sim_obj_release(&b->obj);
    return -1;
  }
  return 0;
}

int dh_sim_mem_free(dh_sim_device_t* d, void* handle) {
  if (handle == NULL) return 0;
  dh_sim_obj_t* obj;
  if (dh_sim_table_remove(&d->buffers, DH_SIM_KIND_BUFFER, d->id, handle, "data space handle",
                          &obj) != 0)
    return -1;
  /* Queued commands may still hold references; the bytes go when they are done. */
  dh_sim_obj_release(obj);
  return 0;
}

int dh_sim_mem_get(dh_sim_device_t* d, void* handle, dh_sim_buffer_t** out_buffer) {
  if (handle == NULL)
    return dh_error_set(DH_KIND_VALUE_ERROR, "sim:%d: NULL data space handle", d->id);
  dh_sim_obj_t* obj;
  if (dh_sim_table_get(&d->buffers, DH_SIM_KIND_BUFFER, d->id, handle, "data space handle",
                       &obj) != 0)
    return -1;
  *out_buffer = (dh_sim_buffer_t*)obj;
  return 0;
}

int dh_sim_mem_check_range(const dh_sim_buffer_t* b, size_t offset, size_t nbytes,
                           const char* side) {
  if (offset > b->size || nbytes > b->size - offset)
    return dh_error_set(DH_KIND_VALUE_ERROR,
                        "sim:%d: %s range [%zu, %zu + %zu) is outside the %zu-byte allocation",
                        b->device_id, side, offset, offset, nbytes, b->size);
  return 0;
}

int dh_sim_alloc_data_space(DLDevice dev, size_t nbytes, size_t alignment,
                            DLDataType type_hint, void** out_ptr) {
  (void)type_hint;
  if (out_ptr == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "sim: alloc_data_space: out_ptr is NULL");
  *out_ptr = NULL;
  dh_sim_device_t* d;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  return dh_sim_mem_alloc(d, nbytes, alignment, out_ptr);
}

int dh_sim_free_data_space(DLDevice dev, void* ptr) {
  dh_sim_device_t* d;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  return dh_sim_mem_free(d, ptr);
}

/* Workspaces: TVM's WorkspacePool in small (apache/tvm 0.27 src/runtime/workspace_pool.cc):
 * free_workspace keeps up to DH_SIM_WS_POOL freed blocks per device, and
 * alloc_workspace takes the first one big enough off that list before allocating a new
 * one, so the alloc/free pairs of a kernel launch loop cost no allocation. */
int dh_sim_alloc_workspace(DLDevice dev, size_t nbytes, DLDataType type_hint, void** out_ptr) {
  (void)type_hint;
  if (out_ptr == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "sim: alloc_workspace: out_ptr is NULL");
  *out_ptr = NULL;
  dh_sim_device_t* d;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  pthread_mutex_lock(&d->mu);
  for (int i = 0; i < d->ws_count; i++)
    if (d->ws_size[i] >= nbytes) {
      *out_ptr = d->ws_free[i];
      d->ws_count--; /* off the free list: a live workspace is its owner's alone */
      d->ws_free[i] = d->ws_free[d->ws_count];
      d->ws_size[i] = d->ws_size[d->ws_count];
      pthread_mutex_unlock(&d->mu);
      return 0;
    }
  pthread_mutex_unlock(&d->mu);
  return dh_sim_mem_alloc(d, nbytes, DH_TEMP_ALLOC_ALIGNMENT, out_ptr);
}

int dh_sim_free_workspace(DLDevice dev, void* ptr) {
  dh_sim_device_t* d;
  dh_sim_buffer_t* b;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  if (ptr == NULL) return 0;
  if (dh_sim_mem_get(d, ptr, &b) != 0) return -1;
  size_t size = b->size;
  dh_sim_obj_release(&b->obj);
  pthread_mutex_lock(&d->mu);
  for (int i = 0; i < d->ws_count; i++)
    if (d->ws_free[i] == ptr) {
      pthread_mutex_unlock(&d->mu);
      return dh_error_set(DH_KIND_VALUE_ERROR, "sim:%d: workspace %p freed twice", d->id, ptr);
    }
  if (d->ws_count < DH_SIM_WS_POOL) {
    d->ws_free[d->ws_count] = ptr;
    d->ws_size[d->ws_count++] = size;
    pthread_mutex_unlock(&d->mu);
    return 0;
  }
  pthread_mutex_unlock(&d->mu);
  return dh_sim_mem_free(d, ptr);
}

/* "Pinned" host memory: the sim has no DMA engine, so this is plain malloc'ed memory;
 * it exists so benchmarks exercise the pinned path. Page-aligned, as the pinned memory
 * of real APIs is page-granular (cuMemHostAlloc, a mapped VkDeviceMemory): the bench's
 * twins copy to and from page-aligned buffers (bench/measure/measure.h
 * DH_BENCH_BUFFER_ALIGN), and with 64-byte alignment the harness's memmove ran at
 * another relative alignment than the twin's (d2h pinned 256 MiB harness/raw 0.92). */
int dh_sim_alloc_host(DLDevice dev, size_t nbytes, void** out_ptr) {
  dh_sim_device_t* d;
  if (out_ptr == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "sim: alloc_host: out_ptr is NULL");
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  if (posix_memalign(out_ptr, 4096, nbytes ? nbytes : 1) != 0) {
    *out_ptr = NULL;
    return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "sim:%d: alloc_host of %zu bytes failed", d->id,
                        nbytes);
  }
  return 0;
}

int dh_sim_free_host(DLDevice dev, void* ptr) {
  (void)dev;
  free(ptr);
  return 0;
}

/*===========================================================================
 * Copies
 *===========================================================================*/

int dh_sim_copy_data_from_to(const void* from, size_t from_offset, void* to,
                             size_t to_offset, size_t nbytes, DLDevice dev_from,
                             DLDevice dev_to, DLDataType type_hint, dh_stream_t stream) {
  (void)type_hint;
  int from_host = dev_from.device_type == kDLCPU;
  int to_host = dev_to.device_type == kDLCPU;
  if (from_host && to_host) { /* not the sim's business, but harmless */
    if (nbytes) memmove((char*)to + to_offset, (const char*)from + from_offset, nbytes);
    return 0;
  }
  /* The stream belongs to the device side; for device-to-device, to the source device
   * (as TVM's CUDA backend does for peer copies). */
  DLDevice stream_dev = from_host ? dev_to : dev_from;
  dh_sim_device_t *ds, *d_from = NULL, *d_to = NULL;
  if (dh_sim_device_get(stream_dev, &ds) != 0) return -1;
  if (!from_host && dh_sim_device_get(dev_from, &d_from) != 0) return -1;
  if (!to_host && dh_sim_device_get(dev_to, &d_to) != 0) return -1;
  if ((from_host && from == NULL && nbytes) || (to_host && to == NULL && nbytes))
    return dh_error_set(DH_KIND_VALUE_ERROR, "sim: copy_data_from_to: NULL host %s pointer",
                        from_host ? "source" : "destination");

  dh_sim_buffer_t *src_buf = NULL, *dst_buf = NULL;
  dh_sim_stream_t* s = NULL;
  dh_sim_cmd_t* cmd = NULL;
  if (d_from && (dh_sim_mem_get(d_from, (void*)from, &src_buf) != 0 ||
                 dh_sim_mem_check_range(src_buf, from_offset, nbytes, "source") != 0))
    goto fail;
  if (d_to && (dh_sim_mem_get(d_to, to, &dst_buf) != 0 ||
               dh_sim_mem_check_range(dst_buf, to_offset, nbytes, "destination") != 0))
    goto fail;
  if (dh_sim_stream_get(ds, stream, &s) != 0) goto fail;
  if (nbytes == 0) { /* validated; nothing to do */
    dh_sim_obj_release(src_buf ? &src_buf->obj : NULL);
    dh_sim_obj_release(dst_buf ? &dst_buf->obj : NULL);
    dh_sim_obj_release(&s->obj);
    return 0;
  }
  if ((cmd = dh_sim_cmd_new(DH_SIM_CMD_COPY)) == NULL) goto fail;
  cmd->nbytes = nbytes;
  if (from_host) {
    /* Stage the host source now: the caller may overwrite it as soon as we return. */
    cmd->staging = dh_sim_staging_get(nbytes, &cmd->staging_cap);
    if (cmd->staging == NULL) goto fail;
    memcpy(cmd->staging, (const char*)from + from_offset, nbytes);
    cmd->src = cmd->staging;
  } else {
    cmd->src = src_buf->data + from_offset;
  }
  cmd->dst = to_host ? (uint8_t*)to + to_offset : dst_buf->data + to_offset;
  /* The command keeps the buffers alive until it has run. */
  cmd->refs[0] = src_buf ? &src_buf->obj : NULL;
  cmd->refs[1] = dst_buf ? &dst_buf->obj : NULL;
  src_buf = dst_buf = NULL;
  int rc = dh_sim_stream_enqueue(s, cmd);
  dh_sim_obj_release(&s->obj);
  return rc;

fail:
  dh_sim_cmd_discard(cmd);
  dh_sim_obj_release(src_buf ? &src_buf->obj : NULL);
  dh_sim_obj_release(dst_buf ? &dst_buf->obj : NULL);
  dh_sim_obj_release(s ? &s->obj : NULL);
  return -1;
}

/*===========================================================================
 * Test access declared in sim.h
 *===========================================================================*/

int dh_sim_handle_bytes(DLDevice dev, void* handle, uint8_t** out_bytes, size_t* out_size) {
  dh_sim_device_t* d;
  dh_sim_buffer_t* b;
  if (out_bytes == NULL || out_size == NULL)
    return dh_error_set(DH_KIND_VALUE_ERROR, "sim: handle_bytes: NULL output");
  if (dh_sim_device_get(dev, &d) != 0 || dh_sim_mem_get(d, handle, &b) != 0) return -1;
  *out_bytes = b->data;
  *out_size = b->size;
  dh_sim_obj_release(&b->obj); /* the handle's own reference keeps it alive */
  return 0;
}

