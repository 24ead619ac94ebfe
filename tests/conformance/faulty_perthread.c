/* Fault: the current stream is process-wide per device instead of per thread (a
 * set_stream on one thread is seen by every other thread). Expected clause:
 * stream.per_thread. */
#include <pthread.h>

#include "faulty.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static dh_stream_t current[DH_SIM_MAX_DEVICES];

static int bad_set_stream(DLDevice dev, dh_stream_t s) {
  int rc = dh_sim_backend.set_stream(dev, s);
  if (rc == 0 && dev.device_id >= 0 && dev.device_id < DH_SIM_MAX_DEVICES) {
    pthread_mutex_lock(&mu);
    current[dev.device_id] = s;
    pthread_mutex_unlock(&mu);
  }
  return rc;
}

static int bad_get_stream(DLDevice dev, dh_stream_t* out) {
  int rc = dh_sim_backend.get_current_stream(dev, out);
  if (rc == 0 && dev.device_id >= 0 && dev.device_id < DH_SIM_MAX_DEVICES) {
    pthread_mutex_lock(&mu);
    *out = current[dev.device_id];
    pthread_mutex_unlock(&mu);
  }
  return rc;
}

FAULTY_ENTRY("perthread", (faulty.set_stream = bad_set_stream, faulty.get_current_stream = bad_get_stream))
