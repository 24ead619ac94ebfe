/* Fault: the backend's own fill refuses a non-contiguous tensor with RuntimeError ("not
 * supported") instead of the ValueError backend.h documents; contiguous tensors are
 * filled as the sim does. Expected clause: packed.fill_strided. */
#include "devharness/tensor.h"
#include "faulty.h"

static dh_safe_call_t orig;

static int bad(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  DLTensor* t = n >= 1 ? dh_any_as_tensor(&args[0]) : NULL;
  if (t && !dh_tensor_is_contiguous(t))
    return dh_error_set("RuntimeError", "fill: strided tensors are not supported");
  return orig(self, args, n, rv);
}

FAULTY_ENTRY("fillstrided", orig = faulty_replace_function(DH_FUNC_FILL, bad))
