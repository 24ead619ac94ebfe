/* Fault: kExist answers 1 for device id -1 (a signed id used as an index).
 * Expected clause: attr.exist_negative. */
#include "faulty.h"

static int bad_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (kind == DH_ATTR_EXIST && dev.device_id < 0) {
    *out = dh_any_int(1);
    return 0;
  }
  return dh_sim_backend.get_attr(dev, kind, out);
}

FAULTY_ENTRY("existneg", faulty.get_attr = bad_get_attr)
