/*
 * backends/cuda/cuda_stream.c — the cuda backend's streams (cuStreamCreate,
 * CU_STREAM_NON_BLOCKING; the current stream is tvm-ffi's environment stream),
 * stream_sync, sync_stream_from_to (event record + cuStreamWaitEvent) and the timing
 * events (cuEventElapsedTime). Calls down into cuda_device.c only.
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

/*===========================================================================
 * Streams
 *===========================================================================*/

int dh_cuda_create_stream(DLDevice dev, dh_stream_t* out_stream) {
  if (!out_stream) return dh_error_set(DH_KIND_VALUE_ERROR, "cuda: create_stream: out_stream is NULL");
  *out_stream = NULL;
  if (dh_cuda_enter(dev, "create_stream", NULL)) return -1;
  CUstream s = NULL;
  CUresult r = dh_cuda_drv.stream_create(&s, CU_STREAM_NON_BLOCKING);
  if (r != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuStreamCreate(CU_STREAM_NON_BLOCKING)");
  *out_stream = (dh_stream_t)s;
  return 0;
}

int dh_cuda_free_stream(DLDevice dev, dh_stream_t stream) {
  if (!stream) return 0; /* NULL is a no-op, even without devices */
  if (dh_cuda_enter(dev, "free_stream", NULL)) return -1;
  if (dh_cuda_current_stream(dev.device_id) == (CUstream)stream) dh_env_set_stream(dev, NULL);
  /* Pending work completes; the driver releases the stream afterwards. */
  CUresult r = dh_cuda_drv.stream_destroy((CUstream)stream);
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuStreamDestroy_v2");
  return 0;
}

int dh_cuda_set_stream(DLDevice dev, dh_stream_t stream) {
  if (dh_cuda_check_device(dev, "set_stream")) return -1;
  return dh_env_set_stream(dev, stream);
}

int dh_cuda_get_current_stream(DLDevice dev, dh_stream_t* out_stream) {
  if (!out_stream) return dh_error_set(DH_KIND_VALUE_ERROR, "cuda: get_current_stream: out_stream is NULL");
  *out_stream = NULL;
  if (dh_cuda_check_device(dev, "get_current_stream")) return -1;
  *out_stream = (dh_stream_t)dh_cuda_current_stream(dev.device_id);
  return 0;
}

int dh_cuda_stream_sync(DLDevice dev, dh_stream_t stream) {
  if (dh_cuda_enter(dev, "stream_sync", NULL)) return -1;
  CUresult r = dh_cuda_drv.stream_synchronize((CUstream)stream);
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuStreamSynchronize");
  return 0;
}

int dh_cuda_sync_stream_from_to(DLDevice dev, dh_stream_t src, dh_stream_t dst) {
  if (dh_cuda_enter(dev, "sync_stream_from_to", NULL)) return -1;
  if (src == dst) return 0;
  CUevent ev = NULL;
  CUresult r = dh_cuda_drv.event_create(&ev, CU_EVENT_DISABLE_TIMING);
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuEventCreate(CU_EVENT_DISABLE_TIMING)");
  r = dh_cuda_drv.event_record(ev, (CUstream)src);
  if (r != CUDA_SUCCESS) {
    dh_cuda_drv.event_destroy(ev);
    return dh_cuda_fail(r, "cuEventRecord(src stream)");
  }
  r = dh_cuda_drv.stream_wait_event((CUstream)dst, ev, 0);
  if (r != CUDA_SUCCESS) {
    dh_cuda_drv.event_destroy(ev);
    return dh_cuda_fail(r, "cuStreamWaitEvent(dst stream)");
  }
  r = dh_cuda_drv.event_destroy(ev); /* released by the driver once it completes */
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuEventDestroy_v2");
  return 0;
}

/*===========================================================================
 * Events (device-side timing)
 *===========================================================================*/

int dh_cuda_event_create(DLDevice dev, dh_event_t* out_event) {
  if (!out_event) return dh_error_set(DH_KIND_VALUE_ERROR, "cuda: event_create: out_event is NULL");
  *out_event = NULL;
  if (dh_cuda_enter(dev, "event_create", NULL)) return -1;
  CUevent ev = NULL;
  CUresult r = dh_cuda_drv.event_create(&ev, CU_EVENT_DEFAULT);
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuEventCreate(CU_EVENT_DEFAULT)");
  *out_event = (dh_event_t)ev;
  return 0;
}

int dh_cuda_event_record(DLDevice dev, dh_event_t event, dh_stream_t stream) {
  if (!event) return dh_error_set(DH_KIND_VALUE_ERROR, "cuda: event_record: event is NULL");
  if (dh_cuda_enter(dev, "event_record", NULL)) return -1;
  CUresult r = dh_cuda_drv.event_record((CUevent)event, (CUstream)stream);
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuEventRecord");
  return 0;
}

int dh_cuda_event_elapsed_ms(DLDevice dev, dh_event_t start, dh_event_t end, double* out_ms) {
  if (!start || !end || !out_ms)
    return dh_error_set(DH_KIND_VALUE_ERROR, "cuda: event_elapsed_ms: %s is NULL",
                        !start ? "start" : !end ? "end" : "out_ms");
  if (dh_cuda_enter(dev, "event_elapsed_ms", NULL)) return -1;
  CUresult r = dh_cuda_drv.event_synchronize((CUevent)end);
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuEventSynchronize(end)");
  float ms = 0;
  r = dh_cuda_drv.event_elapsed_time(&ms, (CUevent)start, (CUevent)end);
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuEventElapsedTime");
  *out_ms = ms;
  return 0;
}

int dh_cuda_event_free(DLDevice dev, dh_event_t event) {
  if (!event) return 0; /* NULL is a no-op, even without devices */
  if (dh_cuda_enter(dev, "event_free", NULL)) return -1;
  CUresult r = dh_cuda_drv.event_destroy((CUevent)event);
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuEventDestroy_v2");
  return 0;
}

