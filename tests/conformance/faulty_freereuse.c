/* Fault: free_data_space gives the storage back at once although queued work still
 * reads it (modelled by overwriting the bytes, as a reuse would).
 * Expected clause: mem.free_queued. */
#include "faulty.h"

static int bad_free(DLDevice dev, void* ptr) {
  uint8_t* bytes = NULL;
  size_t size = 0;
  if (ptr != NULL && dh_sim_handle_bytes(dev, ptr, &bytes, &size) == 0 && bytes != NULL)
    memset(bytes, 0, size);
  dh_error_clear();
  return dh_sim_backend.free_data_space(dev, ptr);
}

FAULTY_ENTRY("freereuse", faulty.free_data_space = bad_free)
