/*
 * devharness/function.h — packed functions and the global function registry.
 *
 * The calling convention is tvm-ffi's safe call (FACTS.md §3):
 *     int call(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result)
 * Arguments are borrowed for the duration of the call. `result` is set by the callee
 * (it is initialised to None by dh_func_call); 0 = success, -1 = error stored with
 * dh_error_set (devharness/error.h). Functions exported from shared objects are called
 * with self = NULL (see devharness/module.h).
 *
 * The registry maps names to functions, like TVM's global function table
 * (TVMFFIFunctionSetGlobal / GetGlobal). Backends register `device_api.<name>` in it
 * (FACTS.md §1 "Registration") and their module functions as `<backend>.<function>`.
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

/* A callable: code plus the state it is called with. Plain data, copyable; the
 * registry or module that handed it out keeps `self` alive (registry: until the
 * name is overridden or the process exits; module: until dh_module_free). */
typedef struct dh_function {
  dh_safe_call_t call; /* never NULL in a function handed out by devharness */
  void* self;          /* passed as the first argument; may be NULL */
} dh_function_t;

/*===========================================================================
 * Calling
 *===========================================================================*/

/* Calls `fn` with `num_args` borrowed arguments. *out_result is set to None first,
 * then by the callee. Returns the callee's 0/-1. A callee that returns -1 without
 * storing an error gets ("InternalError", "function returned -1 without an error").
 * Thread-safe if the callee is. */
int dh_func_call(const dh_function_t* fn, const dh_any_t* args, int32_t num_args,
                 dh_any_t* out_result);

/*===========================================================================
 * Global registry (thread-safe: all functions may be called from any thread)
 *===========================================================================*/

/* Registers `fn` under `name` (copied). If the name exists: with allow_override != 0
 * it is replaced, else -1 ("KeyError", "function <name> is already registered").
 * Errors: name NULL or empty, fn.call NULL -> "ValueError". */
int dh_func_register(const char* name, dh_function_t fn, int allow_override);

/* Looks `name` up. 0 and *out_fn set when found; -1 ("KeyError", "function <name> is
 * not registered") otherwise. Lock-free readers are not promised: a lookup takes a
 * read lock, so benchmarks time it as "registry lookup". */
int dh_func_get(const char* name, dh_function_t* out_fn);

/* Removes `name`; 0 if it was there, -1 ("KeyError") if not. */
int dh_func_remove(const char* name);

/* Calls visit(name, user) for every registered name in sorted order, under the read
 * lock (visit must not register or remove). Returns the number of names visited. */
size_t dh_func_list(void (*visit)(const char* name, void* user), void* user);

#ifdef __cplusplus
}
#endif
#endif /* DEVHARNESS_FUNCTION_H_ */
