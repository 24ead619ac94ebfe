/* runtime/module.c — shared objects exporting __tvm_ffi_<name> (devharness/module.h). */
#include "devharness/module.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/error.h"

struct dh_module {
  void* handle;
  char* path; /* owned */
};

int dh_module_load(const char* path, dh_module_t** out_module) {
  if (out_module != NULL) *out_module = NULL;
  if (path == NULL || path[0] == '\0')
    return dh_error_set("ValueError", "dh_module_load: path is %s", path ? "empty" : "NULL");
  if (out_module == NULL) return dh_error_set("ValueError", "dh_module_load: out_module is NULL");
  dlerror();
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    const char* why = dlerror();
    return dh_error_set("IOError", "%s: cannot load module: %s", path, why ? why : "dlopen failed");
  }
  dh_module_t* m = calloc(1, sizeof *m);
  char* p = strdup(path);
  if (m == NULL || p == NULL) {
    free(m);
    free(p);
    dlclose(h);
    return dh_error_set("OutOfMemoryError", "%s: out of memory loading module", path);
  }
  m->handle = h;
  m->path = p;
  *out_module = m;
  return 0;
}

int dh_module_get_function(dh_module_t* module, const char* name, dh_function_t* out_fn) {
  if (module == NULL) return dh_error_set("ValueError", "dh_module_get_function: module is NULL");
  if (name == NULL || name[0] == '\0')
    return dh_error_set("ValueError", "%s: function name is %s", module->path,
                        name ? "empty" : "NULL");
  char sym[512];
  int n = snprintf(sym, sizeof sym, "%s%s", DH_MODULE_SYMBOL_PREFIX, name);
  if (n < 0 || (size_t)n >= sizeof sym)
    return dh_error_set("ValueError", "%s: function name too long (%zu bytes)", module->path,
                        strlen(name));
  dlerror();
  void* p = dlsym(module->handle, sym);
  if (p == NULL)
    return dh_error_set("KeyError", "symbol %s not found in %s", sym, module->path);
  if (out_fn != NULL) {
    /* POSIX guarantees object/function pointer conversion for dlsym results. */
    dh_safe_call_t call;
    memcpy(&call, &p, sizeof call);
    out_fn->call = call;
    out_fn->self = NULL;
  }
  return 0;
}

const char* dh_module_path(const dh_module_t* module) { return module ? module->path : NULL; }

void dh_module_free(dh_module_t* module) {
  if (module == NULL) return;
  dlclose(module->handle);
  free(module->path);
  free(module);
}
