/* Fault: the backend's own fill refuses values of 2^31 and above (it checks the Int
 * against int32 instead of taking its low 32 bits). Expected clause: packed.fill. */
#include "faulty.h"

static dh_safe_call_t orig;

static int bad(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  if (n >= 2 && args[1].type_index == DH_TYPE_INT && args[1].v_int64 > INT32_MAX)
    return dh_error_set("ValueError", "fill: value %lld does not fit int32", (long long)args[1].v_int64);
  return orig(self, args, n, rv);
}

FAULTY_ENTRY("fillsigned", orig = faulty_replace_function(DH_FUNC_FILL, bad))
