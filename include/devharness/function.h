/*
 * devharness/function.h — packed functions on tvm-ffi's function objects and global
 * function table.
 *
 * The calling convention is tvm-ffi's safe call (apache-tvm-ffi 0.1.15
 * include/tvm/ffi/c_api.h TVMFFISafeCallType):
 *     int call(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result)
 * Arguments are borrowed views for the duration of the call. `result` is None on
 * entry; a result holding an object is owned by the caller (devharness/any.h). 0 =
 * success, -1 = error raised with dh_error_set (devharness/error.h).
 *
 * A dh_function_t is one reference to a tvm-ffi Function object, so the same function
 * is callable through TVMFFIFunctionCall, from Python (tvm_ffi.get_global_func) and
 * from TVM. The registry is tvm-ffi's global function table
 * (TVMFFIFunctionSetGlobal / TVMFFIFunctionGetGlobal): backends' functions are
 * registered there as `devharness.device_api.<name>` and `<backend>.<function>`, visible to every
 * tvm-ffi user in the process (devharness/device_api.h "Plugins").
 */
#ifndef DEVHARNESS_FUNCTION_H_
#define DEVHARNESS_FUNCTION_H_

#include <stddef.h>
#include <stdint.h>

#include "devharness/any.h"

#ifdef __cplusplus
extern "C" {
#endif

/*===========================================================================
 * Types
 *===========================================================================*/

/* Safe-call signature, identical to tvm-ffi's TVMFFISafeCallType. */
typedef int (*dh_safe_call_t)(void* self, const dh_any_t* args, int32_t num_args,
                              dh_any_t* result);

/* A callable: one owned reference to a tvm-ffi Function object (TVMFFIObjectHandle),
 * or handle NULL for none. Release with dh_func_release; copying the struct does not
 * add a reference. */
typedef struct dh_function {
  void* handle;
} dh_function_t;

/*===========================================================================
 * Making and calling
 *===========================================================================*/

/* Wraps a C safe call as a tvm-ffi Function (TVMFFIFunctionCreate): calls run
 * call(self, ...); deleter(self) runs when the last reference goes (may be NULL).
 * With self and deleter both NULL, tvm-ffi stores `call` as the object's own safe
 * call (no trampoline) and passes the Function handle as self (apache-tvm-ffi 0.1.15
 * include/tvm/ffi/function.h ExternCFunctionObjNullHandleImpl): such a callee must
 * not read self.
 * *out owns one reference. 0, or -1 with the error raised ("ValueError" for a NULL
 * call or out). Thread-safe. */
int dh_func_create(dh_safe_call_t call, void* self, void (*deleter)(void* self),
                   dh_function_t* out);

/* Drops the reference *fn holds and sets handle to NULL. NULL fn or handle is a
 * no-op. */
void dh_func_release(dh_function_t* fn);

/* Calls `fn` (TVMFFIFunctionCall) with `num_args` borrowed arguments. *out_result is
 * set to None first, then by the callee, and owned by the caller (dh_any_release); a
 * NULL out_result releases the result. Returns 0, or -1 with the callee's error
 * raised; a callee that returns non-zero with no error raised gets ("InternalError",
 * "function returned <rc> without an error"). As in tvm-ffi the error store is not
 * cleared before the call. Errors: fn NULL or empty, num_args < 0, args NULL with
 * num_args > 0 -> "ValueError". Thread-safe if the callee is. */
int dh_func_call(const dh_function_t* fn, const dh_any_t* args, int32_t num_args,
                 dh_any_t* out_result);

/*===========================================================================
 * Global table (tvm-ffi's). Thread-safe among devharness callers: tvm-ffi's table has
 * no lock of its own (apache-tvm-ffi 0.1.15 src/ffi/function.cc), so these functions
 * serialise writers against readers with a process-wide rwlock; other code writing
 * the table concurrently (Python, TVM) is not covered.
 *===========================================================================*/

/* Registers call/self (as dh_func_create, no deleter; self NULL: see there) under `name` in tvm-ffi's
 * global table. If the name exists: with allow_override != 0 it is replaced, else -1
 * ("KeyError", "function <name> is already registered"). Errors: name NULL or empty,
 * call NULL -> "ValueError". */
int dh_func_register(const char* name, dh_safe_call_t call, void* self, int allow_override);

/* dh_func_register, with the metadata tvm-ffi keeps beside a global function (its
 * TVMFFIMethodInfo, registered with TVMFFIFunctionSetGlobalFromMethodInfo as tvm-ffi's
 * reflection GlobalDef does): metadata_json is a JSON object, by tvm-ffi's convention
 * {"type_schema": "<the signature as a JSON string>"} (include/tvm/ffi/function.h
 * TVM_FFI_DLL_EXPORT_TYPED_FUNC with TVM_FFI_DLL_EXPORT_INCLUDE_METADATA=1), which
 * Python reads with tvm_ffi.get_global_func_metadata(name); doc a docstring. Both are
 * copied; either may be NULL (both NULL: exactly dh_func_register). Errors as
 * dh_func_register. Thread-safe. Source: runtime/function.c. */
int dh_func_register_with_metadata(const char* name, dh_safe_call_t call, void* self, int allow_override,
                                   const char* metadata_json, const char* doc);

/* The metadata JSON of global function `name` (tvm-ffi's "ffi.GetGlobalFuncMetadata";
 * "" when it was registered without). 0 and *out_json malloc'd (the caller frees it),
 * or -1 with the error ("RuntimeError" when name is not registered; "ValueError" for a
 * NULL/empty name or out_json NULL). Thread-safe. Source: runtime/function.c. */
int dh_func_get_metadata(const char* name, char** out_json);

/* A function's type schema as its parameters' and return value's type keys: what
 * dh_type_schema_parse reads (the one reader of tvm-ffi type schemas in devharness;
 * `module check`, `bench --suite module` and dh_type_schema_format use it). */
#define DH_TYPE_SCHEMA_MAX_PARAMS 64 /* parameters dh_type_schema_parse reads; more is a ValueError */
#define DH_TYPE_KEY_MAX 64           /* bytes of a type key kept, the NUL included */
typedef struct dh_type_schema {
  int nparams;   /* parameters, or -1 when the schema lists none (not a function schema) */
  char params[DH_TYPE_SCHEMA_MAX_PARAMS][DH_TYPE_KEY_MAX]; /* each one's type key, "DLTensor*",
                    "int", "ffi.Tensor", "Optional" (arguments of a type left out), "?" none */
  char ret[DH_TYPE_KEY_MAX]; /* the return value's type key; "None" when none */
} dh_type_schema_t;

/* Parses a tvm-ffi type schema ({"type":"ffi.Function","named_args":{"return":[R],
 * "params":[P...]}}, tvm-ffi 0.1.15 function_detail.h FunctionInfo::TypeSchema; type
 * keys of type_traits.h StaticTypeKey, cut at DH_TYPE_KEY_MAX - 1 bytes) into *out
 * (caller-owned, zeroed first). 0; -1 ("ValueError") when type_schema is NULL or not
 * JSON, out is NULL, or it lists more than DH_TYPE_SCHEMA_MAX_PARAMS parameters.
 * Thread-safe. Source: runtime/type_schema.c. */
int dh_type_schema_parse(const char* type_schema, dh_type_schema_t* out);

/* Writes the signature a tvm-ffi type schema describes into buf (at most cap bytes,
 * NUL-terminated, cut when longer): a function schema ({"type":"ffi.Function",
 * "named_args":{"return":[R],"params":[P...]}}, tvm-ffi 0.1.15 function_detail.h
 * FunctionInfo::TypeSchema) as "(P, ...) -> R" with tvm-ffi's type keys ("DLTensor*",
 * "int", "ffi.Tensor", "Optional[int]", ...), any other schema as its type. 0, or -1
 * ("ValueError") when type_schema is NULL or not JSON, or buf is NULL / cap 0.
 * Thread-safe. Source: runtime/type_schema.c. */
int dh_type_schema_format(const char* type_schema, char* buf, size_t cap);

/* Looks `name` up (TVMFFIFunctionGetGlobal; any tvm-ffi global, whoever registered
 * it). 0 and *out_fn owning a reference (dh_func_release) when found; -1 ("KeyError",
 * "function <name> is not registered") otherwise. */
int dh_func_get(const char* name, dh_function_t* out_fn);

/* Removes `name` from the global table (tvm-ffi's "ffi.FunctionRemoveGlobal"); 0 if
 * it was there, -1 ("KeyError") if not. Holders of references keep working. */
int dh_func_remove(const char* name);

#ifdef __cplusplus
}
#endif
#endif /* DEVHARNESS_FUNCTION_H_ */
