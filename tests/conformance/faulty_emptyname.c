/* Fault: kDeviceName is the empty string.
 * Expected clause: attr.device_name. */
#include "faulty.h"

static int bad_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (kind == DH_ATTR_DEVICE_NAME && dev.device_id >= 0 && dev.device_id < 64) {
    int rc = dh_sim_backend.get_attr(dev, kind, out);
    if (rc == 0) *out = dh_any_str("");
    return rc;
  }
  return dh_sim_backend.get_attr(dev, kind, out);
}

FAULTY_ENTRY("emptyname", faulty.get_attr = bad_get_attr)
