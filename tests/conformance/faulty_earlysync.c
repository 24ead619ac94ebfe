/* Fault: stream_sync on a created stream returns at once when the last thing queued
 * on it is a large (>= 1 MiB) device-to-host copy. Expected clause: stream.sync_waits. */
#include <pthread.h>

#include "faulty.h"

#define SLOTS 256
static struct {
  dh_stream_t s;
  int big_d2h_last;
} slots[SLOTS];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void note(dh_stream_t s, int big) {
  pthread_mutex_lock(&mu);
  int free_slot = -1;
  for (int i = 0; i < SLOTS; i++) {
    if (slots[i].s == s) {
      slots[i].big_d2h_last = big;
      pthread_mutex_unlock(&mu);
      return;
    }
    if (!slots[i].s && free_slot < 0) free_slot = i;
  }
  if (free_slot >= 0) {
    slots[free_slot].s = s;
    slots[free_slot].big_d2h_last = big;
  }
  pthread_mutex_unlock(&mu);
}

static int last_was_big(dh_stream_t s) {
  int r = 0;
  pthread_mutex_lock(&mu);
  for (int i = 0; i < SLOTS; i++)
    if (slots[i].s == s) r = slots[i].big_d2h_last;
  pthread_mutex_unlock(&mu);
  return r;
}

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  if (stream) note(stream, !faulty_is_host(dev_from) && faulty_is_host(dev_to) && nbytes >= (1u << 20));
  return dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to,
                                          hint, stream);
}

static int bad_stream_sync(DLDevice dev, dh_stream_t stream) {
  if (stream && last_was_big(stream)) return 0; /* "already done" */
  return dh_sim_backend.stream_sync(dev, stream);
}

FAULTY_ENTRY("earlysync", (faulty.copy_data_from_to = bad_copy, faulty.stream_sync = bad_stream_sync))
