/* Fault: stream_sync swallows the failure of a kernel it waited for (returns 0, the
 * error dropped). Expected clauses: packed.device_failure, stream.error_at_sync. */
#include "faulty.h"

static int bad_sync(DLDevice dev, dh_stream_t s) {
  int rc = dh_sim_backend.stream_sync(dev, s);
  if (rc != 0 && strstr(dh_error_message(), "trap") != NULL) {
    dh_error_clear();
    return 0;
  }
  return rc;
}

FAULTY_ENTRY("trapswallow", faulty.stream_sync = bad_sync)
