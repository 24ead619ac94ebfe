/* Fault: kMaxThreadDimensions lists two dimensions, not three.
 * Expected clause: attr.max_thread_dims. */
#include "faulty.h"

static int bad_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (kind == DH_ATTR_MAX_THREAD_DIMENSIONS) {
    *out = dh_any_str("[1024, 1024]");
    return 0;
  }
  return dh_sim_backend.get_attr(dev, kind, out);
}

FAULTY_ENTRY("threaddims", faulty.get_attr = bad_get_attr)
