/*
 * devharness/module.h — functions loaded from shared objects, through tvm-ffi's own
 * library module.
 *
 * A module is a shared object that exports packed functions under tvm-ffi's symbol
 * convention: function `name` is the symbol `__tvm_ffi_<name>` with the safe-call
 * signature (devharness/function.h), called with self = NULL. Loading is tvm-ffi's
 * (apache-tvm-ffi 0.1.15 src/ffi/extra/library_module.cc): the object's
 * `__tvm_ffi__library_ctx` pointer, when it exports one, is bound to the module, and
 * functions of modules it imports are found too. Functions built with tvm-ffi's C++
 * API (TVM_FFI_DLL_EXPORT_TYPED_FUNC) and devharness-style C functions load alike,
 * and the same file loads with Python's tvm_ffi.load_module.
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

/* Loads `path` with tvm-ffi's "ffi.ModuleLoadFromFile" (dlopen RTLD_LAZY |
 * RTLD_LOCAL; the file name must end in .so). On success *out_module is owned by the
 * caller. Errors: "IOError" for an unreadable file; otherwise tvm-ffi's error
 * (dlerror()'s reason), prefixed with the path. Thread-safe. */
int dh_module_load(const char* path, dh_module_t** out_module);

/* Resolves function `name` (symbol "__tvm_ffi_<name>", then the module's imports).
 * On success *out_fn owns a reference (dh_func_release) that keeps the module loaded,
 * even past dh_module_free. Errors: "KeyError" naming the symbol and the module path.
 * Thread-safe. */
int dh_module_get_function(dh_module_t* module, const char* name, dh_function_t* out_fn);

/* The functions the tvm-ffi library at `path` exports, read from its ELF dynamic
 * symbol table without loading it: each defined function symbol `__tvm_ffi_<name>`
 * gives <name> (tvm-ffi's own `__tvm_ffi__*` symbols are left out), sorted, at most
 * 4096. 0 and *out_names (count strings, malloc'd; free with dh_module_free_names),
 * or -1 with the error: IOError (unreadable), ValueError (not an ELF64 shared
 * object: the message names the file). Any file is safe to give (every offset is
 * checked). Thread-safe. Source: runtime/module.c (runtime/elf_exports.c). */
int dh_module_list_exports(const char* path, char*** out_names, size_t* out_count);

/* Frees what dh_module_list_exports gave. NULL is a no-op. */
void dh_module_free_names(char** names, size_t count);

/* Path the module was loaded from (owned by the module). */
const char* dh_module_path(const dh_module_t* module);

/* Drops this handle's reference to the module (the object is unloaded when no
 * function from it remains) and frees the handle. NULL is a no-op. Not thread-safe
 * with concurrent use of the same handle. */
void dh_module_free(dh_module_t* module);

#ifdef __cplusplus
}
#endif
#endif /* DEVHARNESS_MODULE_H_ */
