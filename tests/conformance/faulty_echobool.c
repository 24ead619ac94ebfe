/* Fault: the backend's own echo returns Bool false as Int 0 (the type of a falsy Bool
 * lost). Expected clause: packed.echo_bool. */
#include "faulty.h"

static dh_safe_call_t orig;

static int bad(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  int rc = orig(self, args, n, rv);
  if (rc == 0 && rv->type_index == DH_TYPE_BOOL && rv->v_int64 == 0) *rv = dh_any_int(0);
  return rc;
}

FAULTY_ENTRY("echobool", orig = faulty_replace_function(DH_FUNC_ECHO, bad))
