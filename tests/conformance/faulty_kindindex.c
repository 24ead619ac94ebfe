/* Fault: an unknown attribute kind gives IndexError instead of ValueError.
 * Expected clause: attr.unknown_kind_kind. */
#include "faulty.h"

static int bad_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (kind < 0 || kind >= DH_ATTR_KIND_COUNT)
    return dh_error_set("IndexError", "faulty_kindindex: attribute kind %d out of range", (int)kind);
  return dh_sim_backend.get_attr(dev, kind, out);
}

FAULTY_ENTRY("kindindex", faulty.get_attr = bad_get_attr)
