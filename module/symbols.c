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

int dm_func_from_signature(const dh_func_signature_t* sg, dm_func_t* f) {
  if (sg->nparams > DM_MAX_PARAMS)
    return dh_error_set(DH_KIND_VALUE_ERROR, "%s has %d parameters (at most %d checked)", f->name, sg->nparams,
                        DM_MAX_PARAMS);
  f->nparams = sg->nparams;
  f->other[0] = '\0';
  size_t o = (size_t)snprintf(f->signature, sizeof f->signature, "%s(", sg->name);
  for (int i = 0; i < sg->nparams; i++) {
    const dh_func_param_t* p = &sg->params[i];
    char dt[32];
    dh_dtype_format(p->dtype, dt, sizeof dt);
    f->dtypes[i] = p->dtype;
    f->ndim[i] = p->ndim;
    for (int d = 0; d < p->ndim; d++) f->dims[i][d] = p->dims[d];
    f->kinds[i] = p->kind == DH_FUNC_PARAM_TENSOR ? DM_TENSOR
                  : p->kind == DH_FUNC_PARAM_OTHER ? DM_OTHER
                  : p->dtype.code == kDLFloat || p->dtype.code == kDLBfloat ? DM_FLOAT
                  : p->dtype.code == kDLBool || (p->dtype.code == kDLUInt && p->dtype.bits == 1) ? DM_BOOL : DM_INT;
    if (f->kinds[i] == DM_OTHER && f->other[0] == '\0') snprintf(f->other, sizeof f->other, "parameter %s", p->name);
    if (o < sizeof f->signature && p->kind == DH_FUNC_PARAM_TENSOR) {
      o += (size_t)snprintf(f->signature + o, sizeof f->signature - o, "%s%s: Tensor([", i ? ", " : "", p->name);
      for (int d = 0; d < p->ndim && o < sizeof f->signature; d++) {
        char ext[32];
        snprintf(ext, sizeof ext, "%lld", (long long)p->dims[d]);
        o += (size_t)snprintf(f->signature + o, sizeof f->signature - o, "%s%s", d ? ", " : "", p->sym[d][0] ? p->sym[d] : ext);
      }
    } else if (o < sizeof f->signature) {
      o += (size_t)snprintf(f->signature + o, sizeof f->signature - o, "%s%s: %s", i ? ", " : "", p->name,
                            p->kind == DH_FUNC_PARAM_OTHER ? "?" : dt);
      continue;
    }
    if (o < sizeof f->signature) o += (size_t)snprintf(f->signature + o, sizeof f->signature - o, "], %s)", dt);
  }
  if (o < sizeof f->signature) snprintf(f->signature + o, sizeof f->signature - o, ")");
  snprintf(f->sig_name, sizeof f->sig_name, "%s", sg->name);
  f->has_sig = 1;
  return 0;
}

int dm_probe_signatures(const char* path, dm_func_t* funcs, size_t n) {
  static dh_func_signature_t sg; /* 24 KiB; the probing child's main thread only */
  dh_module_t* m;
  if (dh_module_load(path, &m) != 0) return -1;
  for (size_t i = 0; i < n; i++) {
    dh_function_t fn;
    if (funcs[i].has_schema || funcs[i].has_sig || dh_module_get_function(m, funcs[i].name, &fn) != 0) {
      dh_error_clear();
      continue;
    }
    if (dh_func_signature_probe(&fn, &sg) == 0) dm_func_from_signature(&sg, &funcs[i]);
    dh_error_clear();
    dh_func_release(&fn);
  }
  dh_module_free(m);
  return 0;
}
