/* Fault: claims DH_CAP_EVENT_TIMING without event_elapsed_ms.
 * Expected clause: cap.event_timing (the event clauses are skipped). */
#include "faulty.h"

FAULTY_ENTRY("noevents", faulty.event_elapsed_ms = NULL)
