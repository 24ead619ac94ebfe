/* Fault: sync_stream_from_to reads the default stream (NULL) on either side as "nothing
 * to order" and returns without making dst wait. Expected clause:
 * stream.sync_from_to_default. */
#include "faulty.h"

static int bad_sync_from_to(DLDevice dev, dh_stream_t src, dh_stream_t dst) {
  if (src == NULL || dst == NULL) return 0;
  return dh_sim_backend.sync_stream_from_to(dev, src, dst);
}

FAULTY_ENTRY("syncnull", faulty.sync_stream_from_to = bad_sync_from_to)
