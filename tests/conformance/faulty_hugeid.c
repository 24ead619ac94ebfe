/* Fault: attribute queries reduce the device id modulo 64 (the size of a device
 * table), so a huge id (1000000) answers as device 0; kExist stays right. Expected
 * clause: attr.invalid_id. */
#include "faulty.h"

static int bad_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (kind != DH_ATTR_EXIST && dev.device_id >= 64) dev.device_id %= 64;
  return dh_sim_backend.get_attr(dev, kind, out);
}

FAULTY_ENTRY("hugeid", faulty.get_attr = bad_get_attr)
