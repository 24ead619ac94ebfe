/*
 * devharness/module.h — functions loaded from shared objects.
 *
 * A module is a shared object that exports packed functions under tvm-ffi's symbol
 * convention (FACTS.md §3): a function `name` is the symbol `__tvm_ffi_<name>` with
 * the safe-call signature (devharness/function.h), called with self = NULL.
 * This is how TVM's external DSO modules export kernels
 * (reference/tvm-pr4280-external-dso-module.txt).
 */
#ifndef DEVHARNESS_MODULE_H_
#define DEVHARNESS_MODULE_H_

#include "devharness/function.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Symbol prefix of exported packed functions. */
#define DH_MODULE_SYMBOL_PREFIX "__tvm_ffi_"

/* An opened shared object. Opaque; free with dh_module_free. */
typedef struct dh_module dh_module_t;

/* dlopens `path` (RTLD_NOW | RTLD_LOCAL). On success *out_module is owned by the
 * caller. Errors: "IOError" naming the path and dlerror()'s reason.
 * Thread-safe (dlopen is). */
int dh_module_load(const char* path, dh_module_t** out_module);

/* Resolves function `name` (looking up "__tvm_ffi_<name>"). On success *out_fn is
 * valid until dh_module_free(module); self is NULL. Errors: "KeyError" naming the
 * symbol and the module path. Thread-safe. */
int dh_module_get_function(dh_module_t* module, const char* name, dh_function_t* out_fn);

/* Path the module was loaded from (owned by the module). */
const char* dh_module_path(const dh_module_t* module);

/* dlcloses and frees. NULL is a no-op. Functions obtained from it become invalid.
 * Not thread-safe with concurrent use of the same module. */
void dh_module_free(dh_module_t* module);

#ifdef __cplusplus
}
#endif
#endif /* DEVHARNESS_MODULE_H_ */
