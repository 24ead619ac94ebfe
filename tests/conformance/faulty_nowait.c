/* Fault: sync_stream_from_to returns success without making dst wait.
 * Expected clause: stream.sync_from_to. */
#include "faulty.h"

static int bad_sync_from_to(DLDevice dev, dh_stream_t src, dh_stream_t dst) {
  (void)dev;
  (void)src;
  (void)dst;
  return 0;
}

FAULTY_ENTRY("nowait", faulty.sync_stream_from_to = bad_sync_from_to)
