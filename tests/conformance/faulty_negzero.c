/* Fault: echo normalises a Float -0.0 to +0.0 (a POD argument not passed intact).
 * Expected clause: packed.echo_float. */
#include "faulty.h"

static dh_safe_call_t orig_echo;

static int bad_echo(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  int rc = orig_echo(self, args, n, rv);
  if (rc == 0 && rv->type_index == DH_TYPE_FLOAT && rv->v_float64 == 0.0) rv->v_float64 = 0.0;
  return rc;
}

static void edit(void) { orig_echo = faulty_replace_function(DH_FUNC_ECHO, bad_echo); }

FAULTY_ENTRY("negzero", edit())
