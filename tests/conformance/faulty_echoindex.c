/* Fault: the backend's own echo answers an index out of range with None instead of
 * IndexError. Expected clause: packed.echo_index_error. */
#include "faulty.h"

static dh_safe_call_t orig;

static int bad(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  if (n >= 1 && args[0].type_index == DH_TYPE_INT && (args[0].v_int64 < 0 || args[0].v_int64 >= n - 1)) {
    *rv = dh_any_none();
    return 0;
  }
  return orig(self, args, n, rv);
}

FAULTY_ENTRY("echoindex", orig = faulty_replace_function(DH_FUNC_ECHO, bad))
