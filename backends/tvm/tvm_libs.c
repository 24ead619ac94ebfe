/*
 * backends/tvm/tvm_libs.c — finding the tvm plugin's device sets (README.md "Device
 * sets"), all described the same way (dh_tvm_set_t), none asked anything here: what a
 * set can do is asked of its DeviceAPI when it is initialised (tvm_device.c
 * dh_tvm_set_caps, the plugin's query_caps).
 *
 * - TVM's own: set 0 is device_api.cpu of TVM's core runtime library; then one set per
 *   libtvm_runtime_<name>.so in TVM's lib folder whose <name> is a TVM device type
 *   (libtvm_runtime_cuda.so: tvm-cuda). Found by file name: TVM is loaded only when a
 *   set is initialised, in the process that uses it.
 * - Any TVM DeviceAPI: the libraries named by the plugin's option `--tvm-lib PATH`
 *   and by DEVHARNESS_TVM_LIBS (colon-separated; tvm_options.c) become sets
 *   tvm-<name>, one per
 *   `device_api.<name>` each registers in tvm-ffi's global table (README.md "Any TVM
 *   DeviceAPI"). Each library is first tried in a forked child with a timeout: TVM's
 *   runtime is loaded there, the names device_api.* listed, the library dlopened, the
 *   names listed again. A library that does not load, ends the child (an abort on a
 *   duplicate registration), hangs or registers no device_api.<name> is refused with one
 *   line naming it and why; this process never maps it.
 * - TVM RPC: each server (or tracker key) of `--rpc` and DEVHARNESS_TVM_RPC, probed the same way,
 *   gives a set per remote device type that has a device.
 * Calls down into tvm_device.c (tvm_internal.h lists the files).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "devharness/backend.h"
#include "devharness/device_api.h"

#include "backends/tvm/tvm_internal.h"


#define PROBE_MAX 65536    /* bytes of the probe's answer kept */

/*---------------------------------------------------------------- the probe child */

static void say(int fd, const char* fmt, const char* a, long b, unsigned c) {
  char line[512];
  int n = snprintf(line, sizeof line, fmt, a, b, c);
  if (n > 0 && write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0) _exit(3);
}

/* TVM's device type names of DLDeviceType2Str (apache/tvm 0.27
 * include/tvm/runtime/device_api.h), indexed by type, for the types that are devices:
 * the host-memory kinds (kDLCUDAHost 3, kDLROCMHost 11, kDLCUDAManaged 13) are where
 * a device's allocations live, not devices, and have no set. */
static const char* const kTvmDevices[20] = {NULL,     "cpu",    "cuda",    NULL, "opencl", NULL,
                                            NULL,     "vulkan", "metal",   NULL, "rocm",   NULL,
                                            "ext_dev", NULL,    "oneapi",  "webgpu", "hexagon"};

/* Answers, one line each: "S\t<device_api.name>\t<tvm type>", then "K" (done) or
 * "E\t<why>". Runs in the child; fd is the pipe (also its stderr). */
static void probe(const char* lib, int fd) {
  char before[16384], after[16384];
  dh_tvm_err_t e;
  if (dh_tvm_load() != 0) {
    say(fd, "E\tTVM's runtime does not load: %s\n", dh_tvm_reason, 0, 0);
    return;
  }
  if (dh_tvm_a->list_device_apis(before, sizeof before, &e) != 0)
    {
    say(fd, "E\tcannot list tvm-ffi's global functions: %s\n", e.message, 0, 0);
    return;
  }
  dlerror();
  if (dlopen(lib, RTLD_NOW | RTLD_LOCAL) == NULL) {
    const char* why = dlerror();
    {
    say(fd, "E\tdlopen failed: %s\n", why ? why : "unknown reason", 0, 0);
    return;
  }
  }
  if (dh_tvm_a->list_device_apis(after, sizeof after, &e) != 0)
    {
    say(fd, "E\tcannot list tvm-ffi's global functions: %s\n", e.message, 0, 0);
    return;
  }
  int found = 0;
  for (char* name = strtok(after, "\n"); name != NULL; name = strtok(NULL, "\n")) {
    char key[160];
    snprintf(key, sizeof key, "\n%s\n", name);
    char wrapped[sizeof before + 2];
    snprintf(wrapped, sizeof wrapped, "\n%s", before);
    if (strstr(wrapped, key) != NULL) continue; /* TVM's own, registered before */
    int type = dh_tvm_a->device_type_of(name + strlen("device_api."));
    say(fd, "S\t%s\t%ld\n", name, type, 0);
    found++;
  }
  if (!found) {
    say(fd, "E\tregisters no device_api.<name> in tvm-ffi's global table%s\n", "", 0, 0);
    return;
  }
  say(fd, "K\n", "", 0, 0);
}

/* "[KEY@]HOST:PORT" of --rpc or DEVHARNESS_TVM_RPC split into key ("" for a server, else the
 * key to ask the tracker HOST:PORT for), host and port; -1 when malformed. */
static int split_rpc(const char* spec, char* key, size_t ksize, char* host, size_t hsize, long* port) {
  const char* at = strchr(spec, '@');
  const char* hp = at ? at + 1 : spec;
  const char* colon = strrchr(hp, ':');
  *port = colon ? strtol(colon + 1, NULL, 10) : 0;
  if ((at && (at == spec || (size_t)(at - spec) >= ksize)) || colon == NULL || colon == hp ||
      (size_t)(colon - hp) >= hsize || *port < 1 || *port > 65535)
    return -1;
  snprintf(key, ksize, "%.*s", at ? (int)(at - spec) : 0, spec);
  snprintf(host, hsize, "%.*s", (int)(colon - hp), hp);
  return 0;
}

/* The remote device types of the TVM RPC server "host:port" (or of the server the
 * tracker "KEY@host:port" hands out) that exist (kExist of id 0 through TVM's
 * RPCDeviceAPI), as probe's "S" lines, with TVM's name and type. */
static void probe_rpc(const char* spec, int fd) {
  char host[256], key[64];
  long port = 0;
  if (split_rpc(spec, key, sizeof key, host, sizeof host, &port) != 0) return;
  dh_tvm_err_t e;
  int idx = -1, found = 0;
  if (dh_tvm_load() != 0) {
    say(fd, "E\tTVM's runtime does not load: %s\n", dh_tvm_reason, 0, 0);
    return;
  }
  if (dh_tvm_rpc_open(host, (int)port, key, &idx, &e) != 0) {
    say(fd, "E\tcannot connect: %s\n", e.message, 0, 0);
    return;
  }
  for (int t = 1; t < 20; t++) {
    void* api = NULL;
    dh_tvm_value_t v;
    DLDevice d0 = {(DLDeviceType)((idx + 1) * 128 + t), 0};
    if (kTvmDevices[t] == NULL || dh_tvm_a->get_api(d0, &api, &e) != 0 || api == NULL ||
        dh_tvm_a->get_attr(api, d0, 0, &v, &e) != 0 || v.type != DH_TVM_VALUE_INT || v.v_int == 0)
      continue;
    char name[64];
    snprintf(name, sizeof name, "device_api.%s", kTvmDevices[t]);
    say(fd, "S\t%s\t%ld\n", name, t, 0);
    found++;
  }
  if (!found) {
    say(fd, "E\tthe server has no device (kExist 0 for id 0 of every device type)%s\n", "", 0, 0);
    return;
  }
  say(fd, "K\n", "", 0, 0);
}

/* What the child said (malloc'd, NUL-terminated) and how it ended, in note. */
static char* run_probe(void (*probe)(const char*, int), const char* lib, char* note, size_t note_size) {
  const int timeout_s = dh_tvm_probe_timeout_s();
  int p[2];
  note[0] = '\0';
  if (pipe(p) != 0) {
    snprintf(note, note_size, "pipe: %s", strerror(errno));
    return NULL;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(note, note_size, "fork: %s", strerror(errno));
    close(p[0]);
    close(p[1]);
    return NULL;
  }
  if (pid == 0) {
    close(p[0]);
    dup2(p[1], 1); /* what the library prints never reaches the TAP on stdout, */
    dup2(p[1], 2); /* and what it prints before it dies goes into the refusal */
    probe(lib, p[1]);
    _exit(0);
  }
  close(p[1]);
  char* buf = calloc(1, PROBE_MAX + 1);
  size_t got = 0;
  time_t end = time(NULL) + timeout_s;
  int timed_out = 0;
  for (;;) {
    struct pollfd pf = {p[0], POLLIN, 0};
    long left = (long)(end - time(NULL));
    if (left <= 0 || poll(&pf, 1, (int)left * 1000) == 0) {
      timed_out = 1;
      break;
    }
    char chunk[4096];
    ssize_t n = read(p[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    size_t take = buf && got + (size_t)n <= PROBE_MAX ? (size_t)n : 0;
    if (take) memcpy(buf + got, chunk, take);
    got += take;
  }
  close(p[0]);
  if (timed_out) kill(pid, SIGKILL);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (timed_out)
    snprintf(note, note_size, "hung for %d s while loading (killed)", timeout_s);
  else if (WIFSIGNALED(st))
    snprintf(note, note_size, "ended by signal %d (%s) while loading", WTERMSIG(st), strsignal(WTERMSIG(st)));
  else if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
    snprintf(note, note_size, "exited with status %d while loading", WEXITSTATUS(st));
  return buf;
}

/*---------------------------------------------------------------- device sets */

/* The devharness device type of a set (README.md "Device types"): TVM's own DLPack type
 * where no loaded backend serves it, else 48 + it (as tvm-cpu 49, tvm-cuda 50), else
 * the highest free type from 63 down to 32; 0 when none is free. */
static int32_t pick_type(int32_t tvm_type) {
  for (int k = 0; k < 34; k++) {
    int32_t t = k == 0 ? tvm_type : k == 1 ? 48 + tvm_type : 63 - (k - 2);
    if (t <= 0 || t >= 64 || dh_tvm_set_of(t) != NULL) continue;
    const dh_backend_t* other = NULL;
    int taken = dh_device_api_get_by_type(t, &other) == 0;
    dh_error_clear();
    if (!taken) return t;
  }
  return 0;
}

/* One "S" line of the probe: a new set of library lib (or, when port > 0, of the
 * server host:port, the lib-th of --rpc and DEVHARNESS_TVM_RPC), or a refusal of that name. */
static const char* g_rpc_key = ""; /* the tracker key of the server take_rpc adds */

static void add_set(const char* origin, int lib, const char* host, int port, char* line,
                    dh_backend_refuse_fn refuse) {
  char msg[PATH_MAX + 512], name[48];
  char* api_name = strtok(line + 2, "\t");
  char* type_s = strtok(NULL, "\t");
  if (api_name == NULL || type_s == NULL) return;
  int32_t type = (int32_t)strtol(type_s, NULL, 10), dh_type = type > 0 ? pick_type(type) : 0;
  const char* short_name = api_name + strlen("device_api.");
  if (port > 0 && lib == 0) /* the first server: tvm-rpc-cpu; the k-th: tvm-rpc<k>-cpu */
    snprintf(name, sizeof name, "tvm-rpc-%.24s", short_name);
  else if (port > 0)
    snprintf(name, sizeof name, "tvm-rpc%d-%.24s", lib + 1, short_name);
  else
    snprintf(name, sizeof name, "tvm-%.40s", short_name);
  for (int j = 0; j < dh_tvm_num_sets; j++) {
    if (port == 0 && dh_tvm_sets[j].rpc_port == 0 && strcmp(dh_tvm_sets[j].api_name, api_name) == 0) {
      const dh_tvm_set_t* t = &dh_tvm_sets[j];
      char first[PATH_MAX + 64];
      if (t->lib >= 0)
        snprintf(first, sizeof first, "%s before it", dh_tvm_libs[t->lib]);
      else
        snprintf(first, sizeof first, "TVM's own %s", t->own_lib);
      snprintf(msg, sizeof msg, "%s: refused: registers %s, as %s (one registration per name)", origin, api_name,
               first);
      refuse(origin, msg);
      return;
    }
    if (strcmp(dh_tvm_sets[j].name, name) == 0) {
      snprintf(msg, sizeof msg, "%s: refused: %s is already a device set", origin, name);
      refuse(origin, msg);
      return;
    }
  }
  if (type <= 0 || dh_type == 0 || dh_tvm_num_sets >= DH_TVM_MAX_SETS || strlen(short_name) > 40) {
    snprintf(msg, sizeof msg, "%s: refused: %s: %s", origin, api_name,
             type <= 0 ? "not a TVM device type name (TVM's DLDeviceType2Str), so TVM's DeviceAPI::Get cannot reach it"
             : dh_type == 0 ? "no free devharness device type"
                            : "too many device sets or too long a name");
    refuse(origin, msg);
    return;
  }
  dh_tvm_set_t* s = &dh_tvm_sets[dh_tvm_num_sets];
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%s", name);
  snprintf(s->api_name, sizeof s->api_name, "%s", api_name);
  if (port > 0 && *g_rpc_key)
    snprintf(s->description, sizeof s->description, "TVM RPC tracker %s:%d, key %s, the remote %s", host, port,
             g_rpc_key, api_name);
  else if (port > 0)
    snprintf(s->description, sizeof s->description, "TVM RPC %s:%d, the remote %s", host, port, api_name);
  else
    snprintf(s->description, sizeof s->description, "TVM DeviceAPI %s from %s", api_name, origin);
  snprintf(s->reason, sizeof s->reason, "not initialised");
  snprintf(s->rpc_host, sizeof s->rpc_host, "%s", host ? host : "");
  s->rpc_port = port;
  snprintf(s->rpc_key, sizeof s->rpc_key, "%s", port > 0 ? g_rpc_key : "");
  s->base_type = type;
  s->tvm_type = port > 0 ? 0 : type; /* RPC: set by init, from the session's index */
  s->dh_type = dh_type;
  s->lib = port > 0 ? -1 : lib;
  dh_tvm_num_sets++;
}

/* The probe's answer, or NULL after refusing origin with what went wrong, as
 * "ORIGIN: refused: AS_WHAT: WHY" (as_what: "TVM library", "TVM RPC server"). */
static char* probe_or_refuse(void (*probe)(const char*, int), const char* arg, const char* origin,
                             const char* as_what, dh_backend_refuse_fn refuse) {
  char note[256], msg[PATH_MAX + 1024];
  char* out = run_probe(probe, arg, note, sizeof note);
  const char* err = out ? strstr(out, "\nE\t") : NULL;
  if (out != NULL && strncmp(out, "E\t", 2) == 0) err = out - 1;
  if (!note[0] && err == NULL && out != NULL && (strncmp(out, "K\n", 2) == 0 || strstr(out, "\nK\n") != NULL))
    return out;
  char said[240] = "";
  if (err != NULL) {
    snprintf(said, sizeof said, "%s", err + 3);
  } else if (out != NULL) { /* what the library or TVM printed: the line of the error
                               (what(): ..., ...Error: ...), else the first one */
    for (char* l = strtok(out, "\n"); l != NULL; l = strtok(NULL, "\n")) {
      if (l[0] == 'S' && l[1] == '\t') continue;
      char* w = strstr(l, "what():");
      if (w != NULL || strstr(l, "Error") != NULL) {
        snprintf(said, sizeof said, "%s", w ? w + 7 + strspn(w + 7, " ") : l);
        break;
      }
      if (!said[0]) snprintf(said, sizeof said, "%s", l);
    }
  }
  char* nl = strchr(said, '\n');
  if (nl) *nl = '\0';
  snprintf(msg, sizeof msg, "%s: refused: %s: %s%s%s%s", origin, as_what, note[0] ? note : said,
           note[0] && said[0] ? " (it said: " : "", note[0] && said[0] ? said : "", note[0] && said[0] ? ")" : "");
  free(out);
  refuse(origin, msg);
  return NULL;
}

/* Adds the "S" lines of a probe's answer (consumed) as sets. */
static void add_sets(char* out, const char* origin, int lib, const char* host, int port, dh_backend_refuse_fn refuse) {
  for (char *l = out, *next; l != NULL && *l; l = next) {
    next = strchr(l, '\n');
    if (next) *next++ = '\0';
    if (strncmp(l, "S\t", 2) == 0) add_set(origin, lib, host, port, l, refuse);
  }
}

/* One TVM RPC server "HOST:PORT": probed, then a set per remote device type that has a
 * device, or refused with the reason. */
static void take_rpc(const char* hostport, int k, dh_backend_refuse_fn refuse) {
  char msg[1024], host[256], key[64];
  long port = 0;
  if (split_rpc(hostport, key, sizeof key, host, sizeof host, &port) != 0) {
    snprintf(msg, sizeof msg, "%s: refused: not HOST:PORT (a TVM RPC server) nor KEY@HOST:PORT (a key of a TVM RPC "
             "tracker; KEY at most 63 bytes)", hostport);
    refuse(hostport, msg);
    return;
  }
  char* out = probe_or_refuse(probe_rpc, hostport, hostport, *key ? "TVM RPC tracker" : "TVM RPC server", refuse);
  if (out == NULL) return;
  g_rpc_key = key;
  add_sets(out, hostport, k, host, (int)port, refuse);
  g_rpc_key = "";
  free(out);
}

/* One library: probed, then its sets added, or refused with the reason. */
static void take_library(const char* given, dh_backend_refuse_fn refuse) {
  char real[PATH_MAX], msg[PATH_MAX + 1024];
  if (realpath(given, real) == NULL) {
    snprintf(msg, sizeof msg, "%s: refused: cannot open TVM library: %s", given, strerror(errno));
    refuse(given, msg);
    return;
  }
  for (int i = 0; i < dh_tvm_num_libs; i++)
    if (strcmp(dh_tvm_libs[i], real) == 0) return; /* named twice: once */
  if (dh_tvm_num_libs >= DH_TVM_MAX_LIBS) {
    snprintf(msg, sizeof msg, "%s: refused: more than %d TVM libraries", given, DH_TVM_MAX_LIBS);
    refuse(given, msg);
    return;
  }
  char* out = probe_or_refuse(probe, real, given, "TVM library", refuse);
  if (out == NULL) return;
  int lib = dh_tvm_num_libs;
  dh_tvm_libs[dh_tvm_num_libs++] = strdup(real);
  int sets_before = dh_tvm_num_sets;
  add_sets(out, given, lib, NULL, 0, refuse);
  free(out);
  if (dh_tvm_num_sets == sets_before) { /* every name refused: the library is not loaded */
    free(dh_tvm_libs[--dh_tvm_num_libs]);
    dh_tvm_libs[dh_tvm_num_libs] = NULL;
  }
}

/* TVM's own set of device_api.<name> (TVM type `type`) from file `lib` of TVM's lib
 * folder (dir). */
static void add_own_set(const char* dir, const char* lib, const char* name, int32_t type) {
  if (dh_tvm_num_sets >= DH_TVM_MAX_SETS) return;
  dh_tvm_set_t* s = &dh_tvm_sets[dh_tvm_num_sets++];
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "tvm-%s", name);
  snprintf(s->api_name, sizeof s->api_name, "device_api.%s", name);
  snprintf(s->own_lib, sizeof s->own_lib, "%s", lib);
  if (dir[0])
    snprintf(s->description, sizeof s->description, "TVM's own %s DeviceAPI (apache-tvm %s/%s)", name, dir, lib);
  else
    snprintf(s->description, sizeof s->description, "TVM's own %s DeviceAPI (apache-tvm %s: no package configured)",
             name, lib);
  snprintf(s->reason, sizeof s->reason, "not initialised");
  s->dh_type = DH_TVM_TYPE_BASE + type;
  s->tvm_type = s->base_type = type;
  s->lib = -1;
}

static int cmp_name(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

void dh_tvm_find_own_sets(void) {
  static int found; /* once per process (a plugin loaded again keeps its sets) */
  if (found) return;
  found = 1;
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s%s", dh_tvm_root(), dh_tvm_root()[0] ? "/lib" : "");
  add_own_set(dir, DH_TVM_CORE_LIB, "cpu", kDLCPU);
  DIR* d = dir[0] ? opendir(dir) : NULL;
  char* names[64];
  size_t n = 0;
  for (struct dirent* e; d != NULL && (e = readdir(d)) != NULL && n < 64;) {
    size_t len = strlen(e->d_name), plen = strlen(DH_TVM_LIB_PREFIX);
    if (len > plen + 3 && strncmp(e->d_name, DH_TVM_LIB_PREFIX, plen) == 0 && strcmp(e->d_name + len - 3, ".so") == 0 &&
        (names[n] = strdup(e->d_name)) != NULL)
      n++;
  }
  if (d != NULL) closedir(d);
  qsort(names, n, sizeof *names, cmp_name); /* readdir's order is the file system's */
  for (size_t i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)(strlen(names[i]) - strlen(DH_TVM_LIB_PREFIX) - 3),
             names[i] + strlen(DH_TVM_LIB_PREFIX));
    for (int32_t t = 2; t < 20; t++) /* libtvm_runtime_extra.so and the like: no device type, no set */
      if (kTvmDevices[t] != NULL && strcmp(kTvmDevices[t], name) == 0) add_own_set(dir, names[i], name, t);
    free(names[i]);
  }
}

void dh_tvm_find_more_sets(dh_backend_refuse_fn refuse) {
  /* once per process: a plugin loaded again after dh_plugins_unload_all (it stays
   * mapped) gives the same sets without probing again */
  static int probed;
  char* rpc = probed ? NULL : dh_tvm_option_values(DH_TVM_OPT_RPC); /* HOST:PORT,HOST:PORT */
  int k = 0;
  for (const char* p = rpc; p != NULL && *p;) {
    const char* e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len > 0 && len < 300) {
      char hp[300];
      memcpy(hp, p, len);
      hp[len] = '\0';
      take_rpc(hp, k++, refuse);
    }
    p = e ? e + 1 : NULL;
  }
  free(rpc);
  char* env = probed ? NULL : dh_tvm_option_values(DH_TVM_OPT_LIB); /* A:B */
  probed = 1;
  for (const char* p = env; p != NULL && *p;) {
    const char* e = strchr(p, ':');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len > 0 && len < PATH_MAX) {
      char path[PATH_MAX];
      memcpy(path, p, len);
      path[len] = '\0';
      take_library(path, refuse);
    }
    p = e ? e + 1 : NULL;
  }
  free(env);
}
