/* Fault: get_attr(kExist) errors for device ids past the last device instead of
 * answering 0. Expected clause: attr.exist_past_last. */
#include "faulty.h"

static int bad_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  int rc = dh_sim_backend.get_attr(dev, kind, out);
  if (rc == 0 && kind == DH_ATTR_EXIST && dev.device_id >= 0 && out->type_index == DH_TYPE_INT &&
      out->v_int64 == 0)
    return dh_error_set("IndexError", "faulty_existerr: no device %d", dev.device_id);
  return rc;
}

FAULTY_ENTRY("existerr", faulty.get_attr = bad_get_attr)
