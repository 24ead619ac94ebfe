/* Fault: the backend's own raise replaces non-ASCII bytes of the message by '?' (the
 * message not carried byte for byte). Expected clause: packed.raise_message. */
#include <stdio.h>

#include "faulty.h"

static dh_safe_call_t orig;

static int bad(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  int rc = orig(self, args, n, rv);
  if (rc != 0) {
    char kind[DH_ERROR_KIND_MAX], msg[DH_ERROR_MESSAGE_MAX];
    snprintf(kind, sizeof kind, "%s", dh_error_kind());
    snprintf(msg, sizeof msg, "%s", dh_error_message());
    for (char* p = msg; *p; p++)
      if ((unsigned char)*p >= 0x80) *p = '?';
    return dh_error_set(kind, "%s", msg);
  }
  return rc;
}

FAULTY_ENTRY("raisemsg", orig = faulty_replace_function(DH_FUNC_RAISE, bad))
