/* Fault: a stream holds at most 48 copies between two stream_sync calls; later ones
 * are dropped without an error (a fixed-size command ring that overflows silently).
 * Expected clause: copy.many_disjoint (64 copies, then one sync). */
#include <pthread.h>

#include "faulty.h"

static struct {
  DLDevice dev;
  dh_stream_t s;
  int n;
} pending[64];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* The pending count of (dev, s) after adding `add` (0 resets it when reset). */
static int count(DLDevice dev, dh_stream_t s, int add, int reset) {
  pthread_mutex_lock(&mu);
  int free_slot = -1, n = 0;
  for (int i = 0; i < 64; i++) {
    if (pending[i].n > 0 && pending[i].s == s && pending[i].dev.device_id == dev.device_id) {
      pending[i].n = reset ? 0 : pending[i].n + add;
      n = pending[i].n;
      pthread_mutex_unlock(&mu);
      return n;
    }
    if (pending[i].n == 0 && free_slot < 0) free_slot = i;
  }
  if (!reset && free_slot >= 0) {
    pending[free_slot].dev = dev;
    pending[free_slot].s = s;
    pending[free_slot].n = n = add;
  }
  pthread_mutex_unlock(&mu);
  return n;
}

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  DLDevice dev = faulty_is_host(dev_from) ? dev_to : dev_from;
  if (nbytes > 0 && count(dev, stream, 1, 0) > 48) return 0;
  return dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to, hint,
                                          stream);
}

static int bad_sync(DLDevice dev, dh_stream_t s) {
  count(dev, s, 0, 1);
  return dh_sim_backend.stream_sync(dev, s);
}

FAULTY_ENTRY("queuecap", (faulty.copy_data_from_to = bad_copy, faulty.stream_sync = bad_sync))
