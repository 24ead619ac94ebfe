/*
 * backends/tvm/tvm_stream.c — the tvm-* backends' stream entries: TVM's CreateStream,
 * FreeStream, SetStream, GetCurrentStream, StreamSync and SyncStreamFromTo, called
 * through tvm_adapter.cc. Calls down into tvm_device.c only.
 */
#include <stddef.h>
#include <stdint.h>

#include "devharness/backend.h"

#include "backends/tvm/tvm_internal.h"

int dh_tvm_create_stream(DLDevice dev, dh_stream_t* out) {
  *out = NULL;
  if (dh_tvm_ready(dev, "create_stream")) return -1;
  dh_tvm_err_t e;
  return dh_tvm_a->create_stream(dh_tvm_api_of(dev), dh_tvm_to_tvm(dev), out, &e) ? dh_tvm_err("CreateStream", &e) : 0;
}

int dh_tvm_free_stream(DLDevice dev, dh_stream_t s) {
  if (dh_tvm_ready(dev, "free_stream")) return -1;
  dh_tvm_err_t e;
  return dh_tvm_a->free_stream(dh_tvm_api_of(dev), dh_tvm_to_tvm(dev), s, &e) ? dh_tvm_err("FreeStream", &e) : 0;
}

/* TVM's SetStream/GetCurrentStream are tvm-ffi's environment stream
 * (TVMFFIEnvSetStream/GetStream, apache/tvm 0.27 src/runtime/device_api.cc:167-173),
 * keyed by TVM's (device_type, device_id): whatever else in the process sets TVM's
 * stream for this device is seen here, and the other way round. */
int dh_tvm_set_stream(DLDevice dev, dh_stream_t s) {
  if (dh_tvm_ready(dev, "set_stream")) return -1;
  dh_tvm_err_t e;
  return dh_tvm_a->set_stream(dh_tvm_api_of(dev), dh_tvm_to_tvm(dev), s, &e) ? dh_tvm_err("SetStream", &e) : 0;
}

int dh_tvm_get_current_stream(DLDevice dev, dh_stream_t* out) {
  *out = NULL;
  if (dh_tvm_ready(dev, "get_current_stream")) return -1;
  dh_tvm_err_t e;
  return dh_tvm_a->get_current_stream(dh_tvm_api_of(dev), dh_tvm_to_tvm(dev), out, &e) ? dh_tvm_err("GetCurrentStream", &e) : 0;
}

int dh_tvm_stream_sync(DLDevice dev, dh_stream_t s) {
  if (dh_tvm_ready(dev, "stream_sync")) return -1;
  dh_tvm_err_t e;
  return dh_tvm_a->stream_sync(dh_tvm_api_of(dev), dh_tvm_to_tvm(dev), s, &e) ? dh_tvm_err("StreamSync", &e) : 0;
}

int dh_tvm_sync_stream_from_to(DLDevice dev, dh_stream_t src, dh_stream_t dst) {
  if (dh_tvm_ready(dev, "sync_stream_from_to")) return -1;
  dh_tvm_err_t e;
  return dh_tvm_a->sync_stream_from_to(dh_tvm_api_of(dev), dh_tvm_to_tvm(dev), src, dst, &e) ? dh_tvm_err("SyncStreamFromTo", &e) : 0;
}
