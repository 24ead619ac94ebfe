/* Fault: a device-to-host copy to a host byte_offset of 1 KiB or more also writes the
 * byte just before the range (an off-by-one start). Expected clause:
 * copy.host_dst_outside. */
#include "faulty.h"

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  int rc = dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to, hint,
                                            stream);
  if (rc == 0 && !faulty_is_host(dev_from) && faulty_is_host(dev_to) && to_offset >= 1024 && nbytes > 0)
    rc = dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset - 1, 1, dev_from, dev_to, hint,
                                          stream);
  return rc;
}

FAULTY_ENTRY("hostdstearly", faulty.copy_data_from_to = bad_copy)
