/*
 * runtime/plugin.c — the plugin loader and backend registry (devharness/device_api.h,
 * "Plugins" and "Backends"; ABI rules in devharness/backend.h, PJRT-style).
 *
 * State: an array of slots (load order), a dispatch table indexed by device type
 * (pointers published with release stores, read with acquire loads and no lock), the
 * refusal messages, and the real paths dh_plugins_load_default has tried. Loading and
 * unloading are serialised by g_load_mu.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "base/text.h"

typedef struct refusal {
  char* message;   /* "PATH: reason" */
  char* file_name; /* <name> of libdevharness_<name>.so, or the base name */
} refusal_t;

static pthread_mutex_t g_load_mu = PTHREAD_MUTEX_INITIALIZER;
static dh__slot* g_slots[DH__MAX_BACKENDS];
static atomic_size_t g_num_slots;
_Atomic(dh__slot*) dh__by_type[DH__MAX_DEVICE_TYPES];
static refusal_t* g_refusals;
static size_t g_num_refusals;
static char** g_tried; /* real paths tried by dh_plugins_load_default */
static size_t g_num_tried;
static atomic_int g_options_window; /* ABI 1.6: runtime/options.c opens and closes it */

void dh__options_window_set(int open) { atomic_store(&g_options_window, open); }

/*---------------------------------------------------------------- lookups */

dh__slot* dh__slot_of(const dh_backend_t* backend) {
  size_t n = atomic_load_explicit(&g_num_slots, memory_order_acquire);
  for (size_t i = 0; i < n; i++)
    if (&g_slots[i]->backend == backend) return g_slots[i];
  return NULL;
}

size_t dh_backend_count(void) { return atomic_load_explicit(&g_num_slots, memory_order_acquire); }

const dh_backend_t* dh_backend_at(size_t i) {
  if (i >= atomic_load_explicit(&g_num_slots, memory_order_acquire)) return NULL;
  return &g_slots[i]->backend;
}

/*---------------------------------------------------------------- refusals */

/* <name> from ".../libdevharness_<name>.so", else the base name. Returns malloc'd. */
static char* plugin_name_of_file(const char* path) {
  const char* base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char* pre = "libdevharness_";
  size_t n = strlen(base), np = strlen(pre);
  if (strncmp(base, pre, np) == 0 && n > np + 3 && strcmp(base + n - 3, ".so") == 0)
    return strndup(base + np, n - np - 3);
  return strdup(base);
}

/* Records the current error as a refusal of `path` (once: an identical message is not
 * recorded again). Caller holds g_load_mu. Returns -1. */
static int record_refusal(const char* path) {
  for (size_t i = 0; i < g_num_refusals; i++)
    if (strcmp(g_refusals[i].message, dh_error_message()) == 0) return -1;
  refusal_t* r = realloc(g_refusals, (g_num_refusals + 1) * sizeof *r);
  if (r == NULL) return -1;
  g_refusals = r;
  r[g_num_refusals].message = strdup(dh_error_message());
  r[g_num_refusals].file_name = plugin_name_of_file(path);
  if (r[g_num_refusals].message == NULL || r[g_num_refusals].file_name == NULL) {
    free(r[g_num_refusals].message);
    free(r[g_num_refusals].file_name);
    return -1;
  }
  g_num_refusals++;
  return -1;
}

size_t dh_plugin_refusal_count(void) {
  pthread_mutex_lock(&g_load_mu);
  size_t n = g_num_refusals;
  pthread_mutex_unlock(&g_load_mu);
  return n;
}

const char* dh_plugin_refusal(size_t i) {
  pthread_mutex_lock(&g_load_mu);
  const char* m = i < g_num_refusals ? g_refusals[i].message : NULL;
  pthread_mutex_unlock(&g_load_mu);
  return m;
}

/*---------------------------------------------------------------- loading */

/* device_api.<name>: returns the backend (self) as an OpaquePtr. */
static int device_api_getter(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)args;
  (void)num_args;
  *result = dh_any_ptr(self);
  return 0;
}

/* "<name>.<fn>" as registered in tvm-ffi's table: runs the backend's init once (a
 * caller such as Python's tvm_ffi may come before any dh_device_* call), then the
 * backend's function with self NULL (backend.h dh_backend_function_t). After init the
 * extra cost is one acquire load. */
static int slot_function_call(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  const dh__slot_function* f = (const dh__slot_function*)self;
  if (dh__slot_init(f->slot) != 0) return -1;
  return f->call(NULL, args, num_args, result);
}

/* Unregisters the functions of a slot (device_api.<name>, <name>.<fn>) from tvm-ffi's
 * global table and drops the slot's cached Function references. */
static void unregister_slot(dh__slot* slot) {
  char key[256];
  const dh_backend_t* b = &slot->backend;
  snprintf(key, sizeof key, DH_DEVICE_API_PREFIX "%s", b->name);
  dh_func_remove(key);
  for (size_t i = 0; i < b->num_functions; i++) {
    snprintf(key, sizeof key, "%s.%s", b->name, b->functions[i].name);
    dh_func_remove(key);
    if (slot->functions != NULL) dh_func_release(&slot->functions[i]);
  }
  free(slot->functions);
  slot->functions = NULL;
  free(slot->function_keys);
  slot->function_keys = NULL;
  free(slot->function_ctx);
  slot->function_ctx = NULL;
  dh_error_clear();
}

/* Checks an accepted struct against the loaded ones (10. duplicates, room). Caller
 * holds g_load_mu. -1 with an ABIError. */
static int validate_unique(const char* path, const dh_backend_t* b) {
  size_t n = atomic_load(&g_num_slots);
  for (size_t i = 0; i < n; i++) {
    const dh_backend_t* o = &g_slots[i]->backend;
    if (strcmp(o->name, b->name) == 0)
      return dh_error_set(DH_KIND_ABI_ERROR, "%s: a backend named '%s' is already loaded (from %s)", path, b->name,
                          g_slots[i]->path);
    if (o->device_type == b->device_type)
      return dh_error_set(DH_KIND_ABI_ERROR, "%s: device type %d (%s) is already served by backend '%s' (from %s)",
                          path, (int)b->device_type, dh_device_type_name(b->device_type), o->name,
                          g_slots[i]->path);
    for (size_t j = 0; j < b->num_options * o->num_options; j++) /* ABI 1.6: option names */
      if (strcmp(b->options[j / o->num_options].name, o->options[j % o->num_options].name) == 0)
        return dh_error_set(DH_KIND_ABI_ERROR, "%s: option --%s is already declared by backend '%s' (from %s)", path,
                            o->options[j % o->num_options].name, o->name, g_slots[i]->path);
  }
  if (n >= DH__MAX_BACKENDS)
    return dh_error_set(DH_KIND_ABI_ERROR, "%s: too many plugins (at most %d)", path, DH__MAX_BACKENDS);
  return 0;
}

/* DH_DEVICE_TYPE_ASSIGN: the lowest type of the out-of-tree range no loaded backend
 * serves, written into the slot's copy of the struct. Caller holds g_load_mu. -1 with
 * an ABIError naming the file when every type of the range is taken. */
static int assign_device_type(const char* path, dh_backend_t* b) {
  if (b->device_type != DH_DEVICE_TYPE_ASSIGN) return 0;
  size_t n = atomic_load(&g_num_slots);
  for (int32_t t = DH_DEVICE_TYPE_OUT_OF_TREE_FIRST; t <= DH_DEVICE_TYPE_OUT_OF_TREE_LAST; t++) {
    size_t i = 0;
    while (i < n && g_slots[i]->backend.device_type != t) i++;
    if (i == n) {
      b->device_type = t;
      return 0;
    }
  }
  return dh_error_set(DH_KIND_ABI_ERROR, "%s: device type %d (assign one) but every type of %d..%d is served already",
                      path, DH_DEVICE_TYPE_ASSIGN, DH_DEVICE_TYPE_OUT_OF_TREE_FIRST, DH_DEVICE_TYPE_OUT_OF_TREE_LAST);
}

int32_t dh_backend_served_device_type(const char* name) {
  if (name == NULL) return -1;
  /* lock-free, as dispatch: slots are published with a release store of g_num_slots
   * and never change after (init may run while a plugin loads: no g_load_mu here) */
  int32_t t = -1;
  size_t n = atomic_load_explicit(&g_num_slots, memory_order_acquire);
  for (size_t i = 0; i < n && t < 0; i++)
    if (strcmp(g_slots[i]->backend.name, name) == 0) t = g_slots[i]->backend.device_type;
  return t;
}

/* Registers device_api.<name> and the module functions in tvm-ffi's global table
 * (so Python's tvm_ffi.get_global_func and TVM see them; each through
 * slot_function_call, which initialises the backend first) and keeps one Function
 * reference per module function in the slot for dh_device_call. -1 (and nothing left
 * registered) on failure. */
static int register_slot(dh__slot* slot) {
  char key[256];
  const dh_backend_t* b = &slot->backend;
  snprintf(key, sizeof key, DH_DEVICE_API_PREFIX "%s", b->name);
  if (dh_func_register(key, device_api_getter, slot, 1) != 0) return -1;
  slot->functions = calloc(b->num_functions ? b->num_functions : 1, sizeof *slot->functions);
  slot->function_keys = calloc(b->num_functions ? b->num_functions : 1, sizeof *slot->function_keys);
  slot->function_ctx = calloc(b->num_functions ? b->num_functions : 1, sizeof *slot->function_ctx);
  if (slot->functions == NULL || slot->function_keys == NULL || slot->function_ctx == NULL) {
    unregister_slot(slot);
    return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "%s: out of memory registering functions", slot->path);
  }
  for (size_t i = 0; i < b->num_functions; i++) {
    slot->function_keys[i] = dh__name_key(b->functions[i].name);
    snprintf(key, sizeof key, "%s.%s", b->name, b->functions[i].name);
    slot->function_ctx[i] = (dh__slot_function){slot, b->functions[i].call};
    char* meta = NULL;
    const char* doc = NULL;
    int rc = dh__func_meta(b->functions[i].name, &meta, &doc);
    if (rc == 0) rc = dh_func_register_with_metadata(key, slot_function_call, &slot->function_ctx[i], 1, meta, doc);
    free(meta);
    if (rc != 0 || dh_func_get(key, &slot->functions[i]) != 0) {
      unregister_slot(slot);
      return dh_error_set(DH_KIND_ABI_ERROR, "%s: cannot register %s", slot->path, key);
    }
  }
  return 0;
}

/* The body of dh_plugin_load; caller holds g_load_mu. */
/* Checks 1-2 of load_locked (a readable regular ELF file) and resolves the path into
 * real (PATH_MAX bytes). 0, or -1 with the error. */
static int check_file(const char* path, char* real) {
  if (path == NULL || path[0] == '\0')
    return dh_error_set(DH_KIND_IO_ERROR, "plugin path is %s", path ? "empty" : "NULL");
  /* 1. readable regular file */
  struct stat st;
  if (stat(path, &st) != 0)
    return dh_error_set(DH_KIND_IO_ERROR, "%s: cannot open plugin: %s", path, strerror(errno));
  if (!S_ISREG(st.st_mode)) return dh_error_set(DH_KIND_IO_ERROR, "%s: not a regular file", path);
  FILE* f = fopen(path, "rb");
  if (f == NULL) return dh_error_set(DH_KIND_IO_ERROR, "%s: cannot open plugin: %s", path, strerror(errno));
  unsigned char magic[4] = {0};
  size_t got = fread(magic, 1, 4, f);
  fclose(f);
  /* 2. ELF magic, checked before dlopen for a clear message */
  if (got != 4 || memcmp(magic, "\177ELF", 4) != 0)
    return dh_error_set(DH_KIND_ABI_ERROR, "%s: not an ELF shared object", path);
  if (realpath(path, real) == NULL)
    return dh_error_set(DH_KIND_IO_ERROR, "%s: cannot resolve path: %s", path, strerror(errno));
  return 0;
}

/* more_backends' refuse callback: a refusal of origin with message. Caller (the
 * loader, inside load_locked) holds g_load_mu. */
static void refuse_more(const char* origin, const char* message) {
  dh_error_set(DH_KIND_ABI_ERROR, "%s", message ? message : "refused");
  record_refusal(origin ? origin : "(plugin)");
}

/* A further struct of more_backends declares no options (backend.h ABI 1.6). 0. */
static int no_options(dh_backend_t* b) { return b->options = NULL, b->num_options = 0, b->set_option = NULL, 0; }
void dh__load_lock(void) { pthread_mutex_lock(&g_load_mu); }
void dh__load_unlock(void) { pthread_mutex_unlock(&g_load_mu); }

/* ABI 1.3 more_backends: registers each further struct of the plugin `main` as a slot
 * of its own, checked like the plugin's own (its ABI 1.6 options then cleared: the
 * plugin's own struct takes them), listed right after main's (load order, also when
 * the options window held it back while later plugins loaded); one that fails a check
 * is a refusal and the others go on. Caller holds g_load_mu. */
void dh__load_more(dh__slot* main) {
  const char* path = main->path;
  const char* real = main->real_path;
  if (main->backend.more_backends == NULL) return;
  size_t at = 1; /* where the next further slot goes: after main's and those before it */
  while (g_slots[at - 1] != main) at++;
  const dh_backend_t* more[DH__MAX_BACKENDS];
  size_t k = main->backend.more_backends(more, DH__MAX_BACKENDS, refuse_more);
  for (size_t i = 0; i < k && i < DH__MAX_BACKENDS; i++) {
    size_t n = atomic_load(&g_num_slots);
    dh__slot* slot = calloc(1, sizeof *slot);
    if (slot == NULL) return;
    char origin[PATH_MAX + 64];
    snprintf(origin, sizeof origin, "%s (backend %zu of more_backends)", path, i);
    void* h = dlopen(real, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD); /* one reference per slot */
    if (h == NULL || dh__backend_accept(origin, more[i], SIZE_MAX, &slot->backend) != 0 ||
        no_options(&slot->backend) != 0 || validate_unique(origin, &slot->backend) != 0 ||
        assign_device_type(origin, &slot->backend) != 0 ||
        (slot->path = strdup(path)) == NULL ||
        (slot->real_path = strdup(real)) == NULL) {
      if (h == NULL) dh_error_set(DH_KIND_ABI_ERROR, "%s: cannot reopen the plugin", origin);
      record_refusal(path);
      free(slot->path);
      free(slot);
      if (h != NULL) dlclose(h);
      continue;
    }
    slot->dl_handle = h;
    pthread_mutex_init(&slot->init_mu, NULL);
    atomic_init(&slot->init_state, 0);
    if (register_slot(slot) != 0) {
      record_refusal(path);
      free(slot->path);
      free(slot->real_path);
      pthread_mutex_destroy(&slot->init_mu);
      free(slot);
      dlclose(h);
      continue;
    }
    for (size_t j = n; j > at; j--) __atomic_store_n(&g_slots[j], g_slots[j - 1], __ATOMIC_RELEASE);
    __atomic_store_n(&g_slots[at++], slot, __ATOMIC_RELEASE); /* at == n: appended, as at load */
    atomic_store_explicit(&g_num_slots, n + 1, memory_order_release);
    atomic_store_explicit(&dh__by_type[slot->backend.device_type], slot, memory_order_release);
  }
  dh_error_clear();
}

static int load_locked(const char* path, const dh_backend_t** out) {
  char real[PATH_MAX];
  if (check_file(path, real) != 0) return -1;
  size_t n = atomic_load(&g_num_slots);
  for (size_t i = 0; i < n; i++)
    if (strcmp(g_slots[i]->real_path, real) == 0) { /* same file again: already loaded */
      if (out) *out = &g_slots[i]->backend;
      return 0;
    }
  /* 3. dlopen, entry and struct checks first in a probe child: a plugin that crashes,
   * exits or hangs while it loads is refused before this process maps it */
  if (dh__plugin_probe(path, real) != 0) return -1;
  /* 4. dlopen (of the resolved path: a bare "libfoo.so" means the file in the working
   * folder, not a search of the library path as dlopen would do with a slash-less name) */
  dlerror();
  void* h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    const char* why = dlerror();
    return dh_error_set(DH_KIND_ABI_ERROR, "%s: dlopen failed: %s", path, why ? why : "unknown reason");
  }
  /* 5. entry symbol */
  void* sym = dlsym(h, DH_BACKEND_ENTRY_SYMBOL);
  if (sym == NULL) {
    dlclose(h);
    return dh_error_set(DH_KIND_ABI_ERROR, "%s: missing entry symbol %s", path, DH_BACKEND_ENTRY_SYMBOL);
  }
  dh_backend_entry_fn entry;
  memcpy(&entry, &sym, sizeof entry);
  dh__slot* slot = calloc(1, sizeof *slot);
  if (slot == NULL) {
    dlclose(h);
    return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "%s: out of memory", path);
  }
  /* 6-10. entry result, ABI major, struct_size, copy, per-struct rules; 11. duplicates.
   * The plugin's struct is as large as its struct_size says (the ABI contract). */
  if (dh__backend_accept(path, entry(), SIZE_MAX, &slot->backend) != 0 ||
      validate_unique(path, &slot->backend) != 0 || assign_device_type(path, &slot->backend) != 0) {
    free(slot);
    dlclose(h);
    return -1;
  }
  slot->dl_handle = h;
  slot->path = strdup(path);
  slot->real_path = strdup(real);
  pthread_mutex_init(&slot->init_mu, NULL);
  atomic_init(&slot->init_state, 0);
  if (slot->path == NULL || slot->real_path == NULL || register_slot(slot) != 0) {
    if (dh_error_kind() == NULL) dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "%s: out of memory", path);
    free(slot->path);
    free(slot->real_path);
    pthread_mutex_destroy(&slot->init_mu);
    free(slot);
    dlclose(h);
    return -1;
  }
  /* 12. pin an accepted plugin in memory (RTLD_NODELETE, glibc promotes the flag with
   * RTLD_NOLOAD): the vendor stacks under it keep threads and state past shutdown, and
   * unmapping them in dh_plugins_unload_all would pull code from under those threads.
   * Refused files are still unmapped. */
  void* pin = dlopen(real, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD | RTLD_NODELETE);
  if (pin != NULL) dlclose(pin);
  g_slots[n] = slot;
  atomic_store_explicit(&g_num_slots, n + 1, memory_order_release);
  atomic_store_explicit(&dh__by_type[slot->backend.device_type], slot, memory_order_release);
  if (out) *out = &slot->backend;
  /* 13. ABI 1.3: the plugin's further backends; ABI 1.6: after its options are given
   * when the window is open (runtime/options.c dh_backend_options_close) */
  if (atomic_load(&g_options_window) && slot->backend.num_options > 0) slot->held = 1;
  else dh__load_more(slot);
  return 0;
}

int dh_plugin_load(const char* path, const dh_backend_t** out_backend) {
  if (out_backend) *out_backend = NULL;
  pthread_mutex_lock(&g_load_mu);
  int rc = load_locked(path, out_backend);
  if (rc != 0 && path != NULL) record_refusal(path);
  pthread_mutex_unlock(&g_load_mu);
  return rc;
}

/*---------------------------------------------------------------- discovery */

/* Folders searched for plugins: a growable list of malloc'd strings. */
typedef struct folder_list {
  char** at;
  size_t n;
} folder_list_t;

static void folders_add(folder_list_t* l, const char* dir, size_t len) {
  char** t = realloc(l->at, (l->n + 1) * sizeof *t);
  if (t == NULL) return;
  l->at = t;
  if ((l->at[l->n] = strndup(dir, len)) != NULL) l->n++;
}

static void folders_free(folder_list_t* l) {
  for (size_t i = 0; i < l->n; i++) free(l->at[i]);
  free(l->at);
  *l = (folder_list_t){NULL, 0};
}

/* The folders searched, in order: every folder of DEVHARNESS_PLUGIN_PATH (any number;
 * empty ones skipped), the plugin folder of this library's own install
 * (<dir of libdevharness.so>/devharness: PREFIX/lib/devharness after `make install`,
 * build/lib/devharness in the build, so a program linked against the installed library
 * finds the installed plugins), then <dir of the executable>/../lib/devharness. A
 * folder that cannot be stored (out of memory) is left out. */
static folder_list_t plugin_folders(void) {
  folder_list_t l = {NULL, 0};
  const char* env = getenv("DEVHARNESS_PLUGIN_PATH");
  for (const char* p = env; p != NULL && *p;) {
    const char* e = strchr(p, ':');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len > 0 && len < PATH_MAX) folders_add(&l, p, len);
    p = e ? e + 1 : NULL;
  }
  char buf[PATH_MAX + 32];
  Dl_info self;
  if (dladdr((void*)&dh_plugins_load_default, &self) != 0 && self.dli_fname != NULL &&
      strchr(self.dli_fname, '/') != NULL) {
    char lib[PATH_MAX];
    snprintf(lib, sizeof lib, "%s", self.dli_fname);
    snprintf(buf, sizeof buf, "%s/devharness", dirname(lib));
    folders_add(&l, buf, strlen(buf));
  }
  char exe[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len > 0) {
    exe[len] = '\0';
    snprintf(buf, sizeof buf, "%s/../lib/devharness", dirname(exe));
    folders_add(&l, buf, strlen(buf));
  }
  return l;
}

static int cmp_str(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

/* Adds real path to g_tried; 0 if it was new, 1 if already there. Caller holds lock. */
static int tried_before(const char* real) {
  for (size_t i = 0; i < g_num_tried; i++)
    if (strcmp(g_tried[i], real) == 0) return 1;
  char** t = realloc(g_tried, (g_num_tried + 1) * sizeof *t);
  if (t == NULL) return 1;
  g_tried = t;
  if ((g_tried[g_num_tried] = strdup(real)) == NULL) return 1;
  g_num_tried++;
  return 0;
}

size_t dh_plugins_load_default(void) {
  pthread_mutex_lock(&g_load_mu);
  size_t before = atomic_load(&g_num_slots);
  folder_list_t folders = plugin_folders();
  for (size_t fi = 0; fi < folders.n; fi++) {
    DIR* d = opendir(folders.at[fi]);
    if (d == NULL) continue;
    char** names = NULL;
    size_t nn = 0;
    struct dirent* e;
    while ((e = readdir(d)) != NULL) {
      size_t l = strlen(e->d_name);
      if (strncmp(e->d_name, "libdevharness_", 14) != 0 || l < 18 || strcmp(e->d_name + l - 3, ".so") != 0)
        continue;
      char** t = realloc(names, (nn + 1) * sizeof *t);
      if (t == NULL) break;
      names = t;
      if ((names[nn] = strdup(e->d_name)) != NULL) nn++;
    }
    closedir(d);
    if (nn > 0) qsort(names, nn, sizeof *names, cmp_str);
    for (size_t i = 0; i < nn; i++) {
      char path[PATH_MAX + 256], real[PATH_MAX];
      snprintf(path, sizeof path, "%s/%s", folders.at[fi], names[i]);
      if (realpath(path, real) == NULL || !tried_before(real)) {
        if (load_locked(path, NULL) != 0) record_refusal(path);
      }
      free(names[i]);
    }
    free(names);
  }
  folders_free(&folders);
  size_t loaded = atomic_load(&g_num_slots) - before;
  pthread_mutex_unlock(&g_load_mu);
  dh_error_clear();
  return loaded;
}

/*---------------------------------------------------------------- lookup by name */

int dh_device_api_get(const char* name, const dh_backend_t** out_backend) {
  if (out_backend) *out_backend = NULL;
  if (name == NULL) return dh_error_set(DH_KIND_KEY_ERROR, "Device API (NULL) is not enabled: no name given");
  pthread_mutex_lock(&g_load_mu);
  size_t n = atomic_load(&g_num_slots);
  for (size_t i = 0; i < n; i++)
    if (strcmp(g_slots[i]->backend.name, name) == 0) {
      if (out_backend) *out_backend = &g_slots[i]->backend;
      pthread_mutex_unlock(&g_load_mu);
      return 0;
    }
  char shown[DH_TEXT_BUF];
  dh_text_quote(name, shown, sizeof shown);
  for (size_t i = g_num_refusals; i-- > 0;)
    if (strcmp(g_refusals[i].file_name, name) == 0) {
      dh_error_set(DH_KIND_KEY_ERROR, "Device API %s is not enabled: %s", shown, g_refusals[i].message);
      pthread_mutex_unlock(&g_load_mu);
      return -1;
    }
  folder_list_t folders = plugin_folders();
  /* each folder once (by real path), quoted; the list is capped so the message stays
   * within DH_ERROR_MESSAGE_MAX */
  char list[1024];
  size_t used = 0;
  list[0] = '\0';
  for (size_t i = 0; i < folders.n && used < sizeof list; i++) {
    char real_i[PATH_MAX], real_j[PATH_MAX], q[DH_TEXT_BUF];
    const char* fi = realpath(folders.at[i], real_i) ? real_i : folders.at[i];
    int dup = 0;
    for (size_t j = 0; j < i && !dup; j++)
      dup = strcmp(fi, realpath(folders.at[j], real_j) ? real_j : folders.at[j]) == 0;
    if (!dup)
      used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ":" : "", dh_text_quote(fi, q, sizeof q));
  }
  folders_free(&folders);
  /* a refusal may be why (a library of more_backends, a plugin of another file name) */
  char why[600] = "";
  if (g_num_refusals > 0)
    snprintf(why, sizeof why, "; %zu refused (`devharness info` lists them), the last: %.480s", g_num_refusals,
             g_refusals[g_num_refusals - 1].message);
  dh_error_set(DH_KIND_KEY_ERROR, "Device API %s is not enabled: no plugin libdevharness_%s.so found in %s%s", shown,
               shown, list, why);
  pthread_mutex_unlock(&g_load_mu);
  return -1;
}

/*---------------------------------------------------------------- init */

/* What this process knows of the slot's capabilities (dh_device_caps). */
static void record_caps(dh__slot* s, uint32_t caps, int source) {
  atomic_store_explicit(&s->found_caps, caps, memory_order_relaxed);
  atomic_store_explicit(&s->caps_source, source, memory_order_release);
}

uint32_t dh_device_caps(const dh_backend_t* backend) {
  dh__slot* s = backend ? dh__slot_of(backend) : NULL;
  if (s == NULL) return backend ? backend->caps : 0;
  if (atomic_load_explicit(&s->caps_source, memory_order_acquire) == 0) return s->backend.caps;
  return atomic_load_explicit(&s->found_caps, memory_order_relaxed);
}

void dh__record_probed_caps(const dh_backend_t* backend, uint32_t caps) {
  dh__slot* s = dh__slot_of(backend);
  if (s != NULL && atomic_load_explicit(&s->caps_source, memory_order_acquire) != 2) record_caps(s, caps, 1);
}

/* ABI 1.5: the flags b's query_caps answers are the backend's capabilities in this
 * process (dh_device_caps; recorded before init_state is published, so every reader
 * after init sees them); b->caps stays as declared. 0, or -1 with the backend's error
 * (RuntimeError if it set none) or an ABIError for an unknown flag. */
static int query_caps(dh__slot* slot) {
  dh_backend_t* b = &slot->backend;
  uint32_t caps = 0;
  dh_error_clear(); /* what init left is not query_caps's */
  if (b->query_caps(&caps) != 0)
    return dh_error_kind() ? dh_error_prefix("%s: query_caps", b->name)
                           : dh_error_set(DH_KIND_RUNTIME_ERROR, "%s: query_caps returned -1 without an error", b->name);
  if (caps & ~(uint32_t)DH_CAP_ALL)
    return dh_error_set(DH_KIND_ABI_ERROR, "%s: query_caps answered 0x%x, which has flags no DH_CAP_* defines (0x%x)",
                        b->name, (unsigned)caps, (unsigned)(caps & ~(uint32_t)DH_CAP_ALL));
  record_caps(slot, caps, 2);
  return 0;
}

int dh__slot_init_slow(dh__slot* slot) {
  pthread_mutex_lock(&slot->init_mu);
  int state = atomic_load_explicit(&slot->init_state, memory_order_acquire);
  if (state == 0) {
    dh_error_clear();
    int rc = slot->backend.init();
    if (rc == 0 && slot->backend.query_caps != NULL) rc = query_caps(slot);
    else if (rc == 0) record_caps(slot, slot->backend.caps, 2);
    if (rc == 0) {
      state = 1;
    } else {
      snprintf(slot->init_kind, sizeof slot->init_kind, "%s",
               dh_error_kind() ? dh_error_kind() : DH_KIND_RUNTIME_ERROR);
      snprintf(slot->init_message, sizeof slot->init_message, "%s",
               dh_error_kind() ? dh_error_message() : "init returned -1 without an error");
      state = -1;
    }
    atomic_store_explicit(&slot->init_state, state, memory_order_release);
  }
  pthread_mutex_unlock(&slot->init_mu);
  if (state == 1) return 0;
  return dh_error_set(slot->init_kind, "%s", slot->init_message);
}

static dh__slot* slot_or_error(const dh_backend_t* backend) {
  dh__slot* s = dh__slot_of(backend);
  if (s == NULL)
    dh_error_set(DH_KIND_VALUE_ERROR, "backend %p was not loaded by dh_plugin_load", (const void*)backend);
  return s;
}

int dh_backend_init(const dh_backend_t* backend) {
  dh__slot* s = slot_or_error(backend);
  return s ? dh__slot_init(s) : -1;
}

const char* dh_backend_unavailable_reason(const dh_backend_t* backend) {
  dh__slot* s = dh__slot_of(backend);
  if (s == NULL) return "not a loaded backend";
  if (dh__slot_init(s) != 0) return s->init_message;
  return s->backend.unavailable_reason();
}

int dh_backend_device_count(const dh_backend_t* backend, int* out_count) {
  if (out_count) *out_count = 0;
  dh__slot* s = slot_or_error(backend);
  if (s == NULL) return -1;
  if (dh__slot_init(s) != 0) {
    dh_error_clear();
    return 0;
  }
  int count = 0;
  if (s->backend.device_count != NULL) { /* ABI 1.1: the backend counts (backend.h) */
    int32_t n = 0;
    if (s->backend.device_count(&n) != 0) return dh_error_prefix("%s: device_count", s->backend.name);
    if (n < 0 || n > DH_MAX_DEVICES_PER_BACKEND)
      return dh_error_set(DH_KIND_ABI_ERROR, "%s: device_count returned %d, expected 0..%d", s->backend.name, (int)n,
                          DH_MAX_DEVICES_PER_BACKEND);
    if (out_count) *out_count = n;
    return 0;
  }
  for (int id = 0; id < DH_MAX_DEVICES_PER_BACKEND; id++) {
    dh_any_t v = dh_any_none();
    DLDevice dev = {(DLDeviceType)s->backend.device_type, id};
    if (s->backend.get_attr(dev, DH_ATTR_EXIST, &v) != 0)
      return dh_error_prefix("%s:%d: get_attr(exist)", s->backend.name, id);
    if (v.type_index != DH_TYPE_INT && v.type_index != DH_TYPE_BOOL)
      return dh_error_set(DH_KIND_ABI_ERROR, "%s:%d: get_attr(exist) returned %s, expected Int", s->backend.name, id,
                          dh_type_index_name(v.type_index));
    if (v.v_int64 == 0) break;
    count++;
  }
  if (out_count) *out_count = count;
  return 0;
}

/*---------------------------------------------------------------- unload */

void dh_plugins_unload_all(void) {
  pthread_mutex_lock(&g_load_mu);
  size_t n = atomic_load(&g_num_slots);
  for (size_t i = 0; i < DH__MAX_DEVICE_TYPES; i++) atomic_store(&dh__by_type[i], NULL);
  atomic_store(&g_num_slots, 0);
  for (size_t i = n; i-- > 0;) {
    dh__slot* s = g_slots[i];
    if (atomic_load(&s->init_state) == 1 && s->backend.shutdown != NULL) s->backend.shutdown();
    unregister_slot(s);
    dlclose(s->dl_handle);
    free(s->path);
    free(s->real_path);
    pthread_mutex_destroy(&s->init_mu);
    free(s);
    g_slots[i] = NULL;
  }
  for (size_t i = 0; i < g_num_refusals; i++) {
    free(g_refusals[i].message);
    free(g_refusals[i].file_name);
  }
  free(g_refusals);
  g_refusals = NULL;
  g_num_refusals = 0;
  for (size_t i = 0; i < g_num_tried; i++) free(g_tried[i]);
  free(g_tried);
  g_tried = NULL;
  g_num_tried = 0;
  pthread_mutex_unlock(&g_load_mu);
}
