/*
 * backends/opencl/opencl_kernels.c — the built-in kernels and the module functions of
 * the OpenCL backend (backend.h): noop(Device) and fill(DLTensorPtr, Int) run embedded
 * OpenCL C, built once per device context on first use under a lock; both are
 * enqueued on the calling thread's current stream and return without waiting or
 * flushing, as TVM's OpenCL launches do (every way of waiting on the stream flushes it:
 * stream_sync is clFinish, sync_stream_from_to and event_record call clFlush, blocking
 * reads flush implicitly). echo and raise do not touch the device.
 *
 * Thread-safety: clSetKernelArg is not thread-safe per cl_kernel, so argument setting +
 * enqueue take the device's kernel_lock.
 */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "devharness/tensor.h"
#include "opencl_internal.h"

/*===========================================================================
 * Built-in kernels
 *===========================================================================*/

static const char k_source[] =
    "__kernel void dh_noop(void) {}\n"
    "__kernel void dh_fill(__global uint* dst, ulong first_word, ulong nwords, uint value) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < nwords) dst[first_word + i] = value;\n"
    "}\n";

/* Builds the program once per device context. Called with od->kernel_lock held. */
static int build_kernels_locked(dh_opencl_device_t* od, int d) {
  if (od->kernels_built == 1) return 0;
  if (od->kernels_built == -1)
    return dh_error_set(DH_KIND_RUNTIME_ERROR, "opencl:%d: built-in kernels failed to build earlier", d);
  cl_int e = CL_SUCCESS;
  const char* src = k_source;
  size_t len = sizeof k_source - 1;
  od->program = clCreateProgramWithSource(od->ctx, 1, &src, &len, &e);
  if (e != CL_SUCCESS) {
    od->kernels_built = -1;
    return DH_OPENCL_FAIL("clCreateProgramWithSource", e);
  }
  e = clBuildProgram(od->program, 1, &od->device, "", NULL, NULL);
  if (e != CL_SUCCESS) {
    char log[512] = "";
    clGetProgramBuildInfo(od->program, od->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log,
                          NULL);
    log[sizeof log - 1] = '\0';
    od->kernels_built = -1;
    return dh_error_set(DH_KIND_RUNTIME_ERROR, "opencl:%d: clBuildProgram failed: %s (%d): %s", d,
                        dh_opencl_err_name(e), (int)e, log);
  }
  od->k_noop = clCreateKernel(od->program, "dh_noop", &e);
  if (e == CL_SUCCESS) od->k_fill = clCreateKernel(od->program, "dh_fill", &e);
  if (e != CL_SUCCESS) {
    od->kernels_built = -1;
    return DH_OPENCL_FAIL("clCreateKernel", e);
  }
  od->kernels_built = 1;
  return 0;
}

int dh_opencl_ensure_kernels(int d) {
  dh_opencl_device_t* od = &dh_opencl_dev[d];
  pthread_mutex_lock(&od->kernel_lock);
  int rc = build_kernels_locked(od, d);
  pthread_mutex_unlock(&od->kernel_lock);
  return rc;
}

/* Enqueues the empty kernel (global size 1) on q; optional event out. */
static int enqueue_noop(int d, cl_command_queue q, cl_event* ev) {
  if (dh_opencl_ensure_kernels(d) != 0) return -1;
  size_t gsz = 1;
  cl_int e = clEnqueueNDRangeKernel(q, dh_opencl_dev[d].k_noop, 1, NULL, &gsz, NULL, 0, NULL, ev);
  if (e != CL_SUCCESS) return DH_OPENCL_FAIL("clEnqueueNDRangeKernel(dh_noop)", e);
  return 0;
}

static int arg_device(const dh_any_t* a, DLDevice* out, const char* fn) {
  if (a->type_index != DH_TYPE_DEVICE)
    return dh_error_set(DH_KIND_TYPE_ERROR, "opencl.%s: argument 0 must be Device, got %s", fn,
                        dh_type_index_name(a->type_index));
  *out = a->v_device;
  return 0;
}

int dh_opencl_func_noop(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self;
  if (rv) *rv = dh_any_none();
  if (n < 1 || !args)
    return dh_error_set(DH_KIND_TYPE_ERROR, "opencl.noop: expected 1 argument (Device), got %d", (int)n);
  DLDevice dev;
  if (arg_device(&args[0], &dev, "noop") != 0) return -1;
  if (dh_opencl_check_dev(dev, "noop") != 0) return -1;
  dh_opencl_queue_t* slot;
  cl_command_queue q;
  if (dh_opencl_resolve_queue(dev.device_id, dh_opencl_thread_stream(dev.device_id), "noop", &slot, &q) != 0)
    return -1;
  if (enqueue_noop(dev.device_id, q, NULL) != 0) return -1;
  return dh_opencl_queue_settle(slot, q);
}

int dh_opencl_func_fill(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self;
  if (rv) *rv = dh_any_none();
  if (n < 2 || !args)
    return dh_error_set(DH_KIND_TYPE_ERROR, "opencl.fill: expected 2 arguments (DLTensorPtr, Int), "
                        "got %d", (int)n);
  if (dh_any_as_tensor(&args[0]) == NULL)
    return dh_error_set(DH_KIND_TYPE_ERROR, "opencl.fill: argument 0 must be DLTensorPtr, got %s",
                        dh_type_index_name(args[0].type_index));
  if (args[1].type_index != DH_TYPE_INT && args[1].type_index != DH_TYPE_BOOL)
    return dh_error_set(DH_KIND_TYPE_ERROR, "opencl.fill: argument 1 must be Int, got %s",
                        dh_type_index_name(args[1].type_index));
  const DLTensor* t = dh_any_as_tensor(&args[0]);
  uint32_t value = (uint32_t)args[1].v_int64;
  if (dh_opencl_check_dev(t->device, "fill") != 0) return -1;
  int d = t->device.device_id;
  if (!dh_tensor_is_contiguous(t))
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl.fill: dst is not contiguous");
  size_t nbytes = 0;
  if (dh_tensor_nbytes(t, &nbytes) != 0) return dh_error_prefix("opencl.fill");
  if (t->byte_offset % 4 != 0 || nbytes % 4 != 0)
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl.fill: byte_offset (%" PRIu64 ") and nbytes (%zu) "
                        "must be multiples of 4", (uint64_t)t->byte_offset, nbytes);
  if (nbytes == 0) return 0;
  hentry_t e;
  if (!dh_opencl_hreg_find(t->data, H_BUFFER, &e))
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl.fill: dst->data %p is not a live opencl buffer",
                        t->data);
  if (e.dev != d)
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl.fill: dst->data %p belongs to opencl:%d, not "
                        "opencl:%d", t->data, e.dev, d);
  if (t->byte_offset > e.size || nbytes > e.size - t->byte_offset)
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl.fill: range [%" PRIu64 ", %" PRIu64 ") exceeds "
                        "the buffer of %zu bytes", (uint64_t)t->byte_offset,
                        (uint64_t)(t->byte_offset + nbytes), e.size);
  dh_opencl_queue_t* slot;
  cl_command_queue q;
  if (dh_opencl_resolve_queue(d, dh_opencl_thread_stream(d), "fill", &slot, &q) != 0) return -1;
  if (dh_opencl_ensure_kernels(d) != 0) return -1;
  dh_opencl_device_t* od = &dh_opencl_dev[d];
  cl_mem m = (cl_mem)t->data;
  cl_ulong first = t->byte_offset / 4, nw = nbytes / 4;
  cl_uint v = value;
  size_t gsz = (size_t)((nw + 63) / 64 * 64);
  pthread_mutex_lock(&od->kernel_lock); /* clSetKernelArg is not thread-safe per kernel */
  cl_int err = clSetKernelArg(od->k_fill, 0, sizeof m, &m);
  if (err == CL_SUCCESS) err = clSetKernelArg(od->k_fill, 1, sizeof first, &first);
  if (err == CL_SUCCESS) err = clSetKernelArg(od->k_fill, 2, sizeof nw, &nw);
  if (err == CL_SUCCESS) err = clSetKernelArg(od->k_fill, 3, sizeof v, &v);
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(q, od->k_fill, 1, NULL, &gsz, NULL, 0, NULL, NULL);
  pthread_mutex_unlock(&od->kernel_lock);
  if (err != CL_SUCCESS) return DH_OPENCL_FAIL("clEnqueueNDRangeKernel(dh_fill)", err);
  return dh_opencl_queue_settle(slot, q);
}


int dh_opencl_func_pci_bus_id(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self;
  if (rv) *rv = dh_any_none();
  if (n != 1 || !args)
    return dh_error_set(DH_KIND_TYPE_ERROR, "opencl.pci_bus_id: expected 1 argument (Device), got %d", (int)n);
  DLDevice dev;
  if (arg_device(&args[0], &dev, "pci_bus_id") != 0) return -1;
  if (dh_opencl_check_dev(dev, "pci_bus_id") != 0) return -1;
  const dh_opencl_device_t* od = &dh_opencl_dev[dev.device_id];
  if (od->pci_why[0])
    return dh_error_set(DH_KIND_RUNTIME_ERROR, "opencl.pci_bus_id: opencl:%d: %s", (int)dev.device_id, od->pci_why);
  if (rv) *rv = dh_any_str(od->pci_bus_id);
  return 0;
}
