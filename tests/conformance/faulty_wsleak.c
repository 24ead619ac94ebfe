/* Fault: free_workspace does nothing (every workspace leaks).
 * Expected clause: mem.workspace_no_growth. */
#include "faulty.h"

static int ws_alloc(DLDevice dev, size_t nbytes, DLDataType hint, void** out) {
  if (dh_sim_backend.alloc_workspace) return dh_sim_backend.alloc_workspace(dev, nbytes, hint, out);
  return dh_sim_backend.alloc_data_space(dev, nbytes, DH_TEMP_ALLOC_ALIGNMENT, hint, out);
}

static int ws_free_leak(DLDevice dev, void* ptr) {
  (void)dev;
  (void)ptr;
  return 0;
}

FAULTY_ENTRY("wsleak", (faulty.alloc_workspace = ws_alloc, faulty.free_workspace = ws_free_leak))
