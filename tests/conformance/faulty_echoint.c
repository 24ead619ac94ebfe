/* Fault: the backend's own echo passes an Int through 32 bits (values outside int32
 * come back truncated). Expected clause: packed.echo_int. */
#include "faulty.h"

static dh_safe_call_t orig;

static int bad(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  int rc = orig(self, args, n, rv);
  if (rc == 0 && rv->type_index == DH_TYPE_INT) rv->v_int64 = (int32_t)(uint32_t)(uint64_t)rv->v_int64;
  return rc;
}

FAULTY_ENTRY("echoint", orig = faulty_replace_function(DH_FUNC_ECHO, bad))
