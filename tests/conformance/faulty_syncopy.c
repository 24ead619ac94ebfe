/* Fault: claims DH_CAP_ASYNC_COPY but every copy is finished when the call returns.
 * Expected clause: cap.async_copy. */
#include "faulty.h"

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  int rc = dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to,
                                            hint, stream);
  if (rc == 0) rc = dh_sim_backend.stream_sync(faulty_is_host(dev_from) ? dev_to : dev_from, stream);
  return rc;
}

FAULTY_ENTRY("syncopy", faulty.copy_data_from_to = bad_copy)
