/*
 * target/target_parse.c — parsing and validating targets (include/devharness/target.h):
 * tag presets, options and their types, host, from_device, defaults and keys, in TVM's
 * order (target/target_impl.h has the file map).
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

typedef struct parse_ctx {
  const char* origin;
  dh_target_getter_t getter; /* NULL = device API */
  void* getter_ctx;
} parse_ctx_t;

/* "<origin>" or "<origin>: host" for messages about a nested target. */
static void where_of(const parse_ctx_t* pc, const char* prefix, char* buf, size_t size) {
  if (prefix && *prefix) {
    size_t n = strlen(prefix);
    snprintf(buf, size, "%s: %.*s", pc->origin, (int)(n ? n - 1 : 0), prefix);
  } else {
    snprintf(buf, size, "%s", pc->origin);
  }
}

static int build(const parse_ctx_t* pc, json_t* user, const char* prefix, int host_depth,
                 json_t** out_obj, str_list_t* declared, const dh_kind_t** out_kind);

/* Loads tag `tag` as a raw object with the tags it names merged in, after checking
 * it on its own (errors then name the tag file, not the file that uses the tag). */
/* chain: the tags being loaded around this one (outermost first), depth of them, so a
 * cycle is named as one (a -> b -> a) instead of hitting the depth limit. */
static int load_tag_raw(const parse_ctx_t* pc, const char* where, const char* tag, int depth,
                        int host_depth, json_t** out, const char* const* chain) {
  char path_raw[PATH_MAX], path[DH_TEXT_BUF];
  if (dh__tag_path(tag, path_raw, sizeof path_raw) != 0) return dh__unknown_tag(where, tag);
  dh_text_quote(path_raw, path, sizeof path);
  json_t* root = NULL;
  if (dh_json_read_file(path_raw, &root) != 0) return dh_base_error_raise();
  if (json_object_get(root, "from_device")) {
    json_decref(root);
    return dh_error_set(DH_KIND_VALUE_ERROR, "%s: a tag cannot use 'from_device' (tags are presets)",
                        path);
  }
  json_t* inner = json_object_get(root, "tag");
  if (inner && !json_is_string(inner)) {
    char d[96];
    dh_json_describe(inner, d, sizeof d);
    json_decref(root);
    return dh_error_set(DH_KIND_TYPE_ERROR, "%s: option 'tag': expected str, got %s", path, d);
  }
  if (inner && strcmp(json_string_value(inner), tag) != 0) {
    const char* next = json_string_value(inner);
    for (int i = 0; i < depth; ++i) {
      if (strcmp(chain[i], next) != 0) continue;
      /* a cycle: name every tag on it */
      dh_sbuf_t b = {0};
      char q[DH_TEXT_BUF];
      for (int j = i; j < depth; ++j) {
        dh_sbuf_add(&b, dh_text_quote(chain[j], q, sizeof q));
        dh_sbuf_add(&b, " -> ");
      }
      dh_sbuf_add(&b, dh_text_quote(tag, q, sizeof q));
      dh_sbuf_add(&b, " -> ");
      dh_sbuf_add(&b, dh_text_quote(next, q, sizeof q));
      int rc = dh_error_set(DH_KIND_VALUE_ERROR, "%s: option 'tag': tag '%s' refers back to '%s' (a cycle: %s)",
                            path, dh_text_quote(tag, q, sizeof q), chain[i], dh_sbuf_str(&b));
      free(b.s);
      json_decref(root);
      return rc;
    }
    if (depth >= DH_TARGET_MAX_TAG_DEPTH) {
      json_decref(root);
      return dh_error_set(DH_KIND_VALUE_ERROR, "%s: tags nest deeper than %d (a cycle?)", path,
                          DH_TARGET_MAX_TAG_DEPTH);
    }
    json_t* base = NULL;
    const char* sub_chain[DH_TARGET_MAX_TAG_DEPTH + 1];
    for (int i = 0; i < depth; ++i) sub_chain[i] = chain[i];
    sub_chain[depth] = tag;
    if (load_tag_raw(pc, path, next, depth + 1, host_depth, &base, sub_chain) != 0) {
      json_decref(root);
      return -1;
    }
    if (json_object_update(base, root) != 0) {
      json_decref(base);
      json_decref(root);
      return dh__target_oom();
    }
    json_decref(root);
    root = base;
  }
  json_object_del(root, "tag");
  /* check the preset alone, with the tag file as origin */
  parse_ctx_t tpc = {path, pc->getter, pc->getter_ctx};
  json_t* checked = NULL;
  const dh_kind_t* k = NULL;
  if (build(&tpc, root, "", host_depth, &checked, NULL, &k) != 0) {
    json_decref(root);
    return -1;
  }
  json_decref(checked);
  json_object_set_new(root, "tag", json_string(tag));
  *out = root;
  return 0;
}

/* Normalises a nested host value (object or tag/kind name) into a target object. */
static int build_host(const parse_ctx_t* pc, json_t* v, const char* prefix, int host_depth,
                      json_t** out) {
  char where[512];
  where_of(pc, prefix, where, sizeof where);
  if (host_depth >= DH_TARGET_MAX_HOST_DEPTH)
    return dh_error_set(DH_KIND_VALUE_ERROR, "%s: option 'host' nests deeper than %d", where,
                        DH_TARGET_MAX_HOST_DEPTH);
  json_t* obj = NULL;
  if (json_is_string(v)) {
    const char* s = json_string_value(v);
    char path[PATH_MAX];
    obj = json_object();
    if (!obj) return dh__target_oom();
    if (strchr(s, '/') && dh__tag_path(s, path, sizeof path) == 0) {
      json_object_set_new(obj, "tag", json_string(s));
    } else if (dh__lookup_kind(s)) {
      json_object_set_new(obj, "kind", json_string(s));
    } else {
      json_decref(obj);
      dh_sbuf_t b = {0};
      dh__known_kinds(&b);
      char q[DH_TEXT_BUF];
      int rc = dh_error_set(DH_KIND_KEY_ERROR,
                            "%s: option '%shost': '%s' is neither a tag nor a kind; known "
                            "kinds: %s",
                            pc->origin, prefix, dh_text_quote(s, q, sizeof q), dh_sbuf_str(&b));
      free(b.s);
      return rc;
    }
  } else {
    obj = json_incref(v);
  }
  char sub[512];
  snprintf(sub, sizeof sub, "%shost.", prefix);
  str_list_t decl = {0};
  const dh_kind_t* k = NULL;
  int rc = build(pc, obj, sub, host_depth + 1, out, &decl, &k);
  dh__sl_free(&decl);
  json_decref(obj);
  return rc;
}

/* Step 1: the tag preset first, then the given options over it, into *out (new). */
static int merge_tag(const parse_ctx_t* pc, json_t* user, const char* prefix, const char* where,
                     int host_depth, json_t** out) {
  json_t* merged = NULL;
  json_t* tag = json_object_get(user, "tag");
  /* "tag": "" is no tag: TVM's ToConfig always writes it (apache/tvm 5d4dc87
   * src/target/target.cc:151-164), so TVM's exports parse here. */
  if (tag && json_is_string(tag) && json_string_length(tag) == 0) tag = NULL;
  if (tag) {
    if (!json_is_string(tag)) {
      char d[96];
      dh_json_describe(tag, d, sizeof d);
      return dh_error_set(DH_KIND_TYPE_ERROR, "%s: option '%stag': expected str, got %s", pc->origin,
                          prefix, d);
    }
    if (load_tag_raw(pc, where, json_string_value(tag), 0, host_depth, &merged, NULL) != 0) return -1;
    json_t* uk = json_object_get(user, "kind");
    json_t* tk = json_object_get(merged, "kind");
    if (json_is_string(uk) && json_is_string(tk) &&
        strcmp(json_string_value(uk), json_string_value(tk)) != 0) {
      char q1[DH_TEXT_BUF], q2[DH_TEXT_BUF], q3[DH_TEXT_BUF];
      int rc = dh_error_set(DH_KIND_VALUE_ERROR, "%s: kind '%s' does not match tag '%s', whose kind is '%s'",
                            where, dh_text_quote(json_string_value(uk), q1, sizeof q1),
                            dh_text_quote(json_string_value(tag), q2, sizeof q2),
                            dh_text_quote(json_string_value(tk), q3, sizeof q3));
      json_decref(merged);
      return rc;
    }
  } else {
    merged = json_object();
    if (!merged) return dh__target_oom();
  }
  if (json_object_update(merged, user) != 0) {
    json_decref(merged);
    return dh__target_oom();
  }
  *out = merged;
  return 0;
}

/* Step 2: the kind the merged options name. */
static int resolve_kind(const parse_ctx_t* pc, json_t* merged, const char* prefix, const char* where,
                        const dh_kind_t** out) {
  json_t* kv = json_object_get(merged, "kind");
  dh_sbuf_t b = {0};
  int rc;
  if (!kv) {
    dh__known_kinds(&b);
    rc = dh_error_set(DH_KIND_VALUE_ERROR, "%s: missing 'kind' (known kinds: %s)", where, dh_sbuf_str(&b));
  } else if (!json_is_string(kv)) {
    char d[96];
    dh_json_describe(kv, d, sizeof d);
    rc = dh_error_set(DH_KIND_TYPE_ERROR, "%s: option '%skind': expected str, got %s", pc->origin, prefix, d);
  } else if ((*out = dh__lookup_kind(json_string_value(kv))) != NULL) {
    rc = 0;
  } else {
    dh__known_kinds(&b);
    char q[DH_TEXT_BUF];
    rc = dh_error_set(DH_KIND_KEY_ERROR, "%s: unknown kind '%s'; known kinds: %s", where,
                      dh_text_quote(json_string_value(kv), q, sizeof q), dh_sbuf_str(&b));
  }
  free(b.s);
  return rc;
}

/* Step 3: every given option known and of the right type, into result; "from_device"
 * is kept apart in *from_device (a new reference, or NULL), as TVM consumes it. */
static int check_options(const parse_ctx_t* pc, const dh_kind_t* k, json_t* merged,
                         const char* prefix, int host_depth, json_t* result, str_list_t* declared,
                         json_t** from_device) {
  char why[256];
  const char* key;
  json_t* val;
  json_object_foreach(merged, key, val) {
    const kind_opt_t* o = dh__find_opt(k, key);
    if (!o) return dh__unknown_option(pc->origin, prefix, key, k);
    json_t* norm = NULL;
    if (dh__check_value(o->type, val, &norm, why, sizeof why) != 0)
      return dh_error_set(DH_KIND_TYPE_ERROR, "%s: option '%s%s': %s", pc->origin, prefix, key, why);
    if (o->type == OPT_TARGET) {
      json_t* host = NULL;
      int rc = build_host(pc, norm, prefix, host_depth, &host);
      json_decref(norm);
      if (rc != 0) return rc;
      norm = host;
    }
    if (strcmp(key, "from_device") == 0) {
      /* -1 is TVM's "no device" (apache/tvm 5d4dc87 src/target/target.cc:407-413) */
      if (json_integer_value(norm) == -1) {
        json_decref(norm);
        continue;
      }
      if (json_integer_value(norm) < 0 || json_integer_value(norm) > INT32_MAX) {
        json_decref(norm);
        return dh_error_set(DH_KIND_VALUE_ERROR,
                            "%s: option '%sfrom_device': expected a device id >= 0 (or -1: none), got %lld",
                            pc->origin, prefix, (long long)json_integer_value(val));
      }
      json_decref(*from_device);
      *from_device = norm;
      continue;
    }
    json_object_set_new(result, key, norm);
    if (declared && !prefix[0] && dh__sl_push(declared, key) != 0) return dh__target_oom();
  }
  /* The kind's own value rules, as TVM's kind canonicalisers check them: cuda's
   * 'arch' must start with "sm_" (apache/tvm v0.27.0 src/target/target_kind.cc,
   * UpdateCUDAAttrs: StartsWith(arch, "sm_"), else "CUDA target gets an invalid CUDA
   * arch"; TVM 0.27 accepts "sm_" and "sm_xy", and so do we). */
  json_t* arch = json_object_get(result, "arch");
  if (strcmp(k->name, "cuda") == 0 && json_is_string(arch) && strncmp(json_string_value(arch), "sm_", 3) != 0) {
    char q[DH_TEXT_BUF];
    return dh_error_set(DH_KIND_VALUE_ERROR, "%s: option '%sarch': invalid CUDA arch '%s' (expected sm_<version>, e.g. sm_80)",
                        pc->origin, prefix, dh_text_quote(json_string_value(arch), q, sizeof q));
  }
  return 0;
}

/* Step 4: from_device: the options the user did not give, from the live device. */
static int fill_from_device(const parse_ctx_t* pc, const dh_kind_t* k, json_t* from_device,
                            const char* prefix, json_t* result, str_list_t* declared) {
  char why[256];
  DLDevice dev = {(DLDeviceType)k->device_type, (int32_t)json_integer_value(from_device)};
  dh_target_getter_t get = pc->getter;
  void* gctx = pc->getter_ctx;
  if (!get) {
    const dh_backend_t* b = NULL;
    if (dh__backend_for(k, dev, &b) != 0)
      return dh_error_prefix("%s: option '%sfrom_device'", pc->origin, prefix);
    get = dh__device_api_getter;
    gctx = (void*)b;
  }
  /* As TVM: the schema's defaults are applied before the device is queried, so the
   * device fills only options that are neither given nor defaulted (apache/tvm 5d4dc87
   * src/target/target.cc:353-355,413-419). */
  for (size_t i = 0; i < k->num_opts; ++i) {
    const kind_opt_t* o = &k->opts[i];
    if (o->common || o->def || json_object_get(result, o->name)) continue;
    dh_any_t v = dh_any_none();
    if (get(gctx, dev, o->name, &v) != 0)
      return dh_error_prefix("%s: option '%sfrom_device': property '%s'", pc->origin, prefix, o->name);
    json_t* j = NULL;
    int r = dh__any_to_json(o->type, &v, &j, why, sizeof why);
    if (r < 0)
      return dh_error_set(DH_KIND_TYPE_ERROR, "%s: option '%sfrom_device': device property '%s': %s",
                          pc->origin, prefix, o->name, why);
    if (r == 0) {
      json_object_set_new(result, o->name, j);
      if (declared && !prefix[0] && dh__sl_push(declared, o->name) != 0) return dh__target_oom();
    }
  }
  return 0;
}

/* Step 6: keys in TVM's order (apache/tvm 5d4dc87 src/target/target.cc:375-396): the
 * given keys then device, or, with no keys given, device then the kind's default keys;
 * de-duplicated in order. */
static int compute_keys(const dh_kind_t* k, json_t* result) {
  json_t* given = json_object_get(result, "keys");
  json_t* src = given ? given : k->default_keys;
  json_t* keys = json_array();
  if (!keys) return dh__target_oom();
  json_t* e;
  json_t* dev = json_object_get(result, "device");
  size_t total = json_array_size(src) + (dev ? 1 : 0);
  /* linear in the number of keys: a hash set of their JSON texts, so a hostile file
   * with a huge keys array cannot make de-duplication quadratic */
  json_t* seen = json_object();
  if (!seen) {
    json_decref(keys);
    return dh__target_oom();
  }
  for (size_t i = 0; i < total; ++i) {
    if (dev && !given) e = i == 0 ? dev : json_array_get(src, i - 1);
    else e = i < json_array_size(src) ? json_array_get(src, i) : dev;
    char* text = json_is_string(e) ? NULL : json_dumps(e, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS);
    /* strings by value with a prefix no JSON text has, other values by their text */
    const char* sv = json_is_string(e) ? json_string_value(e) : text;
    size_t sl = json_is_string(e) ? json_string_length(e) : (text ? strlen(text) : 0);
    char* hk = sv ? malloc(sl + 2) : NULL;
    if (hk) {
      hk[0] = json_is_string(e) ? 's' : 'j';
      memcpy(hk + 1, sv, sl);
      hk[sl + 1] = '\0';
    }
    free(text);
    if (!hk || strlen(hk) != sl + 1) { /* embedded NUL or no memory: compare one by one */
      int dup = 0;
      for (size_t j = 0; !dup && j < json_array_size(keys); ++j)
        if (json_equal(json_array_get(keys, j), e)) dup = 1;
      if (!dup) json_array_append(keys, e);
    } else if (!json_object_get(seen, hk)) {
      json_object_set_new(seen, hk, json_true());
      json_array_append(keys, e);
    }
    free(hk);
  }
  json_decref(seen);
  json_object_set_new(result, "keys", keys);
  return 0;
}

/* Normalises one target object (user: borrowed) into *out_obj, in TVM's order: tag
 * preset, kind, given options, from_device, defaults, keys. declared (NULL: not
 * wanted) collects the options given or from the device at the top level. */
static int build(const parse_ctx_t* pc, json_t* user, const char* prefix, int host_depth,
                 json_t** out_obj, str_list_t* declared, const dh_kind_t** out_kind) {
  char where[512];
  where_of(pc, prefix, where, sizeof where);
  json_t* merged = NULL;
  json_t* from_device = NULL; /* consumed (not stored), as TVM does */
  const dh_kind_t* k = NULL;
  if (merge_tag(pc, user, prefix, where, host_depth, &merged) != 0) return -1;
  json_t* result = json_object();
  int rc = -1;
  if (!result) rc = dh__target_oom();
  else if (resolve_kind(pc, merged, prefix, where, &k) == 0 &&
           check_options(pc, k, merged, prefix, host_depth, result, declared, &from_device) == 0 &&
           (!from_device || fill_from_device(pc, k, from_device, prefix, result, declared) == 0)) {
    /* Step 5: defaults. */
    for (size_t i = 0; i < k->num_opts; ++i) {
      const kind_opt_t* o = &k->opts[i];
      if (o->def && !json_object_get(result, o->name)) json_object_set(result, o->name, o->def);
    }
    rc = compute_keys(k, result);
  }
  json_decref(from_device);
  json_decref(merged);
  if (rc != 0) {
    json_decref(result);
    return -1;
  }
  *out_obj = result;
  *out_kind = k;
  return 0;
}

int dh__target_parse_root(json_t* root, const char* origin, dh_target_getter_t getter, void* gctx,
                      dh_target_t** out) {
  parse_ctx_t pc = {origin, getter, gctx};
  json_t* obj = NULL;
  const dh_kind_t* k = NULL;
  str_list_t decl = {0};
  if (build(&pc, root, "", 0, &obj, &decl, &k) != 0) {
    dh__sl_free(&decl);
    return -1;
  }
  return dh__target_make(k, obj, &decl, out);
}

int dh_target_parse_json_with_getter(const char* json_text, const char* origin,
                                     dh_target_getter_t getter, void* ctx,
                                     dh_target_t** out_target) {
  char shown[DH_TEXT_BUF];
  origin = dh_text_quote(origin ? origin : "<string>", shown, sizeof shown);
  if (!out_target) return dh_error_set(DH_KIND_VALUE_ERROR, "%s: out_target is NULL", origin);
  *out_target = NULL;
  if (!json_text) return dh_error_set(DH_KIND_VALUE_ERROR, "%s: JSON text is NULL", origin);
  json_t* root = NULL;
  if (dh_json_read_text(json_text, strlen(json_text), origin, &root) != 0) return dh_base_error_raise();
  int rc = dh__target_parse_root(root, origin, getter, ctx, out_target);
  json_decref(root);
  return rc;
}

int dh_target_parse_json(const char* json_text, const char* origin, dh_target_t** out_target) {
  return dh_target_parse_json_with_getter(json_text, origin, NULL, NULL, out_target);
}

/* Parses root (a reference this call drops) with `path`, quoted, as its origin. */
static int parse_root_of_file(json_t* root, const char* path, dh_target_t** out_target) {
  char shown[DH_TEXT_BUF];
  int rc = dh__target_parse_root(root, dh_text_quote(path, shown, sizeof shown), NULL, NULL, out_target);
  json_decref(root);
  return rc;
}

int dh_target_parse_file(const char* path, dh_target_t** out_target) {
  if (!out_target) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_target_parse_file: out_target is NULL");
  *out_target = NULL;
  if (!path || !*path) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_target_parse_file: empty path");
  json_t* root = NULL;
  if (dh_json_read_file(path, &root) != 0) return dh_base_error_raise();
  return parse_root_of_file(root, path, out_target);
}

int dh_target_from_tag(const char* tag, dh_target_t** out_target) {
  if (!out_target) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_target_from_tag: out_target is NULL");
  *out_target = NULL;
  if (!tag) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_target_from_tag: tag is NULL");
  char path[PATH_MAX];
  if (dh__tag_path(tag, path, sizeof path) != 0) return dh__unknown_tag("<tag>", tag);
  dh_json_init();
  json_t* root = json_pack("{ss}", "tag", tag);
  if (!root) return dh__target_oom();
  return parse_root_of_file(root, path, out_target);
}

int dh_target_resolve(const char* path_or_tag, dh_target_t** out_target) {
  if (!out_target) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_target_resolve: out_target is NULL");
  *out_target = NULL;
  if (!path_or_tag || !*path_or_tag)
    return dh_error_set(DH_KIND_VALUE_ERROR, "dh_target_resolve: empty path or tag");
  struct stat st;
  if (stat(path_or_tag, &st) == 0) return dh_target_parse_file(path_or_tag, out_target);
  /* A name that cannot be a tag (tags are vendor/name, no ".json", no leading '/' or
   * '.') is a file that is not there: say so, not "unknown tag". */
  size_t n = strlen(path_or_tag);
  if (path_or_tag[0] == '/' || path_or_tag[0] == '.' || (n > 5 && strcmp(path_or_tag + n - 5, ".json") == 0))
    return dh_target_parse_file(path_or_tag, out_target);
  return dh_target_from_tag(path_or_tag, out_target);
}

