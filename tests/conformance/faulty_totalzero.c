/* Fault: kTotalGlobalMemory is reported as 0 (a query that failed and was not
 * checked), kAvailableGlobalMemory not at all. Expected clause: attr.total_memory. */
#include "faulty.h"

static int bad_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  int rc = dh_sim_backend.get_attr(dev, kind, out);
  if (rc == 0 && kind == DH_ATTR_TOTAL_GLOBAL_MEMORY) *out = dh_any_int(0);
  if (rc == 0 && kind == DH_ATTR_AVAILABLE_GLOBAL_MEMORY) *out = dh_any_none();
  return rc;
}

FAULTY_ENTRY("totalzero", faulty.get_attr = bad_get_attr)
