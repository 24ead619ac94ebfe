/* Fault: the D2H range check is written `offset + nbytes > size`, so a byte_offset near
 * SIZE_MAX wraps past it and the copy is accepted. (A real backend would then read at
 * the wrapped address, before the allocation; this one stops short of the read, which
 * the sanitizer builds would stop first, so the clause sees the same slip in every
 * build.) In-range copies are the sim's own.
 * Expected clause: mem.range_overflow. */
#include "faulty.h"

static int naive_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                      DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  uint8_t* bytes;
  size_t size;
  if (!faulty_is_host(dev_from) && faulty_is_host(dev_to) && nbytes > 0 &&
      dh_sim_handle_bytes(dev_from, (void*)from, &bytes, &size) == 0 && from_offset + nbytes <= size &&
      from_offset > size) {
    /* what the naive check lets through: the copy, accepted */
    (void)to;
    (void)to_offset;
    return dh_sim_backend.stream_sync(dev_from, stream);
  }
  dh_error_clear();
  return dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to, hint,
                                          stream);
}

FAULTY_ENTRY("rangewrap", faulty.copy_data_from_to = naive_copy)
