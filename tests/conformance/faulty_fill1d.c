/* Fault: fill sizes its tensor from shape[0] alone (a kernel written for 1-D buffers),
 * so a multi-dimensional tensor is only partly written. Expected clause:
 * packed.fill_shapes. */
#include "faulty.h"

static dh_safe_call_t orig_fill;

static int bad_fill(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  const DLTensor* t = n >= 1 ? dh_any_as_tensor(&args[0]) : NULL;
  if (t == NULL || t->ndim < 2 || t->shape == NULL) return orig_fill(self, args, n, rv);
  DLTensor flat = *t;
  flat.ndim = 1;
  flat.strides = NULL;
  dh_any_t a[2] = {dh_any_tensor(&flat), args[1]};
  return orig_fill(self, a, n < 2 ? n : 2, rv);
}

FAULTY_ENTRY("fill1d", orig_fill = faulty_replace_function(DH_FUNC_FILL, bad_fill))
