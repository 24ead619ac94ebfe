/* Fault: alloc_data_space rounds the size up to whole 64-byte blocks with wrapping
 * arithmetic, so SIZE_MAX (and SIZE_MAX - 63) becomes 0 and succeeds behind a 0-byte
 * block (the issue 26 finding).
 * Expected clause: mem.size_overflow. */
#include "faulty.h"

static int wrap_alloc(DLDevice dev, size_t nbytes, size_t alignment, DLDataType hint, void** out) {
  size_t blocks = (nbytes + DH_ALLOC_ALIGNMENT - 1) & ~(size_t)(DH_ALLOC_ALIGNMENT - 1); /* wraps */
  return dh_sim_backend.alloc_data_space(dev, blocks, alignment, hint, out);
}

FAULTY_ENTRY("sizewrap", faulty.alloc_data_space = wrap_alloc)
