/*
 * backends/tvm/tvm_device.c — the tvm plugin's devices: loading TVM's libraries and the
 * adapter, a device set's init (its library, DeviceAPI, devices and capabilities),
 * availability, the device mapping, and the attribute entries (TVM's DeviceAPI::GetAttr
 * and GetTargetProperty, through tvm_adapter.cc). Calls down into tvm_tracker.c only
 * (tvm_internal.h lists the files).
 */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/backend.h"
#include "devharness/device_api.h"

#include "backends/tvm/tvm_internal.h"

const dh_tvm_adapter_t* dh_tvm_a;
char dh_tvm_reason[3 * PATH_MAX];

/*---------------------------------------------------------------- strings */

/* Strings TVM answered, interned until the process ends (get_attr strings are
 * backend-owned and live until shutdown; the same text gives the same pointer). */
typedef struct str_node {
  struct str_node* next;
  char s[];
} str_node_t;
static str_node_t* g_strs;
static pthread_mutex_t g_str_mu = PTHREAD_MUTEX_INITIALIZER;

static const char* intern(const char* s) {
  pthread_mutex_lock(&g_str_mu);
  for (str_node_t* n = g_strs; n; n = n->next)
    if (strcmp(n->s, s) == 0) {
      pthread_mutex_unlock(&g_str_mu);
      return n->s;
    }
  size_t len = strlen(s);
  str_node_t* n = malloc(sizeof *n + len + 1);
  if (n != NULL) {
    memcpy(n->s, s, len + 1);
    n->next = g_strs;
    g_strs = n;
  }
  pthread_mutex_unlock(&g_str_mu);
  return n ? n->s : NULL;
}

/*---------------------------------------------------------------- loading */

int dh_tvm_err(const char* op, const dh_tvm_err_t* e) {
  return dh_error_set(e->kind[0] ? e->kind : DH_KIND_RUNTIME_ERROR, "TVM %s: %s", op, e->message);
}

static void* open_lib(const char* dir, const char* file, const char* env_hint) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  dlerror();
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    const char* why = dlerror();
    snprintf(dh_tvm_reason, sizeof dh_tvm_reason, "cannot load %s: %s%s", path, why ? why : "unknown reason", env_hint);
  }
  return h;
}

/* Folder of this plugin (for tvm/libdh_tvm_adapter.so). */
static void plugin_dir(char* out, size_t size) {
  Dl_info info;
  out[0] = '\0';
  if (dladdr((void*)plugin_dir, &info) && info.dli_fname) {
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", info.dli_fname);
    snprintf(out, size, "%s", dirname(tmp));
  }
}

const char* dh_tvm_root(void) {
  const char* root = getenv("DEVHARNESS_TVM_ROOT");
  return root != NULL && root[0] != '\0' ? root : DH_TVM_ROOT_DEFAULT;
}

/* TVM's libraries and the adapter, by path (the body of dh_tvm_load). */
static int load_tvm(void) {
  const char* hint = " (set DEVHARNESS_TVM_ROOT / DEVHARNESS_TVM_FFI_ROOT to the tvm and tvm_ffi package "
                     "folders, or run `make deps` for the project venv)";
  const char* root = dh_tvm_root();
  const char* ffi_root = getenv("DEVHARNESS_TVM_FFI_ROOT");
  if (ffi_root == NULL || ffi_root[0] == '\0') ffi_root = DH_TVM_FFI_ROOT_DEFAULT;
  if (root[0] == '\0' || ffi_root[0] == '\0') {
    snprintf(dh_tvm_reason, sizeof dh_tvm_reason, "apache-tvm not configured: built without a project venv%s", hint);
    return -1;
  }
  char ffi_lib[PATH_MAX], rt_lib[PATH_MAX];
  snprintf(ffi_lib, sizeof ffi_lib, "%s/lib", ffi_root);
  snprintf(rt_lib, sizeof rt_lib, "%s/lib", root);
  /* TVM's libraries are never closed: their registries and threads live to exit. The
   * tvm-ffi this process already runs on (libdevharness.so's: the venv's in the build,
   * the copy `make install` puts beside an installed tree) is the one TVM's runtime must
   * use: libtvm_runtime.so's NEEDED libtvm_ffi.so resolves to it by soname. Opening the
   * venv's by path as well would load a second tvm-ffi, whose type registry collides
   * with the first (an abort in `devharness info` of an installed tree). */
  void* ffi_loaded = dlopen("libtvm_ffi.so", RTLD_NOW | RTLD_NOLOAD);
  if (ffi_loaded == NULL && open_lib(ffi_lib, "libtvm_ffi.so", hint) == NULL) return -1;
  if (open_lib(rt_lib, DH_TVM_CORE_LIB, hint) == NULL) return -1;
  char adapter[PATH_MAX];
  const char* env_adapter = getenv("DEVHARNESS_TVM_ADAPTER");
  if (env_adapter && env_adapter[0]) {
    snprintf(adapter, sizeof adapter, "%s", env_adapter);
  } else {
    char dir[PATH_MAX - 64];
    plugin_dir(dir, sizeof dir);
    snprintf(adapter, sizeof adapter, "%s/tvm/libdh_tvm_adapter.so", dir);
  }
  dlerror();
  void* h = dlopen(adapter, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    const char* why = dlerror();
    snprintf(dh_tvm_reason, sizeof dh_tvm_reason, "cannot load the TVM adapter %s: %s", adapter, why ? why : "?");
    return -1;
  }
  void* sym = dlsym(h, DH_TVM_ADAPTER_SYMBOL);
  if (sym == NULL) {
    snprintf(dh_tvm_reason, sizeof dh_tvm_reason, "%s: missing symbol %s", adapter, DH_TVM_ADAPTER_SYMBOL);
    return -1;
  }
  dh_tvm_adapter_fn fn;
  memcpy(&fn, &sym, sizeof fn);
  dh_tvm_a = fn();
  return 0;
}

static pthread_mutex_t g_load_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_loaded; /* 0 not tried, 1 loaded, -1 failed (dh_tvm_reason says why) */

/* dh_tvm_load with g_load_mu held. */
static int load_locked_ok(void) {
  if (g_loaded == 0) g_loaded = load_tvm() == 0 ? 1 : -1;
  return g_loaded == 1 ? 0 : -1;
}

int dh_tvm_load(void) {
  pthread_mutex_lock(&g_load_mu);
  int rc = load_locked_ok();
  pthread_mutex_unlock(&g_load_mu);
  return rc;
}

/*---------------------------------------------------------------- device sets */

dh_tvm_set_t dh_tvm_sets[DH_TVM_MAX_SETS];
int dh_tvm_num_sets;
char* dh_tvm_libs[DH_TVM_MAX_LIBS];
int dh_tvm_num_libs;
static int g_libs_state; /* 0 not loaded, 1 loaded, -1 one failed (g_libs_reason) */
static char g_libs_reason[PATH_MAX + 512];

/* The accepted libraries, once, in order (each was probed in a child: tvm_libs.c). */
static int load_libs(void) {
  if (g_libs_state == 0) {
    g_libs_state = 1;
    for (int i = 0; i < dh_tvm_num_libs && g_libs_state == 1; i++) {
      dlerror();
      if (dlopen(dh_tvm_libs[i], RTLD_NOW | RTLD_LOCAL) == NULL) { /* never closed, as TVM */
        const char* why = dlerror();
        snprintf(g_libs_reason, sizeof g_libs_reason, "cannot load %s: %s", dh_tvm_libs[i], why ? why : "?");
        g_libs_state = -1;
      }
    }
  }
  return g_libs_state == 1 ? 0 : -1;
}

/* Stores why set s has no device (formatted apart first: the arguments may be s's own
 * fields). */
static void set_why(dh_tvm_set_t* s, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_why(dh_tvm_set_t* s, const char* fmt, ...) {
  char tmp[sizeof s->reason];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  memcpy(s->reason, tmp, sizeof tmp);
}

/* kExist from id 0 up to the first 0 (TVM's numbering), at most DH_MAX_DEVICES_PER_BACKEND. */
static int32_t count_set(dh_tvm_set_t* s) {
  int32_t n = 0;
  for (; n < DH_MAX_DEVICES_PER_BACKEND; n++) {
    dh_tvm_value_t v;
    dh_tvm_err_t e;
    if (dh_tvm_a->get_attr(s->api, (DLDevice){(DLDeviceType)s->tvm_type, n}, 0, &v, &e) != 0) {
      if (n == 0) set_why(s, "TVM GetAttr(kExist) of %s on id 0 failed: %s: %s", s->api_name, e.kind, e.message);
      break;
    }
    if (v.type != DH_TVM_VALUE_INT || v.v_int == 0) break;
  }
  if (n == 0 && !s->reason[0]) set_why(s, "%s reports no device (kExist 0 for id 0)", s->api_name);
  return n;
}

int dh_tvm_probe_timeout_s(void) {
  const char* e = getenv("DEVHARNESS_TVM_PROBE_TIMEOUT_S");
  long v = e && *e ? strtol(e, NULL, 10) : 0;
  return v >= 1 && v <= 3600 ? (int)v : 30;
}

/* How long a tracker request may wait for a free server: three quarters of the probe's
 * timeout, so that a probe child says why before its own timeout ends it. */
static int rpc_timeout_s(void) {
  int v = dh_tvm_probe_timeout_s();
  return v > 1 ? v * 3 / 4 : 1;
}

int dh_tvm_rpc_open(const char* host, int port, const char* key, int* out_index, dh_tvm_err_t* e) {
  if (key == NULL || !*key) return dh_tvm_a->rpc_connect(host, port, "", out_index, e);
  dh_tvm_tracker_reply_t r;
  char why[512];
  if (dh_tvm_tracker_request(host, port, key, rpc_timeout_s(), &r, why, sizeof why) != 0) {
    snprintf(e->kind, sizeof e->kind, "RPCError");
    snprintf(e->message, sizeof e->message, "tracker %.128s:%d: %.700s", host, port, why);
    return -1;
  }
  if (dh_tvm_a->rpc_connect(r.host, r.port, r.matchkey, out_index, e) == 0) return 0;
  char m[sizeof e->message];
  snprintf(m, sizeof m, "%s", e->message);
  snprintf(e->message, sizeof e->message, "server %.64s:%d of key '%.32s' (from tracker %.64s:%d): %.600s", r.host,
           r.port, key, host, port, m);
  return -1;
}

/* init of one of TVM's own sets: its runtime library from TVM's lib folder (the core
 * one is loaded already), then device_api.<name>. Caller holds g_load_mu, TVM loaded. */
static void own_set_init(dh_tvm_set_t* s) {
  if (strcmp(s->own_lib, DH_TVM_CORE_LIB) != 0) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/lib", dh_tvm_root());
    dh_tvm_reason[0] = '\0';
    if (open_lib(dir, s->own_lib, "") == NULL) { /* never closed, as TVM's */
      set_why(s, "%s", dh_tvm_reason);
      return;
    }
  }
  dh_tvm_err_t e;
  void* api = NULL;
  if (dh_tvm_a->get_api_by_name(s->api_name, &api, &e) != 0)
    set_why(s, "TVM %s: %s: %s", s->api_name, e.kind, e.message);
  else if (api == NULL)
    set_why(s, "%s is not registered after loading %s/lib/%s", s->api_name, dh_tvm_root(), s->own_lib);
  s->api = api;
}

/* init of a TVM RPC set: a session of this process to its server, then the remote
 * device type's DeviceAPI (TVM's RPCDeviceAPI). Caller holds g_load_mu, TVM loaded. */
static void rpc_set_init(dh_tvm_set_t* s) {
  dh_tvm_err_t e;
  int idx = -1;
  void* api = NULL;
  if (dh_tvm_rpc_open(s->rpc_host, s->rpc_port, s->rpc_key, &idx, &e) != 0) {
    set_why(s, "TVM RPC %s:%d: cannot connect: %s: %s", s->rpc_host, s->rpc_port, e.kind, e.message);
    return;
  }
  s->tvm_type = (idx + 1) * 128 + s->base_type;
  if (dh_tvm_a->get_api((DLDevice){(DLDeviceType)s->tvm_type, 0}, &api, &e) != 0 || api == NULL) {
    set_why(s, "TVM RPC %s:%d: no DeviceAPI for %s", s->rpc_host, s->rpc_port, s->api_name);
    return;
  }
  s->api = api;
}

int dh_tvm_set_init(int i) {
  dh_tvm_set_t* s = &dh_tvm_sets[i];
  pthread_mutex_lock(&g_load_mu);
  s->reason[0] = '\0';
  if (load_locked_ok() != 0) {
    set_why(s, "%s", dh_tvm_reason);
  } else if (s->rpc_port > 0) {
    rpc_set_init(s);
  } else if (s->own_lib[0]) {
    own_set_init(s);
  } else if (load_libs() != 0) {
    set_why(s, "%s", g_libs_reason);
  } else {
    dh_tvm_err_t e;
    void* api = NULL;
    if (dh_tvm_a->get_api_by_name(s->api_name, &api, &e) != 0)
      set_why(s, "TVM %s: %s: %s", s->api_name, e.kind, e.message);
    else if (api == NULL)
      set_why(s, "%s is not registered after loading %s", s->api_name, dh_tvm_libs[s->lib]);
    s->api = api;
  }
  /* TVM's CPU DeviceAPI (own or remote) answers kExist 1 for any id (apache/tvm 0.27
   * src/runtime/cpu_device_api.cc:56-58): one device, the host */
  if (s->api != NULL) s->count = s->base_type == kDLCPU ? 1 : count_set(s);
  pthread_mutex_unlock(&g_load_mu);
  return 0;
}

int dh_tvm_set_caps(int i, uint32_t* out_caps) {
  dh_tvm_set_t* s = &dh_tvm_sets[i];
  *out_caps = 0;
  if (s->api == NULL || s->count <= 0) return 0;
  dh_tvm_err_t e;
  void* stream = NULL;
  DLDevice d0 = {(DLDeviceType)s->tvm_type, 0};
  /* TVM's SupportsDevicePointerArithmeticsOnHost promises arithmetic on the host only:
   * TVM's CUDA DeviceAPI answers true for CUDA device addresses (apache/tvm 0.27
   * src/backend/cuda/runtime/cuda_device_api.cc, CUDADeviceAPI; seen through this bridge
   * on an H200). DH_CAP_HOST_POINTER_ARITHMETIC promises host addresses as well
   * (cap.host_pointer reads through one), which only the memory of a kDLCPU device is
   * (DLPack): both must hold. */
  if (s->tvm_type == kDLCPU && dh_tvm_a->pointer_arithmetic_on_host(s->api))
    *out_caps |= DH_CAP_HOST_POINTER_ARITHMETIC;
  if (dh_tvm_a->create_stream(s->api, d0, &stream, &e) == 0 && stream != NULL)
    dh_tvm_a->free_stream(s->api, d0, stream, &e);
  else
    *out_caps |= DH_CAP_SINGLE_QUEUE;
  return 0;
}

const char* dh_tvm_set_reason(int i) {
  const dh_tvm_set_t* s = &dh_tvm_sets[i];
  return s->api != NULL && s->count > 0 ? NULL : s->reason;
}

int32_t dh_tvm_set_count(int i) { return dh_tvm_sets[i].api ? dh_tvm_sets[i].count : 0; }

dh_tvm_set_t* dh_tvm_set_of(int32_t t) {
  for (int i = 0; i < dh_tvm_num_sets; i++)
    if (dh_tvm_sets[i].dh_type == t) return &dh_tvm_sets[i];
  return NULL;
}

void* dh_tvm_api_of(DLDevice dev) {
  dh_tvm_set_t* s = dh_tvm_set_of((int32_t)dev.device_type);
  return s ? s->api : NULL;
}

/*---------------------------------------------------------------- mapping */

/* TVM's device for a devharness device: kDLCPU stays, a set's type becomes TVM's. */
DLDevice dh_tvm_to_tvm(DLDevice d) {
  const dh_tvm_set_t* s = dh_tvm_set_of((int32_t)d.device_type);
  if (s != NULL) d.device_type = (DLDeviceType)s->tvm_type;
  return d;
}

int dh_tvm_ready(DLDevice dev, const char* op) {
  const dh_tvm_set_t* s = dh_tvm_set_of((int32_t)dev.device_type);
  if (s == NULL)
    return dh_error_set(DH_KIND_INDEX_ERROR, "device type %d: %s: not a device set of the tvm plugin",
                        (int)dev.device_type, op);
  if (s->api == NULL)
    return dh_error_set(DH_KIND_INDEX_ERROR, "%s:%d: %s: no device: %s", s->name, (int)dev.device_id, op, s->reason);
  return 0;
}

static int store_value(const dh_tvm_value_t* v, dh_any_t* out, const char* what) {
  switch (v->type) {
    case DH_TVM_VALUE_NONE: *out = dh_any_none(); return 0;
    case DH_TVM_VALUE_INT: *out = dh_any_int(v->v_int); return 0;
    case DH_TVM_VALUE_FLOAT: *out = dh_any_float(v->v_float); return 0;
    case DH_TVM_VALUE_STR: {
      const char* s = intern(v->str);
      if (s == NULL) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "%s: out of memory", what);
      *out = dh_any_str(s);
      return 0;
    }
    default:
      return dh_error_set(DH_KIND_TYPE_ERROR, "%s: TVM answered a %s, which devharness cannot pass on", what, v->str);
  }
}

/*---------------------------------------------------------------- DeviceAPI */

int dh_tvm_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  *out = dh_any_none();
  if (dh_tvm_a == NULL || dh_tvm_api_of(dev) == NULL) {
    if (kind == DH_ATTR_EXIST) {
      *out = dh_any_int(0);
      return 0;
    }
    return dh_tvm_ready(dev, "get_attr");
  }
  dh_tvm_value_t v;
  dh_tvm_err_t e;
  if (dh_tvm_a->get_attr(dh_tvm_api_of(dev), dh_tvm_to_tvm(dev), kind, &v, &e) != 0) return dh_tvm_err("GetAttr", &e);
  return store_value(&v, out, "TVM GetAttr");
}

int dh_tvm_get_target_property(DLDevice dev, const char* name, dh_any_t* out) {
  *out = dh_any_none();
  if (dh_tvm_ready(dev, "get_target_property")) return -1;
  dh_tvm_value_t v;
  dh_tvm_err_t e;
  if (dh_tvm_a->get_target_property(dh_tvm_api_of(dev), dh_tvm_to_tvm(dev), name, &v, &e) != 0) return dh_tvm_err("GetTargetProperty", &e);
  return store_value(&v, out, "TVM GetTargetProperty");
}

int dh_tvm_set_device(DLDevice dev) {
  if (dh_tvm_ready(dev, "set_device")) return -1;
  dh_tvm_err_t e;
  return dh_tvm_a->set_device(dh_tvm_api_of(dev), dh_tvm_to_tvm(dev), &e) ? dh_tvm_err("SetDevice", &e) : 0;
}
