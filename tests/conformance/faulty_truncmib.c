/* Fault: copies above 1 MiB are truncated to whole MiB (the odd tail is dropped).
 * Expected clauses: the ones with non-round sizes above 1 MiB (copy sizes, the
 * 1 MiB + 3 cross-device copy, 1 MiB + 3 allocations, 1 MiB + 12 pinned copies). */
#include "faulty.h"

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  const size_t mib = (size_t)1 << 20;
  if (nbytes > mib) nbytes &= ~(mib - 1);
  return dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to,
                                          hint, stream);
}

FAULTY_ENTRY("truncmib", faulty.copy_data_from_to = bad_copy)
