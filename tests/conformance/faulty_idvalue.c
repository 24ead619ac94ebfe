/* Fault: an invalid device id gives ValueError instead of IndexError in attribute
 * queries. Expected clause: attr.invalid_id_kind. */
#include <stdio.h>

#include "faulty.h"

static int bad_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  int rc = dh_sim_backend.get_attr(dev, kind, out);
  if (rc != 0 && strcmp(dh_error_kind(), "IndexError") == 0) {
    char msg[DH_ERROR_MESSAGE_MAX];
    snprintf(msg, sizeof msg, "%s", dh_error_message());
    return dh_error_set("ValueError", "%s", msg);
  }
  return rc;
}

FAULTY_ENTRY("idvalue", faulty.get_attr = bad_get_attr)
