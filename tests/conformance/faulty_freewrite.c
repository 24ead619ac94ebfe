/* Fault: free_data_space puts the storage in a one-entry pool at once and the next
 * allocation of the same size gets it (under a new handle), although a queued copy
 * still writes it: the pending write then lands in the new owner's data. The pooled
 * storage counts as free (kAvailableGlobalMemory), as a pooling allocator reports it.
 * Expected clause: mem.free_queued_write. */
#include "faulty.h"
#include "backends/sim/sim_internal.h"

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static dh_sim_buffer_t* pooled; /* holds the table's former reference */

static void uncharge(dh_sim_device_t* d, dh_sim_buffer_t* b) {
  pthread_mutex_lock(&d->mu);
  d->used -= b->charged;
  pthread_mutex_unlock(&d->mu);
  b->charged = 0;
}

static int bad_free(DLDevice dev, void* ptr) {
  dh_sim_device_t* d;
  dh_sim_obj_t* obj;
  if (ptr == NULL) return 0;
  if (dh_sim_device_get(dev, &d) != 0 ||
      dh_sim_table_remove(&d->buffers, DH_SIM_KIND_BUFFER, d->id, ptr, "data space handle", &obj) != 0)
    return -1;
  dh_sim_buffer_t* b = (dh_sim_buffer_t*)obj;
  uncharge(d, b);
  pthread_mutex_lock(&pool_mu);
  dh_sim_buffer_t* old = pooled;
  pooled = b;
  pthread_mutex_unlock(&pool_mu);
  dh_sim_obj_release(old ? &old->obj : NULL);
  return 0;
}

static int bad_alloc(DLDevice dev, size_t nbytes, size_t alignment, DLDataType type_hint, void** out) {
  dh_sim_device_t* d;
  if (out != NULL && nbytes > 0 && alignment <= DH_ALLOC_ALIGNMENT && dh_sim_device_get(dev, &d) == 0) {
    pthread_mutex_lock(&pool_mu);
    dh_sim_buffer_t* b = pooled;
    if (b && b->size == nbytes && b->device_id == d->id) pooled = NULL;
    else b = NULL;
    pthread_mutex_unlock(&pool_mu);
    if (b) {
      pthread_mutex_lock(&d->mu);
      d->used += nbytes;
      pthread_mutex_unlock(&d->mu);
      b->charged = nbytes;
      return dh_sim_table_add(&d->buffers, DH_SIM_KIND_BUFFER, d->id, &b->obj, out);
    }
  }
  dh_error_clear();
  return dh_sim_backend.alloc_data_space(dev, nbytes, alignment, type_hint, out);
}

FAULTY_ENTRY("freewrite", faulty.alloc_data_space = bad_alloc; faulty.free_data_space = bad_free)
