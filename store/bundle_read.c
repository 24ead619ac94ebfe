/* store/bundle_read.c — a result bundle read and checked (store/bundle.h; docs/results.md). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmdline/cmdline.h"
#include "store/bundle.h"

static int bad(const char* cmd, const char* dir, const char* fmt, const char* what) {
  fprintf(stderr, "devharness %s: %s: ", cmd, dh_cmdline_quote(dir));
  fprintf(stderr, fmt, what);
  fputc('\n', stderr);
  return -1;
}

/* 0 when dir/name is a regular file inside the bundle of at most
 * DH_STORE_BUNDLE_FILE_MAX bytes (a link is followed only when its target stays in the
 * bundle); else one line naming the file and -1. A FIFO, a device or a link to
 * /dev/zero would block or never end a read. */
static int check_regular(const char* cmd, const char* dir, const char* name) {
  char path[PATH_MAX + 256], real_dir[PATH_MAX], real[PATH_MAX];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (lstat(path, &st) != 0) return 0; /* absent: the reader says so */
  if (S_ISLNK(st.st_mode)) {
    size_t n = realpath(dir, real_dir) ? strlen(real_dir) : 0;
    if (n == 0 || realpath(path, real) == NULL || strncmp(real, real_dir, n) != 0 || real[n] != '/')
      return bad(cmd, dir, "%s: a link that leaves the bundle (or leads nowhere); refused", name);
    if (stat(path, &st) != 0) return bad(cmd, dir, "%s: cannot stat its target", name);
  }
  if (!S_ISREG(st.st_mode)) return bad(cmd, dir, "%s: not a regular file (a FIFO, device or folder); refused", name);
  if (st.st_size > DH_STORE_BUNDLE_FILE_MAX) {
    char msg[160];
    snprintf(msg, sizeof msg, "%lld bytes, above the limit of %lld", (long long)st.st_size,
             (long long)DH_STORE_BUNDLE_FILE_MAX);
    fprintf(stderr, "devharness %s: %s: %s: %s; refused\n", cmd, dh_cmdline_quote(dir), dh_cmdline_quote(name), msg);
    return -1;
  }
  return 0;
}

/* JSON file dir/name; one line with file:line:column when it does not parse. */
static json_t* load_json(const char* cmd, const char* dir, const char* name) {
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (check_regular(cmd, dir, name) != 0) return NULL;
  json_error_t e;
  json_t* j = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
  if (!j) {
    if (errno == ENOENT && e.line < 1)
      fprintf(stderr, "devharness %s: %s: no %s (not a result bundle?)\n", cmd, dh_cmdline_quote(dir), name);
    else
      fprintf(stderr, "devharness %s: %s:%d:%d: %s\n", cmd, dh_cmdline_quote(path), e.line, e.column,
              dh_cmdline_quote(e.text));
  }
  return j;
}

/* RFC 4122 text: 8-4-4-4-12 hex digits. */
static int is_uuid(const char* s) {
  if (s == NULL || strlen(s) != 36) return 0;
  for (int i = 0; i < 36; i++) {
    int dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !isxdigit((unsigned char)s[i])) return 0;
  }
  return 1;
}

/* ISO 8601 date and time as the bundles write them: YYYY-MM-DDTHH:MM:SS, an optional
 * fraction, then Z or +HH:MM / -HH:MM (so that the store's text order is time order). */
static int is_iso8601(const char* s) {
  static const char kShape[] = "dddd-dd-ddTdd:dd:dd";
  if (s == NULL || strlen(s) < sizeof kShape - 1) return 0;
  for (size_t i = 0; i < sizeof kShape - 1; i++)
    if (kShape[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != kShape[i]) return 0;
  const char* p = s + sizeof kShape - 1;
  if (*p == '.') {
    if (!isdigit((unsigned char)*++p)) return 0;
    while (isdigit((unsigned char)*p)) p++;
  }
  if (strcmp(p, "Z") == 0) return 1;
  return (p[0] == '+' || p[0] == '-') && isdigit((unsigned char)p[1]) && isdigit((unsigned char)p[2]) &&
         p[3] == ':' && isdigit((unsigned char)p[4]) && isdigit((unsigned char)p[5]) && p[6] == '\0';
}

/* The manifest's required fields and their JSON types (docs/bundle.schema.json). */
static const char* missing_field(json_t* m) {
  static const struct {
    const char* key;
    int type;
  } kFields[] = {{"run_uuid", JSON_STRING},    {"command", JSON_STRING},  {"command_line", JSON_ARRAY},
                 {"started_at", JSON_STRING},  {"ended_at", JSON_STRING}, {"exit_code", JSON_INTEGER},
                 {"devharness", JSON_OBJECT},  {"shard", JSON_OBJECT},    {"profile", JSON_STRING},
                 {"waivers_digest", JSON_STRING}, {"machine", JSON_OBJECT}, {"devices", JSON_ARRAY},
                 {"files", JSON_OBJECT},       {"shards", JSON_ARRAY}};
  for (size_t i = 0; i < sizeof kFields / sizeof kFields[0]; i++) {
    json_t* v = json_object_get(m, kFields[i].key);
    if (!v || (int)json_typeof(v) != kFields[i].type) return kFields[i].key;
  }
  json_t* fp = json_object_get(json_object_get(m, "machine"), "fingerprint");
  return json_is_string(fp) ? NULL : "machine.fingerprint";
}

static int check_manifest(const char* cmd, const char* dir, json_t* m) {
  const char* schema = json_string_value(json_object_get(m, "schema"));
  json_t* ver = json_object_get(m, "schema_version");
  if (!schema || strcmp(schema, DH_STORE_BUNDLE_SCHEMA) != 0)
    return bad(cmd, dir, "manifest.json: schema is not \"%s\"", DH_STORE_BUNDLE_SCHEMA);
  if (!json_is_integer(ver) || json_integer_value(ver) < 1)
    return bad(cmd, dir, "manifest.json: %s is not a positive integer", "schema_version");
  if (json_integer_value(ver) > DH_STORE_BUNDLE_SCHEMA_VERSION) {
    fprintf(stderr,
            "devharness %s: %s: manifest.json: bundle schema version %lld is newer than this devharness "
            "reads (%d); use a newer devharness\n",
            cmd, dh_cmdline_quote(dir), (long long)json_integer_value(ver), DH_STORE_BUNDLE_SCHEMA_VERSION);
    return -1;
  }
  const char* miss = missing_field(m);
  if (miss) return bad(cmd, dir, "manifest.json: field '%s' missing or of the wrong type", miss);
  if (!is_uuid(json_string_value(json_object_get(m, "run_uuid"))))
    return bad(cmd, dir, "manifest.json: %s is not an RFC 4122 UUID (8-4-4-4-12 hex digits)", "run_uuid");
  const char* times[] = {"started_at", "ended_at"};
  for (int i = 0; i < 2; i++)
    if (!is_iso8601(json_string_value(json_object_get(m, times[i]))))
      return bad(cmd, dir, "manifest.json: %s is not an ISO 8601 time (YYYY-MM-DDTHH:MM:SS[.fff](Z|+HH:MM))",
                 times[i]);
  if (json_object_size(json_object_get(m, "files")) == 0)
    return bad(cmd, dir, "manifest.json: %s lists no file", "files");
  return 0;
}

/* Every file the manifest lists is there, whole and unchanged. */
static int check_files(const char* cmd, const char* dir, json_t* files) {
  const char* name;
  json_t* f;
  json_object_foreach(files, name, f) {
    char path[PATH_MAX + 256], hex[65], msg[512];
    long long bytes = 0;
    if (strstr(name, "..") || name[0] == '/') return bad(cmd, dir, "manifest.json: file name '%s' leaves the bundle", name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (check_regular(cmd, dir, name) != 0) return -1;
    if (dh_store_file_sha256(path, hex, &bytes) != 0) {
      snprintf(msg, sizeof msg, "%s: %s", name, strerror(errno));
      return bad(cmd, dir, "%s (listed in manifest.json)", msg);
    }
    const char* want = json_string_value(json_object_get(f, "sha256"));
    json_int_t size = json_integer_value(json_object_get(f, "bytes"));
    if (bytes != size) {
      snprintf(msg, sizeof msg, "%s is %lld bytes, manifest.json says %lld", name, bytes, (long long)size);
      return bad(cmd, dir, "%s (truncated or changed)", msg);
    }
    if (!want || strcmp(want, hex) != 0) return bad(cmd, dir, "%s: SHA-256 differs from manifest.json (corrupt or changed)", name);
  }
  return 0;
}

int dh_store_bundle_is_module_cases(const char* name) {
  size_t n = strlen(name);
  if (strchr(name, '/') != NULL) return 0;
  if (strcmp(name, "module.cases.json") == 0) return 1;
  return n > strlen("module-.cases.json") && strncmp(name, "module-", 7) == 0 &&
         strcmp(name + n - strlen(".cases.json"), ".cases.json") == 0;
}

/* Every module cases file the manifest lists, into b->modules (name -> document). */
static int load_modules(const char* cmd, dh_store_loaded_bundle_t* b, json_t* files) {
  const char* name;
  json_t* f;
  json_object_foreach(files, name, f) {
    if (!dh_store_bundle_is_module_cases(name)) continue;
    json_t* doc = load_json(cmd, b->dir, name);
    if (doc == NULL) return -1;
    if (!b->modules) b->modules = json_object();
    json_object_set_new(b->modules, name, doc);
    if (!json_is_array(json_object_get(doc, "cases"))) return bad(cmd, b->dir, "%s: no \"cases\" array", name);
  }
  return 0;
}

/* 1 when the manifest lists a device of this spec or stable id. */
static int listed(json_t* manifest, const char* spec, const char* stable) {
  size_t i;
  json_t* d;
  json_array_foreach(json_object_get(manifest, "devices"), i, d) {
    const char* s = json_string_value(json_object_get(d, "spec"));
    const char* id = json_string_value(json_object_get(d, "stable_id"));
    if ((stable && id && strcmp(stable, id) == 0) || (!stable && spec && s && strcmp(spec, s) == 0)) return 1;
  }
  return 0;
}

/* conformance.cases.json of a version this devharness reads, every case an object with
 * its device and clause, every device one the manifest lists (import would otherwise
 * leave its cases out without a word) or "BACKEND (no device)", the skip of a backend
 * without a device, which import leaves out as it has no device. */
static int check_cases(const char* cmd, const dh_store_loaded_bundle_t* b) {
  json_t* ver = json_object_get(b->cases_doc, "version");
  if (ver && (!json_is_integer(ver) || json_integer_value(ver) > DH_STORE_CASES_VERSION || json_integer_value(ver) < 1))
    return bad(cmd, b->dir, "conformance.cases.json: version is not one this devharness reads (%s); use a newer devharness", "1");
  size_t i;
  json_t* c;
  json_array_foreach(b->cases, i, c) {
    char what[64];
    snprintf(what, sizeof what, "%zu", i);
    const char* dev = json_string_value(json_object_get(c, "device"));
    if (!json_is_object(c) || !dev || !json_is_string(json_object_get(c, "clause")))
      return bad(cmd, b->dir, "conformance.cases.json: case %s is not an object with a device and a clause", what);
    size_t n = strlen(dev);
    int no_device = n > 12 && strcmp(dev + n - 12, " (no device)") == 0; /* a backend without one: its skip */
    if (!no_device && !listed(b->manifest, dev, json_string_value(json_object_get(c, "stable_id")))) {
      fprintf(stderr, "devharness %s: %s: conformance.cases.json: case %zu is on device %s, which manifest.json does "
              "not list; refused\n", cmd, dh_cmdline_quote(b->dir), i, dh_cmdline_quote(dev));
      return -1;
    }
  }
  return 0;
}

int dh_store_bundle_load(const char* cmd, const char* dir, dh_store_loaded_bundle_t* b) {
  memset(b, 0, sizeof *b);
  snprintf(b->dir, sizeof b->dir, "%s", dir);
  if ((b->manifest = load_json(cmd, dir, "manifest.json")) == NULL) return -1;
  json_t* files = json_object_get(b->manifest, "files");
  if (check_manifest(cmd, dir, b->manifest) != 0 || check_files(cmd, dir, files) != 0) goto fail;
  if (json_object_get(files, "conformance.cases.json")) {
    if ((b->cases_doc = load_json(cmd, dir, "conformance.cases.json")) == NULL) goto fail;
    b->cases = json_object_get(b->cases_doc, "cases");
    if (!json_is_array(b->cases)) {
      bad(cmd, dir, "%s: no \"cases\" array", "conformance.cases.json");
      goto fail;
    }
    if (check_cases(cmd, b) != 0) goto fail;
  }
  if (json_object_get(files, "bench.json") && (b->bench = load_json(cmd, dir, "bench.json")) == NULL) goto fail;
  if (load_modules(cmd, b, files) != 0) goto fail;
  return 0;
fail:
  dh_store_bundle_free(b);
  return -1;
}

void dh_store_bundle_free(dh_store_loaded_bundle_t* b) {
  json_decref(b->manifest);
  json_decref(b->cases_doc);
  json_decref(b->bench);
  json_decref(b->modules);
  b->manifest = b->cases_doc = b->cases = b->bench = b->modules = NULL;
}

const char* dh_store_bundle_stable_id(const dh_store_loaded_bundle_t* b, const char* spec) {
  size_t i;
  json_t* d;
  json_array_foreach(json_object_get(b->manifest, "devices"), i, d) {
    const char* s = json_string_value(json_object_get(d, "spec"));
    if (s && strcmp(s, spec) == 0) return json_string_value(json_object_get(d, "stable_id"));
  }
  return NULL;
}
