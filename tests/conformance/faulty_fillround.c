/* Fault: the backend's own fill rounds a misaligned byte_offset or size down to a
 * multiple of 4 instead of giving ValueError. Expected clause: packed.fill_bad_args. */
#include "faulty.h"

static dh_safe_call_t orig;

static int bad(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  const DLTensor* t = n >= 1 ? dh_any_as_tensor(&args[0]) : NULL;
  if (t != NULL && t->ndim == 1 && t->shape != NULL && (t->byte_offset % 4 || t->shape[0] % 4)) {
    DLTensor u = *t;
    int64_t shape[1] = {t->shape[0] & ~(int64_t)3};
    u.byte_offset &= ~(uint64_t)3;
    u.shape = shape;
    dh_any_t a[2] = {dh_any_tensor(&u), n >= 2 ? args[1] : dh_any_none()};
    return orig(self, a, n < 2 ? n : 2, rv);
  }
  return orig(self, args, n, rv);
}

FAULTY_ENTRY("fillround", orig = faulty_replace_function(DH_FUNC_FILL, bad))
