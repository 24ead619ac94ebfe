/* Fault: the backend's own echo copies a ByteArrayPtr argument as a C string (up to
 * the first NUL byte). Expected clause: packed.echo_bytes. */
#include "faulty.h"

static dh_safe_call_t orig;

static int bad(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  if (n >= 2 && args[0].type_index == DH_TYPE_INT && args[0].v_int64 >= 0 && args[0].v_int64 < n - 1 &&
      args[1 + args[0].v_int64].type_index == DH_TYPE_BYTE_ARRAY_PTR) {
    const dh_byte_array_t* b = (const dh_byte_array_t*)args[1 + args[0].v_int64].v_ptr;
    size_t len = b ? strnlen(b->data, b->size) : 0;
    dh_any_t small = dh_any_make(DH_TYPE_SMALL_BYTES);
    small.small_str_len = (uint32_t)(len < 8 ? len : 8);
    if (len) memcpy(small.v_bytes, b->data, small.small_str_len);
    *rv = small;
    return 0;
  }
  return orig(self, args, n, rv);
}

FAULTY_ENTRY("echobytes", orig = faulty_replace_function(DH_FUNC_ECHO, bad))
