/*
 * target/target_detect.c — targets and live devices (include/devharness/target.h):
 * dh_target_detect (a target from what a device reports) and dh_target_check_device (a
 * target's declared options against the device) (target/target_impl.h has the file map).
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

int dh_target_detect_with_getter(const char* kind, DLDevice dev, dh_target_getter_t getter,
                                 void* ctx, dh_target_t** out_target) {
  if (!out_target) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_target_detect: out_target is NULL");
  *out_target = NULL;
  char origin[96];
  dh_device_format(dev, origin, sizeof origin);
  const dh_kind_t* k = kind ? dh__lookup_kind(kind) : NULL;
  if (!k) {
    dh_sbuf_t b = {0};
    dh__known_kinds(&b);
    char q[DH_TEXT_BUF];
    int rc = dh_error_set(DH_KIND_KEY_ERROR, "%s: unknown target kind '%s'; known kinds: %s", origin,
                          dh_text_quote(kind, q, sizeof q), dh_sbuf_str(&b));
    free(b.s);
    return rc;
  }
  dh_json_init();
  json_t* root = json_pack("{ss}", "kind", k->name);
  if (!root) return dh__target_oom();
  char why[256];
  for (size_t i = 0; i < k->num_opts; ++i) {
    const kind_opt_t* o = &k->opts[i];
    if (o->common || o->not_device) continue;
    dh_any_t v = dh_any_none();
    if (getter(ctx, dev, o->name, &v) != 0) {
      json_decref(root);
      return dh_error_prefix("%s: get_target_property '%s'", origin, o->name);
    }
    json_t* j = NULL;
    int r = dh__any_to_json(o->type, &v, &j, why, sizeof why);
    if (r < 0) {
      json_decref(root);
      return dh_error_set(DH_KIND_TYPE_ERROR, "%s: target property '%s': %s", origin, o->name, why);
    }
    if (r == 0) json_object_set_new(root, o->name, j);
  }
  int rc = dh__target_parse_root(root, origin, getter, ctx, out_target);
  json_decref(root);
  return rc;
}

int dh_target_detect(DLDevice dev, dh_target_t** out_target) {
  if (!out_target) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_target_detect: out_target is NULL");
  *out_target = NULL;
  const dh_backend_t* b = NULL;
  if (dh__backend_for(NULL, dev, &b) != 0) return -1;
  return dh_target_detect_with_getter(b->target_kind, dev, dh__device_api_getter, (void*)b,
                                      out_target);
}

int dh_target_check_device(const dh_target_t* t, DLDevice dev,
                           void (*on_mismatch)(const char*, const char*, const char*, void*),
                           void (*on_unchecked)(const char*, void*), void* user) {
  if (!t) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_target_check_device: target is NULL");
  const dh_backend_t* b = NULL;
  if (dh__backend_for(t->kind, dev, &b) != 0) return -1;
  char origin[96];
  dh_device_format(dev, origin, sizeof origin);
  int mismatches = 0;
  char why[256];
  for (size_t i = 0; i < t->num_declared; ++i) {
    const char* name = t->declared[i];
    const kind_opt_t* o = dh__find_opt(t->kind, name);
    if (!o || o->common || o->not_device) continue;
    dh_any_t v = dh_any_none();
    if (dh__device_api_getter((void*)b, dev, name, &v) != 0)
      return dh_error_prefix("%s: get_target_property '%s'", origin, name);
    json_t* live = NULL;
    int r = dh__any_to_json(o->type, &v, &live, why, sizeof why);
    if (r == 1) {
      if (on_unchecked) on_unchecked(name, user);
      continue;
    }
    json_t* want = json_object_get(t->obj, name);
    if (r == 0 && json_equal(want, live)) {
      json_decref(live);
      continue;
    }
    mismatches++;
    char* e = json_dumps(want, JSON_ENCODE_ANY | JSON_COMPACT);
    char* g = r == 0 ? json_dumps(live, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    if (on_mismatch) on_mismatch(name, e ? e : "?", g ? g : why, user);
    free(e);
    free(g);
    json_decref(live);
  }
  return mismatches;
}
