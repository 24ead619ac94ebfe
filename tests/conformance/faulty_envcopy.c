/* Fault: copy_data_from_to reads a NULL stream as "the current stream" and queues the
 * copy on the environment stream, so stream_sync(NULL) after a copy on NULL (TVM's
 * Tensor::CopyTo) does not wait for it while another stream is current.
 * Expected clause: stream.env_copies. */
#include "faulty.h"

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType type_hint, dh_stream_t stream) {
  if (stream == NULL) stream = dh_env_get_stream(faulty_is_host(dev_from) ? dev_to : dev_from);
  return dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to,
                                          type_hint, stream);
}

FAULTY_ENTRY("envcopy", faulty.copy_data_from_to = bad_copy)
