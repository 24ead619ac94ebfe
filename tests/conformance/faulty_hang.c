/* Fault: stream_sync never returns when nothing has been allocated or launched yet
 * in the process (waits for a completion that never comes). Expected clause:
 * stream.sync_idle, reported as "timed out". */
#include "faulty_hang.h"

FAULTY_ENTRY("hang", hang_edit())
