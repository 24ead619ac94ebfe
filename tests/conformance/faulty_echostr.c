/* Fault: the backend's own echo returns a string as a SmallStr of at most 7 bytes
 * (longer strings truncated). Expected clause: packed.echo_str. */
#include "faulty.h"

static dh_safe_call_t orig;

static int bad(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  int rc = orig(self, args, n, rv);
  if (rc == 0 && rv->type_index == DH_TYPE_STR) {
    dh_byte_array_t s;
    dh_any_t small = dh_any_make(DH_TYPE_SMALL_STR);
    if (dh_any_as_str(rv, &s) == 0) {
      small.small_str_len = (uint32_t)(s.size < 7 ? s.size : 7);
      memcpy(small.v_bytes, s.data, small.small_str_len);
    }
    dh_any_release(rv);
    *rv = small;
  }
  return rc;
}

FAULTY_ENTRY("echostr", orig = faulty_replace_function(DH_FUNC_ECHO, bad))
