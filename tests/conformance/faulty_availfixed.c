/* Fault: kAvailableGlobalMemory is always the total (allocations never counted).
 * Expected clause: attr.available_drops. */
#include "faulty.h"

static int bad_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (kind == DH_ATTR_AVAILABLE_GLOBAL_MEMORY) kind = DH_ATTR_TOTAL_GLOBAL_MEMORY;
  return dh_sim_backend.get_attr(dev, kind, out);
}

FAULTY_ENTRY("availfixed", faulty.get_attr = bad_get_attr)
