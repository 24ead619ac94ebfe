/*
 * module/symbols.c — what a tvm-ffi library exports (dh_module_list_exports: its
 * `__tvm_ffi_<name>` functions from the ELF dynamic symbol table), and their metadata
 * through tvm-ffi's loader (`__tvm_ffi__metadata_<name>`). Calls schema.c.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module/check.h"

int dm_list_exports(const char* path, dm_func_t* out, size_t cap, size_t* count) {
  char** names;
  size_t n;
  *count = 0;
  if (dh_module_list_exports(path, &names, &n) != 0) return -1;
  for (size_t i = 0; i < n && *count < cap; i++) {
    if (strlen(names[i]) >= sizeof out[0].name) continue;
    memset(&out[*count], 0, sizeof out[*count]);
    snprintf(out[*count].name, sizeof out[*count].name, "%s", names[i]);
    out[*count].nparams = -1;
    (*count)++;
  }
  dh_module_free_names(names, n);
  return 0;
}

/* The string `__tvm_ffi_<prefix><name>` returns, or NULL (no such symbol, an error). */
static char* call_string(dh_module_t* m, const char* prefix, const char* name) {
  char key[200];
  dh_function_t fn;
  snprintf(key, sizeof key, "%s%s", prefix, name);
  if (dh_module_get_function(m, key, &fn) != 0) return dh_error_clear(), NULL;
  dh_any_t rv = dh_any_none();
  dh_byte_array_t b;
  char* s = NULL;
  if (dh_func_call(&fn, NULL, 0, &rv) == 0 && dh_any_as_str(&rv, &b) == 0 && (s = malloc(b.size + 1)) != NULL) {
    memcpy(s, b.data, b.size);
    s[b.size] = '\0';
  }
  dh_error_clear();
  dh_any_release(&rv);
  dh_func_release(&fn);
  return s;
}

int dm_read_metadata(const char* path, dm_func_t* funcs, size_t n) {
  dh_module_t* m;
  if (dh_module_load(path, &m) != 0) return -1;
  for (size_t i = 0; i < n; i++) {
    char* meta = call_string(m, "_metadata_", funcs[i].name);
    json_t* j = meta ? json_loads(meta, 0, NULL) : NULL;
    const char* ts = json_string_value(json_object_get(j, "type_schema"));
    if (ts != NULL && dm_schema_parse(ts, &funcs[i]) == 0) {
      funcs[i].has_schema = 1;
      dh_type_schema_format(ts, funcs[i].signature, sizeof funcs[i].signature);
    }
    dh_error_clear();
    json_decref(j);
    free(meta);
  }
  dh_module_free(m);
  return 0;
}
