/* Fault: a D2D whose source and destination are the same handle takes a "same buffer"
 * shortcut that reads at the destination offset (as an in-place path would), so a copy
 * between two ranges of one buffer changes nothing. Expected clause: copy.same_buffer. */
#include "faulty.h"

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType type_hint, dh_stream_t stream) {
  if (!faulty_is_host(dev_from) && !faulty_is_host(dev_to) && from == to) from_offset = to_offset;
  return dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to,
                                          type_hint, stream);
}

FAULTY_ENTRY("samebuf", faulty.copy_data_from_to = bad_copy)
