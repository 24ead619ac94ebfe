/* Fault: the hang of faulty_hang (tests/conformance/faulty_hang.h) on a backend without
 * device-side timing (no DH_CAP_EVENT_TIMING, no event entries). The event clauses skip
 * on it; their cleanup must not sync what they never queued, so they stay skips and
 * stream.sync_idle alone times out. Expected clause: stream.sync_idle, reported as
 * "timed out". */
#include "faulty_hang.h"

static void edit(void) {
  hang_edit();
  faulty.caps &= ~(uint32_t)DH_CAP_EVENT_TIMING;
  faulty.event_create = NULL;
  faulty.event_record = NULL;
  faulty.event_elapsed_ms = NULL;
  faulty.event_free = NULL;
}

FAULTY_ENTRY("idlehang", edit())
