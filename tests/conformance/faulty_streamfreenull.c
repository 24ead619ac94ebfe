/* Fault: free_stream(NULL) is an error instead of a no-op. Expected clause:
 * stream.free_null. */
#include "faulty.h"

static int bad_free_stream(DLDevice dev, dh_stream_t s) {
  if (s == NULL) return dh_error_set("ValueError", "faulty_streamfreenull: stream is NULL");
  return dh_sim_backend.free_stream(dev, s);
}

FAULTY_ENTRY("streamfreenull", faulty.free_stream = bad_free_stream)
