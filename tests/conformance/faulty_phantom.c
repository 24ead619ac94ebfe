/* Fault: kExist over-reports one phantom device past the last (the other entries
 * refuse its id). Expected clauses: attr.exist_count and attr.exist_past_last, and no
 * phantom device failing every other clause. */
#include "faulty.h"

static int bad_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  int rc = dh_sim_backend.get_attr(dev, kind, out);
  if (rc == 0 && kind == DH_ATTR_EXIST && dev.device_id == 2) *out = dh_any_int(1);
  return rc;
}

FAULTY_ENTRY("phantom", faulty.get_attr = bad_get_attr)
