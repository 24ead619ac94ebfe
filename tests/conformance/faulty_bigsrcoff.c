/* Fault: a host-to-device copy drops a host source byte_offset of 1 KiB or more (a
 * staging path that only honours small offsets). Expected clause: copy.src_offsets. */
#include "faulty.h"

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  if (faulty_is_host(dev_from) && !faulty_is_host(dev_to) && from_offset >= 1024) from_offset = 0;
  return dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to, hint,
                                          stream);
}

FAULTY_ENTRY("bigsrcoff", faulty.copy_data_from_to = bad_copy)
