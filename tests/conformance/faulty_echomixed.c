/* Fault: the backend's own echo ignores the index and returns the first value
 * argument (right whenever one value is passed). Expected clause: packed.echo_mixed. */
#include "faulty.h"

static dh_safe_call_t orig;

static int bad(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  if (n > 2 && args[0].type_index == DH_TYPE_INT && args[0].v_int64 >= 0 && args[0].v_int64 < n - 1) {
    dh_any_t a[2] = {dh_any_int(0), args[1]};
    return orig(self, a, 2, rv);
  }
  return orig(self, args, n, rv);
}

FAULTY_ENTRY("echomixed", orig = faulty_replace_function(DH_FUNC_ECHO, bad))
