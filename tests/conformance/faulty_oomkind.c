/* Fault: an allocation larger than the device fails, but with RuntimeError instead of
 * OutOfMemoryError. Expected clause: mem.too_large_kind. */
#include <stdio.h>

#include "faulty.h"

static int bad_alloc(DLDevice dev, size_t nbytes, size_t alignment, DLDataType hint, void** out) {
  int rc = dh_sim_backend.alloc_data_space(dev, nbytes, alignment, hint, out);
  if (rc != 0 && dh_error_kind() && strcmp(dh_error_kind(), "OutOfMemoryError") == 0) {
    char msg[DH_ERROR_MESSAGE_MAX];
    snprintf(msg, sizeof msg, "%s", dh_error_message());
    return dh_error_set("RuntimeError", "%s", msg);
  }
  return rc;
}

FAULTY_ENTRY("oomkind", faulty.alloc_data_space = bad_alloc)
