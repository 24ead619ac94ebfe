/*
 * target/target.c — the parsed target (include/devharness/target.h): its accessors and
 * its JSON forms, devharness's and TVM's (target/target_impl.h has the file map).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devharness/device_api.h"
#include "devharness/error.h"
#include "target_impl.h"

/* Builds the dh_target_t around a normalised object (steals obj). */
int dh__target_make(const dh_kind_t* k, json_t* obj, str_list_t* declared,
                       dh_target_t** out) {
  dh_target_t* t = calloc(1, sizeof *t);
  if (!t) {
    json_decref(obj);
    return dh__target_oom();
  }
  t->kind = k;
  t->obj = obj;
  if (declared->n) qsort(declared->v, declared->n, sizeof *declared->v, dh__cmp_str_ptr);
  t->declared = declared->v;
  t->num_declared = declared->n;
  declared->v = NULL;
  declared->n = declared->cap = 0;
  size_t n = json_object_size(obj);
  t->text_name = calloc(n ? n : 1, sizeof *t->text_name);
  t->text = calloc(n ? n : 1, sizeof *t->text);
  if (!t->text_name || !t->text) {
    dh_target_free(t);
    return dh__target_oom();
  }
  const char* key;
  json_t* val;
  json_object_foreach(obj, key, val) {
    if (!json_is_array(val) && !json_is_object(val)) continue;
    t->text_name[t->num_text] = strdup(key);
    t->text[t->num_text] = json_dumps(val, JSON_SORT_KEYS | JSON_COMPACT);
    if (!t->text_name[t->num_text] || !t->text[t->num_text]) {
      t->num_text++;
      dh_target_free(t);
      return dh__target_oom();
    }
    t->num_text++;
  }
  *out = t;
  return 0;
}

void dh_target_free(dh_target_t* t) {
  if (!t) return;
  json_decref(t->obj);
  for (size_t i = 0; i < t->num_declared; ++i) free(t->declared[i]);
  free(t->declared);
  for (size_t i = 0; i < t->num_text; ++i) {
    free(t->text_name[i]);
    free(t->text[i]);
  }
  free(t->text_name);
  free(t->text);
  free(t);
}

char* dh_target_to_json(const dh_target_t* t, int pretty) {
  if (!t) {
    dh_error_set(DH_KIND_VALUE_ERROR, "dh_target_to_json: target is NULL");
    return NULL;
  }
  char* s = json_dumps(t->obj, JSON_SORT_KEYS | (pretty ? JSON_INDENT(2) : JSON_COMPACT));
  if (!s) dh__target_oom();
  return s;
}

char* dh_target_to_tvm_json(const dh_target_t* t, int pretty) {
  if (!t) {
    dh_error_set(DH_KIND_VALUE_ERROR, "dh_target_to_tvm_json: target is NULL");
    return NULL;
  }
  if (!t->kind->tvm_kind) {
    dh_error_set(DH_KIND_KEY_ERROR, "target kind '%s' has no TVM target kind (no \"tvm_kind\" in its kind file)",
                 t->kind->name);
    return NULL;
  }
  /* TVM's ToConfig order: kind, tag, keys, then the attributes (apache/tvm 5d4dc87
   * src/target/target.cc:151-164). devharness tags are not TVM tags: tag is "". */
  json_t* o = json_object();
  int bad = !o || json_object_set_new(o, "kind", json_string(t->kind->tvm_kind)) != 0 ||
            json_object_set_new(o, "tag", json_string("")) != 0;
  json_t* keys = json_object_get(t->obj, "keys");
  if (!bad && keys) bad = json_object_set(o, "keys", keys) != 0;
  for (size_t i = 0; !bad && i < t->kind->num_opts; ++i) {
    const kind_opt_t* opt = &t->kind->opts[i];
    if (opt->not_tvm) continue;
    /* structural options already written; host would need its own conversion */
    if (opt->common && strcmp(opt->name, "device") != 0 && strcmp(opt->name, "model") != 0 &&
        strcmp(opt->name, "libs") != 0 && strcmp(opt->name, "target_device_type") != 0)
      continue;
    json_t* v = json_object_get(t->obj, opt->name);
    if (v) bad = json_object_set(o, opt->name, v) != 0;
  }
  char* s = bad ? NULL : json_dumps(o, JSON_PRESERVE_ORDER | (pretty ? JSON_INDENT(2) : JSON_COMPACT));
  json_decref(o);
  if (!s) dh__target_oom();
  return s;
}

int dh_target_equal(const dh_target_t* a, const dh_target_t* b) {
  if (!a || !b) return a == b;
  return a->kind == b->kind && json_equal(a->obj, b->obj);
}

const char* dh_target_kind_name(const dh_target_t* t) { return t ? t->kind->name : NULL; }

int32_t dh_target_device_type(const dh_target_t* t) { return t ? t->kind->device_type : 0; }

int dh_target_get(const dh_target_t* t, const char* option, dh_any_t* out) {
  if (!t || !option || !out)
    return dh_error_set(DH_KIND_VALUE_ERROR, "dh_target_get: NULL target, option or out_value");
  *out = dh_any_none();
  if (!dh__find_opt(t->kind, option))
    return dh__unknown_option("target", "", option, t->kind);
  json_t* v = json_object_get(t->obj, option);
  if (!v) return 0;
  switch (json_typeof(v)) {
    case JSON_TRUE: *out = dh_any_bool(1); break;
    case JSON_FALSE: *out = dh_any_bool(0); break;
    case JSON_INTEGER: *out = dh_any_int(json_integer_value(v)); break;
    case JSON_REAL: *out = dh_any_float(json_real_value(v)); break;
    case JSON_STRING: *out = dh_any_str(json_string_value(v)); break;
    case JSON_ARRAY:
    case JSON_OBJECT:
      for (size_t i = 0; i < t->num_text; ++i)
        if (strcmp(t->text_name[i], option) == 0) *out = dh_any_str(t->text[i]);
      break;
    case JSON_NULL: break;
  }
  return 0;
}

size_t dh_target_declared_count(const dh_target_t* t) { return t ? t->num_declared : 0; }

const char* dh_target_declared_name(const dh_target_t* t, size_t i) {
  return t && i < t->num_declared ? t->declared[i] : NULL;
}

