/* Fault: free_data_space looks the handle up by the allocation whose range contains it
 * (handle arithmetic as on host addresses), so freeing handle + 65 frees the whole
 * allocation under its owner.
 * Expected clause: mem.free_interior. */
#include <pthread.h>

#include "faulty.h"

#define LIVE_MAX 4096
static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t live_base[LIVE_MAX];
static size_t live_size[LIVE_MAX];

static int range_alloc(DLDevice dev, size_t nbytes, size_t alignment, DLDataType hint, void** out) {
  if (dh_sim_backend.alloc_data_space(dev, nbytes, alignment, hint, out) != 0) return -1;
  pthread_mutex_lock(&live_mu);
  for (int i = 0; i < LIVE_MAX; i++)
    if (!live_base[i]) {
      live_base[i] = (uintptr_t)*out;
      live_size[i] = nbytes;
      break;
    }
  pthread_mutex_unlock(&live_mu);
  return 0;
}

static int range_free(DLDevice dev, void* ptr) {
  uintptr_t u = (uintptr_t)ptr, base = u;
  int hit = -1;
  pthread_mutex_lock(&live_mu);
  for (int i = 0; i < LIVE_MAX && ptr && hit < 0; i++)
    if (live_base[i] == u) hit = i;
  for (int i = 0; i < LIVE_MAX && ptr && hit < 0; i++)
    if (live_base[i] && u > live_base[i] && u - live_base[i] < live_size[i])
      hit = i; /* the slip: the allocation containing the address, when no exact match */
  if (hit >= 0) {
    base = live_base[hit];
    live_base[hit] = 0;
  }
  pthread_mutex_unlock(&live_mu);
  return dh_sim_backend.free_data_space(dev, (void*)base);
}

FAULTY_ENTRY("freeinterior", (faulty.alloc_data_space = range_alloc, faulty.free_data_space = range_free))
