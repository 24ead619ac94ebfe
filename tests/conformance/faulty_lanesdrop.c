/* Fault: a copy whose type hint has several lanes moves nbytes / lanes bytes (the
 * size computed per element, not per vector). Expected clause: copy.dtypes. */
#include "faulty.h"

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  if (hint.lanes > 1) nbytes /= hint.lanes;
  return dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to, hint,
                                          stream);
}

FAULTY_ENTRY("lanesdrop", faulty.copy_data_from_to = bad_copy)
