/*
 * runtime/backend_funcs.c — reference implementations of the module functions "echo"
 * and "raise" (devharness/backend.h), which have nothing device-specific in them:
 * every backend points its function table at these instead of repeating them.
 * Values may come from C (POD, RawStr) or from tvm-ffi callers (Str/Bytes/Tensor/
 * Array objects); the result of echo is an owned copy as tvm-ffi requires
 * (devharness/any.h "Ownership").
 */
#include <inttypes.h>
#include <string.h>

#include "devharness/backend.h"

int dh_backend_func_echo(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  if (num_args < 1 || args == NULL)
    return dh_error_set(DH_KIND_TYPE_ERROR, "echo: expected (Int index, any...), got %d argument(s)",
                        (int)num_args);
  if (args[0].type_index != DH_TYPE_INT)
    return dh_error_set(DH_KIND_TYPE_ERROR, "echo: argument 0 must be Int, got %s",
                        dh_type_index_name(args[0].type_index));
  int64_t i = args[0].v_int64;
  if (i < 0 || i >= (int64_t)num_args - 1)
    return dh_error_set(DH_KIND_INDEX_ERROR, "echo: index %" PRId64 " out of range [0, %d)", i,
                        (int)num_args - 1);
  if (result == NULL) return 0;
  return dh_any_copy(&args[1 + i], result);
}

int dh_backend_func_raise(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  (void)result;
  dh_byte_array_t kind, msg;
  if (num_args != 2 || args == NULL || dh_any_as_str(&args[0], &kind) != 0 ||
      dh_any_as_str(&args[1], &msg) != 0 || args[0].type_index == DH_TYPE_SMALL_BYTES ||
      args[0].type_index == DH_TYPE_BYTES || args[0].type_index == DH_TYPE_BYTE_ARRAY_PTR)
    return dh_error_set(DH_KIND_TYPE_ERROR, "raise: expected (Str kind, Str message)");
  if (kind.size == 0 || kind.size >= DH_ERROR_KIND_MAX)
    return dh_error_set(DH_KIND_VALUE_ERROR, "raise: kind must be 1..%d bytes, got %zu",
                        DH_ERROR_KIND_MAX - 1, kind.size);
  char k[DH_ERROR_KIND_MAX];
  memcpy(k, kind.data, kind.size);
  k[kind.size] = '\0';
  return dh_error_set(k, "%.*s", (int)(msg.size < DH_ERROR_MESSAGE_MAX ? msg.size : DH_ERROR_MESSAGE_MAX),
                      msg.data);
}
