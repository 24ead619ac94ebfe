/*
 * target/target_live.c — a live device's option values for targets: the backend
 * serving a device, the default getter (the backend's get_target_property), and live
 * values (dh_any_t) as JSON of an option's type (target/target_impl.h has the file map).
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

/* Default getter: the backend serving dev.device_type, through the dispatch API. */
int dh__device_api_getter(void* ctx, DLDevice dev, const char* name, dh_any_t* out) {
  (void)ctx;
  return dh_device_get_target_property(dev, name, out);
}

/* Resolves the backend of `kind` and checks that device `dev` exists. */
int dh__backend_for(const dh_kind_t* kind, DLDevice dev, const dh_backend_t** out) {
  const dh_backend_t* b = NULL;
  if (dh_device_api_get_by_type(dev.device_type, &b) != 0) {
    /* plugins not loaded yet by this process: discover them once, retry */
    dh_plugins_load_default();
    if (dh_device_api_get_by_type(dev.device_type, &b) != 0) return -1;
  }
  if (!b->target_kind)
    return dh_error_set(DH_KIND_KEY_ERROR, "backend %s has no target kind", b->name);
  if (kind && strcmp(b->target_kind, kind->name) != 0)
    return dh_error_set(DH_KIND_VALUE_ERROR,
                        "target kind '%s' does not match backend %s, whose kind is '%s'",
                        kind->name, b->name, b->target_kind);
  if (dh_backend_init(b) != 0) return -1;
  dh_any_t ex = dh_any_none();
  if (dh_device_get_attr(dev, DH_ATTR_EXIST, &ex) != 0) return -1;
  if (ex.type_index != DH_TYPE_INT || ex.v_int64 != 1) {
    char buf[64];
    return dh_error_set(DH_KIND_INDEX_ERROR, "device %s does not exist",
                        dh_device_format(dev, buf, sizeof buf));
  }
  *out = b;
  return 0;
}

/* A live value (any) as JSON of option type t. 0 ok (*out new ref), 1 None,
 * -1 mismatch (why filled, no error set). */
int dh__any_to_json(opt_type_t t, const dh_any_t* v, json_t** out, char* why, size_t size) {
  const char* s = NULL;
  char small[9];
  *out = NULL;
  if (v->type_index == DH_TYPE_NONE) return 1;
  if (v->type_index == DH_TYPE_RAW_STR) s = v->v_c_str ? v->v_c_str : "";
  if (v->type_index == DH_TYPE_SMALL_STR) {
    size_t n = v->small_str_len < 8 ? v->small_str_len : 8;
    memcpy(small, v->v_bytes, n);
    small[n] = '\0';
    s = small;
  }
  switch (t) {
    case OPT_BOOL:
      if (v->type_index == DH_TYPE_BOOL || (v->type_index == DH_TYPE_INT &&
                                            (v->v_int64 == 0 || v->v_int64 == 1)))
        *out = json_boolean(v->v_int64 != 0);
      break;
    case OPT_INT:
      if (v->type_index == DH_TYPE_INT) *out = json_integer(v->v_int64);
      break;
    case OPT_FLOAT:
      if (v->type_index == DH_TYPE_FLOAT) *out = json_real(v->v_float64);
      else if (v->type_index == DH_TYPE_INT) *out = json_real((double)v->v_int64);
      break;
    case OPT_STR:
      if (s) *out = json_string(s);
      break;
    case OPT_ARRAY_STR:
    case OPT_ARRAY_INT:
      if (s) {
        json_error_t err;
        json_t* a = json_loads(s, JSON_REJECT_DUPLICATES, &err);
        json_t* norm = NULL;
        char inner[160];
        if (a && dh__check_value(t, a, &norm, inner, sizeof inner) == 0) *out = norm;
        json_decref(a);
        if (!*out) {
          char q[DH_TEXT_BUF];
          snprintf(why, size, "expected JSON text of %s, got \"%.100s\"", dh__opt_type_name(t),
                   dh_text_quote(s, q, sizeof q));
          return -1;
        }
        return 0;
      }
      break;
    case OPT_TARGET:
      break;
  }
  if (*out) return 0;
  char q[DH_TEXT_BUF];
  if (s) snprintf(why, size, "expected %s, got string \"%.100s\"", dh__opt_type_name(t), dh_text_quote(s, q, sizeof q));
  else snprintf(why, size, "expected %s, got %s", dh__opt_type_name(t), dh_type_index_name(v->type_index));
  return -1;
}

