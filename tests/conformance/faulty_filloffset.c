/* Fault: the backend's own fill ignores a non-zero byte_offset (writes from the start
 * of the buffer). Expected clause: packed.fill_offset. */
#include "faulty.h"

static dh_safe_call_t orig;

static int bad(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  const DLTensor* t = n >= 1 ? dh_any_as_tensor(&args[0]) : NULL;
  if (t != NULL && t->byte_offset % 4 == 0 && t->byte_offset != 0) {
    DLTensor u = *t;
    u.byte_offset = 0;
    dh_any_t a[2] = {dh_any_tensor(&u), n >= 2 ? args[1] : dh_any_none()};
    return orig(self, a, n < 2 ? n : 2, rv);
  }
  return orig(self, args, n, rv);
}

FAULTY_ENTRY("filloffset", orig = faulty_replace_function(DH_FUNC_FILL, bad))
