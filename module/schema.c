/*
 * module/schema.c — a tvm-ffi type schema read as parameter kinds: what
 * `module check` can make an argument for (tvm-ffi 0.1.15 function_detail.h
 * FunctionInfo::TypeSchema, `{"type":"ffi.Function","named_args":{"return":[...],
 * "params":[...]}}`; type keys of type_traits.h StaticTypeKey).
 */
#include <jansson.h>
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
  json_t* s = json_loads(type_schema, 0, NULL);
  const json_t* params = json_object_get(json_object_get(s, "named_args"), "params");
  if (!json_is_array(params)) {
    json_decref(s);
    return dh_error_set(DH_KIND_VALUE_ERROR, "type schema of %s has no named_args.params list", f->name);
  }
  if (json_array_size(params) > DM_MAX_PARAMS) {
    json_decref(s);
    return dh_error_set(DH_KIND_VALUE_ERROR, "%s has %zu parameters (at most %d checked)", f->name,
                        json_array_size(params), DM_MAX_PARAMS);
  }
  f->nparams = (int)json_array_size(params);
  f->other[0] = '\0';
  for (int i = 0; i < f->nparams; i++) {
    const char* key = json_string_value(json_object_get(json_array_get(params, (size_t)i), "type"));
    f->kinds[i] = DM_OTHER;
    for (size_t k = 0; key != NULL && k < sizeof kKinds / sizeof kKinds[0]; k++)
      if (strcmp(key, kKinds[k].key) == 0) f->kinds[i] = kKinds[k].kind;
    if (f->kinds[i] == DM_OTHER && f->other[0] == '\0') snprintf(f->other, sizeof f->other, "%s", key ? key : "?");
  }
  json_decref(s);
  return 0;
}
