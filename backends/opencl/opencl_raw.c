/*
 * backends/opencl/opencl_raw.c — the raw twin of the OpenCL backend (api_name "OpenCL"):
 * the benchmarked operations through OpenCL directly, on its own profiling queue, so
 * bench can compare the harness's overhead with the bare API.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

/*===========================================================================
 * Raw twin: the same operations through OpenCL directly (benchmarks)
 *===========================================================================*/

typedef struct raw_ctx {
  int dev;
  dh_raw_op_t op;
  size_t nbytes;
  uint32_t flags;
  cl_command_queue q;
  cl_mem a, b;        /* device buffers */
  cl_mem pinned;      /* backing buffer of host when pinned */
  void* host;         /* host side of H2D / D2H */
} raw_ctx_t;

static void raw_teardown(void* p) {
  raw_ctx_t* c = p;
  if (!c) return;
  if (c->q) clFinish(c->q);
  if (c->pinned) {
    if (c->host) clEnqueueUnmapMemObject(c->q, c->pinned, c->host, 0, NULL, NULL);
    clFinish(c->q);
    clReleaseMemObject(c->pinned);
  } else {
    free(c->host);
  }
  if (c->a) clReleaseMemObject(c->a);
  if (c->b) clReleaseMemObject(c->b);
  if (c->q) clReleaseCommandQueue(c->q);
  free(c);
}

static int raw_setup(DLDevice dev, dh_raw_op_t op, size_t nbytes, uint32_t flags, void** out) {
  if (!out) return dh_error_set("ValueError", "opencl raw: out_ctx is NULL");
  *out = NULL;
  if (dh_ocl_check_dev(dev, "raw setup") != 0) return -1;
  if (dh_ocl_ensure_realized() != 0) return dh_error_prefix("opencl:%d: raw setup", dev.device_id);
  if (op < DH_RAW_COPY_H2D || op > DH_RAW_LAUNCH)
    return dh_error_set("NotImplementedError", "opencl raw: op %d is not implemented", (int)op);
  ocl_device_t* od = &dh_ocl_dev[dev.device_id];
  int is_copy = op == DH_RAW_COPY_H2D || op == DH_RAW_COPY_D2H || op == DH_RAW_COPY_D2D;
  if (is_copy && nbytes == 0)
    return dh_error_set("ValueError", "opencl raw: nbytes must be > 0 for copies");
  if (is_copy && (int64_t)nbytes > od->max_mem_alloc_size)
    return dh_error_set("OutOfMemoryError", "opencl raw: %zu bytes exceed "
                        "CL_DEVICE_MAX_MEM_ALLOC_SIZE", nbytes);
  raw_ctx_t* c = calloc(1, sizeof *c);
  if (!c) return dh_error_set("OutOfMemoryError", "opencl raw: out of host memory");
  c->dev = dev.device_id; c->op = op; c->nbytes = nbytes; c->flags = flags;
  cl_int e = CL_SUCCESS;
  c->q = clCreateCommandQueue(od->ctx, od->device, CL_QUEUE_PROFILING_ENABLE, &e);
  if (e != CL_SUCCESS) { c->q = NULL; raw_teardown(c); return OCL_FAIL("clCreateCommandQueue", e); }
  if (is_copy) {
    c->a = clCreateBuffer(od->ctx, CL_MEM_READ_WRITE, nbytes, NULL, &e);
    if (e != CL_SUCCESS) { c->a = NULL; raw_teardown(c); return OCL_FAIL("clCreateBuffer", e); }
  }
  if (op == DH_RAW_COPY_D2D) {
    c->b = clCreateBuffer(od->ctx, CL_MEM_READ_WRITE, nbytes, NULL, &e);
    if (e != CL_SUCCESS) { c->b = NULL; raw_teardown(c); return OCL_FAIL("clCreateBuffer", e); }
  }
  if (op == DH_RAW_COPY_H2D || op == DH_RAW_COPY_D2H) {
    if (flags & DH_RAW_PINNED) {
      c->pinned = clCreateBuffer(od->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, nbytes, NULL,
                                 &e);
      if (e != CL_SUCCESS) { c->pinned = NULL; raw_teardown(c); return OCL_FAIL("clCreateBuffer", e); }
      c->host = clEnqueueMapBuffer(c->q, c->pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, nbytes,
                                   0, NULL, NULL, &e);
      if (e != CL_SUCCESS) { c->host = NULL; raw_teardown(c); return OCL_FAIL("clEnqueueMapBuffer", e); }
    } else {
      c->host = malloc(nbytes);
      if (!c->host) { raw_teardown(c); return dh_error_set("OutOfMemoryError", "opencl raw: host"); }
    }
    memset(c->host, 0x5a, nbytes);
  }
  if (op == DH_RAW_LAUNCH && dh_ocl_ensure_kernels(dev.device_id) != 0) { raw_teardown(c); return -1; }
  *out = c;
  return 0;
}

/* Device time is measured exactly as the harness's events measure it (event_record):
 * a profiled marker before and after the batch, END(after) - END(before), so the
 * harness/raw ratio compares like with like. */
static int raw_run(void* p, uint32_t repeat, double* out_ms) {
  raw_ctx_t* c = p;
  if (out_ms) *out_ms = -1;
  if (!c) return dh_error_set("ValueError", "opencl raw: run: ctx is NULL");
  int want = out_ms != NULL && c->op != DH_RAW_STREAM_SYNC;
  cl_event m0 = NULL, m1 = NULL;
  cl_int e = CL_SUCCESS;
  if (want) {
    e = clEnqueueMarkerWithWaitList(c->q, 0, NULL, &m0);
    if (e == CL_SUCCESS) clFlush(c->q);
  }
  for (uint32_t i = 0; i < repeat && e == CL_SUCCESS; ++i) {
    switch (c->op) {
      case DH_RAW_COPY_H2D: /* blocking, as the harness must (host source consumed) */
        e = clEnqueueWriteBuffer(c->q, c->a, CL_TRUE, 0, c->nbytes, c->host, 0, NULL, NULL);
        break;
      case DH_RAW_COPY_D2H:
        e = clEnqueueReadBuffer(c->q, c->a, CL_FALSE, 0, c->nbytes, c->host, 0, NULL, NULL);
        break;
      case DH_RAW_COPY_D2D:
        e = clEnqueueCopyBuffer(c->q, c->a, c->b, 0, 0, c->nbytes, 0, NULL, NULL);
        break;
      case DH_RAW_STREAM_SYNC: e = clFinish(c->q); break;
      case DH_RAW_LAUNCH: {
        size_t g = 1;
        e = clEnqueueNDRangeKernel(c->q, dh_ocl_dev[c->dev].k_noop, 1, NULL, &g, NULL, 0, NULL, NULL);
        break;
      }
    }
  }
  if (want && e == CL_SUCCESS) e = clEnqueueMarkerWithWaitList(c->q, 0, NULL, &m1);
  cl_int fe = clFinish(c->q);
  if (e == CL_SUCCESS) e = fe;
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
  if (e != CL_SUCCESS) return OCL_FAIL("opencl raw run", e);
  return 0;
}

const dh_raw_twin_t dh_ocl_raw_twin = {
    .struct_size = sizeof(dh_raw_twin_t),
    .api_name = "OpenCL",
    .setup = raw_setup,
    .run = raw_run,
    .teardown = raw_teardown,
};
