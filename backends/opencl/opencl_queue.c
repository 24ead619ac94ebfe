/*
 * backends/opencl/opencl_queue.c — the command queues behind streams and the default
 * stream: plain until the first event_record on them, then profiling (dh_opencl_queue_t in
 * opencl_internal.h says why and how the order of commands survives the switch).
 *
 * Knows no device table: callers pass the context and device (or the dh_opencl_device_t),
 * so every other file of the backend may call this one.
 */
#include "opencl_internal.h"

int dh_opencl_queue_open(cl_context ctx, cl_device_id device, dh_opencl_queue_t* slot) {
  cl_int e = CL_SUCCESS;
  slot->retired = NULL;
  slot->q = clCreateCommandQueue(ctx, device, 0, &e);
  if (e != CL_SUCCESS || !slot->q) {
    slot->q = NULL;
    return DH_OPENCL_FAIL("clCreateCommandQueue", e ? e : CL_OUT_OF_RESOURCES);
  }
  return 0;
}

int dh_opencl_queue_release(dh_opencl_queue_t* slot) {
  cl_int err = CL_SUCCESS;
  if (slot->retired) { /* finished by the switch; released after the queue that waited on it */
    clFinish(slot->retired);
  }
  if (slot->q) {
    err = clFinish(slot->q); /* no lost work */
    clReleaseCommandQueue(slot->q);
  }
  if (slot->retired) clReleaseCommandQueue(slot->retired);
  slot->q = slot->retired = NULL;
  if (err != CL_SUCCESS) return DH_OPENCL_FAIL("clFinish", err);
  return 0;
}

int dh_opencl_queue_settle(dh_opencl_queue_t* slot, cl_command_queue used) {
  if (__builtin_expect(dh_opencl_queue_get(slot) == used, 1)) return 0;
  cl_int e = clFinish(used);
  if (e != CL_SUCCESS) return DH_OPENCL_FAIL("clFinish", e);
  return 0;
}

int dh_opencl_queue_profiled(dh_opencl_device_t* od, dh_opencl_queue_t* slot, cl_command_queue* out) {
  if (__atomic_load_n(&slot->retired, __ATOMIC_ACQUIRE) != NULL) { /* switched already */
    *out = dh_opencl_queue_get(slot);
    return 0;
  }
  pthread_mutex_lock(&od->queue_lock);
  cl_command_queue old = slot->q;
  if (slot->retired != NULL) { /* another thread switched it meanwhile */
    pthread_mutex_unlock(&od->queue_lock);
    *out = old;
    return 0;
  }
  cl_int e = CL_SUCCESS;
  cl_command_queue nq = clCreateCommandQueue(od->ctx, od->device, CL_QUEUE_PROFILING_ENABLE, &e);
  if (e != CL_SUCCESS || !nq) {
    pthread_mutex_unlock(&od->queue_lock);
    return DH_OPENCL_FAIL("clCreateCommandQueue(CL_QUEUE_PROFILING_ENABLE)", e ? e : CL_OUT_OF_RESOURCES);
  }
  /* The new queue runs nothing before the old one has finished. */
  cl_event gate = clCreateUserEvent(od->ctx, &e);
  if (e == CL_SUCCESS) e = clEnqueueBarrierWithWaitList(nq, 1, &gate, NULL);
  if (e != CL_SUCCESS) {
    if (gate) {
      clSetUserEventStatus(gate, CL_COMPLETE);
      clReleaseEvent(gate);
    }
    clReleaseCommandQueue(nq);
    pthread_mutex_unlock(&od->queue_lock);
    return DH_OPENCL_FAIL("clEnqueueBarrierWithWaitList(user event)", e);
  }
  /* From here every thread enqueues on nq; one that enqueued on `old` after this store
   * sees it afterwards and finishes `old` itself (dh_opencl_queue_settle). */
  __atomic_store_n(&slot->q, nq, __ATOMIC_RELEASE);
  __atomic_store_n(&slot->retired, old, __ATOMIC_RELEASE);
  cl_int fe = clFinish(old);
  clSetUserEventStatus(gate, CL_COMPLETE); /* even after a failed finish: never a hang */
  clReleaseEvent(gate);
  pthread_mutex_unlock(&od->queue_lock);
  if (fe != CL_SUCCESS) return DH_OPENCL_FAIL("clFinish (switching to a profiling queue)", fe);
  *out = nq;
  return 0;
}
