/* Fault: the backend's own echo keeps at most 7 bytes of a SmallBytes (the string
 * limit applied to bytes). Expected clause: packed.echo_small. */
#include "faulty.h"

static dh_safe_call_t orig;

static int bad(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  int rc = orig(self, args, n, rv);
  if (rc == 0 && rv->type_index == DH_TYPE_SMALL_BYTES && rv->small_str_len > 7) {
    rv->small_str_len = 7;
    rv->v_bytes[7] = 0;
  }
  return rc;
}

FAULTY_ENTRY("echosmall", orig = faulty_replace_function(DH_FUNC_ECHO, bad))
