/*
 * backends/opencl/opencl_raw.c — the raw twin of the OpenCL backend (api_name "OpenCL"):
 * the benchmarked operations through OpenCL directly, on its own in-order queue, so
 * bench can compare the harness's overhead with the bare API. The queue is plain until
 * run() is first asked for device time, then a profiling one (as the harness's streams
 * switch on their first event_record, opencl_queue.c): a profiling queue makes every
 * clFinish dearer on some drivers, so host-timed runs compare plain with plain.
 *
 *  H2D: clEnqueueWriteBuffer non-blocking, `repeat` of them, then clFinish (the fastest
 *       use: the source is read until the finish), except from pageable memory of
 *       RAW_BLOCKING_WRITE_MIN bytes and more, where a blocking write is the faster one
 *       (see the constant); with DH_RAW_HOST_SOURCE_RELEASED always a blocking write
 *       (the OpenCL way to have the source reusable on return, what the harness does).
 *  D2H: clEnqueueReadBuffer non-blocking + clFinish. D2D: clEnqueueCopyBuffer.
 *  BIDIR: a read on a second queue, flushed, then a write on the twin's queue (blocking
 *       as for H2D above, always with DH_RAW_HOST_SOURCE_RELEASED), then both finished
 *       (no device time); the harness issues its D2H first too (bench/suites/copy.c).
 * Host buffers are 4096-aligned (the bench's harness side is too); every buffer is
 * written in setup. STREAM_SYNC and BIDIR never report device time.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

/* From this size up the twin writes pageable memory with a blocking
 * clEnqueueWriteBuffer, below it with a non-blocking one: the faster of the two on each
 * side of it on NVIDIA's OpenCL, and no slower on PoCL (docs/benchmarks.md, "On an
 * NVIDIA H100"), so the twin stays the fastest correct use of the API. */
#define RAW_BLOCKING_WRITE_MIN ((size_t)1 << 20)

/*===========================================================================
 * Raw twin: the same operations through OpenCL directly (benchmarks)
 *===========================================================================*/

typedef struct raw_ctx {
  int dev;
  dh_raw_op_t op;
  size_t nbytes;
  uint32_t flags;
  dh_opencl_queue_t queue;      /* the twin's queue: plain, then profiling (opencl_queue.c) */
  cl_command_queue q2;    /* the second direction of BIDIR */
  cl_mem a, b;        /* device buffers */
  cl_mem pinned, pinned2; /* backing buffers of host / host2 when pinned */
  void* host;         /* host side of H2D / D2H */
  void* host2;        /* BIDIR: the D2H destination */
} raw_ctx_t;

static void raw_teardown(void* p) {
  raw_ctx_t* c = p;
  if (!c) return;
  if (c->queue.q) clFinish(c->queue.q);
  if (c->q2) clFinish(c->q2);
  if (c->pinned) {
    if (c->host) clEnqueueUnmapMemObject(c->queue.q, c->pinned, c->host, 0, NULL, NULL);
    if (c->pinned2 && c->host2) clEnqueueUnmapMemObject(c->queue.q, c->pinned2, c->host2, 0, NULL, NULL);
    clFinish(c->queue.q);
    clReleaseMemObject(c->pinned);
    if (c->pinned2) clReleaseMemObject(c->pinned2);
  } else {
    free(c->host);
    free(c->host2);
  }
  if (c->q2) clReleaseCommandQueue(c->q2);
  if (c->a) clReleaseMemObject(c->a);
  if (c->b) clReleaseMemObject(c->b);
  if (c->queue.q) dh_opencl_queue_release(&c->queue); /* finished above already */
  free(c);
}

static int raw_setup(DLDevice dev, dh_raw_op_t op, size_t nbytes, uint32_t flags, void** out) {
  if (!out) return dh_error_set(DH_KIND_VALUE_ERROR, "opencl raw: out_ctx is NULL");
  *out = NULL;
  if (dh_opencl_check_dev(dev, "raw setup") != 0) return -1;
  if (dh_opencl_ensure_realized() != 0) return dh_error_prefix("opencl:%d: raw setup", dev.device_id);
  if (op < DH_RAW_COPY_H2D || op > DH_RAW_COPY_BIDIR)
    return dh_error_set(DH_KIND_NOT_IMPLEMENTED_ERROR, "opencl raw: op %d is not implemented", (int)op);
  dh_opencl_device_t* od = &dh_opencl_dev[dev.device_id];
  int bidir = op == DH_RAW_COPY_BIDIR;
  int is_copy = op == DH_RAW_COPY_H2D || op == DH_RAW_COPY_D2H || op == DH_RAW_COPY_D2D || bidir;
  if (is_copy && nbytes == 0)
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl raw: nbytes must be > 0 for copies");
  if (is_copy && (int64_t)nbytes > od->max_mem_alloc_size)
    return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "opencl raw: %zu bytes exceed "
                        "CL_DEVICE_MAX_MEM_ALLOC_SIZE", nbytes);
  raw_ctx_t* c = calloc(1, sizeof *c);
  if (!c) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "opencl raw: out of host memory");
  c->dev = dev.device_id; c->op = op; c->nbytes = nbytes; c->flags = flags;
  cl_int e = CL_SUCCESS;
  /* plain until device time is asked for */
  if (dh_opencl_queue_open(od->ctx, od->device, &c->queue) != 0) { raw_teardown(c); return -1; }
  if (is_copy) {
    c->a = clCreateBuffer(od->ctx, CL_MEM_READ_WRITE, nbytes, NULL, &e);
    if (e != CL_SUCCESS) { c->a = NULL; raw_teardown(c); return DH_OPENCL_FAIL("clCreateBuffer", e); }
  }
  if (op == DH_RAW_COPY_D2D || bidir) {
    c->b = clCreateBuffer(od->ctx, CL_MEM_READ_WRITE, nbytes, NULL, &e);
    if (e != CL_SUCCESS) { c->b = NULL; raw_teardown(c); return DH_OPENCL_FAIL("clCreateBuffer", e); }
  }
  if (bidir) {
    c->q2 = clCreateCommandQueue(od->ctx, od->device, 0, &e);
    if (e != CL_SUCCESS) { c->q2 = NULL; raw_teardown(c); return DH_OPENCL_FAIL("clCreateCommandQueue", e); }
  }
  if (op == DH_RAW_COPY_H2D || op == DH_RAW_COPY_D2H || bidir) {
    for (int k = 0; k < 1 + bidir; k++) {
      void** hp = k ? &c->host2 : &c->host;
      if (flags & DH_RAW_PINNED) {
        cl_mem* pm = k ? &c->pinned2 : &c->pinned;
        *pm = clCreateBuffer(od->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, nbytes, NULL, &e);
        if (e != CL_SUCCESS) { *pm = NULL; raw_teardown(c); return DH_OPENCL_FAIL("clCreateBuffer", e); }
        *hp = clEnqueueMapBuffer(c->queue.q, *pm, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, nbytes, 0,
                                 NULL, NULL, &e);
        if (e != CL_SUCCESS) { *hp = NULL; raw_teardown(c); return DH_OPENCL_FAIL("clEnqueueMapBuffer", e); }
      } else {
        *hp = aligned_alloc(4096, (nbytes + 4095) & ~(size_t)4095);
        if (!*hp) { raw_teardown(c); return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "opencl raw: host"); }
      }
      memset(*hp, 0x5a, nbytes);
    }
  }
  /* Every device buffer written before it is timed (a never-written buffer of a
   * host-memory device maps the zero page: reading it would cost nothing). */
  if (c->a || c->b) {
    void* pat = c->host;
    void* tmp = NULL;
    if (!pat) {
      if (!(tmp = malloc(nbytes))) { raw_teardown(c); return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "opencl raw: host"); }
      memset(tmp, 0x5a, nbytes);
      pat = tmp;
    }
    if (c->a) e = clEnqueueWriteBuffer(c->queue.q, c->a, CL_TRUE, 0, nbytes, pat, 0, NULL, NULL);
    if (e == CL_SUCCESS && c->b) e = clEnqueueWriteBuffer(c->queue.q, c->b, CL_TRUE, 0, nbytes, pat, 0, NULL, NULL);
    free(tmp);
    if (e != CL_SUCCESS) { raw_teardown(c); return DH_OPENCL_FAIL("clEnqueueWriteBuffer", e); }
  }
  if (op == DH_RAW_LAUNCH && dh_opencl_ensure_kernels(dev.device_id) != 0) { raw_teardown(c); return -1; }
  *out = c;
  return 0;
}

/* Whether the twin's H2D write (H2D, BIDIR) blocks: always under the harness's contract
 * (DH_RAW_HOST_SOURCE_RELEASED), else where it is the faster one (RAW_BLOCKING_WRITE_MIN). */
static int raw_write_blocks(const raw_ctx_t* c) {
  return (c->flags & DH_RAW_HOST_SOURCE_RELEASED) ||
         (c->pinned == NULL && c->nbytes >= RAW_BLOCKING_WRITE_MIN);
}

/* Device time is measured exactly as the harness's events measure it (event_record):
 * a profiled marker before and after the batch, END(after) - END(before), so the
 * harness/raw ratio compares like with like. */
static int raw_run(void* p, uint32_t repeat, double* out_ms) {
  raw_ctx_t* c = p;
  if (out_ms) *out_ms = -1;
  if (!c) return dh_error_set(DH_KIND_VALUE_ERROR, "opencl raw: run: ctx is NULL");
  int want = out_ms != NULL && c->op != DH_RAW_STREAM_SYNC && c->op != DH_RAW_COPY_BIDIR;
  /* the first run asked for device time switches the queue, as the harness's first
   * event_record does (opencl_queue.c) */
  cl_command_queue profiled;
  if (want && dh_opencl_queue_profiled(&dh_opencl_dev[c->dev], &c->queue, &profiled) != 0) return -1;
  cl_event m0 = NULL, m1 = NULL;
  cl_int e = CL_SUCCESS;
  if (want) {
    e = clEnqueueMarkerWithWaitList(c->queue.q, 0, NULL, &m0);
    if (e == CL_SUCCESS) clFlush(c->queue.q);
  }
  for (uint32_t i = 0; i < repeat && e == CL_SUCCESS; ++i) {
    switch (c->op) {
      case DH_RAW_COPY_H2D: /* blocking under the harness's contract, or where faster */
        e = clEnqueueWriteBuffer(c->queue.q, c->a, raw_write_blocks(c) ? CL_TRUE : CL_FALSE, 0,
                                 c->nbytes, c->host, 0, NULL, NULL);
        break;
      case DH_RAW_COPY_BIDIR:
        /* D2H first and flushed, then the H2D, as the harness issues them (bench/suites/copy.c) */
        e = clEnqueueReadBuffer(c->q2, c->b, CL_FALSE, 0, c->nbytes, c->host2, 0, NULL, NULL);
        if (e == CL_SUCCESS) e = clFlush(c->q2);
        if (e == CL_SUCCESS)
          e = clEnqueueWriteBuffer(c->queue.q, c->a, raw_write_blocks(c) ? CL_TRUE : CL_FALSE, 0,
                                   c->nbytes, c->host, 0, NULL, NULL);
        if (e == CL_SUCCESS) e = clFlush(c->queue.q);
        break;
      case DH_RAW_COPY_D2H:
        e = clEnqueueReadBuffer(c->queue.q, c->a, CL_FALSE, 0, c->nbytes, c->host, 0, NULL, NULL);
        break;
      case DH_RAW_COPY_D2D:
        e = clEnqueueCopyBuffer(c->queue.q, c->a, c->b, 0, 0, c->nbytes, 0, NULL, NULL);
        break;
      case DH_RAW_STREAM_SYNC: e = clFinish(c->queue.q); break;
      case DH_RAW_LAUNCH: {
        size_t g = 1;
        e = clEnqueueNDRangeKernel(c->queue.q, dh_opencl_dev[c->dev].k_noop, 1, NULL, &g, NULL, 0, NULL, NULL);
        break;
      }
    }
  }
  if (want && e == CL_SUCCESS) e = clEnqueueMarkerWithWaitList(c->queue.q, 0, NULL, &m1);
  cl_int fe = clFinish(c->queue.q);
  if (e == CL_SUCCESS) e = fe;
  if (c->q2) {
    fe = clFinish(c->q2);
    if (e == CL_SUCCESS) e = fe;
  }
  if (e == CL_SUCCESS && m0 && m1) {
    cl_ulong t0 = 0, t1 = 0;
    if (clGetEventProfilingInfo(m0, CL_PROFILING_COMMAND_END, sizeof t0, &t0, NULL) ==
            CL_SUCCESS &&
        clGetEventProfilingInfo(m1, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) ==
            CL_SUCCESS)
      *out_ms = ((double)t1 - (double)t0) / 1e6;
  }
  if (m0) clReleaseEvent(m0);
  if (m1) clReleaseEvent(m1);
  if (e != CL_SUCCESS) return DH_OPENCL_FAIL("opencl raw run", e);
  return 0;
}

const dh_raw_twin_t dh_opencl_raw_twin = DH_RAW_TWIN("OpenCL", raw_setup, raw_run, raw_teardown);
