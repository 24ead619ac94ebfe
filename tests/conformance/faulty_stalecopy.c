/* Fault: a D2H copy from a freed handle reports success (and copies nothing).
 * Expected clause: mem.stale_handle. */
#include "faulty.h"

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  uint8_t* bytes;
  size_t size;
  if (!faulty_is_host(dev_from) && faulty_is_host(dev_to) &&
      dh_sim_handle_bytes(dev_from, (void*)from, &bytes, &size) != 0) {
    dh_error_clear();
    return 0;
  }
  return dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to,
                                          hint, stream);
}

FAULTY_ENTRY("stalecopy", faulty.copy_data_from_to = bad_copy)
