/* Fault: a device-to-device copy of 32 to 64 KiB on one device moves instead of
 * copying: the source bytes are zeroed after the copy (a "swap buffers" shortcut).
 * Expected clause: copy.source_unchanged. */
#include "faulty.h"

static uint8_t zeros[1 << 16];

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  int rc = dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to, hint,
                                            stream);
  if (rc != 0 || faulty_is_host(dev_from) || faulty_is_host(dev_to) || dev_from.device_id != dev_to.device_id ||
      nbytes < 32768 || nbytes >= 65536)
    return rc;
  DLDevice host = {kDLCPU, 0};
  for (size_t done = 0; done < nbytes && rc == 0; done += sizeof zeros) {
    size_t n = nbytes - done < sizeof zeros ? nbytes - done : sizeof zeros;
    rc = dh_sim_backend.copy_data_from_to(zeros, 0, (void*)from, from_offset + done, n, host, dev_from, hint,
                                          stream);
  }
  return rc;
}

FAULTY_ENTRY("srcclobber", faulty.copy_data_from_to = bad_copy)
