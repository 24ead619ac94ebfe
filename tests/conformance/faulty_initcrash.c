/* Fault: init dereferences NULL. Not a clause fault: the runner must report every
 * clause of the backend as failed (device probe crashed) and still exit normally
 * (tests/conformance/suite.t). */
#include "faulty.h"

static int bad_init(void) {
  volatile int* volatile p = NULL;
  *p = 1;
  return dh_sim_backend.init();
}

FAULTY_ENTRY("initcrash", faulty.init = bad_init)
