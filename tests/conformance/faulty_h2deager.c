/* Fault: a host-to-device copy writes the device storage at once, past the stream's
 * queue (as a backend writing host-visible device memory through a mapping does), so it
 * lands before work queued ahead of it on that stream. Expected clause:
 * copy.h2d_in_order. */
#include "faulty.h"

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType type_hint, dh_stream_t stream) {
  uint8_t* bytes = NULL;
  size_t size = 0;
  if (faulty_is_host(dev_from) && !faulty_is_host(dev_to) && nbytes > 0 && from != NULL &&
      dh_sim_handle_bytes(dev_to, to, &bytes, &size) == 0 && bytes != NULL && to_offset <= size &&
      nbytes <= size - to_offset) {
    memcpy(bytes + to_offset, (const uint8_t*)from + from_offset, nbytes);
    return 0;
  }
  dh_error_clear();
  return dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to,
                                          type_hint, stream);
}

FAULTY_ENTRY("h2deager", faulty.copy_data_from_to = bad_copy)
