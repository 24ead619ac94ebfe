/* Fault: get_current_stream always answers NULL (the stream set_stream stored is never
 * read back). Expected clause: stream.set_get. */
#include "faulty.h"

static int bad_get(DLDevice dev, dh_stream_t* out) {
  (void)dev;
  *out = NULL;
  return 0;
}

FAULTY_ENTRY("getnull", faulty.get_current_stream = bad_get)
