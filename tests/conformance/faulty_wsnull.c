/* Fault: alloc_workspace answers requests below its 64 KiB block size with a NULL
 * handle and success (a pool that only serves whole blocks). Expected clause:
 * mem.workspace. */
#include "faulty.h"

static int ws_alloc(DLDevice dev, size_t nbytes, DLDataType hint, void** out) {
  if (nbytes < 65536) {
    *out = NULL;
    return 0;
  }
  return dh_sim_backend.alloc_data_space(dev, nbytes, DH_TEMP_ALLOC_ALIGNMENT, hint, out);
}

static int ws_free(DLDevice dev, void* ptr) { return dh_sim_backend.free_data_space(dev, ptr); }

FAULTY_ENTRY("wsnull", (faulty.alloc_workspace = ws_alloc, faulty.free_workspace = ws_free))
