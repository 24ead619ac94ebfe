/*
 * runtime/module.c — devharness/module.h on tvm-ffi's own library module: loading is
 * tvm-ffi's "ffi.ModuleLoadFromFile" (dlopen RTLD_LAZY|RTLD_LOCAL, then the
 * `__tvm_ffi__library_ctx` symbol bound to the module object and the context symbols
 * registered with TVMFFIEnvModRegisterContextSymbol initialised) and lookup is
 * "ffi.ModuleGetFunction" (symbol `__tvm_ffi_<name>`, wrapped as a Function that
 * keeps the module alive and turns a raised error into the caller's error);
 * apache-tvm-ffi 0.1.15 src/ffi/extra/library_module.cc, module.cc,
 * library_module_dynamic_lib.cc. So a module behaves exactly as under
 * tvm_ffi.load_module in Python.
 */
#include "devharness/module.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devharness/error.h"
#include "elf_exports.h"

struct dh_module {
  void* handle; /* the tvm-ffi Module object (one reference) */
  char* path;   /* owned */
};

/* Calls the tvm-ffi global `name` with args; result owned by the caller. */
static int call_global(const char* name, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  dh_function_t f;
  if (dh_func_get(name, &f) != 0) return -1;
  int rc = dh_func_call(&f, args, n, rv);
  dh_func_release(&f);
  return rc;
}

int dh_module_load(const char* path, dh_module_t** out_module) {
  if (out_module != NULL) *out_module = NULL;
  if (path == NULL || path[0] == '\0')
    return dh_error_set(DH_KIND_VALUE_ERROR, "dh_module_load: path is %s", path ? "empty" : "NULL");
  if (out_module == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_module_load: out_module is NULL");
  if (access(path, R_OK) != 0)
    return dh_error_set(DH_KIND_IO_ERROR, "%s: cannot load module: file not readable", path);
  dh_any_t arg, rv;
  if (dh_any_string(path, strlen(path), &arg) != 0) return -1;
  int rc = call_global("ffi.ModuleLoadFromFile", &arg, 1, &rv);
  dh_any_release(&arg);
  if (rc != 0) return dh_error_prefix("%s: cannot load module", path);
  if (rv.type_index != DH_TYPE_MODULE) {
    dh_any_release(&rv);
    return dh_error_set(DH_KIND_INTERNAL_ERROR, "%s: loader returned %s, not a Module", path,
                        dh_type_index_name(rv.type_index));
  }
  dh_module_t* m = calloc(1, sizeof *m);
  char* p = strdup(path);
  if (m == NULL || p == NULL) {
    free(m);
    free(p);
    dh_any_release(&rv);
    return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "%s: out of memory loading module", path);
  }
  m->handle = rv.v_ptr; /* the reference moves into the module */
  m->path = p;
  *out_module = m;
  return 0;
}

int dh_module_get_function(dh_module_t* module, const char* name, dh_function_t* out_fn) {
  if (module == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_module_get_function: module is NULL");
  if (name == NULL || name[0] == '\0')
    return dh_error_set(DH_KIND_VALUE_ERROR, "%s: function name is %s", module->path,
                        name ? "empty" : "NULL");
  dh_any_t args[3], rv;
  args[0] = dh_any_make(DH_TYPE_MODULE);
  args[0].v_ptr = module->handle;
  if (dh_any_string(name, strlen(name), &args[1]) != 0) return -1;
  args[2] = dh_any_bool(1); /* query imports too, as tvm_ffi.Module.get_function does */
  int rc = call_global("ffi.ModuleGetFunction", args, 3, &rv);
  dh_any_release(&args[1]);
  if (rc != 0) return dh_error_prefix("%s: function %s", module->path, name);
  if (rv.type_index != DH_TYPE_FUNCTION) {
    dh_any_release(&rv);
    return dh_error_set(DH_KIND_KEY_ERROR, "symbol %s%s not found in %s", DH_MODULE_SYMBOL_PREFIX, name,
                        module->path);
  }
  if (out_fn != NULL) out_fn->handle = rv.v_ptr;
  else dh_any_release(&rv);
  return 0;
}

const char* dh_module_path(const dh_module_t* module) { return module ? module->path : NULL; }

void dh_module_free(dh_module_t* module) {
  if (module == NULL) return;
  dh_any_t m = dh_any_make(DH_TYPE_MODULE);
  m.v_ptr = module->handle;
  dh_any_release(&m);
  free(module->path);
  free(module);
}

int dh_module_list_exports(const char* path, char*** out_names, size_t* out_count) {
  return dh_elf_exports(path, DH_MODULE_SYMBOL_PREFIX, out_names, out_count);
}

void dh_module_free_names(char** names, size_t count) { dh_elf_free_names(names, count); }
