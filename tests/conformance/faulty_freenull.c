/* Fault: free_data_space(NULL) is an error instead of a no-op.
 * Expected clause: mem.free_null. */
#include "faulty.h"

static int bad_free(DLDevice dev, void* ptr) {
  if (!ptr) return dh_error_set("ValueError", "faulty_freenull: NULL handle");
  return dh_sim_backend.free_data_space(dev, ptr);
}

FAULTY_ENTRY("freenull", faulty.free_data_space = bad_free)
