/* Fault: alloc_workspace keeps one cached block and hands it out again whenever the
 * request fits, without marking it in use, so two live workspaces share storage.
 * Sequential alloc/free pairs (the common use) behave and leak nothing.
 * Expected clause: mem.workspaces_distinct. */
#include <pthread.h>

#include "faulty.h"

static pthread_mutex_t ws_mu = PTHREAD_MUTEX_INITIALIZER;
static void* cached;
static size_t cached_size;
static DLDevice cached_dev;

static int shared_alloc(DLDevice dev, size_t nbytes, DLDataType hint, void** out) {
  pthread_mutex_lock(&ws_mu);
  if (cached && nbytes <= cached_size && cached_dev.device_id == dev.device_id) {
    *out = cached; /* the slip: no in-use flag */
    pthread_mutex_unlock(&ws_mu);
    return 0;
  }
  pthread_mutex_unlock(&ws_mu);
  if (dh_sim_backend.alloc_data_space(dev, nbytes, DH_TEMP_ALLOC_ALIGNMENT, hint, out) != 0) return -1;
  pthread_mutex_lock(&ws_mu);
  if (!cached) {
    cached = *out;
    cached_size = nbytes;
    cached_dev = dev;
  }
  pthread_mutex_unlock(&ws_mu);
  return 0;
}

static int shared_free(DLDevice dev, void* ptr) {
  pthread_mutex_lock(&ws_mu);
  int keep = ptr != NULL && ptr == cached;
  pthread_mutex_unlock(&ws_mu);
  return keep ? 0 : dh_sim_backend.free_data_space(dev, ptr);
}

FAULTY_ENTRY("wsshare", (faulty.alloc_workspace = shared_alloc, faulty.free_workspace = shared_free))
