/* Fault: free_stream(NULL) fails, and the driver's error message and what it writes
 * to stderr carry bytes no report may pass on raw: a UTF-16 surrogate (\xed\xa0\x80),
 * an overlong NUL (\xc0\x80), U+FFFE, a lone continuation byte and C0 controls (BEL,
 * ESC, CR). Expected clause: stream.free_null; tests/conformance/consumers.t checks that
 * TAP, JUnit and the summary carry them as visible escapes and stay readable. */
#include <stdio.h>

#include "faulty.h"

#define BAD_BYTES "surrogate \xed\xa0\x80 overlong \xc0\x80 nonchar \xef\xbf\xbe stray \x80 bel \x07 esc \x1b cr \r"

static int (*orig_free_stream)(DLDevice dev, dh_stream_t stream);

static int bad_free_stream(DLDevice dev, dh_stream_t stream) {
  if (stream == NULL) {
    fprintf(stderr, "badtext driver: %s\n", BAD_BYTES);
    return dh_error_set("RuntimeError", "badtext driver: %s", BAD_BYTES);
  }
  return orig_free_stream(dev, stream);
}

/* device type 13, not the sim's 12, so that it loads beside the real sim plugin */
FAULTY_ENTRY("badtext", (orig_free_stream = faulty.free_stream, faulty.free_stream = bad_free_stream,
                         faulty.device_type = 13))
