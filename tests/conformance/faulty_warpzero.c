/* Fault: kWarpSize is 0 (an unset field reported).
 * Expected clause: attr.positive_ints. */
#include "faulty.h"

static int bad_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (kind == DH_ATTR_WARP_SIZE) {
    int rc = dh_sim_backend.get_attr(dev, kind, out);
    if (rc == 0) *out = dh_any_int(0);
    return rc;
  }
  return dh_sim_backend.get_attr(dev, kind, out);
}

FAULTY_ENTRY("warpzero", faulty.get_attr = bad_get_attr)
