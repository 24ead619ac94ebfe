/* Fault: a zero-length D2H reaching the backend writes one byte before the
 * destination offset (the core never passes nbytes 0 on, so only a clause calling
 * the backend entry directly sees it). Expected clause: copy.zero_length. */
#include "faulty.h"

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  if (nbytes == 0 && faulty_is_host(dev_to) && to != NULL && to_offset > 0)
    ((uint8_t*)to)[to_offset - 1] ^= 0x5a;
  return dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to,
                                          hint, stream);
}

FAULTY_ENTRY("zerowrite", faulty.copy_data_from_to = bad_copy)
