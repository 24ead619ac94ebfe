/* Fault: freed buffers go to a cache keyed by exact size that holds at most 128 sizes
 * and refuses new allocations once full instead of evicting (OutOfMemoryError after
 * 128 distinct sizes were freed). Expected clause: mem.realloc_cycle (200 sizes). */
#include <pthread.h>

#include "faulty.h"

static size_t seen[128];
static int nseen;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static int known(size_t n) {
  for (int i = 0; i < nseen; i++)
    if (seen[i] == n) return 1;
  return 0;
}

static int bad_alloc(DLDevice dev, size_t nbytes, size_t alignment, DLDataType hint, void** out) {
  pthread_mutex_lock(&mu);
  int full = nseen == 128 && !known(nbytes);
  pthread_mutex_unlock(&mu);
  if (full) {
    *out = NULL;
    return dh_error_set("OutOfMemoryError", "faulty_sizecache: size cache full (128 sizes)");
  }
  return dh_sim_backend.alloc_data_space(dev, nbytes, alignment, hint, out);
}

static int bad_free(DLDevice dev, void* ptr) {
  uint8_t* bytes = NULL;
  size_t size = 0;
  if (ptr != NULL && dh_sim_handle_bytes(dev, ptr, &bytes, &size) == 0) {
    pthread_mutex_lock(&mu);
    if (!known(size) && nseen < 128) seen[nseen++] = size;
    pthread_mutex_unlock(&mu);
  }
  dh_error_clear();
  return dh_sim_backend.free_data_space(dev, ptr);
}

FAULTY_ENTRY("sizecache", (faulty.alloc_data_space = bad_alloc, faulty.free_data_space = bad_free))
