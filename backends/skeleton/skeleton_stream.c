/*
 * backends/skeleton/skeleton_stream.c — the skeleton's streams (TVM DeviceAPI
 * CreateStream, FreeStream, SetStream, GetCurrentStream, StreamSync,
 * SyncStreamFromTo) and device-side timing events. The current stream is tvm-ffi's
 * environment stream: dh_env_set_stream / dh_env_get_stream (backend.h). Calls down
 * into skeleton_device.c only.
 */
#include <stddef.h>

#include "skeleton_internal.h"

int dh_skeleton_create_stream(DLDevice dev, dh_stream_t* out_stream) {
  if (out_stream == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "skeleton: create_stream: out_stream is NULL");
  *out_stream = NULL;
  if (dh_skeleton_check_device(dev, "create_stream") != 0) return -1;
  /* TODO(skeleton): a new queue (NULL with DH_CAP_SINGLE_QUEUE). */
  return dh_skeleton_not_implemented("create_stream");
}

int dh_skeleton_free_stream(DLDevice dev, dh_stream_t stream) {
  if (stream == NULL) return 0; /* NULL is a no-op */
  if (dh_skeleton_check_device(dev, "free_stream") != 0) return -1;
  /* TODO(skeleton): finish the queued work, then free the queue. */
  return dh_skeleton_not_implemented("free_stream");
}

int dh_skeleton_set_stream(DLDevice dev, dh_stream_t stream) {
  (void)stream;
  if (dh_skeleton_check_device(dev, "set_stream") != 0) return -1;
  /* TODO(skeleton): check the handle, then dh_env_set_stream(dev, stream). */
  return dh_skeleton_not_implemented("set_stream");
}

int dh_skeleton_get_current_stream(DLDevice dev, dh_stream_t* out_stream) {
  if (out_stream == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "skeleton: get_current_stream: out_stream is NULL");
  *out_stream = NULL;
  if (dh_skeleton_check_device(dev, "get_current_stream") != 0) return -1;
  /* TODO(skeleton): *out_stream = dh_env_get_stream(dev). */
  return dh_skeleton_not_implemented("get_current_stream");
}

int dh_skeleton_stream_sync(DLDevice dev, dh_stream_t stream) {
  (void)stream;
  if (dh_skeleton_check_device(dev, "stream_sync") != 0) return -1;
  /* TODO(skeleton): wait for the work queued on stream (NULL = the default queue). */
  return dh_skeleton_not_implemented("stream_sync");
}

int dh_skeleton_sync_stream_from_to(DLDevice dev, dh_stream_t src, dh_stream_t dst) {
  (void)src;
  (void)dst;
  if (dh_skeleton_check_device(dev, "sync_stream_from_to") != 0) return -1;
  /* TODO(skeleton): work queued on dst afterwards waits for work queued on src
   * before, without blocking the host (event record + wait). */
  return dh_skeleton_not_implemented("sync_stream_from_to");
}

int dh_skeleton_event_create(DLDevice dev, dh_event_t* out_event) {
  if (out_event == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "skeleton: event_create: out_event is NULL");
  *out_event = NULL;
  if (dh_skeleton_check_device(dev, "event_create") != 0) return -1;
  /* TODO(skeleton): a timing event (with DH_CAP_EVENT_TIMING), or set the event_* entries NULL. */
  return dh_skeleton_not_implemented("event_create");
}

int dh_skeleton_event_record(DLDevice dev, dh_event_t event, dh_stream_t stream) {
  (void)event;
  (void)stream;
  if (dh_skeleton_check_device(dev, "event_record") != 0) return -1;
  /* TODO(skeleton): record event on stream. */
  return dh_skeleton_not_implemented("event_record");
}

int dh_skeleton_event_elapsed_ms(DLDevice dev, dh_event_t start, dh_event_t end, double* out_ms) {
  (void)start;
  (void)end;
  (void)out_ms;
  if (dh_skeleton_check_device(dev, "event_elapsed_ms") != 0) return -1;
  /* TODO(skeleton): wait for end, then the device time between start and end, in ms. */
  return dh_skeleton_not_implemented("event_elapsed_ms");
}

int dh_skeleton_event_free(DLDevice dev, dh_event_t event) {
  if (event == NULL) return 0; /* NULL is a no-op */
  if (dh_skeleton_check_device(dev, "event_free") != 0) return -1;
  /* TODO(skeleton): free an event of event_create. */
  return dh_skeleton_not_implemented("event_free");
}
