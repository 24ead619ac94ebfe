/* Fault: kComputeVersion reads "8" (the major version only).
 * Expected clause: attr.compute_version. */
#include "faulty.h"

static int bad_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (kind == DH_ATTR_COMPUTE_VERSION) {
    int rc = dh_sim_backend.get_attr(dev, kind, out);
    if (rc == 0) *out = dh_any_str("8");
    return rc;
  }
  return dh_sim_backend.get_attr(dev, kind, out);
}

FAULTY_ENTRY("computemajor", faulty.get_attr = bad_get_attr)
