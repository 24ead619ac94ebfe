/* Fault: event_elapsed_ms answers at once with a made-up time instead of waiting for
 * the end event. Expected clauses: event.elapsed_waits, event.elapsed_values. */
#include "faulty.h"

static int bad_elapsed(DLDevice dev, dh_event_t start, dh_event_t end, double* out_ms) {
  (void)dev;
  (void)start;
  (void)end;
  *out_ms = 1.0;
  return 0;
}

FAULTY_ENTRY("evnowait", faulty.event_elapsed_ms = bad_elapsed)
