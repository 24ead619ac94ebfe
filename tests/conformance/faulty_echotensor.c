/* Fault: the backend's own echo returns a DLTensorPtr as an OpaquePtr to the tensor's
 * data (the descriptor lost). Expected clause: packed.echo_tensor. */
#include "faulty.h"

static dh_safe_call_t orig;

static int bad(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  int rc = orig(self, args, n, rv);
  if (rc == 0 && rv->type_index == DH_TYPE_DL_TENSOR_PTR && rv->v_ptr != NULL)
    *rv = dh_any_ptr(((DLTensor*)rv->v_ptr)->data);
  return rc;
}

FAULTY_ENTRY("echotensor", orig = faulty_replace_function(DH_FUNC_ECHO, bad))
