/*
 * target/target_kind.c — the targets folder, option types and target kinds: kind
 * files (targets/kinds/<kind>.json) and plugins' target_kind_json, validated and kept in
 * a registry (target/target_impl.h has the file map of the targets code).
 *
 * Registry: kinds live in a growing array guarded by g_lock; a kind is never freed
 * or moved once registered, so a const pointer stays valid without the lock.
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

/*--- small helpers of the target files ---*/

int dh__target_oom(void) { return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "targets: out of memory"); }

int dh__cmp_str_ptr(const void* a, const void* b) {
  return strcmp(*(const char* const*)a, *(const char* const*)b);
}

int dh__sl_push(str_list_t* l, const char* s) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 16;
    char** p = realloc(l->v, cap * sizeof *p);
    if (!p) return -1;
    l->v = p;
    l->cap = cap;
  }
  if (!(l->v[l->n] = strdup(s))) return -1;
  l->n++;
  return 0;
}

void dh__sl_free(str_list_t* l) {
  for (size_t i = 0; i < l->n; ++i) free(l->v[i]);
  free(l->v);
  l->v = NULL;
  l->n = l->cap = 0;
}

/*--- option types and the options every kind has ---*/

static const char* const k_type_names[] = {"bool", "int", "float", "str",
                                           "array<str>", "array<int>", "target"};

const char* dh__opt_type_name(opt_type_t t) { return k_type_names[t]; }

/* The options every kind has (TVM: kind, keys, tag, device, model, libs, host,
 * from_device, target_device_type; apache/tvm 5d4dc87 src/target/target_kind.cc). */
static const struct {
  const char* name;
  opt_type_t type;
} k_common[] = {
    {"device", OPT_STR},     {"from_device", OPT_INT}, {"host", OPT_TARGET},
    {"keys", OPT_ARRAY_STR}, {"kind", OPT_STR},        {"libs", OPT_ARRAY_STR},
    {"model", OPT_STR},      {"tag", OPT_STR},          {"target_device_type", OPT_INT},
};
#define NUM_COMMON (sizeof k_common / sizeof k_common[0])

static int is_common(const char* name) {
  for (size_t i = 0; i < NUM_COMMON; ++i)
    if (strcmp(k_common[i].name, name) == 0) return 1;
  return 0;
}

/*--- the targets folder ---*/

static pthread_once_t g_dir_once = PTHREAD_ONCE_INIT;
static char g_dir[PATH_MAX];
static int g_dir_found;

static int is_dir(const char* p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void find_dir(void) {
  const char* env = getenv("DEVHARNESS_TARGETS_PATH");
  if (env && *env) {
    if (strlen(env) < sizeof g_dir) {
      snprintf(g_dir, sizeof g_dir, "%s", env);
      g_dir_found = 1;
    }
    return;
  }
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return;
  exe[n] = '\0';
  char* slash = strrchr(exe, '/');
  if (!slash) return;
  *slash = '\0';
  static const char* const rel[] = {"/../../targets", "/../share/devharness/targets"};
  for (size_t i = 0; i < 2; ++i) {
    char cand[PATH_MAX];
    if ((size_t)snprintf(cand, sizeof cand, "%s%s", exe, rel[i]) >= sizeof cand) continue;
    char* real = realpath(cand, NULL);
    if (real && is_dir(real) && strlen(real) < sizeof g_dir) {
      snprintf(g_dir, sizeof g_dir, "%s", real);
      g_dir_found = 1;
      free(real);
      return;
    }
    free(real);
  }
}

const char* dh_targets_dir(void) {
  pthread_once(&g_dir_once, find_dir);
  return g_dir_found ? g_dir : NULL;
}

/*--- the kind registry ---*/

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static dh_kind_t** g_kinds; /* sorted by name */
static size_t g_num_kinds, g_cap_kinds;
static int g_loaded;
static char* g_load_error_kind; /* first error of the file load, replayed */
static char* g_load_error_msg;

static int parse_type(const char* s, opt_type_t* out) {
  for (size_t i = 0; i < sizeof k_type_names / sizeof k_type_names[0]; ++i)
    if (strcmp(s, k_type_names[i]) == 0) {
      *out = (opt_type_t)i;
      return 0;
    }
  return -1;
}

/* Validates `v` against type t; on success *out is a new reference to the normalised
 * value (int -> real for floats). Nested targets are handled by the caller. On a
 * mismatch returns -1 and writes the description of what was wrong into why. */
int dh__check_value(opt_type_t t, json_t* v, json_t** out, char* why, size_t why_size) {
  char d[96];
  switch (t) {
    /* Bool <-> Int as TVM's ConfigSchema converts them (its validator is
     * Any::try_cast<T>: an Int is a Bool (non-zero = true) and a Bool is an Int 0/1;
     * apache/tvm 5d4dc87 include/tvm/ir/config_schema.h:176-186). */
    case OPT_BOOL:
      if (json_is_boolean(v)) {
        *out = json_incref(v);
        return 0;
      }
      if (json_is_integer(v)) {
        *out = json_boolean(json_integer_value(v) != 0);
        return *out ? 0 : -1;
      }
      break;
    case OPT_INT:
      if (json_is_integer(v)) {
        *out = json_incref(v);
        return 0;
      }
      if (json_is_boolean(v)) {
        *out = json_integer(json_is_true(v) ? 1 : 0);
        return *out ? 0 : -1;
      }
      break;
    case OPT_FLOAT:
      if (json_is_real(v)) {
        *out = json_incref(v);
        return 0;
      }
      if (json_is_integer(v)) {
        *out = json_real((double)json_integer_value(v));
        return *out ? 0 : -1;
      }
      break;
    case OPT_STR:
      if (json_is_string(v)) {
        *out = json_incref(v);
        return 0;
      }
      break;
    case OPT_ARRAY_STR:
    case OPT_ARRAY_INT:
      if (json_is_array(v)) {
        size_t i;
        json_t* e;
        json_array_foreach(v, i, e) {
          if (t == OPT_ARRAY_STR ? !json_is_string(e) : !json_is_integer(e)) {
            dh_json_describe(e, d, sizeof d);
            snprintf(why, why_size, "expected %s, got %s at index %zu", dh__opt_type_name(t), d, i);
            return -1;
          }
        }
        *out = json_incref(v);
        return 0;
      }
      break;
    case OPT_TARGET:
      if (json_is_object(v) || json_is_string(v)) {
        *out = json_incref(v);
        return 0;
      }
      break;
  }
  dh_json_describe(v, d, sizeof d);
  snprintf(why, why_size, "expected %s, got %s", dh__opt_type_name(t), d);
  return -1;
}

static void kind_free(dh_kind_t* k) {
  if (!k) return;
  for (size_t i = 0; i < k->num_opts; ++i) {
    free(k->opts[i].name);
    json_decref(k->opts[i].def);
  }
  free(k->opts);
  json_decref(k->default_keys);
  free(k->name);
  free(k->tvm_kind);
  free(k);
}

static int cmp_opt(const void* a, const void* b) {
  return strcmp(((const kind_opt_t*)a)->name, ((const kind_opt_t*)b)->name);
}

static int valid_kind_name(const char* s) {
  if (!(*s >= 'a' && *s <= 'z')) return 0;
  for (; *s; ++s)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
      return 0;
  return 1;
}

/* Checks the fields of a kind definition other than its options: only known fields,
 * 'kind' a kind name, 'device_type' a positive int, 'tvm_kind' a string, 'options' an
 * object. */
static int check_kind_fields(json_t* root, const char* origin) {
  static const char* const allowed[] = {"kind", "device_type", "default_keys", "options",
                                        "description", "tvm_kind"};
  const char* key;
  json_t* val;
  json_object_foreach(root, key, val) {
    int ok = 0;
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; ++i)
      if (strcmp(key, allowed[i]) == 0) ok = 1;
    if (!ok)
      return dh_error_set(DH_KIND_KEY_ERROR,
                          "%s: unknown field '%s' in kind definition; known fields: "
                          "default_keys, description, device_type, kind, options, tvm_kind",
                          origin, key);
  }
  char d[96];
  json_t* name = json_object_get(root, "kind");
  if (!name) return dh_error_set(DH_KIND_VALUE_ERROR, "%s: kind definition has no 'kind'", origin);
  if (!json_is_string(name)) {
    dh_json_describe(name, d, sizeof d);
    return dh_error_set(DH_KIND_TYPE_ERROR, "%s: field 'kind': expected str, got %s", origin, d);
  }
  if (!valid_kind_name(json_string_value(name)))
    return dh_error_set(DH_KIND_VALUE_ERROR,
                        "%s: field 'kind': '%s' is not a kind name ([a-z][a-z0-9_-]*)",
                        origin, json_string_value(name));
  json_t* dt = json_object_get(root, "device_type");
  if (!dt) return dh_error_set(DH_KIND_VALUE_ERROR, "%s: kind definition has no 'device_type'", origin);
  if (!json_is_integer(dt) || json_integer_value(dt) < 1 || json_integer_value(dt) > INT32_MAX) {
    dh_json_describe(dt, d, sizeof d);
    return dh_error_set(DH_KIND_TYPE_ERROR,
                        "%s: field 'device_type': expected a positive int (DLDeviceType), "
                        "got %s",
                        origin, d);
  }
  return 0;
}

/* Checks the fields of a kind definition's option. */
static int check_option_fields(const char* origin, const char* key, json_t* val) {
  char d[96];
  if (is_common(key))
    return dh_error_set(DH_KIND_VALUE_ERROR, "%s: option '%s' redefines an option every kind has", origin, key);
  if (!json_is_object(val)) {
    dh_json_describe(val, d, sizeof d);
    return dh_error_set(DH_KIND_TYPE_ERROR, "%s: option '%s': expected object, got %s", origin, key, d);
  }
  const char* k2;
  json_t* v2;
  json_object_foreach(val, k2, v2) {
    if (strcmp(k2, "type") != 0 && strcmp(k2, "default") != 0 && strcmp(k2, "description") != 0 &&
        strcmp(k2, "tvm") != 0 && strcmp(k2, "device") != 0)
      return dh_error_set(DH_KIND_KEY_ERROR,
                          "%s: option '%s': unknown field '%s'; known fields: default, "
                          "description, device, tvm, type",
                          origin, key, k2);
    if ((strcmp(k2, "tvm") == 0 || strcmp(k2, "device") == 0) && !json_is_boolean(v2)) {
      dh_json_describe(v2, d, sizeof d);
      return dh_error_set(DH_KIND_TYPE_ERROR, "%s: option '%s': field '%s': expected bool, got %s", origin,
                          key, k2, d);
    }
  }
  return 0;
}

/* Adds option `key` (definition val) to k. */
static int add_option(dh_kind_t* k, const char* origin, const char* key, json_t* val) {
  char d[96], why[256];
  if (check_option_fields(origin, key, val) != 0) return -1;
  json_t* ty = json_object_get(val, "type");
  opt_type_t t;
  if (!json_is_string(ty) || parse_type(json_string_value(ty), &t) != 0) {
    if (ty) dh_json_describe(ty, d, sizeof d);
    return dh_error_set(DH_KIND_TYPE_ERROR,
                        "%s: option '%s': field 'type' must be one of bool, int, float, "
                        "str, array<str>, array<int>, target; got %s",
                        origin, key, ty ? d : "nothing");
  }
  kind_opt_t* o = &k->opts[k->num_opts];
  if (!(o->name = strdup(key))) return dh__target_oom();
  o->type = t;
  o->not_tvm = json_is_false(json_object_get(val, "tvm"));
  o->not_device = json_is_false(json_object_get(val, "device"));
  k->num_opts++;
  json_t* def = json_object_get(val, "default");
  if (!def) return 0;
  if (t == OPT_TARGET)
    return dh_error_set(DH_KIND_VALUE_ERROR, "%s: option '%s': a target option cannot have a default",
                        origin, key);
  if (dh__check_value(t, def, &o->def, why, sizeof why) != 0)
    return dh_error_set(DH_KIND_TYPE_ERROR, "%s: option '%s': default: %s", origin, key, why);
  return 0;
}

/* Builds a kind from its JSON definition (targets/kinds format). */
static int kind_from_json(json_t* root, const char* origin, dh_kind_t** out) {
  if (check_kind_fields(root, origin) != 0) return -1;
  char d[96], why[256];
  json_t* dk = json_object_get(root, "default_keys");
  json_t* keys = NULL;
  if (dk) {
    if (dh__check_value(OPT_ARRAY_STR, dk, &keys, why, sizeof why) != 0)
      return dh_error_set(DH_KIND_TYPE_ERROR, "%s: field 'default_keys': %s", origin, why);
  } else {
    keys = json_array();
    if (!keys) return dh__target_oom();
  }
  json_t* tk = json_object_get(root, "tvm_kind");
  if (tk && !json_is_string(tk)) {
    json_decref(keys);
    dh_json_describe(tk, d, sizeof d);
    return dh_error_set(DH_KIND_TYPE_ERROR, "%s: field 'tvm_kind': expected str, got %s", origin, d);
  }
  json_t* opts = json_object_get(root, "options");
  if (opts && !json_is_object(opts)) {
    json_decref(keys);
    dh_json_describe(opts, d, sizeof d);
    return dh_error_set(DH_KIND_TYPE_ERROR, "%s: field 'options': expected object, got %s", origin, d);
  }
  dh_kind_t* k = calloc(1, sizeof *k);
  size_t n = NUM_COMMON + (opts ? json_object_size(opts) : 0);
  if (!k || !(k->opts = calloc(n, sizeof *k->opts)) ||
      !(k->name = strdup(json_string_value(json_object_get(root, "kind"))))) {
    json_decref(keys);
    kind_free(k);
    return dh__target_oom();
  }
  k->device_type = (int32_t)json_integer_value(json_object_get(root, "device_type"));
  k->default_keys = keys;
  if (tk && !(k->tvm_kind = strdup(json_string_value(tk)))) {
    kind_free(k);
    return dh__target_oom();
  }
  for (size_t i = 0; i < NUM_COMMON; ++i) {
    kind_opt_t* o = &k->opts[k->num_opts];
    if (!(o->name = strdup(k_common[i].name))) {
      kind_free(k);
      return dh__target_oom();
    }
    o->type = k_common[i].type;
    o->common = 1;
    k->num_opts++;
  }
  const char* key;
  json_t* val;
  json_object_foreach(opts, key, val) {
    if (add_option(k, origin, key, val) != 0) {
      kind_free(k);
      return -1;
    }
  }
  qsort(k->opts, k->num_opts, sizeof *k->opts, cmp_opt);
  *out = k;
  return 0;
}

static dh_kind_t* find_kind_locked(const char* name) {
  for (size_t i = 0; i < g_num_kinds; ++i)
    if (strcmp(g_kinds[i]->name, name) == 0) return g_kinds[i];
  return NULL;
}

/* Adds k (ownership passes) to the registry; caller holds g_lock. */
static int add_kind_locked(dh_kind_t* k, const char* origin) {
  if (find_kind_locked(k->name)) {
    int rc = dh_error_set(DH_KIND_KEY_ERROR, "%s: kind '%s' is already registered", origin, k->name);
    kind_free(k);
    return rc;
  }
  if (g_num_kinds == g_cap_kinds) {
    size_t cap = g_cap_kinds ? g_cap_kinds * 2 : 8;
    dh_kind_t** p = realloc(g_kinds, cap * sizeof *p);
    if (!p) {
      kind_free(k);
      return dh__target_oom();
    }
    g_kinds = p;
    g_cap_kinds = cap;
  }
  size_t i = g_num_kinds;
  while (i > 0 && strcmp(g_kinds[i - 1]->name, k->name) > 0) {
    g_kinds[i] = g_kinds[i - 1];
    --i;
  }
  g_kinds[i] = k;
  g_num_kinds++;
  return 0;
}

static void remember_load_error(void) {
  if (g_load_error_msg) return;
  const char* kind = dh_error_kind();
  g_load_error_kind = strdup(kind ? kind : DH_KIND_RUNTIME_ERROR);
  g_load_error_msg = strdup(dh_error_message());
}

static void load_kind_files_locked(void) {
  const char* dir = dh_targets_dir();
  if (!dir) {
    dh_error_set(DH_KIND_IO_ERROR,
                 "no targets folder found (set DEVHARNESS_TARGETS_PATH, or keep targets/ "
                 "beside the build folder or in <prefix>/share/devharness)");
    remember_load_error();
    return;
  }
  char kdir[PATH_MAX];
  snprintf(kdir, sizeof kdir, "%s/kinds", dir);
  DIR* d = opendir(kdir);
  if (!d) {
    dh_error_set(DH_KIND_IO_ERROR, "%s: cannot open: %s", kdir, strerror(errno));
    remember_load_error();
    return;
  }
  char** names = NULL;
  size_t n = 0, cap = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len <= 5 || e->d_name[0] == '.' || strcmp(e->d_name + len - 5, ".json") != 0) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 16;
      char** p = realloc(names, cap * sizeof *p);
      if (!p) break;
      names = p;
    }
    if (!(names[n] = strdup(e->d_name))) break;
    n++;
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, dh__cmp_str_ptr);
  for (size_t i = 0; i < n; ++i) {
    char path[PATH_MAX];
    json_t* root = NULL;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", kdir, names[i]) >= sizeof path) {
      free(names[i]);
      continue;
    }
    dh_kind_t* k = NULL;
    int rc = dh_json_read_file(path, &root) != 0 ? dh_base_error_raise() : kind_from_json(root, path, &k);
    if (rc != 0) {
      remember_load_error();
    } else {
      size_t len = strlen(names[i]) - 5;
      if (strlen(k->name) != len || strncmp(k->name, names[i], len) != 0) {
        dh_error_set(DH_KIND_VALUE_ERROR, "%s: kind '%s' must be in a file named %s.json", path,
                     k->name, k->name);
        remember_load_error();
        kind_free(k);
      } else if (add_kind_locked(k, path) != 0) {
        remember_load_error();
      }
    }
    json_decref(root);
    free(names[i]);
  }
  free(names);
}

int dh_target_kinds_load(void) {
  dh_json_init();
  pthread_mutex_lock(&g_lock);
  if (!g_loaded) {
    g_loaded = 1;
    load_kind_files_locked();
  }
  int rc = 0;
  if (g_load_error_msg) rc = dh_error_set(g_load_error_kind, "%s", g_load_error_msg);
  pthread_mutex_unlock(&g_lock);
  return rc;
}

int dh_target_kind_register_json(const char* json_text, const char* origin) {
  if (!origin) origin = "<string>";
  if (!json_text) return dh_error_set(DH_KIND_VALUE_ERROR, "%s: kind JSON text is NULL", origin);
  dh_target_kinds_load(); /* file kinds first, so a plugin cannot shadow them */
  json_t* root = NULL;
  if (dh_json_read_text(json_text, strlen(json_text), origin, &root) != 0) return dh_base_error_raise();
  dh_kind_t* k = NULL;
  int rc = kind_from_json(root, origin, &k);
  json_decref(root);
  if (rc != 0) return rc;
  pthread_mutex_lock(&g_lock);
  rc = add_kind_locked(k, origin);
  pthread_mutex_unlock(&g_lock);
  return rc;
}

/* Registers the kinds that loaded backends hand in (target_kind_json) and that are
 * not known yet. Never called with g_lock held (the device API has its own lock). */
static void register_backend_kinds(void) {
  size_t n = dh_backend_count();
  for (size_t i = 0; i < n; ++i) {
    const dh_backend_t* b = dh_backend_at(i);
    if (!b || !b->target_kind || !b->target_kind_json) continue;
    pthread_mutex_lock(&g_lock);
    int known = find_kind_locked(b->target_kind) != NULL;
    pthread_mutex_unlock(&g_lock);
    if (known) continue;
    char origin[256];
    snprintf(origin, sizeof origin, "plugin %s: target_kind_json", b->name ? b->name : "?");
    dh_target_kind_register_json(b->target_kind_json, origin); /* error kept for caller */
  }
}

/* The kind named `name`, or NULL (no error set). Looks at backends' kinds too. */
const dh_kind_t* dh__lookup_kind(const char* name) {
  dh_target_kinds_load();
  pthread_mutex_lock(&g_lock);
  const dh_kind_t* k = find_kind_locked(name);
  pthread_mutex_unlock(&g_lock);
  if (k) return k;
  register_backend_kinds();
  pthread_mutex_lock(&g_lock);
  k = find_kind_locked(name);
  pthread_mutex_unlock(&g_lock);
  return k;
}

size_t dh_target_kind_list(void (*visit)(const char* kind, void* user), void* user) {
  dh_target_kinds_load();
  register_backend_kinds();
  pthread_mutex_lock(&g_lock);
  size_t n = g_num_kinds;
  const char** names = malloc((n ? n : 1) * sizeof *names);
  if (names)
    for (size_t i = 0; i < n; ++i) names[i] = g_kinds[i]->name; /* kinds never freed */
  pthread_mutex_unlock(&g_lock);
  if (!names) return 0;
  if (visit)
    for (size_t i = 0; i < n; ++i) visit(names[i], user);
  free(names);
  return n;
}

void dh__known_kinds(dh_sbuf_t* b) {
  dh_target_kinds_load(); /* the kinds files, so the list is never "(none)" by accident */
  register_backend_kinds();
  pthread_mutex_lock(&g_lock);
  for (size_t i = 0; i < g_num_kinds; ++i) {
    if (i) dh_sbuf_add(b, ", ");
    dh_sbuf_add(b, g_kinds[i]->name);
  }
  if (!g_num_kinds) dh_sbuf_add(b, "(none)");
  pthread_mutex_unlock(&g_lock);
}

const kind_opt_t* dh__find_opt(const dh_kind_t* k, const char* name) {
  size_t lo = 0, hi = k->num_opts;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = strcmp(k->opts[mid].name, name);
    if (c == 0) return &k->opts[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

int dh__unknown_option(const char* origin, const char* prefix, const char* name,
                          const dh_kind_t* k) {
  dh_sbuf_t b = {0};
  for (size_t i = 0; i < k->num_opts; ++i) {
    if (i) dh_sbuf_add(&b, ", ");
    dh_sbuf_add(&b, k->opts[i].name);
  }
  char q[DH_TEXT_BUF];
  int rc = dh_error_set(DH_KIND_KEY_ERROR, "%s: unknown option '%s%s' for kind '%s'; known options: %s",
                        origin, prefix, dh_text_quote(name, q, sizeof q), k->name, dh_sbuf_str(&b));
  free(b.s);
  return rc;
}

