/* Fault: with 16 or more live allocations, alloc_data_space hands out the most recent
 * handle again (two live allocations share storage). Expected clause: mem.no_overlap. */
#include <pthread.h>

#include "faulty.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int live;
static void* last;

static int bad_alloc(DLDevice dev, size_t nbytes, size_t alignment, DLDataType hint, void** out) {
  pthread_mutex_lock(&mu);
  if (live >= 16 && last) {
    *out = last;
    live++;
    pthread_mutex_unlock(&mu);
    return 0;
  }
  pthread_mutex_unlock(&mu);
  int rc = dh_sim_backend.alloc_data_space(dev, nbytes, alignment, hint, out);
  if (rc == 0) {
    pthread_mutex_lock(&mu);
    live++;
    last = *out;
    pthread_mutex_unlock(&mu);
  }
  return rc;
}

static int bad_free(DLDevice dev, void* ptr) {
  if (!ptr) return dh_sim_backend.free_data_space(dev, ptr);
  pthread_mutex_lock(&mu);
  live--;
  if (ptr == last) last = NULL;
  pthread_mutex_unlock(&mu);
  dh_sim_backend.free_data_space(dev, ptr); /* a second free of a shared handle fails: hide it */
  dh_error_clear();
  return 0;
}

FAULTY_ENTRY("overlap", (faulty.alloc_data_space = bad_alloc, faulty.free_data_space = bad_free))
