/* Fault: the backend's own echo returns a None argument as Int 0 (a "null" value
 * widened to a number). Expected clause: packed.echo_none. */
#include "faulty.h"

static dh_safe_call_t orig;

static int bad(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  int rc = orig(self, args, n, rv);
  if (rc == 0 && rv->type_index == DH_TYPE_NONE) *rv = dh_any_int(0);
  return rc;
}

FAULTY_ENTRY("echonone", orig = faulty_replace_function(DH_FUNC_ECHO, bad))
