/*
 * runtime/type_schema.c — the one reader of tvm-ffi type schemas (devharness/function.h):
 * dh_type_schema_parse (the parameters' and return type keys) and dh_type_schema_format
 * (the schema written as a signature), both over load_schema; apache-tvm-ffi 0.1.15
 * function_detail.h FunctionInfo::TypeSchema, {"type":"ffi.Function","named_args":
 * {"return":[R],"params":[P...]}}, type keys of type_traits.h StaticTypeKey.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "devharness/error.h"
#include "devharness/function.h"

/* Appends str to the NUL-terminated buf (cut at cap). */
static void append(char* buf, size_t cap, const char* str) {
  size_t l = strlen(buf);
  if (l + 1 < cap) snprintf(buf + l, cap - l, "%s", str);
}

/* Appends the type t ({"type": key, "args": [...]}) to buf. */
static void format_type(const json_t* t, char* buf, size_t cap, int depth) {
  const char* key = json_string_value(json_object_get(t, "type"));
  const json_t* args = json_object_get(t, "args");
  append(buf, cap, key ? key : "?");
  if (!json_is_array(args) || json_array_size(args) == 0 || depth > 8) return;
  for (size_t i = 0; i < json_array_size(args); i++) {
    append(buf, cap, i ? "," : "[");
    format_type(json_array_get(args, i), buf, cap, depth + 1);
  }
  append(buf, cap, "]");
}

/* The schema's JSON and its parameter and return lists (either NULL when absent):
 * named_args' for a function schema (*named 1), else the type's own "args" (a type
 * such as Optional[int], which dh_type_schema_format writes as a signature as tvm-ffi
 * does). NULL with a ValueError when type_schema is NULL or not JSON. */
static json_t* load_schema(const char* type_schema, const json_t** params, const json_t** ret, int* named_out) {
  json_error_t e;
  json_t* s = type_schema ? json_loads(type_schema, 0, &e) : NULL;
  if (s == NULL) {
    dh_error_set(DH_KIND_VALUE_ERROR, "type schema is not JSON: %s", type_schema ? e.text : "NULL");
    return NULL;
  }
  const json_t* named = json_object_get(s, "named_args");
  *named_out = named != NULL;
  *params = json_object_get(named ? named : s, named ? "params" : "args");
  *ret = json_object_get(named, "return");
  if (!json_is_array(*params)) *params = NULL;
  if (!json_is_array(*ret) || json_array_size(*ret) == 0) *ret = NULL;
  return s;
}

/* The type key of t ({"type": key, ...}) into key (cap bytes), "?" when it has none. */
static void type_key(const json_t* t, char* key, size_t cap) {
  const char* k = json_string_value(json_object_get(t, "type"));
  snprintf(key, cap, "%s", k ? k : "?");
}

int dh_type_schema_parse(const char* type_schema, dh_type_schema_t* out) {
  if (out == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_type_schema_parse: no output");
  memset(out, 0, sizeof *out);
  const json_t *params, *ret;
  int named;
  json_t* s = load_schema(type_schema, &params, &ret, &named);
  if (s == NULL) return -1;
  if (!named) params = NULL; /* a type's own arguments are no parameters */
  size_t n = params ? json_array_size(params) : 0;
  if (n > DH_TYPE_SCHEMA_MAX_PARAMS) {
    json_decref(s);
    return dh_error_set(DH_KIND_VALUE_ERROR, "type schema lists %zu parameters (at most %d read)", n,
                        DH_TYPE_SCHEMA_MAX_PARAMS);
  }
  out->nparams = params ? (int)n : -1;
  for (size_t i = 0; i < n; i++) type_key(json_array_get(params, i), out->params[i], sizeof out->params[i]);
  if (ret) type_key(json_array_get(ret, 0), out->ret, sizeof out->ret);
  else snprintf(out->ret, sizeof out->ret, "None");
  json_decref(s);
  return 0;
}

int dh_type_schema_format(const char* type_schema, char* buf, size_t cap) {
  if (buf == NULL || cap == 0) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_type_schema_format: no buffer");
  buf[0] = '\0';
  const json_t *params, *ret;
  int named;
  json_t* s = load_schema(type_schema, &params, &ret, &named);
  if (s == NULL) return -1;
  if (params == NULL) {
    format_type(s, buf, cap, 0);
    json_decref(s);
    return 0;
  }
  append(buf, cap, "(");
  for (size_t i = 0; i < json_array_size(params); i++) {
    if (i) append(buf, cap, ", ");
    format_type(json_array_get(params, i), buf, cap, 0);
  }
  append(buf, cap, ") -> ");
  if (ret) format_type(json_array_get(ret, 0), buf, cap, 0);
  else append(buf, cap, "None");
  json_decref(s);
  return 0;
}
