/*
 * module/schema.c — a tvm-ffi type schema, read by the runtime's one reader
 * (devharness/function.h dh_type_schema_parse), as parameter kinds: what `module
 * check` can make an argument for (type keys of tvm-ffi 0.1.15 type_traits.h
 * StaticTypeKey).
 */
#include <stdio.h>
#include <string.h>

#include "module/check.h"

static const struct {
  const char* key;
  dm_kind_t kind;
} kKinds[] = {
    {"DLTensor*", DM_TENSOR}, {"ffi.Tensor", DM_TENSOR_OBJ}, {"int", DM_INT},       {"float", DM_FLOAT},
    {"bool", DM_BOOL},        {"Device", DM_DEVICE},         {"DataType", DM_DTYPE}, {"ffi.String", DM_STR},
    {"const char*", DM_STR},
};

int dm_schema_parse(const char* type_schema, dm_func_t* f) {
  static dh_type_schema_t ts; /* 4 KiB; the command's main thread only (check.h) */
  if (dh_type_schema_parse(type_schema, &ts) != 0) return dh_error_prefix("type schema of %s", f->name);
  if (ts.nparams < 0)
    return dh_error_set(DH_KIND_VALUE_ERROR, "type schema of %s has no named_args.params list", f->name);
  if (ts.nparams > DM_MAX_PARAMS)
    return dh_error_set(DH_KIND_VALUE_ERROR, "%s has %d parameters (at most %d checked)", f->name, ts.nparams,
                        DM_MAX_PARAMS);
  f->nparams = ts.nparams;
  f->other[0] = '\0';
  for (int i = 0; i < f->nparams; i++) {
    f->kinds[i] = DM_OTHER;
    for (size_t k = 0; k < sizeof kKinds / sizeof kKinds[0]; k++)
      if (strcmp(ts.params[i], kKinds[k].key) == 0) f->kinds[i] = kKinds[k].kind;
    if (f->kinds[i] == DM_OTHER && f->other[0] == '\0') snprintf(f->other, sizeof f->other, "%s", ts.params[i]);
  }
  return 0;
}
