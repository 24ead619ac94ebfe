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

/* A function's signature as TVM prints it when a generated argument check refuses a
 * call (apache-tvm 0.27, the host function's argument checks made by tir's
 * MakePackedAPI/ArgBinder: "Mismatched A.ndim on argument #N when calling:\n
 * `vadd(A: Tensor([n], float32), B: Tensor([n], float32), C: Tensor([n], float32))`"),
 * or as a user writes the same text beside a library. What `module check` and
 * `bench --suite module` use for a function without a tvm-ffi type schema. */
#define DH_FUNC_SIG_MAX_NDIM 8 /* dimensions of a tensor parameter; more is a ValueError */
#define DH_FUNC_SIG_NAME_MAX 32 /* bytes of a parameter or dimension name kept, NUL included */
typedef enum dh_func_param_kind {
  DH_FUNC_PARAM_TENSOR, /* "Tensor([d0, d1, ...], dtype)": a DLTensor of that dtype */
  DH_FUNC_PARAM_SCALAR, /* "dtype" alone ("int32", "float32", "bool"): a POD argument */
  DH_FUNC_PARAM_OTHER   /* any other type ("handle", ...): no argument can be made */
} dh_func_param_kind_t;
typedef struct dh_func_param {
  char name[DH_FUNC_SIG_NAME_MAX]; /* "A" */
  dh_func_param_kind_t kind;
  DLDataType dtype;                /* tensors' element type, scalars' type; {0,0,0} for OTHER */
  int ndim;                        /* tensors: dimensions (0: a 0-d tensor); else 0 */
  int64_t dims[DH_FUNC_SIG_MAX_NDIM]; /* each dimension's static extent (>= 0), or -1 when
                                         it is symbolic: its text is in sym[] */
  char sym[DH_FUNC_SIG_MAX_NDIM][DH_FUNC_SIG_NAME_MAX]; /* "n", "m * 2"; "" when static */
} dh_func_param_t;
typedef struct dh_func_signature {
  char name[128];  /* the function's name before "(" */
  int nparams;
  dh_func_param_t params[DH_TYPE_SCHEMA_MAX_PARAMS];
} dh_func_signature_t;

/* Parses a signature "NAME(P: TYPE, ...)" (TYPE "Tensor([DIMS], DTYPE)" or a dtype
 * (dh_dtype_parse's spelling), anything else OTHER; DIMS integers or symbols) into
 * *out (caller-owned, zeroed first). text may be a whole TVM error message: the
 * signature is then the first `...` quoted part. 0; -1 ("ValueError", naming the
 * character offset and what was expected) when text is NULL or not such a signature,
 * a tensor has more than DH_FUNC_SIG_MAX_NDIM dimensions, or there are more than
 * DH_TYPE_SCHEMA_MAX_PARAMS parameters. Thread-safe. Source: runtime/func_signature.c. */
int dh_func_signature_parse(const char* text, dh_func_signature_t* out);

/* Asks fn for its signature: calls it with no arguments and parses the error it raises
 * (dh_func_signature_parse), which TVM-compiled functions word as above. 0 and *out;
 * -1 ("ValueError") when the call returned, or raised an error that holds no
 * signature; the error raised by the call is cleared either way. The call runs the
 * function: a function that does not check its arity may crash, so callers that must
 * survive one call this in a child. Thread-safe as fn is. Source:
 * runtime/func_signature.c. */
int dh_func_signature_probe(const dh_function_t* fn, dh_func_signature_t* out);

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
