/* Fault: kMaxRegistersPerBlock is reported as a Float instead of an Int.
 * Expected clause: attr.types. */
#include "faulty.h"

static int bad_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  int rc = dh_sim_backend.get_attr(dev, kind, out);
  if (rc == 0 && kind == DH_ATTR_MAX_REGISTERS_PER_BLOCK && out->type_index == DH_TYPE_INT)
    *out = dh_any_float((double)out->v_int64);
  return rc;
}

FAULTY_ENTRY("attrtype", faulty.get_attr = bad_get_attr)
