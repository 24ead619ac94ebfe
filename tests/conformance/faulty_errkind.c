/* Fault: the packed function "raise" loses the error kind (always RuntimeError),
 * keeping the message. Expected clause: packed.raise_kind. */
#include <stdio.h>

#include "faulty.h"

static dh_safe_call_t orig_raise;

static int bad_raise(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  int rc = orig_raise(self, args, n, rv);
  if (rc != 0) {
    char msg[DH_ERROR_MESSAGE_MAX];
    snprintf(msg, sizeof msg, "%s", dh_error_message());
    return dh_error_set("RuntimeError", "%s", msg);
  }
  return rc;
}

static void edit(void) { orig_raise = faulty_replace_function(DH_FUNC_RAISE, bad_raise); }

FAULTY_ENTRY("errkind", edit())
