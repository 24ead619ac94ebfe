/* Fault: kDeviceName alternates between two spellings from one read to the next.
 * Expected clause: attr.stable. */
#include "faulty.h"

static int bad_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (kind == DH_ATTR_DEVICE_NAME && dev.device_id >= 0 && dev.device_id < 64) {
    static _Atomic int n;
    int rc = dh_sim_backend.get_attr(dev, kind, out);
    if (rc == 0 && (n++ & 1)) *out = dh_any_str("SIM");
    return rc;
  }
  return dh_sim_backend.get_attr(dev, kind, out);
}

FAULTY_ENTRY("unstable", faulty.get_attr = bad_get_attr)
