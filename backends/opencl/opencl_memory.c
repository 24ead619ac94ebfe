/*
 * backends/opencl/opencl_memory.c — memory of the OpenCL backend: alloc/free data
 * space and workspaces, pinned host memory, and copy_data_from_to. Every pointer
 * handed out is registered (opencl_handles.c), so a stale, foreign or double-freed one
 * is a ValueError, never a crash.
 *
 * alloc_data_space returns the cl_mem itself (opaque; offsets go through the copy
 * offsets / DLTensor.byte_offset). nbytes 0 returns NULL (freeing NULL is a no-op).
 * Copies: H2D is a blocking clEnqueueWriteBuffer (the host source is consumed before
 * the call returns, whatever memory it is); D2H is a non-blocking read, valid after
 * stream_sync; D2D is clEnqueueCopyBuffer (overlapping ranges of one buffer go through
 * a temporary buffer; different devices through host memory, blocking).
 *
 * Thread-safety: the registry's mutex (dh_opencl_hreg_lock) also guards each device's
 * live_bytes.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

/*===========================================================================
 * Memory
 *===========================================================================*/

static int alloc_buffer(DLDevice dev, size_t nbytes, size_t alignment, const char* where,
                        void** out_ptr) {
  if (!out_ptr) return dh_error_set(DH_KIND_VALUE_ERROR, "opencl: %s: out_ptr is NULL", where);
  *out_ptr = NULL;
  if (dh_opencl_check_dev(dev, where) != 0) return -1;
  if (alignment != 0 && (alignment & (alignment - 1)) != 0)
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl: %s: alignment %zu is not a power of two", where,
                        alignment);
  if (nbytes == 0) return 0; /* documented: zero bytes -> NULL, freeing NULL is a no-op */
  if (dh_opencl_ensure_realized() != 0) return dh_error_prefix("opencl:%d: %s", dev.device_id, where);
  dh_opencl_device_t* od = &dh_opencl_dev[dev.device_id];
  /* alignment: cl_mem handles are opaque; the device aligns every buffer to
   * CL_DEVICE_MEM_BASE_ADDR_ALIGN (PoCL: 128 bytes) and no host address exists to check. */
  if ((int64_t)nbytes < 0 || (int64_t)nbytes > od->max_mem_alloc_size)
    return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR,
                        "opencl:%d: %s: %zu bytes exceed CL_DEVICE_MAX_MEM_ALLOC_SIZE (%" PRId64
                        " bytes)",
                        dev.device_id, where, nbytes, od->max_mem_alloc_size);
  pthread_mutex_lock(&dh_opencl_hreg_lock);
  int over = (int64_t)(od->live_bytes + nbytes) > od->global_mem_size;
  if (!over) od->live_bytes += nbytes;
  size_t live = od->live_bytes;
  pthread_mutex_unlock(&dh_opencl_hreg_lock);
  if (over)
    return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR,
                        "opencl:%d: %s: %zu bytes do not fit: %zu bytes live of "
                        "CL_DEVICE_GLOBAL_MEM_SIZE %" PRId64 " bytes",
                        dev.device_id, where, nbytes, live, od->global_mem_size);
  cl_int e = CL_SUCCESS;
  cl_mem m = clCreateBuffer(od->ctx, CL_MEM_READ_WRITE, nbytes, NULL, &e);
  if (e != CL_SUCCESS || !m) {
    pthread_mutex_lock(&dh_opencl_hreg_lock);
    od->live_bytes -= nbytes;
    pthread_mutex_unlock(&dh_opencl_hreg_lock);
    if (e == CL_INVALID_BUFFER_SIZE) e = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return DH_OPENCL_FAIL("clCreateBuffer", e);
  }
  if (dh_opencl_hreg_add(m, H_BUFFER, dev.device_id, nbytes, NULL) != 0) {
    clReleaseMemObject(m);
    pthread_mutex_lock(&dh_opencl_hreg_lock);
    od->live_bytes -= nbytes;
    pthread_mutex_unlock(&dh_opencl_hreg_lock);
    return -1;
  }
  *out_ptr = m;
  return 0;
}

static int free_buffer(DLDevice dev, void* ptr, const char* where) {
  if (dh_opencl_check_dev(dev, where) != 0) return -1;
  if (!ptr) return 0;
  if (dh_opencl_ensure_realized() != 0) return dh_error_prefix("opencl:%d: %s", dev.device_id, where);
  hentry_t e;
  if (!dh_opencl_hreg_find(ptr, H_BUFFER, &e))
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl:%d: %s: %p is not a live opencl buffer",
                        dev.device_id, where, ptr);
  if (e.dev != dev.device_id)
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl:%d: %s: buffer %p belongs to opencl:%d",
                        dev.device_id, where, ptr, e.dev);
  if (!dh_opencl_hreg_remove(ptr, H_BUFFER, &e))
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl:%d: %s: %p was freed concurrently",
                        dev.device_id, where, ptr);
  pthread_mutex_lock(&dh_opencl_hreg_lock);
  dh_opencl_dev[e.dev].live_bytes -= e.size;
  pthread_mutex_unlock(&dh_opencl_hreg_lock);
  /* OpenCL keeps the object alive until enqueued commands using it are done. */
  cl_int err = clReleaseMemObject((cl_mem)ptr);
  if (err != CL_SUCCESS) return DH_OPENCL_FAIL("clReleaseMemObject", err);
  return 0;
}

int dh_opencl_alloc_data_space(DLDevice dev, size_t nbytes, size_t alignment,
                                DLDataType type_hint, void** out_ptr) {
  (void)type_hint;
  return alloc_buffer(dev, nbytes, alignment, "alloc_data_space", out_ptr);
}

int dh_opencl_free_data_space(DLDevice dev, void* ptr) {
  return free_buffer(dev, ptr, "free_data_space");
}

int dh_opencl_alloc_workspace(DLDevice dev, size_t nbytes, DLDataType type_hint, void** out) {
  (void)type_hint;
  return alloc_buffer(dev, nbytes, DH_TEMP_ALLOC_ALIGNMENT, "alloc_workspace", out);
}

int dh_opencl_free_workspace(DLDevice dev, void* ptr) {
  return free_buffer(dev, ptr, "free_workspace");
}

/* Pinned host memory: a CL_MEM_ALLOC_HOST_PTR buffer mapped for read/write. */
int dh_opencl_alloc_host(DLDevice dev, size_t nbytes, void** out_ptr) {
  if (!out_ptr) return dh_error_set(DH_KIND_VALUE_ERROR, "opencl: alloc_host: out_ptr is NULL");
  *out_ptr = NULL;
  if (dh_opencl_check_dev(dev, "alloc_host") != 0) return -1;
  if (nbytes == 0) return 0;
  if (dh_opencl_ensure_realized() != 0) return dh_error_prefix("opencl:%d: alloc_host", dev.device_id);
  dh_opencl_device_t* od = &dh_opencl_dev[dev.device_id];
  if ((int64_t)nbytes < 0 || (int64_t)nbytes > od->max_mem_alloc_size)
    return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR,
                        "opencl:%d: alloc_host: %zu bytes exceed CL_DEVICE_MAX_MEM_ALLOC_SIZE "
                        "(%" PRId64 " bytes)",
                        dev.device_id, nbytes, od->max_mem_alloc_size);
  cl_int e = CL_SUCCESS;
  cl_mem m = clCreateBuffer(od->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, nbytes, NULL, &e);
  if (e != CL_SUCCESS || !m) return DH_OPENCL_FAIL("clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)", e);
  void* p = clEnqueueMapBuffer(dh_opencl_queue_get(&od->default_queue), m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                               nbytes, 0, NULL, NULL, &e);
  if (e != CL_SUCCESS || !p) {
    clReleaseMemObject(m);
    return DH_OPENCL_FAIL("clEnqueueMapBuffer", e);
  }
  if (dh_opencl_hreg_add(p, H_HOST, dev.device_id, nbytes, m) != 0) {
    cl_command_queue q = dh_opencl_queue_get(&od->default_queue);
    clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL);
    clFinish(q);
    clReleaseMemObject(m);
    return -1;
  }
  *out_ptr = p;
  return 0;
}

int dh_opencl_free_host(DLDevice dev, void* ptr) {
  if (dh_opencl_check_dev(dev, "free_host") != 0) return -1;
  if (!ptr) return 0;
  if (dh_opencl_ensure_realized() != 0) return dh_error_prefix("opencl:%d: free_host", dev.device_id);
  hentry_t e;
  if (!dh_opencl_hreg_remove(ptr, H_HOST, &e))
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl:%d: free_host: %p is not pinned memory from "
                        "alloc_host", dev.device_id, ptr);
  cl_command_queue q = dh_opencl_queue_get(&dh_opencl_dev[e.dev].default_queue);
  cl_int err = clEnqueueUnmapMemObject(q, e.mem, ptr, 0, NULL, NULL);
  if (err == CL_SUCCESS) err = clFinish(q);
  clReleaseMemObject(e.mem);
  if (err != CL_SUCCESS) return DH_OPENCL_FAIL("clEnqueueUnmapMemObject", err);
  return 0;
}

/*===========================================================================
 * Copies
 *===========================================================================*/

/* Checks that [off, off+n) lies inside live buffer `buf` of device d. */
static int check_range(void* buf, int d, size_t off, size_t n, const char* side) {
  hentry_t e;
  if (!buf)
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl:%d: copy_data_from_to: %s is NULL", d, side);
  if (!dh_opencl_hreg_find(buf, H_BUFFER, &e))
    return dh_error_set(DH_KIND_VALUE_ERROR,
                        "opencl:%d: copy_data_from_to: %s %p is not a live opencl buffer", d,
                        side, buf);
  if (e.dev != d)
    return dh_error_set(DH_KIND_VALUE_ERROR,
                        "opencl:%d: copy_data_from_to: %s buffer %p belongs to opencl:%d", d,
                        side, buf, e.dev);
  if (off > e.size || n > e.size - off)
    return dh_error_set(DH_KIND_VALUE_ERROR,
                        "opencl:%d: copy_data_from_to: %s range [%zu, %zu) exceeds the buffer "
                        "of %zu bytes",
                        d, side, off, off + n, e.size);
  return 0;
}

int dh_opencl_copy_data_from_to(const void* from, size_t from_offset, void* to, size_t to_offset,
                    size_t nbytes, DLDevice dev_from, DLDevice dev_to, DLDataType type_hint,
                    dh_stream_t stream) {
  (void)type_hint;
  int from_cl = dev_from.device_type == DH_OPENCL_DEVICE_TYPE;
  int to_cl = dev_to.device_type == DH_OPENCL_DEVICE_TYPE;
  if (from_cl && dh_opencl_check_dev(dev_from, "copy_data_from_to") != 0) return -1;
  if (to_cl && dh_opencl_check_dev(dev_to, "copy_data_from_to") != 0) return -1;
  if (!from_cl && dev_from.device_type != kDLCPU && dev_from.device_type != kDLCUDAHost)
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl: copy_data_from_to: source device type %d is "
                        "neither opencl nor host", (int)dev_from.device_type);
  if (!to_cl && dev_to.device_type != kDLCPU && dev_to.device_type != kDLCUDAHost)
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl: copy_data_from_to: destination device type %d "
                        "is neither opencl nor host", (int)dev_to.device_type);
  if (!from_cl && !to_cl) {
    if (nbytes == 0) return 0;
    if (!from || !to)
      return dh_error_set(DH_KIND_VALUE_ERROR, "opencl: copy_data_from_to: NULL host pointer");
    memmove((char*)to + to_offset, (const char*)from + from_offset, nbytes);
    return 0;
  }
  /* the stream belongs to the OpenCL side (the destination for D2D) */
  int sd = to_cl ? dev_to.device_id : dev_from.device_id;
  dh_opencl_queue_t* slot;
  cl_command_queue q;
  if (dh_opencl_resolve_queue(sd, stream, "copy_data_from_to", &slot, &q) != 0) return -1;
  if (nbytes == 0) return 0; /* no-op, even on the NULL handle of a zero-byte allocation */
  if (from_cl && check_range((void*)from, dev_from.device_id, from_offset, nbytes, "source") != 0)
    return -1;
  if (to_cl && check_range(to, dev_to.device_id, to_offset, nbytes, "destination") != 0)
    return -1;
  cl_int e;
  if (!from_cl) { /* H2D: blocking, so the host source is consumed when we return */
    if (!from) return dh_error_set(DH_KIND_VALUE_ERROR, "opencl: copy_data_from_to: source is NULL");
    e = clEnqueueWriteBuffer(q, (cl_mem)to, CL_TRUE, to_offset, nbytes,
                             (const char*)from + from_offset, 0, NULL, NULL);
    if (e != CL_SUCCESS) return DH_OPENCL_FAIL("clEnqueueWriteBuffer", e);
    return 0;
  }
  if (!to_cl) { /* D2H: queued; the host destination is valid after stream_sync */
    if (!to) return dh_error_set(DH_KIND_VALUE_ERROR, "opencl: copy_data_from_to: destination is NULL");
    e = clEnqueueReadBuffer(q, (cl_mem)from, CL_FALSE, from_offset, nbytes,
                            (char*)to + to_offset, 0, NULL, NULL);
    if (e != CL_SUCCESS) return DH_OPENCL_FAIL("clEnqueueReadBuffer", e);
    clFlush(q);
    return dh_opencl_queue_settle(slot, q);
  }
  /* D2D */
  if (dev_from.device_id != dev_to.device_id) {
    /* different contexts: through host memory, blocking on both queues */
    void* tmp = malloc(nbytes);
    if (!tmp) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "opencl: copy_data_from_to: no host "
                                  "memory for a %zu-byte staging buffer", nbytes);
    cl_command_queue sq = dh_opencl_queue_get(&dh_opencl_dev[dev_from.device_id].default_queue);
    e = clEnqueueReadBuffer(sq, (cl_mem)from, CL_TRUE, from_offset, nbytes, tmp, 0, NULL, NULL);
    if (e == CL_SUCCESS)
      e = clEnqueueWriteBuffer(q, (cl_mem)to, CL_TRUE, to_offset, nbytes, tmp, 0, NULL, NULL);
    free(tmp);
    if (e != CL_SUCCESS) return DH_OPENCL_FAIL("cross-device copy", e);
    return 0;
  }
  if (from == to && from_offset < to_offset + nbytes && to_offset < from_offset + nbytes) {
    if (from_offset == to_offset) return 0;
    /* overlapping ranges of one buffer (CL_MEM_COPY_OVERLAP): via a temporary buffer */
    cl_mem tmp = clCreateBuffer(dh_opencl_dev[sd].ctx, CL_MEM_READ_WRITE, nbytes, NULL, &e);
    if (e != CL_SUCCESS || !tmp) return DH_OPENCL_FAIL("clCreateBuffer(temporary)", e);
    e = clEnqueueCopyBuffer(q, (cl_mem)from, tmp, from_offset, 0, nbytes, 0, NULL, NULL);
    if (e == CL_SUCCESS)
      e = clEnqueueCopyBuffer(q, tmp, (cl_mem)to, 0, to_offset, nbytes, 0, NULL, NULL);
    clReleaseMemObject(tmp); /* freed by OpenCL once the copies are done */
    if (e != CL_SUCCESS) return DH_OPENCL_FAIL("clEnqueueCopyBuffer", e);
    clFlush(q);
    return dh_opencl_queue_settle(slot, q);
  }
  e = clEnqueueCopyBuffer(q, (cl_mem)from, (cl_mem)to, from_offset, to_offset, nbytes, 0, NULL,
                          NULL);
  if (e != CL_SUCCESS) return DH_OPENCL_FAIL("clEnqueueCopyBuffer", e);
  clFlush(q);
  return dh_opencl_queue_settle(slot, q);
}
