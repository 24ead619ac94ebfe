/*
 * runtime/backend_funcs.c — reference implementations of the module functions "echo"
 * and "raise" (devharness/backend.h), which have nothing device-specific in them:
 * every backend points its function table at these instead of repeating them.
 */
#include <inttypes.h>
#include <string.h>

#include "devharness/backend.h"

/* A string argument: RawStr, or SmallStr copied into buf. 0, or -1 for other types. */
static int arg_str(const dh_any_t* a, char* buf, size_t n, const char** out) {
  if (a->type_index == DH_TYPE_RAW_STR && a->v_c_str != NULL) {
    *out = a->v_c_str;
    return 0;
  }
  if (a->type_index == DH_TYPE_SMALL_STR) {
    size_t len = a->small_str_len < 8 ? a->small_str_len : 8;
    if (len >= n) len = n - 1;
    memcpy(buf, a->v_bytes, len);
    buf[len] = '\0';
    *out = buf;
    return 0;
  }
  return -1;
}

int dh_backend_func_echo(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  if (num_args < 1 || args == NULL)
    return dh_error_set("TypeError", "echo: expected (Int index, any...), got %d argument(s)",
                        (int)num_args);
  if (args[0].type_index != DH_TYPE_INT)
    return dh_error_set("TypeError", "echo: argument 0 must be Int, got %s",
                        dh_type_index_name(args[0].type_index));
  int64_t i = args[0].v_int64;
  if (i < 0 || i >= (int64_t)num_args - 1)
    return dh_error_set("IndexError", "echo: index %" PRId64 " out of range [0, %d)", i,
                        (int)num_args - 1);
  if (result != NULL) *result = args[1 + i];
  return 0;
}

int dh_backend_func_raise(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  (void)result;
  char kind_buf[9], msg_buf[9];
  const char* kind = NULL;
  const char* msg = NULL;
  if (num_args != 2 || args == NULL || arg_str(&args[0], kind_buf, sizeof kind_buf, &kind) != 0 ||
      arg_str(&args[1], msg_buf, sizeof msg_buf, &msg) != 0)
    return dh_error_set("TypeError", "raise: expected (Str kind, Str message)");
  return dh_error_set(kind, "%s", msg);
}
