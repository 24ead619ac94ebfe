/* store/bundle.c — writes a result bundle's info.json and manifest.json
 * (store/bundle.h; docs/results.md). SHA-256 from nettle, UUIDs from libuuid, the
 * machine from uname(2) and the hwloc host block of info.json. */
#include "store/bundle.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include "cmdline/cmdline.h"
#include "devharness/devharness.h"

#ifndef DH_GIT_COMMIT
#define DH_GIT_COMMIT ""
#endif

static int fail(const dh_store_bundle_t* b, const char* what, const char* path) {
  fprintf(stderr, "devharness %s: --bundle: %s %s: %s\n", b->cmd, what, dh_cmdline_quote(path), strerror(errno));
  return -1;
}

void dh_store_new_uuid(char out[37]) {
  uuid_t u;
  uuid_generate_random(u);
  uuid_unparse_lower(u, out);
}

void dh_store_iso_time(time_t t, char out[21]) {
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(out, 21, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void hex_digest(struct sha256_ctx* c, char hex[65]) {
  uint8_t d[SHA256_DIGEST_SIZE];
  sha256_digest(c, sizeof d, d);
  for (size_t i = 0; i < sizeof d; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

static void sha256_text(const char* s, char hex[65]) {
  struct sha256_ctx c;
  sha256_init(&c);
  sha256_update(&c, strlen(s), (const uint8_t*)s);
  hex_digest(&c, hex);
}

int dh_store_file_sha256(const char* path, char hex[65], long long* bytes) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  struct sha256_ctx c;
  sha256_init(&c);
  uint8_t buf[65536];
  long long total = 0;
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) != 0) {
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      close(fd);
      errno = e;
      return -1;
    }
    sha256_update(&c, (size_t)n, buf);
    total += n;
  }
  close(fd);
  hex_digest(&c, hex);
  *bytes = total;
  return 0;
}

/* mkdir -p */
static int make_dirs(const char* dir) {
  char p[PATH_MAX];
  if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) {
    errno = ENAMETOOLONG;
    return -1;
  }
  for (char* s = p + 1; *s; s++) {
    if (*s != '/') continue;
    *s = '\0';
    if (mkdir(p, 0755) != 0 && errno != EEXIST) return -1;
    *s = '/';
  }
  if (mkdir(p, 0755) != 0 && errno != EEXIST) return -1;
  struct stat st;
  if (stat(p, &st) != 0) return -1;
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return -1;
  }
  return 0;
}

void dh_store_bundle_discard(const dh_store_bundle_t* b) {
  if (b->created) rmdir(b->dir); /* only when empty: rmdir refuses otherwise */
}

int dh_store_bundle_begin(dh_store_bundle_t* b, const char* cmd, const char* dir, int argc, char** argv) {
  memset(b, 0, sizeof *b);
  b->cmd = cmd;
  b->argc = argc;
  b->argv = argv;
  b->started = time(NULL);
  if (dir[0] == '\0' || strlen(dir) > PATH_MAX - 128)
    return dh_cmdline_usage_error(cmd, "--bundle: '%s': expected a folder path", dh_cmdline_quote(dir));
  snprintf(b->dir, sizeof b->dir, "%s", dir);
  b->created = access(dir, F_OK) != 0;
  if (make_dirs(dir) != 0)
    return dh_cmdline_usage_error(cmd, "--bundle: cannot create %s: %s", dh_cmdline_quote(dir), strerror(errno));
  char m[PATH_MAX];
  snprintf(m, sizeof m, "%s/manifest.json", dir);
  if (access(m, F_OK) == 0)
    return dh_cmdline_usage_error(cmd, "--bundle: %s already holds a bundle (manifest.json); give a new folder",
                                  dh_cmdline_quote(dir));
  if (access(dir, W_OK) != 0)
    return dh_cmdline_usage_error(cmd, "--bundle: %s is not writable: %s", dh_cmdline_quote(dir), strerror(errno));
  dh_store_new_uuid(b->uuid);
  return 0;
}

/* The devharness command beside this program (itself, unless it runs under another name). */
static const char* devharness_path(char out[PATH_MAX]) {
  const char* self = dh_cmdline_self_path();
  const char* base = strrchr(self, '/');
  if (base && strcmp(base + 1, "devharness") != 0) {
    snprintf(out, PATH_MAX, "%.*s/devharness", (int)(base - self), self);
    return out;
  }
  return self;
}

int dh_store_bundle_write_info(const dh_store_bundle_t* b, const char* device_spec, const char* const* plugins,
                               size_t n_plugins) {
  char path[PATH_MAX], tmp[PATH_MAX], exe[PATH_MAX];
  snprintf(path, sizeof path, "%.3900s/info.json", b->dir);
  snprintf(tmp, sizeof tmp, "%.3900s/.info.json.tmp.%ld", b->dir, (long)getpid());
  const char* prog = devharness_path(exe);
  /* devharness info --json [--device SPEC], then the command's device-option values
   * (cmdline/cmdline.h: not inherited, so passed on) */
  char* args[5 + 2 * 16 + DH_CMDLINE_MAX_DEVICE_ARGS + 1] = {"devharness", "info", "--json"};
  int na = 3;
  if (device_spec) {
    args[na++] = "--device";
    args[na++] = (char*)device_spec;
  }
  for (size_t i = 0; i < n_plugins && i < 16; i++) {
    args[na++] = "--plugin";
    args[na++] = (char*)plugins[i];
  }
  const char* words[DH_CMDLINE_MAX_DEVICE_ARGS];
  int nw = dh_cmdline_device_option_args(words, DH_CMDLINE_MAX_DEVICE_ARGS);
  for (int i = 0; i < nw; i++) args[na++] = (char*)words[i];
  args[na] = NULL;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) return fail(b, "cannot start info for", path);
  if (pid == 0) {
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) _exit(127);
    execv(prog, args);
    _exit(127);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) break;
  int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  if ((rc != DH_EXIT_OK && rc != DH_EXIT_NO_DEVICE) || rename(tmp, path) != 0) {
    unlink(tmp);
    fprintf(stderr, "devharness %s: --bundle: `devharness info --json` failed (exit %d); no %s\n", b->cmd, rc,
            dh_cmdline_quote(path));
    return -1;
  }
  return 0;
}

/* json_string of s, or "" for NULL. */
static json_t* jstr(const char* s) { return json_string(s ? s : ""); }

/* An attribute as text: strings as they are, numbers printed, null/absent "". */
static void attr_text(json_t* attrs, const char* key, char* out, size_t n) {
  json_t* v = json_object_get(attrs, key);
  out[0] = '\0';
  if (json_is_string(v)) snprintf(out, n, "%s", json_string_value(v));
  else if (json_is_integer(v)) snprintf(out, n, "%lld", (long long)json_integer_value(v));
  else if (json_is_real(v)) snprintf(out, n, "%g", json_real_value(v));
}

/* The machine: uname and the host block of info.json (hwloc). */
static json_t* machine_json(json_t* info) {
  struct utsname u;
  if (uname(&u) != 0) memset(&u, 0, sizeof u);
  json_t* host = json_object_get(info, "host");
  long long mem = 0, nodes = 0;
  json_t* nv = json_object_get(host, "numa_nodes");
  size_t i;
  json_t* node;
  json_array_foreach(nv, i, node) {
    mem += json_integer_value(json_object_get(node, "memory_bytes"));
    nodes++;
  }
  const char* cpu = json_string_value(json_object_get(host, "cpu_model"));
  long long cores = json_integer_value(json_object_get(host, "cores"));
  long long pus = json_integer_value(json_object_get(host, "pus"));
  char fp_text[1024], fp[65];
  snprintf(fp_text, sizeof fp_text, "%s\n%s\n%s\n%s\n%lld\n%lld\n%lld", u.nodename, u.sysname, u.machine,
           cpu ? cpu : "", cores, pus, nodes);
  sha256_text(fp_text, fp);
  return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I}", "fingerprint", fp, "hostname",
                   u.nodename, "os", u.sysname, "kernel", u.release, "arch", u.machine, "cpu_model",
                   cpu ? cpu : "", "cores", cores, "pus", pus, "numa_nodes", nodes, "memory_bytes", mem);
}

/* One device of info.json with its stable identity (docs/results.md "Device identity"). */
static json_t* device_json(json_t* backend, json_t* dev, const char* fingerprint) {
  const char* bname = json_string_value(json_object_get(backend, "name"));
  const char* spec = json_string_value(json_object_get(dev, "spec"));
  json_t* attrs = json_object_get(dev, "attributes");
  char name[256], drv[256], api[64], pci[64], uid[128], sid[160], src[16];
  attr_text(attrs, "device_name", name, sizeof name);
  attr_text(attrs, "driver_version", drv, sizeof drv);
  attr_text(attrs, "api_version", api, sizeof api);
  attr_text(json_object_get(dev, "identity"), "pci_bus_id", pci, sizeof pci);
  attr_text(json_object_get(dev, "identity"), "uuid", uid, sizeof uid);
  /* a UUID is unique everywhere; a PCI address only within its machine */
  if (uid[0]) {
    snprintf(sid, sizeof sid, "uuid:%s", uid);
    snprintf(src, sizeof src, "uuid");
  } else if (pci[0]) {
    snprintf(sid, sizeof sid, "pci:%.16s/%s", fingerprint, pci);
    snprintf(src, sizeof src, "pci");
  } else {
    char text[1024], h[65];
    snprintf(text, sizeof text, "%s\t%s\t%s\t%lld", fingerprint, bname ? bname : "", name,
             (long long)json_integer_value(json_object_get(dev, "id")));
    sha256_text(text, h);
    snprintf(sid, sizeof sid, "derived:%s", h);
    snprintf(src, sizeof src, "derived");
  }
  return json_pack("{s:o, s:o, s:s, s:s, s:s, s:s, s:s, s:o, s:s, s:s}", "spec", jstr(spec), "backend", jstr(bname),
                   "stable_id", sid, "id_source", src, "name", name, "driver_version", drv, "api_version", api,
                   "target", jstr(json_string_value(json_object_get(backend, "target_kind"))), "pci_bus_id", pci,
                   "uuid", uid);
}

static json_t* devices_json(json_t* info, const char* fingerprint) {
  json_t* out = json_array();
  size_t i, j;
  json_t *be, *dev;
  json_array_foreach(json_object_get(info, "backends"), i, be) {
    json_array_foreach(json_object_get(be, "devices"), j, dev) json_array_append_new(out, device_json(be, dev, fingerprint));
  }
  return out;
}

/* nftw has no user pointer: the walk's state. */
static struct {
  const char* root;
  json_t* files;
  int err;
} g_walk;

static int walk_file(const char* path, const struct stat* st, int type, struct FTW* ftw) {
  (void)st;
  (void)ftw;
  if (type != FTW_F) return 0;
  const char* rel = path + strlen(g_walk.root) + 1;
  const char* base = strrchr(path, '/') + 1;
  if (strcmp(rel, "manifest.json") == 0 || base[0] == '.') return 0; /* the manifest, temporary files */
  char hex[65];
  long long bytes;
  if (dh_store_file_sha256(path, hex, &bytes) != 0) {
    g_walk.err = errno;
    return 1;
  }
  json_object_set_new(g_walk.files, rel, json_pack("{s:I, s:s}", "bytes", bytes, "sha256", hex));
  return 0;
}

json_t* dh_store_bundle_files(const char* dir) {
  g_walk.root = dir;
  g_walk.files = json_object();
  g_walk.err = 0;
  if (nftw(dir, walk_file, 16, FTW_PHYS) != 0) {
    errno = g_walk.err ? g_walk.err : errno;
    json_decref(g_walk.files);
    return NULL;
  }
  return g_walk.files;
}

static void waivers_digest(const dh_store_bundle_meta_t* m, char hex[65]) {
  hex[0] = '\0';
  if (m->n_waivers == 0) return;
  struct sha256_ctx c;
  sha256_init(&c);
  for (size_t i = 0; i < m->n_waivers; i++) {
    FILE* f = fopen(m->waiver_paths[i], "rb");
    uint8_t buf[8192];
    size_t n;
    while (f && (n = fread(buf, 1, sizeof buf, f)) > 0) sha256_update(&c, n, buf);
    if (f) fclose(f);
  }
  hex_digest(&c, hex);
}

int dh_store_bundle_finish(const dh_store_bundle_t* b, const dh_store_bundle_meta_t* m) {
  char path[PATH_MAX], tmp[PATH_MAX], start[21], end[21], wd[65];
  snprintf(path, sizeof path, "%.3900s/info.json", b->dir);
  json_error_t jerr;
  json_t* info = json_load_file(path, 0, &jerr);
  if (!info) {
    fprintf(stderr, "devharness %s: --bundle: %s:%d:%d: %s\n", b->cmd, dh_cmdline_quote(path), jerr.line,
            jerr.column, jerr.text);
    return -1;
  }
  json_t* files = dh_store_bundle_files(b->dir);
  if (!files) {
    json_decref(info);
    return fail(b, "cannot read the files of", b->dir);
  }
  json_t* machine = machine_json(info);
  json_t* argv = json_array();
  json_array_append_new(argv, json_string("devharness"));
  for (int i = 0; i < b->argc; i++) json_array_append_new(argv, json_string(b->argv[i]));
  dh_store_iso_time(b->started, start);
  dh_store_iso_time(time(NULL), end);
  waivers_digest(m, wd);
  json_t* man = json_pack("{s:s, s:i, s:s, s:s, s:o, s:s, s:s, s:i, s:{s:s, s:s}, s:{s:i, s:i}, s:s, s:s}",
                          "schema", DH_STORE_BUNDLE_SCHEMA, "schema_version", DH_STORE_BUNDLE_SCHEMA_VERSION,
                          "run_uuid", b->uuid, "command", b->cmd, "command_line", argv, "started_at", start,
                          "ended_at", end, "exit_code", m->exit_code, "devharness", "version", DH_VERSION_STRING,
                          "git_commit", DH_GIT_COMMIT, "shard", "index", m->shard_index, "total",
                          m->shard_total, "profile", m->profile ? m->profile : "default", "waivers_digest", wd);
  json_object_set_new(man, "devices",
                      devices_json(info, json_string_value(json_object_get(machine, "fingerprint"))));
  json_object_set_new(man, "machine", machine);
  json_object_set_new(man, "files", files);
  json_object_set_new(man, "shards", json_array());
  json_decref(info);
  snprintf(path, sizeof path, "%.3900s/manifest.json", b->dir);
  snprintf(tmp, sizeof tmp, "%.3900s/.manifest.json.tmp.%ld", b->dir, (long)getpid());
  int rc = json_dump_file(man, tmp, JSON_INDENT(1) | JSON_SORT_KEYS);
  json_decref(man);
  if (rc != 0 || rename(tmp, path) != 0) {
    unlink(tmp);
    return fail(b, "cannot write", path);
  }
  return 0;
}
