/* Fault: set_device on an invalid id fails with RuntimeError instead of IndexError.
 * Expected clause: device.set_invalid_kind. */
#include <stdio.h>

#include "faulty.h"

static int bad_set_device(DLDevice dev) {
  int rc = dh_sim_backend.set_device(dev);
  if (rc != 0) {
    char msg[DH_ERROR_MESSAGE_MAX];
    snprintf(msg, sizeof msg, "%s", dh_error_message());
    return dh_error_set("RuntimeError", "%s", msg);
  }
  return rc;
}

FAULTY_ENTRY("setdevkind", faulty.set_device = bad_set_device)
