/* Fault: after an allocation fails for lack of memory, the device is left broken:
 * every later allocation fails too (an allocator whose failure path does not unlock
 * its state). Expected clause: mem.too_large. */
#include <stdatomic.h>

#include "faulty.h"

static atomic_int broken;

static int bad_alloc(DLDevice dev, size_t nbytes, size_t alignment, DLDataType hint, void** out) {
  if (atomic_load(&broken)) {
    *out = NULL;
    return dh_error_set("RuntimeError", "faulty_oombreak: allocator state lost after an earlier failure");
  }
  int rc = dh_sim_backend.alloc_data_space(dev, nbytes, alignment, hint, out);
  if (rc != 0 && strcmp(dh_error_kind(), "OutOfMemoryError") == 0) atomic_store(&broken, 1);
  return rc;
}

FAULTY_ENTRY("oombreak", faulty.alloc_data_space = bad_alloc)
