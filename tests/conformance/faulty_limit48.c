/* Fault: allocations above 48 MiB fail with OutOfMemoryError although the device has
 * memory left (a per-allocation limit below the device's). Expected clause:
 * mem.size_64mib. */
#include "faulty.h"

static int bad_alloc(DLDevice dev, size_t nbytes, size_t alignment, DLDataType hint, void** out) {
  if (nbytes > ((size_t)48 << 20) && nbytes <= ((size_t)512 << 20)) {
    *out = NULL;
    return dh_error_set("OutOfMemoryError", "faulty_limit48: %zu bytes is above the 48 MiB limit", nbytes);
  }
  return dh_sim_backend.alloc_data_space(dev, nbytes, alignment, hint, out);
}

FAULTY_ENTRY("limit48", faulty.alloc_data_space = bad_alloc)
