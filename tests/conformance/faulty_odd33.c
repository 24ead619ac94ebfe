/* Fault: a 33-byte copy at a non-zero byte offset loses its last byte (a tail loop
 * that assumes 32-byte blocks once the start is misaligned). Expected clause:
 * copy.offset_matrix. */
#include "faulty.h"

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  if (nbytes == 33 && (from_offset != 0 || to_offset != 0)) nbytes = 32;
  return dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to, hint,
                                          stream);
}

FAULTY_ENTRY("odd33", faulty.copy_data_from_to = bad_copy)
