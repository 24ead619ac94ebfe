/* Fault: set_device reduces the device id modulo 64 (the size of a device table), so
 * id 2^30 is accepted as device 0. Expected clause: device.set_invalid. */
#include "faulty.h"

static int bad_set_device(DLDevice dev) {
  if (dev.device_id >= 64) dev.device_id %= 64;
  return dh_sim_backend.set_device(dev);
}

FAULTY_ENTRY("setmod", faulty.set_device = bad_set_device)
