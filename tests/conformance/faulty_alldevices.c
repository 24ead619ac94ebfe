/* Fault: set_stream sets the current stream of every device of the backend, not just
 * dev's (the stream is kept per thread only). Expected clause: stream.per_device. */
#include "faulty.h"

static int bad_set(DLDevice dev, dh_stream_t s) {
  int rc = dh_sim_backend.set_stream(dev, s);
  if (rc != 0) return rc;
  for (int id = 0; id < 64; id++) {
    DLDevice d = {dev.device_type, id};
    if (id != dev.device_id && dh_env_set_stream(d, s) != 0) dh_error_clear();
  }
  return 0;
}

FAULTY_ENTRY("alldevices", faulty.set_stream = bad_set)
