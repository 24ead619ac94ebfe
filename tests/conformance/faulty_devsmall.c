/* Fault: host-to-device copies under 4 KiB to any device but id 0 are dropped (a
 * small-copy path set up for the first device only). Expected clause:
 * device.each_id_works (faulty.t runs device 0; its clauses touch device 1 only
 * through each_id_works and the 1 MiB copies of copy.cross_device). */
#include "faulty.h"

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  if (faulty_is_host(dev_from) && !faulty_is_host(dev_to) && dev_to.device_id != 0 && nbytes < 4096)
    return 0;
  return dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to,
                                          hint, stream);
}

FAULTY_ENTRY("devsmall", faulty.copy_data_from_to = bad_copy)
