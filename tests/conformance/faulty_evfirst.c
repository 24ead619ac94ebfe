/* Fault: event_record of an event that was recorded before is ignored (the event keeps
 * its first record), so event_elapsed_ms over re-recorded events answers from the
 * first interval without waiting. Expected clause: event.rerecord. */
#include "faulty.h"
#include "backends/sim/sim_internal.h"

static int bad_record(DLDevice dev, dh_event_t event, dh_stream_t stream) {
  dh_sim_device_t* d;
  dh_sim_obj_t* obj;
  if (dh_sim_device_get(dev, &d) == 0 &&
      dh_sim_table_get(&d->events, DH_SIM_KIND_EVENT, d->id, event, "event", &obj) == 0) {
    dh_sim_event_t* e = (dh_sim_event_t*)obj;
    pthread_mutex_lock(&e->mu);
    uint64_t recorded = e->requested;
    pthread_mutex_unlock(&e->mu);
    dh_sim_obj_release(obj);
    if (recorded > 0) return 0;
  }
  dh_error_clear();
  return dh_sim_backend.event_record(dev, event, stream);
}

FAULTY_ENTRY("evfirst", faulty.event_record = bad_record)
