/*
 * tests/runtime/ffi_module.c — a shared object exporting packed functions under
 * tvm-ffi's symbol convention (__tvm_ffi_<name>, safe-call signature, self = NULL),
 * loaded by tests/runtime/test_module.c.
 *   check_pod(12 args, one per POD type, fixed values) -> Int bitmask of args that
 *       did not arrive intact (0 = all intact); TypeError on a wrong count.
 *   echo(Int index, any...) -> an owned copy of args[1 + index]
 *   raise(Str kind, Str message) -> that error (any string form)
 *   describe(any) -> Str: the type name of the argument as the module sees it
 */
#include <math.h>
#include <string.h>

#include "devharness/error.h"
#include "devharness/function.h"

#define EXPORT __attribute__((visibility("default")))

/* Values the test passes; see test_module.c. */
static int check_one(int i, const dh_any_t* a) {
  switch (i) {
    case 0: return a->type_index == DH_TYPE_NONE && a->v_int64 == 0;
    case 1: return a->type_index == DH_TYPE_INT && a->v_int64 == INT64_MIN + 7;
    case 2: return a->type_index == DH_TYPE_BOOL && a->v_int64 == 1;
    case 3: return a->type_index == DH_TYPE_FLOAT && a->v_float64 == -2.5e300;
    case 4: return a->type_index == DH_TYPE_OPAQUE_PTR && a->v_ptr == (void*)(uintptr_t)0xdeadbeef0ull;
    case 5: return a->type_index == DH_TYPE_DATA_TYPE && a->v_dtype.code == 2 && a->v_dtype.bits == 16 &&
                   a->v_dtype.lanes == 4;
    case 6: return a->type_index == DH_TYPE_DEVICE && a->v_device.device_type == 12 && a->v_device.device_id == 3;
    case 7: {
      const DLTensor* t = a->v_ptr;
      return a->type_index == DH_TYPE_DL_TENSOR_PTR && t != NULL && t->ndim == 2 && t->shape[0] == 3 &&
             t->shape[1] == 5 && t->byte_offset == 8;
    }
    case 8: return a->type_index == DH_TYPE_RAW_STR && strcmp(a->v_c_str, "h\xc3\xa9llo, world") == 0;
    case 9: {
      const dh_byte_array_t* b = a->v_ptr;
      return a->type_index == DH_TYPE_BYTE_ARRAY_PTR && b != NULL && b->size == 5 && memcmp(b->data, "a\0b\0c", 5) == 0;
    }
    case 10: return a->type_index == DH_TYPE_SMALL_STR && a->small_str_len == 7 && memcmp(a->v_bytes, "seven7\x21", 8) == 0;
    case 11: return a->type_index == DH_TYPE_SMALL_BYTES && a->small_str_len == 8 &&
                    memcmp(a->v_bytes, "\0\1\2\3\4\5\6\7", 8) == 0;
    default: return 0;
  }
}

EXPORT int __tvm_ffi_check_pod(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  if (self != NULL) return dh_error_set("ValueError", "check_pod: self should be NULL");
  if (n != 12) return dh_error_set("TypeError", "check_pod: expected 12 arguments, got %d", (int)n);
  int64_t bad = 0;
  for (int i = 0; i < n; i++)
    if (!check_one(i, &args[i])) bad |= (int64_t)1 << i;
  *rv = dh_any_int(bad);
  return 0;
}

EXPORT int __tvm_ffi_echo(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self;
  if (n < 1 || args[0].type_index != DH_TYPE_INT) return dh_error_set("TypeError", "echo: args[0] must be Int");
  if (args[0].v_int64 < 0 || args[0].v_int64 >= n - 1)
    return dh_error_set("IndexError", "echo: index %lld out of range", (long long)args[0].v_int64);
  return dh_any_copy(&args[1 + args[0].v_int64], rv); /* an owned result (any.h) */
}

EXPORT int __tvm_ffi_raise(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self, (void)rv;
  dh_byte_array_t kind, msg;
  char k[64];
  if (n != 2 || dh_any_as_str(&args[0], &kind) != 0 || dh_any_as_str(&args[1], &msg) != 0 ||
      kind.size >= sizeof k)
    return dh_error_set("TypeError", "raise: expected (Str kind, Str message)");
  memcpy(k, kind.data, kind.size);
  k[kind.size] = '\0';
  return dh_error_set(k, "%.*s", (int)msg.size, msg.data);
}

EXPORT int __tvm_ffi_describe(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self;
  if (n != 1) return dh_error_set("TypeError", "describe: expected 1 argument");
  const char* name = dh_type_index_name(args[0].type_index);
  return dh_any_string(name, strlen(name), rv);
}

/* Not following the convention: must not be found as function "plain". */
EXPORT int plain(void);
EXPORT int plain(void) { return 0; }
