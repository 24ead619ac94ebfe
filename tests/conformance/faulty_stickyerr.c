/* Fault: after the backend's own raise, the next echo call on that thread fails again
 * with the old error (an error state not cleared after it was reported). Expected
 * clause: packed.error_then_success. */
#include <stdio.h>

#include "faulty.h"

static dh_safe_call_t orig_raise, orig_echo;
static _Thread_local int pending;

static int bad_raise(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  int rc = orig_raise(self, args, n, rv);
  if (rc != 0) pending = 1;
  return rc;
}

static int bad_echo(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  if (pending) {
    pending = 0;
    return dh_error_set("ValueError", "first (left over from the previous call)");
  }
  return orig_echo(self, args, n, rv);
}

static void edit(void) {
  orig_raise = faulty_replace_function(DH_FUNC_RAISE, bad_raise);
  /* the table now holds bad_raise; replace echo in it as well */
  for (size_t i = 0; i < faulty.num_functions; i++)
    if (strcmp(faulty_fns[i].name, DH_FUNC_ECHO) == 0) {
      orig_echo = faulty_fns[i].call;
      faulty_fns[i].call = bad_echo;
    }
}

FAULTY_ENTRY("stickyerr", edit())
