/* Fault: sync_stream_from_to with src == dst (a created stream) is an error instead of
 * a no-op (the marker would wait for itself). Expected clause: stream.sync_from_to_same. */
#include "faulty.h"

static int bad_order(DLDevice dev, dh_stream_t src, dh_stream_t dst) {
  if (src != NULL && src == dst)
    return dh_error_set("ValueError", "faulty_samestream: src and dst are the same stream");
  return dh_sim_backend.sync_stream_from_to(dev, src, dst);
}

FAULTY_ENTRY("samestream", faulty.sync_stream_from_to = bad_order)
