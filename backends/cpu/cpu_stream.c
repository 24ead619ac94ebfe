/*
 * backends/cpu/cpu_stream.c — the cpu backend's streams: a single queue, so streams
 * are NULL and every operation is complete when it returns (TVM's CPUDeviceAPI does
 * the same); stream_sync and sync_stream_from_to only validate.
 */
#include <dlpack/dlpack.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/backend.h"
#include "devharness/error.h"
#include "devharness/tensor.h"

#include "cpu_internal.h"

/*===========================================================================
 * Streams: a single queue; everything is complete when it returns
 *===========================================================================*/

int dh_cpu_check_stream(DLDevice dev, dh_stream_t stream) {
  if (dh_cpu_check_device(dev) != 0) return -1;
  if (stream != NULL)
    return dh_error_set(DH_KIND_VALUE_ERROR, "cpu: stream %p: the cpu has a single queue (NULL)", stream);
  return 0;
}

int dh_cpu_create_stream(DLDevice dev, dh_stream_t* out_stream) {
  if (out_stream == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "cpu: create_stream: out_stream is NULL");
  *out_stream = NULL; /* TVM: CreateStream may return nullptr for single-queue devices */
  return dh_cpu_check_device(dev);
}

int dh_cpu_free_stream(DLDevice dev, dh_stream_t stream) {
  return dh_cpu_check_stream(dev, stream);
}

int dh_cpu_set_stream(DLDevice dev, dh_stream_t stream) {
  if (dh_cpu_check_stream(dev, stream) != 0) return -1;
  return dh_env_set_stream(dev, stream); /* tvm-ffi's environment stream (backend.h) */
}

int dh_cpu_get_current_stream(DLDevice dev, dh_stream_t* out_stream) {
  if (out_stream == NULL)
    return dh_error_set(DH_KIND_VALUE_ERROR, "cpu: get_current_stream: out_stream is NULL");
  if (dh_cpu_check_device(dev) != 0) return -1;
  *out_stream = dh_env_get_stream(dev);
  return 0;
}

int dh_cpu_stream_sync(DLDevice dev, dh_stream_t stream) {
  return dh_cpu_check_stream(dev, stream);
}

int dh_cpu_sync_stream_from_to(DLDevice dev, dh_stream_t src, dh_stream_t dst) {
  if (dh_cpu_check_stream(dev, src) != 0) return -1;
  return dh_cpu_check_stream(dev, dst);
}
