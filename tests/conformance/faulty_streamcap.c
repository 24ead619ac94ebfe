/* Fault: create_stream fails once 32 streams of a device are live (a fixed pool of
 * hardware queues, exhausted without reuse). Expected clause: stream.create_free_many. */
#include <stdatomic.h>

#include "faulty.h"

static atomic_int live;

static int bad_create(DLDevice dev, dh_stream_t* out) {
  if (atomic_load(&live) >= 32) {
    *out = NULL;
    return dh_error_set("RuntimeError", "faulty_streamcap: all 32 hardware queues are in use");
  }
  int rc = dh_sim_backend.create_stream(dev, out);
  if (rc == 0) atomic_fetch_add(&live, 1);
  return rc;
}

static int bad_free(DLDevice dev, dh_stream_t s) {
  int rc = dh_sim_backend.free_stream(dev, s);
  if (rc == 0 && s != NULL) atomic_fetch_sub(&live, 1);
  return rc;
}

FAULTY_ENTRY("streamcap", (faulty.create_stream = bad_create, faulty.free_stream = bad_free))
