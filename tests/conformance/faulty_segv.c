/* Fault: a device-to-device copy of exactly 65537 bytes dereferences NULL (SIGSEGV).
 * Expected clause: copy.d2d_sizes, reported as "crashed: SIGSEGV". */
#include "faulty.h"

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  if (!faulty_is_host(dev_from) && !faulty_is_host(dev_to) && nbytes == 65537) {
    volatile int* volatile p = NULL;
    *p = 1;
  }
  return dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to,
                                          hint, stream);
}

FAULTY_ENTRY("segv", faulty.copy_data_from_to = bad_copy)
