/* Fault: once set_device has made a device current on a thread, create_stream creates
 * the stream on that device, not on the one it is given (cuStreamCreate's rule: the
 * current context, when the backend forgets to switch first).
 * Expected clause: device.explicit_device. */
#include "faulty.h"

static _Thread_local int current_set, current_id;

static int remember_set_device(DLDevice dev) {
  if (dh_sim_backend.set_device(dev) != 0) return -1;
  current_set = 1;
  current_id = dev.device_id;
  return 0;
}

static int current_create_stream(DLDevice dev, dh_stream_t* out) {
  if (current_set) dev.device_id = current_id;
  return dh_sim_backend.create_stream(dev, out);
}

FAULTY_ENTRY("curdev", (faulty.set_device = remember_set_device, faulty.create_stream = current_create_stream))
