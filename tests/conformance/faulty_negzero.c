/* Fault: echo normalises a Float -0.0 to +0.0 (a POD argument not passed intact).
 * Expected clause: packed.echo_float. */
#include "faulty.h"

static dh_backend_function_t fns[16];
static dh_safe_call_t orig_echo;

static int bad_echo(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  int rc = orig_echo(self, args, n, rv);
  if (rc == 0 && rv->type_index == DH_TYPE_FLOAT && rv->v_float64 == 0.0) rv->v_float64 = 0.0;
  return rc;
}

static void edit(void) {
  size_t n = dh_sim_backend.num_functions < 16 ? dh_sim_backend.num_functions : 16;
  for (size_t i = 0; i < n; i++) {
    fns[i] = dh_sim_backend.functions[i];
    if (strcmp(fns[i].name, DH_FUNC_ECHO) == 0) {
      orig_echo = fns[i].call;
      fns[i].call = bad_echo;
    }
  }
  faulty.functions = fns;
  faulty.num_functions = n;
}

FAULTY_ENTRY("negzero", edit())
