/* Fault: the backend's own echo accepts a string index ("0") by parsing it instead of
 * giving TypeError. Expected clause: packed.echo_type_error. */
#include <stdlib.h>

#include "faulty.h"

static dh_safe_call_t orig;

static int bad(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  dh_byte_array_t s;
  if (n >= 1 && args[0].type_index != DH_TYPE_INT && dh_any_as_str(&args[0], &s) == 0 && s.size > 0 &&
      s.size < 16) {
    char buf[16];
    memcpy(buf, s.data, s.size);
    buf[s.size] = '\0';
    dh_any_t* a = malloc(sizeof *a * (size_t)n);
    if (a == NULL) return dh_error_set("OutOfMemoryError", "echo: out of memory");
    memcpy(a, args, sizeof *a * (size_t)n);
    a[0] = dh_any_int(strtoll(buf, NULL, 10));
    int rc = orig(self, a, n, rv);
    free(a);
    return rc;
  }
  return orig(self, args, n, rv);
}

FAULTY_ENTRY("echotype", orig = faulty_replace_function(DH_FUNC_ECHO, bad))
