/* Fault: kMultiProcessorCount counts the device's live streams in (as a driver that
 * reports the free queues of its hardware scheduler would), so the attribute drifts as
 * streams are created; with no stream live it is the sim's. Expected clause:
 * attr.stable_with_streams. */
#include "faulty.h"

static _Atomic int live_streams;

static int drift_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  int rc = dh_sim_backend.get_attr(dev, kind, out);
  if (rc == 0 && kind == DH_ATTR_MULTI_PROCESSOR_COUNT && out->type_index == DH_TYPE_INT)
    out->v_int64 += live_streams;
  return rc;
}

static int counting_create(DLDevice dev, dh_stream_t* out) {
  int rc = dh_sim_backend.create_stream(dev, out);
  if (rc == 0) live_streams++;
  return rc;
}

static int counting_free(DLDevice dev, dh_stream_t s) {
  int rc = dh_sim_backend.free_stream(dev, s);
  if (rc == 0 && s != NULL) live_streams--;
  return rc;
}

FAULTY_ENTRY("attrdrift", (faulty.get_attr = drift_get_attr, faulty.create_stream = counting_create,
                           faulty.free_stream = counting_free))
