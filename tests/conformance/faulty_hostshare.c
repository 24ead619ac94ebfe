/* Fault: alloc_host serves every request that fits from one cached pinned block (a
 * staging buffer meant for one copy at a time) and free_host of it does nothing, so
 * live pinned blocks share bytes.
 * Expected clause: mem.host_distinct. */
#include <pthread.h>

#include "faulty.h"

#define CACHED (1u << 20)
static pthread_mutex_t host_mu = PTHREAD_MUTEX_INITIALIZER;
static void* cached;

static int shared_alloc_host(DLDevice dev, size_t nbytes, void** out) {
  if (nbytes > CACHED) return dh_sim_backend.alloc_host(dev, nbytes, out);
  pthread_mutex_lock(&host_mu);
  int rc = cached ? 0 : dh_sim_backend.alloc_host(dev, CACHED, &cached);
  *out = cached;
  pthread_mutex_unlock(&host_mu);
  return rc;
}

static int shared_free_host(DLDevice dev, void* ptr) {
  return ptr == cached ? 0 : dh_sim_backend.free_host(dev, ptr);
}

FAULTY_ENTRY("hostshare", (faulty.alloc_host = shared_alloc_host, faulty.free_host = shared_free_host))
