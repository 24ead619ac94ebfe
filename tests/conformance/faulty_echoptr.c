/* Fault: the backend's own echo returns a NULL OpaquePtr as None (a conversion tvm-ffi
 * allows on the receiving side, not in a value passed through). Expected clause:
 * packed.echo_ptr. */
#include "faulty.h"

static dh_safe_call_t orig;

static int bad(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  int rc = orig(self, args, n, rv);
  if (rc == 0 && rv->type_index == DH_TYPE_OPAQUE_PTR && rv->v_ptr == NULL) *rv = dh_any_none();
  return rc;
}

FAULTY_ENTRY("echoptr", orig = faulty_replace_function(DH_FUNC_ECHO, bad))
