/* Fault: stream_sync returns at once while fewer than 64 copies were queued since it
 * last waited (a DeviceAPI whose StreamSync forgets to wait for its worker, with a
 * bounded queue: every 64th call waits). Freeing memory or a stream still waits for
 * the queued work, so the process itself stays sound. Not part of the proof of power:
 * tests/bench/implausible.t checks that bench reports every harness copy row as
 * implausible (its bytes had not arrived) instead of a bandwidth. */
#include <stdatomic.h>

#include "faulty.h"

static atomic_int queued;

static int counted_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                        DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  atomic_fetch_add(&queued, 1);
  return dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to, hint,
                                          stream);
}

static int early_stream_sync(DLDevice dev, dh_stream_t stream) {
  if (atomic_load(&queued) < 64) return 0; /* "already done" */
  atomic_store(&queued, 0);
  return dh_sim_backend.stream_sync(dev, stream);
}

static int drained_free_data_space(DLDevice dev, void* ptr) {
  if (dh_sim_backend.stream_sync(dev, NULL) != 0) return -1;
  return dh_sim_backend.free_data_space(dev, ptr);
}

static int drained_free_stream(DLDevice dev, dh_stream_t stream) {
  if (dh_sim_backend.stream_sync(dev, stream) != 0) return -1;
  return dh_sim_backend.free_stream(dev, stream);
}

FAULTY_ENTRY("syncnop", (faulty.copy_data_from_to = counted_copy, faulty.stream_sync = early_stream_sync,
                         faulty.free_data_space = drained_free_data_space, faulty.free_stream = drained_free_stream))
