/*
 * runtime/type_schema.c — devharness/function.h dh_type_schema_format: a tvm-ffi type
 * schema written as a signature; apache-tvm-ffi 0.1.15
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

int dh_type_schema_format(const char* type_schema, char* buf, size_t cap) {
  if (buf == NULL || cap == 0) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_type_schema_format: no buffer");
  buf[0] = '\0';
  json_error_t e;
  json_t* s = type_schema ? json_loads(type_schema, 0, &e) : NULL;
  if (s == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "type schema is not JSON: %s", type_schema ? e.text : "NULL");
  const json_t* named = json_object_get(s, "named_args");
  const json_t* params = json_object_get(named ? named : s, named ? "params" : "args");
  const json_t* ret = json_object_get(named, "return");
  if (!json_is_array(params)) {
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
  if (json_is_array(ret) && json_array_size(ret) > 0) format_type(json_array_get(ret, 0), buf, cap, 0);
  else append(buf, cap, "None");
  json_decref(s);
  return 0;
}
