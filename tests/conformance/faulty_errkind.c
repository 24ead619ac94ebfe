/* Fault: the packed function "raise" loses the error kind (always RuntimeError),
 * keeping the message. Expected clause: packed.raise_kind. */
#include <stdio.h>

#include "faulty.h"

static dh_backend_function_t fns[16];
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

static void edit(void) {
  size_t n = dh_sim_backend.num_functions < 16 ? dh_sim_backend.num_functions : 16;
  for (size_t i = 0; i < n; i++) {
    fns[i] = dh_sim_backend.functions[i];
    if (strcmp(fns[i].name, DH_FUNC_RAISE) == 0) {
      orig_raise = fns[i].call;
      fns[i].call = bad_raise;
    }
  }
  faulty.functions = fns;
  faulty.num_functions = n;
}

FAULTY_ENTRY("errkind", edit())
