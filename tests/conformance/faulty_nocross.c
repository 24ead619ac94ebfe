/* Fault: copies between two devices of the backend are refused.
 * Expected clause: copy.cross_device. */
#include "faulty.h"

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  if (!faulty_is_host(dev_from) && !faulty_is_host(dev_to) && dev_from.device_id != dev_to.device_id)
    return dh_error_set("ValueError", "faulty_nocross: no copies between devices");
  return dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to,
                                          hint, stream);
}

FAULTY_ENTRY("nocross", faulty.copy_data_from_to = bad_copy)
