/* Fault: alloc_data_space refuses a type hint with more than one lane. Expected
 * clause: mem.dtype_hints. */
#include "faulty.h"

static int bad_alloc(DLDevice dev, size_t nbytes, size_t alignment, DLDataType hint, void** out) {
  if (hint.lanes > 1) {
    *out = NULL;
    return dh_error_set("ValueError", "faulty_lanesrefused: vector type hints are not supported");
  }
  return dh_sim_backend.alloc_data_space(dev, nbytes, alignment, hint, out);
}

FAULTY_ENTRY("lanesrefused", faulty.alloc_data_space = bad_alloc)
