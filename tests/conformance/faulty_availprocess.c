/* Fault: kAvailableGlobalMemory subtracts what every device of the process holds, not
 * what this device holds (one counter for the process).
 * Expected clause: attr.available_per_device. */
#include "faulty.h"

static int process_avail(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (dh_sim_backend.get_attr(dev, kind, out) != 0) return -1;
  if (kind != DH_ATTR_AVAILABLE_GLOBAL_MEMORY || out->type_index != DH_TYPE_INT) return 0;
  dh_any_t total, v;
  if (dh_sim_backend.get_attr(dev, DH_ATTR_TOTAL_GLOBAL_MEMORY, &total) != 0) return -1;
  int64_t avail = total.v_int64;
  for (int id = 0;; id++) { /* every device's use, counted once */
    DLDevice d = {dev.device_type, id};
    if (dh_sim_backend.get_attr(d, DH_ATTR_EXIST, &v) != 0 || v.v_int64 == 0) break;
    if (dh_sim_backend.get_attr(d, DH_ATTR_AVAILABLE_GLOBAL_MEMORY, &v) != 0) return -1;
    avail -= total.v_int64 - v.v_int64;
  }
  dh_error_clear();
  *out = dh_any_int(avail < 0 ? 0 : avail);
  return 0;
}

FAULTY_ENTRY("availprocess", faulty.get_attr = process_avail)
