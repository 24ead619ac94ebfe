/* Fault: free_stream discards the commands still queued on the stream instead of
 * letting them finish. Expected clause: stream.free_pending. */
#include "faulty.h"
#include "backends/sim/sim_internal.h"

static int bad_free_stream(DLDevice dev, dh_stream_t stream) {
  dh_sim_device_t* d;
  dh_sim_stream_t* s;
  if (stream != NULL && dh_sim_device_get(dev, &d) == 0 && dh_sim_stream_get(d, stream, &s) == 0) {
    pthread_mutex_lock(&s->mu);
    while (s->head) {
      dh_sim_cmd_t* x = s->head;
      s->head = x->next;
      dh_sim_cmd_discard(x);
    }
    s->tail = NULL;
    s->completed = s->submitted; /* nothing left to wait for */
    pthread_cond_broadcast(&s->done_cv);
    pthread_mutex_unlock(&s->mu);
    dh_sim_obj_release(&s->obj);
  }
  dh_error_clear();
  return dh_sim_backend.free_stream(dev, stream);
}

FAULTY_ENTRY("freedrop", faulty.free_stream = bad_free_stream)
