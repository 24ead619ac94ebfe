/*
 * backends/opencl/opencl_stream.c — streams and events of the OpenCL backend.
 *
 * Streams are in-order command queues (opencl_queue.c: plain until the first
 * event_record on them, then profiling); NULL = the device's default queue; the current
 * stream is thread-local per device (TVM SetStream/GetCurrentStream). stream_sync =
 * clFinish; sync_stream_from_to = marker on src + barrier with that event on dst (the
 * host does not block). Events (DH_CAP_EVENT_TIMING) are markers on the stream's
 * profiling queue; elapsed = COMMAND_END(end) - COMMAND_END(start).
 */
#include <stdlib.h>

#include "opencl_internal.h"

/* current stream per thread per device (TVM SetStream/GetCurrentStream) */
/* The current stream is tvm-ffi's environment stream (backend.h dh_env_get_stream). */
static DLDevice ocl_dev(int d) {
  DLDevice v = {(DLDeviceType)DH_OPENCL_DEVICE_TYPE, d};
  return v;
}

/* The thread's current stream of device d, unchecked (opencl_internal.h). */
dh_stream_t dh_opencl_thread_stream(int d) { return dh_env_get_stream(ocl_dev(d)); }

/* Resolves a stream handle of device d to its queue (NULL -> default queue). */
int dh_opencl_resolve_queue(int d, dh_stream_t stream, const char* where, dh_opencl_queue_t** out_slot,
                            cl_command_queue* out_q) {
  if (dh_opencl_ensure_realized() != 0) return dh_error_prefix("opencl:%d: %s", d, where);
  if (stream == NULL) {
    *out_slot = &dh_opencl_dev[d].default_queue;
    *out_q = dh_opencl_queue_get(*out_slot);
    return 0;
  }
  hentry_t e;
  if (!dh_opencl_hreg_find(stream, H_STREAM, &e))
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl: %s: stream %p is not a live opencl stream",
                        where, stream);
  if (e.dev != d)
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl: %s: stream %p belongs to opencl:%d, not opencl:%d",
                        where, stream, e.dev, d);
  *out_slot = &((dh_opencl_stream_t*)stream)->queue;
  *out_q = dh_opencl_queue_get(*out_slot);
  return 0;
}

/*===========================================================================
 * Streams
 *===========================================================================*/

int dh_opencl_create_stream(DLDevice dev, dh_stream_t* out) {
  if (!out) return dh_error_set(DH_KIND_VALUE_ERROR, "opencl: create_stream: out_stream is NULL");
  *out = NULL;
  if (dh_opencl_check_dev(dev, "create_stream") != 0) return -1;
  if (dh_opencl_ensure_realized() != 0) return dh_error_prefix("opencl:%d: create_stream", dev.device_id);
  dh_opencl_device_t* od = &dh_opencl_dev[dev.device_id];
  dh_opencl_stream_t* s = calloc(1, sizeof *s);
  if (!s) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "opencl: create_stream: out of host memory");
  s->dev = dev.device_id;
  if (dh_opencl_queue_open(od->ctx, od->device, &s->queue) != 0) {
    free(s);
    return -1;
  }
  if (dh_opencl_hreg_add(s, H_STREAM, dev.device_id, 0, NULL) != 0) {
    dh_opencl_queue_release(&s->queue);
    free(s);
    return -1;
  }
  *out = s;
  return 0;
}

int dh_opencl_free_stream(DLDevice dev, dh_stream_t stream) {
  if (dh_opencl_check_dev(dev, "free_stream") != 0) return -1;
  if (!stream) return 0;
  if (dh_opencl_ensure_realized() != 0) return dh_error_prefix("opencl:%d: free_stream", dev.device_id);
  hentry_t e;
  if (!dh_opencl_hreg_find(stream, H_STREAM, &e))
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl:%d: free_stream: %p is not a live opencl stream",
                        dev.device_id, stream);
  if (e.dev != dev.device_id)
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl:%d: free_stream: stream %p belongs to opencl:%d",
                        dev.device_id, stream, e.dev);
  if (!dh_opencl_hreg_remove(stream, H_STREAM, NULL))
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl:%d: free_stream: %p was freed concurrently",
                        dev.device_id, stream);
  dh_opencl_stream_t* s = stream;
  int rc = dh_opencl_queue_release(&s->queue); /* finishes first: no lost work */
  free(s);
  if (dh_env_get_stream(dev) == stream) dh_env_set_stream(dev, NULL);
  return rc;
}

int dh_opencl_set_stream(DLDevice dev, dh_stream_t stream) {
  if (dh_opencl_check_dev(dev, "set_stream") != 0) return -1;
  if (stream == NULL) return dh_env_set_stream(dev, NULL);
  dh_opencl_queue_t* slot;
  cl_command_queue q;
  if (dh_opencl_resolve_queue(dev.device_id, stream, "set_stream", &slot, &q) != 0) return -1;
  return dh_env_set_stream(dev, stream);
}

int dh_opencl_get_current_stream(DLDevice dev, dh_stream_t* out) {
  if (!out) return dh_error_set(DH_KIND_VALUE_ERROR, "opencl: get_current_stream: out_stream is NULL");
  *out = NULL;
  if (dh_opencl_check_dev(dev, "get_current_stream") != 0) return -1;
  dh_stream_t s = dh_env_get_stream(dev);
  if (s && !dh_opencl_hreg_find(s, H_STREAM, NULL)) { /* freed by another thread, or foreign */
    dh_env_set_stream(dev, NULL);
    s = NULL;
  }
  *out = s;
  return 0;
}

int dh_opencl_stream_sync(DLDevice dev, dh_stream_t stream) {
  if (dh_opencl_check_dev(dev, "stream_sync") != 0) return -1;
  dh_opencl_queue_t* slot;
  cl_command_queue q;
  if (dh_opencl_resolve_queue(dev.device_id, stream, "stream_sync", &slot, &q) != 0) return -1;
  cl_int e = clFinish(q);
  if (e != CL_SUCCESS) return DH_OPENCL_FAIL("clFinish", e);
  return 0;
}

int dh_opencl_sync_stream_from_to(DLDevice dev, dh_stream_t src, dh_stream_t dst) {
  if (dh_opencl_check_dev(dev, "sync_stream_from_to") != 0) return -1;
  dh_opencl_queue_t *ss, *sd;
  cl_command_queue qs, qd;
  if (dh_opencl_resolve_queue(dev.device_id, src, "sync_stream_from_to (src)", &ss, &qs) != 0) return -1;
  if (dh_opencl_resolve_queue(dev.device_id, dst, "sync_stream_from_to (dst)", &sd, &qd) != 0) return -1;
  if (ss == sd) return 0;
  cl_event ev = NULL;
  cl_int e = clEnqueueMarkerWithWaitList(qs, 0, NULL, &ev);
  if (e != CL_SUCCESS) return DH_OPENCL_FAIL("clEnqueueMarkerWithWaitList", e);
  clFlush(qs); /* the marker must reach the device before dst waits on it */
  e = clEnqueueBarrierWithWaitList(qd, 1, &ev, NULL);
  clReleaseEvent(ev);
  if (e != CL_SUCCESS) return DH_OPENCL_FAIL("clEnqueueBarrierWithWaitList", e);
  clFlush(qd);
  return dh_opencl_queue_settle(sd, qd);
}

/*===========================================================================
 * Events (OpenCL profiling)
 *===========================================================================*/

int dh_opencl_event_create(DLDevice dev, dh_event_t* out) {
  if (!out) return dh_error_set(DH_KIND_VALUE_ERROR, "opencl: event_create: out_event is NULL");
  *out = NULL;
  if (dh_opencl_check_dev(dev, "event_create") != 0) return -1;
  dh_opencl_event_t* ev = calloc(1, sizeof *ev);
  if (!ev) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "opencl: event_create: out of host memory");
  ev->dev = dev.device_id;
  if (dh_opencl_hreg_add(ev, H_EVENT, dev.device_id, 0, NULL) != 0) {
    free(ev);
    return -1;
  }
  *out = ev;
  return 0;
}

static int find_event(DLDevice dev, dh_event_t event, const char* where) {
  hentry_t e;
  if (!event || !dh_opencl_hreg_find(event, H_EVENT, &e))
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl:%d: %s: %p is not a live opencl event",
                        dev.device_id, where, event);
  if (e.dev != dev.device_id)
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl:%d: %s: event %p belongs to opencl:%d",
                        dev.device_id, where, event, e.dev);
  return 0;
}

int dh_opencl_event_record(DLDevice dev, dh_event_t event, dh_stream_t stream) {
  if (dh_opencl_check_dev(dev, "event_record") != 0) return -1;
  if (find_event(dev, event, "event_record") != 0) return -1;
  dh_opencl_queue_t* slot;
  cl_command_queue q;
  if (dh_opencl_resolve_queue(dev.device_id, stream, "event_record", &slot, &q) != 0) return -1;
  /* profiling from the first record on: the queue is replaced once (opencl_queue.c) */
  if (dh_opencl_queue_profiled(&dh_opencl_dev[dev.device_id], slot, &q) != 0)
    return dh_error_prefix("opencl:%d: event_record", dev.device_id);
  dh_opencl_event_t* ev = event;
  cl_event ne = NULL;
  cl_int e = clEnqueueMarkerWithWaitList(q, 0, NULL, &ne);
  if (e != CL_SUCCESS) return DH_OPENCL_FAIL("clEnqueueMarkerWithWaitList", e);
  clFlush(q);
  if (ev->ev) clReleaseEvent(ev->ev);
  ev->ev = ne;
  return 0;
}

int dh_opencl_event_elapsed_ms(DLDevice dev, dh_event_t start, dh_event_t end, double* out) {
  if (!out) return dh_error_set(DH_KIND_VALUE_ERROR, "opencl: event_elapsed_ms: out_ms is NULL");
  *out = 0;
  if (dh_opencl_check_dev(dev, "event_elapsed_ms") != 0) return -1;
  if (find_event(dev, start, "event_elapsed_ms (start)") != 0) return -1;
  if (find_event(dev, end, "event_elapsed_ms (end)") != 0) return -1;
  if (dh_opencl_ensure_realized() != 0) return dh_error_prefix("opencl:%d: event_elapsed_ms", dev.device_id);
  dh_opencl_event_t *s = start, *t = end;
  if (!s->ev || !t->ev)
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl:%d: event_elapsed_ms: %s event was never recorded",
                        dev.device_id, !s->ev ? "start" : "end");
  cl_event both[2] = {s->ev, t->ev};
  cl_int e = clWaitForEvents(2, both);
  if (e != CL_SUCCESS) return DH_OPENCL_FAIL("clWaitForEvents", e);
  cl_ulong t0 = 0, t1 = 0;
  e = clGetEventProfilingInfo(s->ev, CL_PROFILING_COMMAND_END, sizeof t0, &t0, NULL);
  if (e == CL_SUCCESS)
    e = clGetEventProfilingInfo(t->ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
  if (e != CL_SUCCESS) return DH_OPENCL_FAIL("clGetEventProfilingInfo", e);
  *out = ((double)t1 - (double)t0) / 1e6;
  return 0;
}

int dh_opencl_event_free(DLDevice dev, dh_event_t event) {
  if (dh_opencl_check_dev(dev, "event_free") != 0) return -1;
  if (!event) return 0;
  if (find_event(dev, event, "event_free") != 0) return -1;
  if (!dh_opencl_hreg_remove(event, H_EVENT, NULL))
    return dh_error_set(DH_KIND_VALUE_ERROR, "opencl:%d: event_free: %p was freed concurrently",
                        dev.device_id, event);
  dh_opencl_event_t* ev = event;
  if (ev->ev && !dh_opencl_stale) clReleaseEvent(ev->ev);
  free(ev);
  return 0;
}
