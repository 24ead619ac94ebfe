/* Fault: kAvailableGlobalMemory is one byte too high (a reserve added twice), so on an
 * idle device it is above kTotalGlobalMemory. Expected clause: attr.available_le_total. */
#include "faulty.h"

static int bad_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  int rc = dh_sim_backend.get_attr(dev, kind, out);
  if (rc == 0 && kind == DH_ATTR_AVAILABLE_GLOBAL_MEMORY && out->type_index == DH_TYPE_INT) out->v_int64 += 1;
  return rc;
}

FAULTY_ENTRY("availabove", faulty.get_attr = bad_get_attr)
