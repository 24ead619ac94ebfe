/*
 * backends/tvm/tvm_backend.c — the tvm-* backends: TVM's own DeviceAPIs (from the
 * installed apache-tvm package) as devharness devices, so the conformance suite and the
 * benchmarks can be held against the DeviceAPI TVM wrote. See backends/tvm/README.md.
 *
 * This file is compiled once per TVM device type: tvm_cpu.c and tvm_cuda.c define
 * DH_TVM_CUDA (0/1) and include it, giving libdevharness_tvm-cpu.so and
 * libdevharness_tvm-cuda.so. Nothing TVM does is corrected here: every entry is TVM's
 * answer, reached through tvm_adapter.cc. Where TVM departs from TVM's documented
 * contract, the conformance suite says so (targets/waivers/tvm-*.json records the
 * departures with upstream file:line).
 *
 * Loading (init, once): libtvm_ffi.so, libtvm_runtime.so (and libtvm_runtime_cuda.so
 * for tvm-cuda) are dlopened by path from
 *   $DEVHARNESS_TVM_ROOT/lib       (default: the project venv's tvm package, set at build)
 *   $DEVHARNESS_TVM_FFI_ROOT/lib   (default: the project venv's tvm_ffi package)
 * then the adapter <plugin folder>/tvm/libdh_tvm_adapter.so ($DEVHARNESS_TVM_ADAPTER
 * overrides). Any failure leaves a loaded backend with no device whose
 * unavailable_reason says which file and why; every clause then SKIPs with that reason.
 *
 * Device types: devharness device type DH_TVM_TYPE_BASE + TVM's DLDeviceType (tvm-cpu
 * 49, tvm-cuda 50), so tvm-cpu:0 and cpu:0 can be loaded side by side; TVM itself is
 * always called with TVM's own type (kDLCPU, kDLCUDA) and the same device id (TVM's
 * numbering).
 */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/tvm/tvm_adapter.h"
#include "devharness/backend.h"

#ifndef DH_TVM_CUDA
#error "include this file from tvm_cpu.c or tvm_cuda.c"
#endif
#ifndef DH_TVM_ROOT_DEFAULT
#define DH_TVM_ROOT_DEFAULT ""
#endif
#ifndef DH_TVM_FFI_ROOT_DEFAULT
#define DH_TVM_FFI_ROOT_DEFAULT ""
#endif

#define DH_TVM_TYPE_BASE 48
#if DH_TVM_CUDA
#define TVM_TYPE kDLCUDA
#define BACKEND_NAME "tvm-cuda"
#define EXTRA_LIB "libtvm_runtime_cuda.so"
#define CAPS DH_CAP_ASYNC_COPY
#define TARGET_KIND "cuda"
#else
#define TVM_TYPE kDLCPU
#define BACKEND_NAME "tvm-cpu"
#define EXTRA_LIB NULL
/* TVM's CPU DeviceAPI keeps the base CreateStream (nullptr: one queue) and answers
 * SupportsDevicePointerArithmeticsOnHost() true (apache/tvm 0.27
 * src/runtime/device_api.cc:163, src/runtime/cpu_device_api.cc:124). */
#define CAPS (DH_CAP_SINGLE_QUEUE | DH_CAP_HOST_POINTER_ARITHMETIC)
#define TARGET_KIND NULL
#endif
#define DH_TYPE (DH_TVM_TYPE_BASE + TVM_TYPE)

static const dh_tvm_adapter_t* A;
static void* g_api;        /* TVM's DeviceAPI* for TVM_TYPE */
static int32_t g_count;    /* devices */
static char g_reason[3 * PATH_MAX];

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

static int tvm_err(const char* op, const dh_tvm_err_t* e) {
  return dh_error_set(e->kind[0] ? e->kind : "RuntimeError", "TVM %s: %s", op, e->message);
}

static void* open_lib(const char* dir, const char* file, const char* env_hint) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  dlerror();
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    const char* why = dlerror();
    snprintf(g_reason, sizeof g_reason, "cannot load %s: %s%s", path, why ? why : "unknown reason", env_hint);
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

static int count_devices(void) {
#if DH_TVM_CUDA
  /* TVM's CUDA kExist is device_id < cudaGetDeviceCount; ids from 0 up to the first 0. */
  int32_t n = 0;
  for (; n < 64; n++) {
    dh_tvm_value_t v;
    dh_tvm_err_t e;
    if (A->get_attr(g_api, (DLDevice){TVM_TYPE, n}, 0, &v, &e) != 0) {
      if (n == 0) snprintf(g_reason, sizeof g_reason, "TVM GetAttr(kExist) on cuda:0 failed: %s: %s", e.kind, e.message);
      break;
    }
    if (v.type != DH_TVM_VALUE_INT || v.v_int != 1) break;
  }
  if (n == 0 && !g_reason[0]) snprintf(g_reason, sizeof g_reason, "TVM's CUDA DeviceAPI reports no device");
  return n;
#else
  /* TVM's CPU DeviceAPI serves the host and answers kExist 1 for every id (apache/tvm
   * 0.27 src/runtime/cpu_device_api.cc:56-58); devharness lists the host once. */
  return 1;
#endif
}

static int tvm_init(void) {
  const char* hint = " (set DEVHARNESS_TVM_ROOT / DEVHARNESS_TVM_FFI_ROOT to the tvm and tvm_ffi package "
                     "folders, or run `make deps` for the project venv)";
  const char* root = getenv("DEVHARNESS_TVM_ROOT");
  const char* ffi_root = getenv("DEVHARNESS_TVM_FFI_ROOT");
  if (root == NULL || root[0] == '\0') root = DH_TVM_ROOT_DEFAULT;
  if (ffi_root == NULL || ffi_root[0] == '\0') ffi_root = DH_TVM_FFI_ROOT_DEFAULT;
  if (root[0] == '\0' || ffi_root[0] == '\0') {
    snprintf(g_reason, sizeof g_reason, "apache-tvm not configured: built without a project venv%s", hint);
    return 0;
  }
  char ffi_lib[PATH_MAX], rt_lib[PATH_MAX];
  snprintf(ffi_lib, sizeof ffi_lib, "%s/lib", ffi_root);
  snprintf(rt_lib, sizeof rt_lib, "%s/lib", root);
  /* TVM's libraries are never closed: their registries and threads live to exit. */
  if (open_lib(ffi_lib, "libtvm_ffi.so", hint) == NULL) return 0;
  if (open_lib(rt_lib, "libtvm_runtime.so", hint) == NULL) return 0;
  if (EXTRA_LIB != NULL && open_lib(rt_lib, EXTRA_LIB, "") == NULL) return 0;
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
    snprintf(g_reason, sizeof g_reason, "cannot load the TVM adapter %s: %s", adapter, why ? why : "?");
    return 0;
  }
  void* sym = dlsym(h, DH_TVM_ADAPTER_SYMBOL);
  if (sym == NULL) {
    snprintf(g_reason, sizeof g_reason, "%s: missing symbol %s", adapter, DH_TVM_ADAPTER_SYMBOL);
    return 0;
  }
  dh_tvm_adapter_fn fn;
  memcpy(&fn, &sym, sizeof fn);
  const dh_tvm_adapter_t* a = fn();
  dh_tvm_err_t e;
  void* api = NULL;
  if (a->get_api((DLDevice){TVM_TYPE, 0}, &api, &e) != 0) {
    snprintf(g_reason, sizeof g_reason, "TVM DeviceAPI::Get: %s: %s", e.kind, e.message);
    return 0;
  }
  if (api == NULL) {
    snprintf(g_reason, sizeof g_reason, "TVM has no device_api.%s registered", TVM_TYPE == kDLCPU ? "cpu" : "cuda");
    return 0;
  }
  A = a;
  g_api = api;
  g_count = count_devices();
  if (g_count > 0) g_reason[0] = '\0';
  return 0;
}

static const char* tvm_unavailable_reason(void) { return g_count > 0 ? NULL : g_reason; }

static int tvm_device_count(int32_t* out) {
  *out = g_count;
  return 0;
}

/*---------------------------------------------------------------- mapping */

/* TVM's device for a devharness device: kDLCPU stays, DH_TYPE becomes TVM_TYPE. */
static DLDevice to_tvm(DLDevice d) {
  if ((int32_t)d.device_type == DH_TYPE) d.device_type = (DLDeviceType)TVM_TYPE;
  return d;
}

static int ready(DLDevice dev, const char* op) {
  if (A == NULL) return dh_error_set("IndexError", "%s:%d: %s: no device: %s", BACKEND_NAME, (int)dev.device_id, op,
                                     g_reason);
  return 0;
}

static int store_value(const dh_tvm_value_t* v, dh_any_t* out, const char* what) {
  switch (v->type) {
    case DH_TVM_VALUE_NONE: *out = dh_any_none(); return 0;
    case DH_TVM_VALUE_INT: *out = dh_any_int(v->v_int); return 0;
    case DH_TVM_VALUE_FLOAT: *out = dh_any_float(v->v_float); return 0;
    case DH_TVM_VALUE_STR: {
      const char* s = intern(v->str);
      if (s == NULL) return dh_error_set("OutOfMemoryError", "%s: out of memory", what);
      *out = dh_any_str(s);
      return 0;
    }
    default:
      return dh_error_set("TypeError", "%s: TVM answered a %s, which devharness cannot pass on", what, v->str);
  }
}

/*---------------------------------------------------------------- DeviceAPI */

static int tvm_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  *out = dh_any_none();
  if (A == NULL) {
    if (kind == DH_ATTR_EXIST) {
      *out = dh_any_int(0);
      return 0;
    }
    return ready(dev, "get_attr");
  }
  dh_tvm_value_t v;
  dh_tvm_err_t e;
  if (A->get_attr(g_api, to_tvm(dev), kind, &v, &e) != 0) return tvm_err("GetAttr", &e);
  return store_value(&v, out, "TVM GetAttr");
}

static int tvm_get_target_property(DLDevice dev, const char* name, dh_any_t* out) {
  *out = dh_any_none();
  if (ready(dev, "get_target_property")) return -1;
  dh_tvm_value_t v;
  dh_tvm_err_t e;
  if (A->get_target_property(g_api, to_tvm(dev), name, &v, &e) != 0) return tvm_err("GetTargetProperty", &e);
  return store_value(&v, out, "TVM GetTargetProperty");
}

static int tvm_set_device(DLDevice dev) {
  if (ready(dev, "set_device")) return -1;
  dh_tvm_err_t e;
  return A->set_device(g_api, to_tvm(dev), &e) ? tvm_err("SetDevice", &e) : 0;
}

static int tvm_alloc_data_space(DLDevice dev, size_t nbytes, size_t alignment, DLDataType type_hint, void** out) {
  *out = NULL;
  if (ready(dev, "alloc_data_space")) return -1;
  dh_tvm_err_t e;
  return A->alloc_data_space(g_api, to_tvm(dev), nbytes, alignment, type_hint, out, &e)
             ? tvm_err("AllocDataSpace", &e)
             : 0;
}

static int tvm_free_data_space(DLDevice dev, void* ptr) {
  if (ready(dev, "free_data_space")) return -1;
  dh_tvm_err_t e;
  return A->free_data_space(g_api, to_tvm(dev), ptr, &e) ? tvm_err("FreeDataSpace", &e) : 0;
}

static int tvm_alloc_workspace(DLDevice dev, size_t nbytes, DLDataType type_hint, void** out) {
  *out = NULL;
  if (ready(dev, "alloc_workspace")) return -1;
  dh_tvm_err_t e;
  return A->alloc_workspace(g_api, to_tvm(dev), nbytes, type_hint, out, &e) ? tvm_err("AllocWorkspace", &e) : 0;
}

static int tvm_free_workspace(DLDevice dev, void* ptr) {
  if (ready(dev, "free_workspace")) return -1;
  dh_tvm_err_t e;
  return A->free_workspace(g_api, to_tvm(dev), ptr, &e) ? tvm_err("FreeWorkspace", &e) : 0;
}

/* Through TVM's public CopyDataFromTo(DLTensor*, DLTensor*, stream) of the non-CPU
 * side, as TVM's own Tensor::CopyFromTo does (apache/tvm 0.27 src/runtime/tensor.cc:261-263):
 * 1-D uint8 tensors of nbytes with the offsets in byte_offset. */
static int tvm_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType type_hint, dh_stream_t stream) {
  (void)type_hint;
  DLDevice f = to_tvm(dev_from), t = to_tvm(dev_to);
  if (ready((int32_t)dev_from.device_type == DH_TYPE ? dev_from : dev_to, "copy_data_from_to")) return -1;
  int64_t shape[1] = {(int64_t)nbytes};
  DLDataType u8 = {kDLUInt, 8, 1};
  DLTensor src = {(void*)from, f, 1, u8, shape, NULL, from_offset};
  DLTensor dst = {to, t, 1, u8, shape, NULL, to_offset};
  dh_tvm_err_t e;
  return A->copy_data_from_to(g_api, &src, &dst, stream, &e) ? tvm_err("CopyDataFromTo", &e) : 0;
}

static int tvm_create_stream(DLDevice dev, dh_stream_t* out) {
  *out = NULL;
  if (ready(dev, "create_stream")) return -1;
  dh_tvm_err_t e;
  return A->create_stream(g_api, to_tvm(dev), out, &e) ? tvm_err("CreateStream", &e) : 0;
}

static int tvm_free_stream(DLDevice dev, dh_stream_t s) {
  if (ready(dev, "free_stream")) return -1;
  dh_tvm_err_t e;
  return A->free_stream(g_api, to_tvm(dev), s, &e) ? tvm_err("FreeStream", &e) : 0;
}

/* TVM's SetStream/GetCurrentStream are tvm-ffi's environment stream
 * (TVMFFIEnvSetStream/GetStream, apache/tvm 0.27 src/runtime/device_api.cc:167-173),
 * keyed by TVM's (device_type, device_id): whatever else in the process sets TVM's
 * stream for this device is seen here, and the other way round. */
static int tvm_set_stream(DLDevice dev, dh_stream_t s) {
  if (ready(dev, "set_stream")) return -1;
  dh_tvm_err_t e;
  return A->set_stream(g_api, to_tvm(dev), s, &e) ? tvm_err("SetStream", &e) : 0;
}

static int tvm_get_current_stream(DLDevice dev, dh_stream_t* out) {
  *out = NULL;
  if (ready(dev, "get_current_stream")) return -1;
  dh_tvm_err_t e;
  return A->get_current_stream(g_api, to_tvm(dev), out, &e) ? tvm_err("GetCurrentStream", &e) : 0;
}

static int tvm_stream_sync(DLDevice dev, dh_stream_t s) {
  if (ready(dev, "stream_sync")) return -1;
  dh_tvm_err_t e;
  return A->stream_sync(g_api, to_tvm(dev), s, &e) ? tvm_err("StreamSync", &e) : 0;
}

static int tvm_sync_stream_from_to(DLDevice dev, dh_stream_t src, dh_stream_t dst) {
  if (ready(dev, "sync_stream_from_to")) return -1;
  dh_tvm_err_t e;
  return A->sync_stream_from_to(g_api, to_tvm(dev), src, dst, &e) ? tvm_err("SyncStreamFromTo", &e) : 0;
}

#if !DH_TVM_CUDA
/*---------------------------------------------------------------- raw twin */

/* "memcpy": what TVM's CPU CopyDataFromTo does (apache/tvm 0.27
 * src/runtime/cpu_device_api.cc:134-138), called directly, so the bench shows TVM's
 * DeviceAPI overhead next to the raw API; stream sync is a no-op in TVM's CPU API
 * (cpu_device_api.cc:119), here an empty call. No launch: TVM's DeviceAPI has no kernels. */
typedef struct raw_ctx {
  dh_raw_op_t op;
  size_t nbytes;
  unsigned char* a;
  unsigned char* b;
  unsigned char* c2; /* DH_RAW_COPY_BIDIR: the D2H pair c2 -> d2 */
  unsigned char* d2;
  void (*volatile empty)(void);
} raw_ctx_t;

__attribute__((noinline)) static void raw_empty(void) { __asm__ volatile(""); }

static void raw_teardown(void* ctx) {
  raw_ctx_t* c = ctx;
  if (c == NULL) return;
  free(c->a);
  free(c->b);
  free(c->c2);
  free(c->d2);
  free(c);
}

static int raw_setup(DLDevice dev, dh_raw_op_t op, size_t nbytes, uint32_t flags, void** out_ctx) {
  (void)flags;
  *out_ctx = NULL;
  if (ready(dev, "raw setup")) return -1;
  if (op < DH_RAW_COPY_H2D || op > DH_RAW_COPY_BIDIR || op == DH_RAW_LAUNCH)
    return dh_error_set("NotImplementedError", "tvm-cpu raw: op %d: TVM's DeviceAPI has no kernels", (int)op);
  raw_ctx_t* c = calloc(1, sizeof *c);
  if (c == NULL) return dh_error_set("OutOfMemoryError", "tvm-cpu raw: no memory");
  c->op = op;
  c->nbytes = nbytes;
  c->empty = raw_empty;
  if (op != DH_RAW_STREAM_SYNC) {
    /* Page-aligned and written, as the bench's harness side (docs/benchmarks.md
     * "Method": same relative alignment on both sides, no zero-page reads). */
    size_t an = ((nbytes ? nbytes : 1) + 4095) & ~(size_t)4095;
    int bidir = op == DH_RAW_COPY_BIDIR;
    c->a = aligned_alloc(4096, an);
    c->b = aligned_alloc(4096, an);
    if (bidir) {
      c->c2 = aligned_alloc(4096, an);
      c->d2 = aligned_alloc(4096, an);
    }
    if (c->a == NULL || c->b == NULL || (bidir && (c->c2 == NULL || c->d2 == NULL))) {
      raw_teardown(c);
      return dh_error_set("OutOfMemoryError", "tvm-cpu raw: cannot allocate %d x %zu bytes",
                          bidir ? 4 : 2, nbytes);
    }
    memset(c->a, 0x5a, an);
    memset(c->b, 0xa5, an);
    if (bidir) {
      memset(c->c2, 0x5a, an);
      memset(c->d2, 0xa5, an);
    }
  }
  *out_ctx = c;
  return 0;
}

static int raw_run(void* ctx, uint32_t repeat, double* out_device_ms) {
  raw_ctx_t* c = ctx;
  if (c == NULL) return dh_error_set("ValueError", "tvm-cpu raw: NULL context");
  if (out_device_ms) *out_device_ms = -1;
  for (uint32_t i = 0; i < repeat; i++) {
    if (c->op == DH_RAW_STREAM_SYNC) c->empty();
    else if (c->op == DH_RAW_COPY_D2H) memcpy(c->a, c->b, c->nbytes);
    else if (c->op == DH_RAW_COPY_BIDIR) {
      memcpy(c->b, c->a, c->nbytes);
      memcpy(c->d2, c->c2, c->nbytes);
    } else memcpy(c->b, c->a, c->nbytes);
  }
  if (c->op == DH_RAW_STREAM_SYNC) c->empty();
  return 0;
}

static const dh_raw_twin_t g_raw = {sizeof(dh_raw_twin_t), "memcpy", raw_setup, raw_run, raw_teardown};
#define RAW_TWIN (&g_raw)
#else
#define RAW_TWIN NULL /* the cuda backend's CUDA-driver twin is the raw API for the same GPU */
#endif

static const dh_backend_t g_backend = {
    .struct_size = sizeof(dh_backend_t),
    .abi_major = DH_BACKEND_ABI_MAJOR,
    .abi_minor = DH_BACKEND_ABI_MINOR,
    .name = BACKEND_NAME,
    .description = DH_TVM_CUDA ? "TVM's own CUDA DeviceAPI (apache-tvm libtvm_runtime_cuda.so)"
                               : "TVM's own CPU DeviceAPI (apache-tvm libtvm_runtime.so)",
    .device_type = DH_TYPE,
    .caps = CAPS,
    .target_kind = TARGET_KIND,
    .init = tvm_init,
    .unavailable_reason = tvm_unavailable_reason,
    .get_attr = tvm_get_attr,
    .get_target_property = tvm_get_target_property,
    .set_device = tvm_set_device,
    .alloc_data_space = tvm_alloc_data_space,
    .free_data_space = tvm_free_data_space,
    .alloc_workspace = tvm_alloc_workspace,
    .free_workspace = tvm_free_workspace,
    .copy_data_from_to = tvm_copy,
    .create_stream = tvm_create_stream,
    .free_stream = tvm_free_stream,
    .set_stream = tvm_set_stream,
    .get_current_stream = tvm_get_current_stream,
    .stream_sync = tvm_stream_sync,
    .sync_stream_from_to = tvm_sync_stream_from_to,
    /* TVM's DeviceAPI has no kernels: no module functions (the packed clauses skip). */
    .functions = NULL,
    .num_functions = 0,
    .raw = RAW_TWIN,
    .default_profile = "tvm",
    .device_count = tvm_device_count,
};

__attribute__((visibility("default"))) const dh_backend_t* dh_backend_entry(void) { return &g_backend; }
