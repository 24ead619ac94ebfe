/* Fault: unavailable_reason names a reason although the backend has devices (a
 * leftover message from a failed probe). Expected clause: device.init_twice. */
#include "faulty.h"

static const char* bad_reason(void) { return "probe failed: no devices (left over)"; }

FAULTY_ENTRY("unavail", faulty.unavailable_reason = bad_reason)
