/*
 * runtime/target.c — targets (include/devharness/target.h), with jansson.
 *
 * TVM's target rules (apache/tvm v0.27.0 src/target/target.cc, target_kind.cc): a target
 * is a JSON object with a kind; each kind declares typed options with defaults; the
 * common options kind, keys, tag, device, model, libs, host, from_device exist for
 * every kind.
 *
 * Representation: a parsed target holds its kind (registry-owned, never freed) and
 * one jansson object with every option that has a value (given, from the tag, from
 * the device, or a default), normalised (ints given for floats become reals, keys
 * computed, host a normalised nested object, from_device consumed). Serialising is
 * json_dumps of that object; equality is json_equal. Immutable after parsing.
 *
 * Registry: kinds live in a growing array guarded by g_lock; a kind is never freed
 * or moved once registered, so a const pointer stays valid without the lock.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
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
#include "devharness/target.h"
#include "runtime/text.h"
#include "target_internal.h"

/* Target files are a few hundred bytes; anything past 1 MiB is refused before it is
 * parsed (tests/hostile/hostile.t: huge files get a one-line error, not minutes of parsing). */
#define DH_TARGET_MAX_FILE_BYTES ((size_t)1 << 20) /* 1 MiB */
#define DH_TARGET_MAX_DEPTH 64                      /* JSON nesting levels */
#define DH_TARGET_MAX_HOST_DEPTH 8                  /* host inside host ... */
#define DH_TARGET_MAX_TAG_DEPTH 8                   /* tag file naming a tag ... */

/*===========================================================================
 * Option types and kinds
 *===========================================================================*/

typedef enum opt_type {
  OPT_BOOL,
  OPT_INT,
  OPT_FLOAT,
  OPT_STR,
  OPT_ARRAY_STR,
  OPT_ARRAY_INT,
  OPT_TARGET
} opt_type_t;

static const char* const k_type_names[] = {"bool", "int", "float", "str",
                                           "array<str>", "array<int>", "target"};

typedef struct kind_opt {
  char* name;
  opt_type_t type;
  json_t* def; /* default, or NULL */
  int common;  /* one of the options every kind has */
  int not_tvm; /* "tvm": false: a devharness-only option, left out of the TVM form */
} kind_opt_t;

typedef struct dh_kind {
  char* name;
  char* tvm_kind; /* "tvm_kind": the TVM target kind this one exports as, or NULL */
  int32_t device_type;
  json_t* default_keys; /* array of strings */
  kind_opt_t* opts;     /* sorted by name */
  size_t num_opts;
} dh_kind_t;

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

struct dh_target {
  const dh_kind_t* kind;
  json_t* obj;      /* option name -> value */
  char** declared;  /* sorted */
  size_t num_declared;
  char** text_name; /* arrays / targets: their JSON text for dh_target_get */
  char** text;
  size_t num_text;
};

/*===========================================================================
 * Small helpers
 *===========================================================================*/

static char* xstrdup(const char* s) {
  size_t n = strlen(s) + 1;
  char* p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

static int oom(void) { return dh_error_set("OutOfMemoryError", "targets: out of memory"); }

static int cmp_str_ptr(const void* a, const void* b) {
  return strcmp(*(const char* const*)a, *(const char* const*)b);
}

/* A growable string for messages. */
typedef struct sbuf {
  char* s;
  size_t len, cap;
} sbuf_t;

static void sb_add(sbuf_t* b, const char* t) {
  size_t n = strlen(t);
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 128;
    while (cap < b->len + n + 1) cap *= 2;
    char* p = realloc(b->s, cap);
    if (!p) return; /* message truncated; never fatal */
    b->s = p;
    b->cap = cap;
  }
  memcpy(b->s + b->len, t, n + 1);
  b->len += n;
}

static const char* sb_str(const sbuf_t* b) { return b->s ? b->s : ""; }

/* "string \"1024\"", "int 3", "float 1.5", "bool true", "null", "array [1, 2]",
 * "object {...}": a value's JSON type and text (shortened) for messages. */
static void describe(const json_t* v, char* buf, size_t size) {
  const char* tname = "null";
  switch (json_typeof(v)) {
    case JSON_OBJECT: tname = "object"; break;
    case JSON_ARRAY: tname = "array"; break;
    case JSON_STRING: tname = "string"; break;
    case JSON_INTEGER: tname = "int"; break;
    case JSON_REAL: tname = "float"; break;
    case JSON_TRUE:
    case JSON_FALSE: tname = "bool"; break;
    case JSON_NULL: tname = "null"; break;
  }
  if (json_is_null(v)) {
    snprintf(buf, size, "null");
    return;
  }
  char* text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
  if (!text) {
    snprintf(buf, size, "%s", tname);
    return;
  }
  if (strlen(text) > 60) memcpy(text + 56, " ...", 5);
  snprintf(buf, size, "%s %s", tname, text);
  free(text);
}

/*===========================================================================
 * Reading JSON with the limits (size, emptiness, UTF-8, duplicates, depth)
 *===========================================================================*/

/* jansson seeds its hash function on first object creation; seeding once up front
 * keeps that out of concurrent first uses (jansson docs, "Thread safety"). */
static pthread_once_t g_jansson_once = PTHREAD_ONCE_INIT;
static void seed_jansson(void) { json_object_seed(0); }
static void ensure_jansson(void) { pthread_once(&g_jansson_once, seed_jansson); }

static int depth_ok(const json_t* v, int depth) {
  if (depth > DH_TARGET_MAX_DEPTH) return 0;
  if (json_is_object(v)) {
    const char* k;
    json_t* c;
    json_object_foreach((json_t*)v, k, c) {
      if (!depth_ok(c, depth + 1)) return 0;
    }
  } else if (json_is_array(v)) {
    size_t i;
    json_t* c;
    json_array_foreach(v, i, c) {
      if (!depth_ok(c, depth + 1)) return 0;
    }
  }
  return 1;
}

static int syntax_error(const char* origin, const json_error_t* err) {
  const char* what = "JSON syntax error";
  if (json_error_code(err) == json_error_invalid_utf8) what = "invalid UTF-8";
  else if (json_error_code(err) == json_error_duplicate_key) what = "duplicate key";
  return dh_error_set("ParseError", "%s:%d:%d: %s: %s", origin, err->line, err->column,
                      what, err->text);
}

/* Checks a freshly parsed root: an object, not too deep. Steals root on error. */
static int check_root(const char* origin, json_t* root, json_t** out) {
  if (!depth_ok(root, 1)) {
    json_decref(root);
    return dh_error_set("ParseError", "%s: nesting deeper than %d levels", origin,
                        DH_TARGET_MAX_DEPTH);
  }
  if (!json_is_object(root)) {
    char d[96];
    describe(root, d, sizeof d);
    json_decref(root);
    return dh_error_set("TypeError", "%s: expected a JSON object, got %s", origin, d);
  }
  *out = root;
  return 0;
}

static int all_space(const char* s, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r') return 0;
  return 1;
}

static int load_text(const char* text, size_t len, const char* origin, json_t** out) {
  ensure_jansson();
  if (len > DH_TARGET_MAX_FILE_BYTES)
    return dh_error_set("ValueError", "%s: text is %zu bytes, larger than the 1 MiB limit",
                        origin, len);
  if (all_space(text, len)) return dh_error_set("ParseError", "%s: empty input", origin);
  json_error_t err;
  json_t* root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
  if (!root) return syntax_error(origin, &err);
  return check_root(origin, root, out);
}

typedef struct file_reader {
  FILE* f;
  size_t total;
  int too_big, non_space, io_error;
  char buf[65536];
} file_reader_t;

/* jansson callback: streams the file (never holds a second copy), stops past the
 * size limit. */
static size_t read_cb(void* buffer, size_t buflen, void* data) {
  file_reader_t* r = data;
  if (buflen > sizeof r->buf) buflen = sizeof r->buf;
  size_t n = fread(buffer, 1, buflen, r->f);
  if (n == 0 && ferror(r->f)) {
    r->io_error = errno ? errno : EIO;
    return (size_t)-1;
  }
  r->total += n;
  if (r->total > DH_TARGET_MAX_FILE_BYTES) {
    r->too_big = 1;
    return (size_t)-1;
  }
  if (!r->non_space && !all_space(buffer, n)) r->non_space = 1;
  return n;
}

/* What a file that is not a regular file is, for messages. */
static const char* file_type_name(mode_t m) {
  return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO (named pipe)" : S_ISCHR(m) ? "a character device"
       : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "of an unknown file type";
}

/* Reads a target file: regular files only, opened with O_NONBLOCK so that a FIFO or a
 * device named by mistake is refused at once instead of blocking the command. */
static int load_file(const char* path_raw, json_t** out) {
  ensure_jansson();
  char path[DH_TEXT_BUF]; /* the name as messages show it */
  dh_text_quote(path_raw, path, sizeof path);
  int fd = open(path_raw, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return dh_error_set("IOError", "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return dh_error_set("IOError", "%s: cannot stat: %s", path, strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return dh_error_set("IOError", "%s: is %s, not a regular file", path, file_type_name(st.st_mode));
  }
  FILE* f = fdopen(fd, "rb");
  if (!f) {
    int e = errno;
    close(fd);
    return dh_error_set("IOError", "%s: cannot open: %s", path, strerror(e));
  }
  if ((uint64_t)st.st_size > DH_TARGET_MAX_FILE_BYTES) {
    fclose(f);
    return dh_error_set("ValueError", "%s: file is %lld bytes, larger than the 1 MiB limit",
                        path, (long long)st.st_size);
  }
  file_reader_t* r = calloc(1, sizeof *r);
  if (!r) {
    fclose(f);
    return oom();
  }
  r->f = f;
  json_error_t err;
  json_t* root = json_load_callback(read_cb, r, JSON_REJECT_DUPLICATES, &err);
  int too_big = r->too_big, non_space = r->non_space, io_error = r->io_error;
  free(r);
  fclose(f);
  if (too_big) {
    json_decref(root);
    return dh_error_set("ValueError", "%s: file is larger than the 1 MiB limit", path);
  }
  if (io_error) {
    json_decref(root);
    return dh_error_set("IOError", "%s: read error: %s", path, strerror(io_error));
  }
  if (!non_space) {
    json_decref(root);
    return dh_error_set("ParseError", "%s: empty file", path);
  }
  if (!root) return syntax_error(path, &err);
  return check_root(path, root, out);
}

/*===========================================================================
 * Targets folder
 *===========================================================================*/

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

/*===========================================================================
 * Kind registry
 *===========================================================================*/

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
static int check_value(opt_type_t t, json_t* v, json_t** out, char* why, size_t why_size) {
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
            describe(e, d, sizeof d);
            snprintf(why, why_size, "expected %s, got %s at index %zu", k_type_names[t], d, i);
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
  describe(v, d, sizeof d);
  snprintf(why, why_size, "expected %s, got %s", k_type_names[t], d);
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

/* Builds a kind from its JSON definition (targets/kinds format). */
static int kind_from_json(json_t* root, const char* origin, dh_kind_t** out) {
  static const char* const allowed[] = {"kind", "device_type", "default_keys", "options",
                                        "description", "tvm_kind"};
  const char* key;
  json_t* val;
  json_object_foreach(root, key, val) {
    int ok = 0;
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; ++i)
      if (strcmp(key, allowed[i]) == 0) ok = 1;
    if (!ok)
      return dh_error_set("KeyError",
                          "%s: unknown field '%s' in kind definition; known fields: "
                          "default_keys, description, device_type, kind, options, tvm_kind",
                          origin, key);
  }
  char d[96];
  json_t* name = json_object_get(root, "kind");
  if (!name) return dh_error_set("ValueError", "%s: kind definition has no 'kind'", origin);
  if (!json_is_string(name)) {
    describe(name, d, sizeof d);
    return dh_error_set("TypeError", "%s: field 'kind': expected str, got %s", origin, d);
  }
  if (!valid_kind_name(json_string_value(name)))
    return dh_error_set("ValueError",
                        "%s: field 'kind': '%s' is not a kind name ([a-z][a-z0-9_-]*)",
                        origin, json_string_value(name));
  json_t* dt = json_object_get(root, "device_type");
  if (!dt) return dh_error_set("ValueError", "%s: kind definition has no 'device_type'", origin);
  if (!json_is_integer(dt) || json_integer_value(dt) < 1 || json_integer_value(dt) > INT32_MAX) {
    describe(dt, d, sizeof d);
    return dh_error_set("TypeError",
                        "%s: field 'device_type': expected a positive int (DLDeviceType), "
                        "got %s",
                        origin, d);
  }
  json_t* dk = json_object_get(root, "default_keys");
  json_t* keys = NULL;
  char why[256];
  if (dk) {
    if (check_value(OPT_ARRAY_STR, dk, &keys, why, sizeof why) != 0)
      return dh_error_set("TypeError", "%s: field 'default_keys': %s", origin, why);
  } else {
    keys = json_array();
    if (!keys) return oom();
  }
  json_t* tk = json_object_get(root, "tvm_kind");
  if (tk && !json_is_string(tk)) {
    json_decref(keys);
    describe(tk, d, sizeof d);
    return dh_error_set("TypeError", "%s: field 'tvm_kind': expected str, got %s", origin, d);
  }
  json_t* opts = json_object_get(root, "options");
  if (opts && !json_is_object(opts)) {
    json_decref(keys);
    describe(opts, d, sizeof d);
    return dh_error_set("TypeError", "%s: field 'options': expected object, got %s", origin, d);
  }
  dh_kind_t* k = calloc(1, sizeof *k);
  size_t n = NUM_COMMON + (opts ? json_object_size(opts) : 0);
  if (!k || !(k->opts = calloc(n, sizeof *k->opts)) || !(k->name = xstrdup(json_string_value(name)))) {
    json_decref(keys);
    kind_free(k);
    return oom();
  }
  k->device_type = (int32_t)json_integer_value(dt);
  k->default_keys = keys;
  if (tk && !(k->tvm_kind = xstrdup(json_string_value(tk)))) {
    kind_free(k);
    return oom();
  }
  for (size_t i = 0; i < NUM_COMMON; ++i) {
    kind_opt_t* o = &k->opts[k->num_opts];
    if (!(o->name = xstrdup(k_common[i].name))) {
      kind_free(k);
      return oom();
    }
    o->type = k_common[i].type;
    o->common = 1;
    k->num_opts++;
  }
  if (opts) {
    json_object_foreach(opts, key, val) {
      if (is_common(key)) {
        kind_free(k);
        return dh_error_set("ValueError",
                            "%s: option '%s' redefines an option every kind has", origin, key);
      }
      if (!json_is_object(val)) {
        kind_free(k);
        describe(val, d, sizeof d);
        return dh_error_set("TypeError", "%s: option '%s': expected object, got %s", origin,
                            key, d);
      }
      const char* k2;
      json_t* v2;
      json_object_foreach(val, k2, v2) {
        if (strcmp(k2, "type") != 0 && strcmp(k2, "default") != 0 &&
            strcmp(k2, "description") != 0 && strcmp(k2, "tvm") != 0) {
          kind_free(k);
          return dh_error_set("KeyError",
                              "%s: option '%s': unknown field '%s'; known fields: default, "
                              "description, tvm, type",
                              origin, key, k2);
        }
        if (strcmp(k2, "tvm") == 0 && !json_is_boolean(v2)) {
          kind_free(k);
          describe(v2, d, sizeof d);
          return dh_error_set("TypeError", "%s: option '%s': field 'tvm': expected bool, got %s", origin,
                              key, d);
        }
      }
      json_t* ty = json_object_get(val, "type");
      opt_type_t t;
      if (!json_is_string(ty) || parse_type(json_string_value(ty), &t) != 0) {
        kind_free(k);
        if (ty) describe(ty, d, sizeof d);
        return dh_error_set("TypeError",
                            "%s: option '%s': field 'type' must be one of bool, int, float, "
                            "str, array<str>, array<int>, target; got %s",
                            origin, key, ty ? d : "nothing");
      }
      kind_opt_t* o = &k->opts[k->num_opts];
      if (!(o->name = xstrdup(key))) {
        kind_free(k);
        return oom();
      }
      o->type = t;
      o->not_tvm = json_is_false(json_object_get(val, "tvm"));
      k->num_opts++;
      json_t* def = json_object_get(val, "default");
      if (def) {
        if (t == OPT_TARGET) {
          kind_free(k);
          return dh_error_set("ValueError",
                              "%s: option '%s': a target option cannot have a default",
                              origin, key);
        }
        if (check_value(t, def, &o->def, why, sizeof why) != 0) {
          kind_free(k);
          return dh_error_set("TypeError", "%s: option '%s': default: %s", origin, key, why);
        }
      }
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
    int rc = dh_error_set("KeyError", "%s: kind '%s' is already registered", origin, k->name);
    kind_free(k);
    return rc;
  }
  if (g_num_kinds == g_cap_kinds) {
    size_t cap = g_cap_kinds ? g_cap_kinds * 2 : 8;
    dh_kind_t** p = realloc(g_kinds, cap * sizeof *p);
    if (!p) {
      kind_free(k);
      return oom();
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
  g_load_error_kind = xstrdup(kind ? kind : "RuntimeError");
  g_load_error_msg = xstrdup(dh_error_message());
}

static void load_kind_files_locked(void) {
  const char* dir = dh_targets_dir();
  if (!dir) {
    dh_error_set("IOError",
                 "no targets folder found (set DEVHARNESS_TARGETS_PATH, or keep targets/ "
                 "beside the build folder or in <prefix>/share/devharness)");
    remember_load_error();
    return;
  }
  char kdir[PATH_MAX];
  snprintf(kdir, sizeof kdir, "%s/kinds", dir);
  DIR* d = opendir(kdir);
  if (!d) {
    dh_error_set("IOError", "%s: cannot open: %s", kdir, strerror(errno));
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
    if (!(names[n] = xstrdup(e->d_name))) break;
    n++;
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, cmp_str_ptr);
  for (size_t i = 0; i < n; ++i) {
    char path[PATH_MAX];
    json_t* root = NULL;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", kdir, names[i]) >= sizeof path) {
      free(names[i]);
      continue;
    }
    dh_kind_t* k = NULL;
    if (load_file(path, &root) != 0 || kind_from_json(root, path, &k) != 0) {
      remember_load_error();
    } else {
      size_t len = strlen(names[i]) - 5;
      if (strlen(k->name) != len || strncmp(k->name, names[i], len) != 0) {
        dh_error_set("ValueError", "%s: kind '%s' must be in a file named %s.json", path,
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
  ensure_jansson();
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
  if (!json_text) return dh_error_set("ValueError", "%s: kind JSON text is NULL", origin);
  dh_target_kinds_load(); /* file kinds first, so a plugin cannot shadow them */
  json_t* root = NULL;
  if (load_text(json_text, strlen(json_text), origin, &root) != 0) return -1;
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
static const dh_kind_t* lookup_kind(const char* name) {
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

static void known_kinds(sbuf_t* b) {
  dh_target_kinds_load(); /* the kinds files, so the list is never "(none)" by accident */
  register_backend_kinds();
  pthread_mutex_lock(&g_lock);
  for (size_t i = 0; i < g_num_kinds; ++i) {
    if (i) sb_add(b, ", ");
    sb_add(b, g_kinds[i]->name);
  }
  if (!g_num_kinds) sb_add(b, "(none)");
  pthread_mutex_unlock(&g_lock);
}

static const kind_opt_t* find_opt(const dh_kind_t* k, const char* name) {
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

/*===========================================================================
 * Tags
 *===========================================================================*/

typedef struct str_list {
  char** v;
  size_t n, cap;
} str_list_t;

static int sl_push(str_list_t* l, const char* s) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 16;
    char** p = realloc(l->v, cap * sizeof *p);
    if (!p) return -1;
    l->v = p;
    l->cap = cap;
  }
  if (!(l->v[l->n] = xstrdup(s))) return -1;
  l->n++;
  return 0;
}

static void sl_free(str_list_t* l) {
  for (size_t i = 0; i < l->n; ++i) free(l->v[i]);
  free(l->v);
  l->v = NULL;
  l->n = l->cap = 0;
}

static int valid_tag_part(const char* s, size_t n) {
  if (n == 0 || s[0] == '.') return 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '_' || c == '-' || c == '.'))
      return 0;
  }
  return 1;
}

static int valid_tag(const char* tag) {
  const char* slash = strchr(tag, '/');
  if (!slash || strchr(slash + 1, '/')) return 0;
  return valid_tag_part(tag, (size_t)(slash - tag)) && valid_tag_part(slash + 1, strlen(slash + 1));
}

static void collect_tags(str_list_t* out) {
  const char* dir = dh_targets_dir();
  if (!dir) return;
  char tdir[PATH_MAX];
  snprintf(tdir, sizeof tdir, "%s/tags", dir);
  DIR* d = opendir(tdir);
  if (!d) return;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (!valid_tag_part(e->d_name, strlen(e->d_name))) continue;
    char vdir[PATH_MAX];
    if ((size_t)snprintf(vdir, sizeof vdir, "%s/%s", tdir, e->d_name) >= sizeof vdir) continue;
    DIR* v = opendir(vdir);
    if (!v) continue;
    struct dirent* f;
    while ((f = readdir(v)) != NULL) {
      size_t len = strlen(f->d_name);
      if (len <= 5 || strcmp(f->d_name + len - 5, ".json") != 0) continue;
      if (!valid_tag_part(f->d_name, len - 5)) continue;
      char name[PATH_MAX];
      snprintf(name, sizeof name, "%s/%.*s", e->d_name, (int)(len - 5), f->d_name);
      if (sl_push(out, name) != 0) break;
    }
    closedir(v);
  }
  closedir(d);
  if (out->n) qsort(out->v, out->n, sizeof *out->v, cmp_str_ptr);
}

size_t dh_target_tag_list(void (*visit)(const char* tag, void* user), void* user) {
  str_list_t l = {0};
  collect_tags(&l);
  if (visit)
    for (size_t i = 0; i < l.n; ++i) visit(l.v[i], user);
  size_t n = l.n;
  sl_free(&l);
  return n;
}

static int tag_path(const char* tag, char* path, size_t size) {
  const char* dir = dh_targets_dir();
  if (!dir || !valid_tag(tag)) return -1;
  if ((size_t)snprintf(path, size, "%s/tags/%s.json", dir, tag) >= size) return -1;
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? 0 : -1;
}

static int unknown_tag(const char* where, const char* tag) {
  str_list_t l = {0};
  collect_tags(&l);
  sbuf_t b = {0};
  for (size_t i = 0; i < l.n; ++i) {
    if (i) sb_add(&b, ", ");
    sb_add(&b, l.v[i]);
  }
  if (!l.n) sb_add(&b, dh_targets_dir() ? "(none)" : "(none: no targets folder found)");
  char q[DH_TEXT_BUF];
  int rc = dh_error_set("KeyError", "%s: unknown tag '%s'; known tags: %s", where,
                        dh_text_quote(tag, q, sizeof q), sb_str(&b));
  free(b.s);
  sl_free(&l);
  return rc;
}

/*===========================================================================
 * Parsing
 *===========================================================================*/

typedef struct parse_ctx {
  const char* origin;
  dh_target_getter_t getter; /* NULL = device API */
  void* getter_ctx;
} parse_ctx_t;

/* Default getter: the backend serving dev.device_type. */
static int device_api_getter(void* ctx, DLDevice dev, const char* name, dh_any_t* out) {
  const dh_backend_t* b = ctx;
  *out = dh_any_none();
  if (!b->get_target_property) return 0;
  return b->get_target_property(dev, name, out);
}

/* Resolves the backend of `kind` and checks that device `dev` exists. */
static int backend_for(const dh_kind_t* kind, DLDevice dev, const dh_backend_t** out) {
  const dh_backend_t* b = NULL;
  if (dh_device_api_get_by_type(dev.device_type, &b) != 0) {
    /* plugins not loaded yet by this process: discover them once, retry */
    dh_plugins_load_default();
    if (dh_device_api_get_by_type(dev.device_type, &b) != 0) return -1;
  }
  if (!b->target_kind)
    return dh_error_set("KeyError", "backend %s has no target kind", b->name);
  if (kind && strcmp(b->target_kind, kind->name) != 0)
    return dh_error_set("ValueError",
                        "target kind '%s' does not match backend %s, whose kind is '%s'",
                        kind->name, b->name, b->target_kind);
  if (dh_backend_init(b) != 0) return -1;
  dh_any_t ex = dh_any_none();
  if (dh_device_get_attr(dev, DH_ATTR_EXIST, &ex) != 0) return -1;
  if (ex.type_index != DH_TYPE_INT || ex.v_int64 != 1) {
    char buf[64];
    return dh_error_set("IndexError", "device %s does not exist",
                        dh_device_format(dev, buf, sizeof buf));
  }
  *out = b;
  return 0;
}

/* A live value (any) as JSON of option type t. 0 ok (*out new ref), 1 None,
 * -1 mismatch (why filled, no error set). */
static int any_to_json(opt_type_t t, const dh_any_t* v, json_t** out, char* why, size_t size) {
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
        if (a && check_value(t, a, &norm, inner, sizeof inner) == 0) *out = norm;
        json_decref(a);
        if (!*out) {
          char q[DH_TEXT_BUF];
          snprintf(why, size, "expected JSON text of %s, got \"%.100s\"", k_type_names[t],
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
  if (s) snprintf(why, size, "expected %s, got string \"%.100s\"", k_type_names[t], dh_text_quote(s, q, sizeof q));
  else snprintf(why, size, "expected %s, got %s", k_type_names[t], dh_type_index_name(v->type_index));
  return -1;
}

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
  if (tag_path(tag, path_raw, sizeof path_raw) != 0) return unknown_tag(where, tag);
  dh_text_quote(path_raw, path, sizeof path);
  json_t* root = NULL;
  if (load_file(path_raw, &root) != 0) return -1;
  if (json_object_get(root, "from_device")) {
    json_decref(root);
    return dh_error_set("ValueError", "%s: a tag cannot use 'from_device' (tags are presets)",
                        path);
  }
  json_t* inner = json_object_get(root, "tag");
  if (inner && !json_is_string(inner)) {
    char d[96];
    describe(inner, d, sizeof d);
    json_decref(root);
    return dh_error_set("TypeError", "%s: option 'tag': expected str, got %s", path, d);
  }
  if (inner && strcmp(json_string_value(inner), tag) != 0) {
    const char* next = json_string_value(inner);
    for (int i = 0; i < depth; ++i) {
      if (strcmp(chain[i], next) != 0) continue;
      /* a cycle: name every tag on it */
      sbuf_t b = {0};
      char q[DH_TEXT_BUF];
      for (int j = i; j < depth; ++j) {
        sb_add(&b, dh_text_quote(chain[j], q, sizeof q));
        sb_add(&b, " -> ");
      }
      sb_add(&b, dh_text_quote(tag, q, sizeof q));
      sb_add(&b, " -> ");
      sb_add(&b, dh_text_quote(next, q, sizeof q));
      int rc = dh_error_set("ValueError", "%s: option 'tag': tag '%s' refers back to '%s' (a cycle: %s)",
                            path, dh_text_quote(tag, q, sizeof q), chain[i], sb_str(&b));
      free(b.s);
      json_decref(root);
      return rc;
    }
    if (depth >= DH_TARGET_MAX_TAG_DEPTH) {
      json_decref(root);
      return dh_error_set("ValueError", "%s: tags nest deeper than %d (a cycle?)", path,
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
      return oom();
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

static int unknown_option(const char* origin, const char* prefix, const char* name,
                          const dh_kind_t* k) {
  sbuf_t b = {0};
  for (size_t i = 0; i < k->num_opts; ++i) {
    if (i) sb_add(&b, ", ");
    sb_add(&b, k->opts[i].name);
  }
  char q[DH_TEXT_BUF];
  int rc = dh_error_set("KeyError", "%s: unknown option '%s%s' for kind '%s'; known options: %s",
                        origin, prefix, dh_text_quote(name, q, sizeof q), k->name, sb_str(&b));
  free(b.s);
  return rc;
}

/* Normalises a nested host value (object or tag/kind name) into a target object. */
static int build_host(const parse_ctx_t* pc, json_t* v, const char* prefix, int host_depth,
                      json_t** out) {
  char where[512];
  where_of(pc, prefix, where, sizeof where);
  if (host_depth >= DH_TARGET_MAX_HOST_DEPTH)
    return dh_error_set("ValueError", "%s: option 'host' nests deeper than %d", where,
                        DH_TARGET_MAX_HOST_DEPTH);
  json_t* obj = NULL;
  if (json_is_string(v)) {
    const char* s = json_string_value(v);
    char path[PATH_MAX];
    obj = json_object();
    if (!obj) return oom();
    if (strchr(s, '/') && tag_path(s, path, sizeof path) == 0) {
      json_object_set_new(obj, "tag", json_string(s));
    } else if (lookup_kind(s)) {
      json_object_set_new(obj, "kind", json_string(s));
    } else {
      json_decref(obj);
      sbuf_t b = {0};
      known_kinds(&b);
      char q[DH_TEXT_BUF];
      int rc = dh_error_set("KeyError",
                            "%s: option '%shost': '%s' is neither a tag nor a kind; known "
                            "kinds: %s",
                            pc->origin, prefix, dh_text_quote(s, q, sizeof q), sb_str(&b));
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
  sl_free(&decl);
  json_decref(obj);
  return rc;
}

static int build(const parse_ctx_t* pc, json_t* user, const char* prefix, int host_depth,
                 json_t** out_obj, str_list_t* declared, const dh_kind_t** out_kind) {
  char where[512], why[256], d[96];
  where_of(pc, prefix, where, sizeof where);
  json_t* merged = NULL;
  json_t* result = NULL;
  json_t* from_device = NULL; /* consumed (not stored), as TVM does */
  int rc = -1;

  /* 1. tag preset first, then the given options over it. */
  json_t* tag = json_object_get(user, "tag");
  /* "tag": "" is no tag: TVM's ToConfig always writes it (apache/tvm 5d4dc87
   * src/target/target.cc:151-164), so TVM's exports parse here. */
  if (tag && json_is_string(tag) && json_string_length(tag) == 0) tag = NULL;
  if (tag) {
    if (!json_is_string(tag)) {
      describe(tag, d, sizeof d);
      return dh_error_set("TypeError", "%s: option '%stag': expected str, got %s", pc->origin,
                          prefix, d);
    }
    if (load_tag_raw(pc, where, json_string_value(tag), 0, host_depth, &merged, NULL) != 0) return -1;
    json_t* uk = json_object_get(user, "kind");
    json_t* tk = json_object_get(merged, "kind");
    if (json_is_string(uk) && json_is_string(tk) &&
        strcmp(json_string_value(uk), json_string_value(tk)) != 0) {
      char q1[DH_TEXT_BUF], q2[DH_TEXT_BUF], q3[DH_TEXT_BUF];
      rc = dh_error_set("ValueError", "%s: kind '%s' does not match tag '%s', whose kind is '%s'",
                        where, dh_text_quote(json_string_value(uk), q1, sizeof q1),
                        dh_text_quote(json_string_value(tag), q2, sizeof q2),
                        dh_text_quote(json_string_value(tk), q3, sizeof q3));
      json_decref(merged);
      return rc;
    }
  } else {
    merged = json_object();
    if (!merged) return oom();
  }
  if (json_object_update(merged, user) != 0) goto oom_out;

  /* 2. kind. */
  json_t* kv = json_object_get(merged, "kind");
  if (!kv) {
    sbuf_t b = {0};
    known_kinds(&b);
    rc = dh_error_set("ValueError", "%s: missing 'kind' (known kinds: %s)", where, sb_str(&b));
    free(b.s);
    goto out;
  }
  if (!json_is_string(kv)) {
    describe(kv, d, sizeof d);
    rc = dh_error_set("TypeError", "%s: option '%skind': expected str, got %s", pc->origin,
                      prefix, d);
    goto out;
  }
  const dh_kind_t* k = lookup_kind(json_string_value(kv));
  if (!k) {
    sbuf_t b = {0};
    known_kinds(&b);
    char q[DH_TEXT_BUF];
    rc = dh_error_set("KeyError", "%s: unknown kind '%s'; known kinds: %s", where,
                      dh_text_quote(json_string_value(kv), q, sizeof q), sb_str(&b));
    free(b.s);
    goto out;
  }

  /* 3. every given option: known, right type. */
  result = json_object();
  if (!result) goto oom_out;
  const char* key;
  json_t* val;
  json_object_foreach(merged, key, val) {
    const kind_opt_t* o = find_opt(k, key);
    if (!o) {
      rc = unknown_option(pc->origin, prefix, key, k);
      goto out;
    }
    json_t* norm = NULL;
    if (check_value(o->type, val, &norm, why, sizeof why) != 0) {
      rc = dh_error_set("TypeError", "%s: option '%s%s': %s", pc->origin, prefix, key, why);
      goto out;
    }
    if (o->type == OPT_TARGET) {
      json_t* host = NULL;
      rc = build_host(pc, norm, prefix, host_depth, &host);
      json_decref(norm);
      if (rc != 0) goto out;
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
        rc = dh_error_set("ValueError",
                          "%s: option '%sfrom_device': expected a device id >= 0 (or -1: none), got %lld",
                          pc->origin, prefix, (long long)json_integer_value(val));
        goto out;
      }
      json_decref(from_device);
      from_device = norm;
      continue;
    }
    json_object_set_new(result, key, norm);
    if (declared && !prefix[0] && sl_push(declared, key) != 0) goto oom_out;
  }

  /* 3b. the kind's own value rules, as TVM's kind canonicalisers check them: cuda's
   * 'arch' must start with "sm_" (apache/tvm v0.27.0 src/target/target_kind.cc,
   * UpdateCUDAAttrs: StartsWith(arch, "sm_"), else "CUDA target gets an invalid CUDA
   * arch"; TVM 0.27 accepts "sm_" and "sm_xy", and so do we). */
  if (strcmp(k->name, "cuda") == 0 && json_is_string(json_object_get(result, "arch")) &&
      strncmp(json_string_value(json_object_get(result, "arch")), "sm_", 3) != 0) {
    char q[DH_TEXT_BUF];
    rc = dh_error_set("ValueError", "%s: option '%sarch': invalid CUDA arch '%s' (expected sm_<version>, e.g. sm_80)",
                      pc->origin, prefix, dh_text_quote(json_string_value(json_object_get(result, "arch")), q, sizeof q));
    goto out;
  }

  /* 4. from_device: options the user did not give, from the live device. */
  if (from_device) {
    DLDevice dev = {(DLDeviceType)k->device_type, (int32_t)json_integer_value(from_device)};
    dh_target_getter_t get = pc->getter;
    void* gctx = pc->getter_ctx;
    if (!get) {
      const dh_backend_t* b = NULL;
      if (backend_for(k, dev, &b) != 0) {
        rc = dh_error_prefix("%s: option '%sfrom_device'", pc->origin, prefix);
        goto out;
      }
      get = device_api_getter;
      gctx = (void*)b;
    }
    /* As TVM: the schema's defaults are applied before the device is queried, so the
     * device fills only options that are neither given nor defaulted (apache/tvm 5d4dc87
     * src/target/target.cc:353-355,413-419). */
    for (size_t i = 0; i < k->num_opts; ++i) {
      const kind_opt_t* o = &k->opts[i];
      if (o->common || o->def || json_object_get(result, o->name)) continue;
      dh_any_t v = dh_any_none();
      if (get(gctx, dev, o->name, &v) != 0) {
        rc = dh_error_prefix("%s: option '%sfrom_device': property '%s'", pc->origin, prefix,
                             o->name);
        goto out;
      }
      json_t* j = NULL;
      int r = any_to_json(o->type, &v, &j, why, sizeof why);
      if (r < 0) {
        rc = dh_error_set("TypeError", "%s: option '%sfrom_device': device property '%s': %s",
                          pc->origin, prefix, o->name, why);
        goto out;
      }
      if (r == 0) {
        json_object_set_new(result, o->name, j);
        if (declared && !prefix[0] && sl_push(declared, o->name) != 0) goto oom_out;
      }
    }
  }

  /* 5. defaults. */
  for (size_t i = 0; i < k->num_opts; ++i) {
    const kind_opt_t* o = &k->opts[i];
    if (o->def && !json_object_get(result, o->name))
      json_object_set(result, o->name, o->def);
  }

  /* 6. keys in TVM's order (apache/tvm 5d4dc87 src/target/target.cc:375-396): the given
   * keys then device, or, with no keys given, device then the kind's default keys;
   * de-duplicated in order. */
  json_t* given = json_object_get(result, "keys");
  json_t* src = given ? given : k->default_keys;
  json_t* keys = json_array();
  if (!keys) goto oom_out;
  size_t i;
  json_t* e;
  json_t* dev = json_object_get(result, "device");
  size_t total = json_array_size(src) + (dev ? 1 : 0);
  /* linear: a hash set of the keys' JSON texts (was pairwise json_equal, quadratic:
   * 61 s for a 100 000-key file) */
  json_t* seen = json_object();
  if (!seen) {
    json_decref(keys);
    goto oom_out;
  }
  for (i = 0; i < total; ++i) {
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

  *out_obj = result;
  *out_kind = k;
  result = NULL;
  rc = 0;
  goto out;
oom_out:
  rc = oom();
out:
  json_decref(from_device);
  json_decref(result);
  json_decref(merged);
  return rc;
}

/* Builds the dh_target_t around a normalised object (steals obj). */
static int make_target(const dh_kind_t* k, json_t* obj, str_list_t* declared,
                       dh_target_t** out) {
  dh_target_t* t = calloc(1, sizeof *t);
  if (!t) {
    json_decref(obj);
    return oom();
  }
  t->kind = k;
  t->obj = obj;
  if (declared->n) qsort(declared->v, declared->n, sizeof *declared->v, cmp_str_ptr);
  t->declared = declared->v;
  t->num_declared = declared->n;
  declared->v = NULL;
  declared->n = declared->cap = 0;
  size_t n = json_object_size(obj);
  t->text_name = calloc(n ? n : 1, sizeof *t->text_name);
  t->text = calloc(n ? n : 1, sizeof *t->text);
  if (!t->text_name || !t->text) {
    dh_target_free(t);
    return oom();
  }
  const char* key;
  json_t* val;
  json_object_foreach(obj, key, val) {
    if (!json_is_array(val) && !json_is_object(val)) continue;
    t->text_name[t->num_text] = xstrdup(key);
    t->text[t->num_text] = json_dumps(val, JSON_SORT_KEYS | JSON_COMPACT);
    if (!t->text_name[t->num_text] || !t->text[t->num_text]) {
      t->num_text++;
      dh_target_free(t);
      return oom();
    }
    t->num_text++;
  }
  *out = t;
  return 0;
}

static int parse_root(json_t* root, const char* origin, dh_target_getter_t getter, void* gctx,
                      dh_target_t** out) {
  parse_ctx_t pc = {origin, getter, gctx};
  json_t* obj = NULL;
  const dh_kind_t* k = NULL;
  str_list_t decl = {0};
  if (build(&pc, root, "", 0, &obj, &decl, &k) != 0) {
    sl_free(&decl);
    return -1;
  }
  return make_target(k, obj, &decl, out);
}

int dh_target_parse_json_with_getter(const char* json_text, const char* origin,
                                     dh_target_getter_t getter, void* ctx,
                                     dh_target_t** out_target) {
  char shown[DH_TEXT_BUF];
  origin = dh_text_quote(origin ? origin : "<string>", shown, sizeof shown);
  if (!out_target) return dh_error_set("ValueError", "%s: out_target is NULL", origin);
  *out_target = NULL;
  if (!json_text) return dh_error_set("ValueError", "%s: JSON text is NULL", origin);
  json_t* root = NULL;
  if (load_text(json_text, strlen(json_text), origin, &root) != 0) return -1;
  int rc = parse_root(root, origin, getter, ctx, out_target);
  json_decref(root);
  return rc;
}

int dh_target_parse_json(const char* json_text, const char* origin, dh_target_t** out_target) {
  return dh_target_parse_json_with_getter(json_text, origin, NULL, NULL, out_target);
}

int dh_target_parse_file(const char* path, dh_target_t** out_target) {
  if (!out_target) return dh_error_set("ValueError", "dh_target_parse_file: out_target is NULL");
  *out_target = NULL;
  if (!path || !*path) return dh_error_set("ValueError", "dh_target_parse_file: empty path");
  json_t* root = NULL;
  if (load_file(path, &root) != 0) return -1;
  char shown[DH_TEXT_BUF];
  int rc = parse_root(root, dh_text_quote(path, shown, sizeof shown), NULL, NULL, out_target);
  json_decref(root);
  return rc;
}

int dh_target_from_tag(const char* tag, dh_target_t** out_target) {
  if (!out_target) return dh_error_set("ValueError", "dh_target_from_tag: out_target is NULL");
  *out_target = NULL;
  if (!tag) return dh_error_set("ValueError", "dh_target_from_tag: tag is NULL");
  char path[PATH_MAX];
  if (tag_path(tag, path, sizeof path) != 0) return unknown_tag("<tag>", tag);
  ensure_jansson();
  json_t* root = json_pack("{ss}", "tag", tag);
  if (!root) return oom();
  char shown[DH_TEXT_BUF];
  int rc = parse_root(root, dh_text_quote(path, shown, sizeof shown), NULL, NULL, out_target);
  json_decref(root);
  return rc;
}

int dh_target_resolve(const char* path_or_tag, dh_target_t** out_target) {
  if (!out_target) return dh_error_set("ValueError", "dh_target_resolve: out_target is NULL");
  *out_target = NULL;
  if (!path_or_tag || !*path_or_tag)
    return dh_error_set("ValueError", "dh_target_resolve: empty path or tag");
  struct stat st;
  if (stat(path_or_tag, &st) == 0) return dh_target_parse_file(path_or_tag, out_target);
  /* A name that cannot be a tag (tags are vendor/name, no ".json", no leading '/' or
   * '.') is a file that is not there: say so, not "unknown tag". */
  size_t n = strlen(path_or_tag);
  if (path_or_tag[0] == '/' || path_or_tag[0] == '.' || (n > 5 && strcmp(path_or_tag + n - 5, ".json") == 0))
    return dh_target_parse_file(path_or_tag, out_target);
  return dh_target_from_tag(path_or_tag, out_target);
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
    dh_error_set("ValueError", "dh_target_to_json: target is NULL");
    return NULL;
  }
  char* s = json_dumps(t->obj, JSON_SORT_KEYS | (pretty ? JSON_INDENT(2) : JSON_COMPACT));
  if (!s) oom();
  return s;
}

char* dh_target_to_tvm_json(const dh_target_t* t, int pretty) {
  if (!t) {
    dh_error_set("ValueError", "dh_target_to_tvm_json: target is NULL");
    return NULL;
  }
  if (!t->kind->tvm_kind) {
    dh_error_set("KeyError", "target kind '%s' has no TVM target kind (no \"tvm_kind\" in its kind file)",
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
  if (!s) oom();
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
    return dh_error_set("ValueError", "dh_target_get: NULL target, option or out_value");
  *out = dh_any_none();
  if (!find_opt(t->kind, option))
    return unknown_option("target", "", option, t->kind);
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

/*===========================================================================
 * Live devices
 *===========================================================================*/

int dh_target_detect_with_getter(const char* kind, DLDevice dev, dh_target_getter_t getter,
                                 void* ctx, dh_target_t** out_target) {
  if (!out_target) return dh_error_set("ValueError", "dh_target_detect: out_target is NULL");
  *out_target = NULL;
  char origin[96];
  dh_device_format(dev, origin, sizeof origin);
  const dh_kind_t* k = kind ? lookup_kind(kind) : NULL;
  if (!k) {
    sbuf_t b = {0};
    known_kinds(&b);
    char q[DH_TEXT_BUF];
    int rc = dh_error_set("KeyError", "%s: unknown target kind '%s'; known kinds: %s", origin,
                          dh_text_quote(kind, q, sizeof q), sb_str(&b));
    free(b.s);
    return rc;
  }
  ensure_jansson();
  json_t* root = json_pack("{ss}", "kind", k->name);
  if (!root) return oom();
  char why[256];
  for (size_t i = 0; i < k->num_opts; ++i) {
    const kind_opt_t* o = &k->opts[i];
    if (o->common) continue;
    dh_any_t v = dh_any_none();
    if (getter(ctx, dev, o->name, &v) != 0) {
      json_decref(root);
      return dh_error_prefix("%s: get_target_property '%s'", origin, o->name);
    }
    json_t* j = NULL;
    int r = any_to_json(o->type, &v, &j, why, sizeof why);
    if (r < 0) {
      json_decref(root);
      return dh_error_set("TypeError", "%s: target property '%s': %s", origin, o->name, why);
    }
    if (r == 0) json_object_set_new(root, o->name, j);
  }
  int rc = parse_root(root, origin, getter, ctx, out_target);
  json_decref(root);
  return rc;
}

int dh_target_detect(DLDevice dev, dh_target_t** out_target) {
  if (!out_target) return dh_error_set("ValueError", "dh_target_detect: out_target is NULL");
  *out_target = NULL;
  const dh_backend_t* b = NULL;
  if (backend_for(NULL, dev, &b) != 0) return -1;
  return dh_target_detect_with_getter(b->target_kind, dev, device_api_getter, (void*)b,
                                      out_target);
}

int dh_target_check_device(const dh_target_t* t, DLDevice dev,
                           void (*on_mismatch)(const char*, const char*, const char*, void*),
                           void (*on_unchecked)(const char*, void*), void* user) {
  if (!t) return dh_error_set("ValueError", "dh_target_check_device: target is NULL");
  const dh_backend_t* b = NULL;
  if (backend_for(t->kind, dev, &b) != 0) return -1;
  char origin[96];
  dh_device_format(dev, origin, sizeof origin);
  int mismatches = 0;
  char why[256];
  for (size_t i = 0; i < t->num_declared; ++i) {
    const char* name = t->declared[i];
    const kind_opt_t* o = find_opt(t->kind, name);
    if (!o || o->common) continue;
    dh_any_t v = dh_any_none();
    if (device_api_getter((void*)b, dev, name, &v) != 0)
      return dh_error_prefix("%s: get_target_property '%s'", origin, name);
    json_t* live = NULL;
    int r = any_to_json(o->type, &v, &live, why, sizeof why);
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
