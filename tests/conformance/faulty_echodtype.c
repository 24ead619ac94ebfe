/* Fault: the backend's own echo drops the lanes of a DataType (int8x4 comes back as
 * int8). Expected clause: packed.echo_dtype. */
#include "faulty.h"

static dh_safe_call_t orig;

static int bad(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  int rc = orig(self, args, n, rv);
  if (rc == 0 && rv->type_index == DH_TYPE_DATA_TYPE) rv->v_dtype.lanes = 1;
  return rc;
}

FAULTY_ENTRY("echodtype", orig = faulty_replace_function(DH_FUNC_ECHO, bad))
