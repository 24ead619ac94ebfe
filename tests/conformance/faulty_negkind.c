/* Fault: a negative attribute kind answers None ("not reported") instead of an error.
 * Expected clause: attr.unknown_kind. */
#include "faulty.h"

static int bad_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (kind < 0) {
    *out = dh_any_none();
    return 0;
  }
  return dh_sim_backend.get_attr(dev, kind, out);
}

FAULTY_ENTRY("negkind", faulty.get_attr = bad_get_attr)
