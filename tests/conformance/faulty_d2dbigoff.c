/* Fault: a device-to-device copy under 64 KiB on one device drops a destination
 * byte_offset between 1 KiB and 64 KiB. Expected clause: copy.d2d_offsets. */
#include "faulty.h"

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  if (!faulty_is_host(dev_from) && !faulty_is_host(dev_to) && dev_from.device_id == dev_to.device_id &&
      to_offset >= 1024 && to_offset < 65536 && nbytes < 65536)
    to_offset = 0;
  return dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to, hint,
                                          stream);
}

FAULTY_ENTRY("d2dbigoff", faulty.copy_data_from_to = bad_copy)
