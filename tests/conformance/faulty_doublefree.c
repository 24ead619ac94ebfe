/* Fault: freeing an unknown or already freed handle reports success.
 * Expected clause: mem.double_free. */
#include "faulty.h"

static int bad_free(DLDevice dev, void* ptr) {
  if (dh_sim_backend.free_data_space(dev, ptr) != 0) dh_error_clear();
  return 0;
}

FAULTY_ENTRY("doublefree", faulty.free_data_space = bad_free)
