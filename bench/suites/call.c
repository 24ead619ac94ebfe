/*
 * bench/suites/call.c — the call suite: what one call costs, host side only. Every
 * packed call runs on tvm-ffi (libtvm_ffi.so); the pairs below measure what devharness
 * adds on top of TVMFFIFunctionCall for the same call (goal: <= 5 ns or 5 %, whichever
 * is larger).
 *
 *   call/direct/3args         direct C call of a no-op (int64, double, void*)
 *   call/indirect/3args       the same through a function pointer
 *   call/tvm_ffi/3args        TVMFFIFunctionCall on a no-op C safe call wrapped by
 *                             TVMFFIFunctionCreate (Int, Float, OpaquePtr)
 *   call/packed/{0,1,3,6}args dh_func_call on the same no-op registered with
 *                             dh_func_register and fetched with dh_func_get
 *                             (mixed POD args: Int, Float, OpaquePtr, Bool, Device, DataType)
 *   call/registry_lookup      dh_func_get + dh_func_release by name (tvm-ffi's global table)
 *   call/module/3args         dh_func_call on __tvm_ffi_noop of a shared object
 *                             (bench/measure/ffi_noop.c) loaded with dh_module_load, i.e. through
 *                             tvm-ffi's library module
 *   call/tvm_ffi_backend/3args TVMFFIFunctionCall on the cpu backend's "echo" as
 *                             registered in tvm-ffi's global table (echo(Int 1, Float,
 *                             OpaquePtr) -> the OpaquePtr)
 *   call/backend/3args        dh_device_call(cpu:0, "echo", same 3 args): devharness's
 *                             dispatch (device-type table, init check, function table)
 *                             on top of the same TVMFFIFunctionCall
 * Each loop body does DH_CALL_BATCH calls per keep-running check so the loop overhead
 * of Google Benchmark (and of the C wrapper's extern call) is amortised; times are per
 * call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/measure/measure.h"
#include "bench/suites/suites.h"
#include "devharness/device_api.h"
#include "devharness/error.h"
#include "devharness/function.h"
#include "devharness/module.h"

#define DH_CALL_BATCH 64
#define BARRIER() __asm__ volatile("" ::: "memory")
/* The timed loop of a call benchmark: `call` (which may use the index i) DH_CALL_BATCH
 * times per keep-running check, each followed by a compiler barrier so that no call is
 * merged with the next or moved out of the loop. */
#define CALL_LOOP(st, call)                                 \
  while (dh_gb_keep_running_batch((st), DH_CALL_BATCH))     \
    for (int i = 0; i < DH_CALL_BATCH; ++i) {               \
      call;                                                 \
      BARRIER();                                            \
    }

/* The no-op bodies: an empty asm keeps the compiler from deleting the call. */
__attribute__((noinline)) static int64_t dh_bench_direct3(int64_t a, double b, void* c) {
  (void)a;
  (void)b;
  (void)c;
  __asm__ volatile("");
  return 0;
}

__attribute__((noinline)) static int noop_safe(void* self, const dh_any_t* args, int32_t n,
                                               dh_any_t* rv) {
  (void)self;
  (void)args;
  (void)n;
  (void)rv;
  __asm__ volatile("");
  return 0;
}

static int64_t (*volatile g_indirect)(int64_t, double, void*) = dh_bench_direct3;

typedef struct call_ctx {
  int kind;        /* see enum below */
  int32_t nargs;
  dh_function_t fn;
  char why[512];   /* skip reason when non-empty */
} call_ctx_t;

enum { K_DIRECT, K_INDIRECT, K_PACKED, K_LOOKUP, K_MODULE, K_TVM_FFI, K_BACKEND, K_TVM_FFI_HANDLE };

static dh_module_t* g_module;
static DLDevice g_cpu = {kDLCPU, 0};
static char g_marker;

static void make_args(dh_any_t* a) {
  DLDevice d = {kDLCPU, 0};
  DLDataType t = {kDLFloat, 32, 1};
  a[0] = dh_any_int(1); /* echo(1, Float, OpaquePtr) returns the OpaquePtr (a POD) */
  a[1] = dh_any_float(1.5);
  a[2] = dh_any_ptr(&g_marker);
  a[3] = dh_any_bool(1);
  a[4] = dh_any_device(d);
  a[5] = dh_any_dtype(t);
}

/* dh_func_get + dh_func_release of `name` (call/registry_lookup). */
static inline int lookup_and_release(const char* name) {
  dh_function_t f;
  int rc = dh_func_get(name, &f);
  dh_func_release(&f);
  return rc;
}

/* TVMFFIFunctionCall through the peer, with the result set to None first (c_api.h: the
 * caller sets None). */
static inline int ffi_peer_call(void* handle, dh_any_t* args, int32_t n, dh_any_t* rv) {
  rv->type_index = DH_TYPE_NONE;
  rv->zero_padding = 0;
  rv->v_uint64 = 0;
  return dh_bench_ffi_peer_call(handle, args, n, rv);
}

static void bm_call(dh_gb_state_t* st, void* user) {
  call_ctx_t* c = user;
  if (c->why[0]) {
    dh_gb_skip_with_error(st, c->why);
    return;
  }
  dh_any_t args[6], rv;
  make_args(args);
  int rc = 0;
  switch (c->kind) {
    case K_DIRECT:
      CALL_LOOP(st, dh_bench_direct3(i, 1.5, &g_marker));
      break;
    case K_INDIRECT:
      /* The pointer is read from the volatile once per batch, so the compiler cannot
       * make the calls direct, and the read is not part of every call. */
      while (dh_gb_keep_running_batch(st, DH_CALL_BATCH)) {
        int64_t (*f)(int64_t, double, void*) = g_indirect;
        for (int i = 0; i < DH_CALL_BATCH; ++i) {
          f(i, 1.5, &g_marker);
          BARRIER();
        }
      }
      break;
    case K_PACKED:
    case K_MODULE:
      CALL_LOOP(st, rc |= dh_func_call(&c->fn, args, c->nargs, &rv));
      break;
    case K_LOOKUP:
      CALL_LOOP(st, rc |= lookup_and_release("bench.noop"));
      break;
    case K_TVM_FFI:
    case K_TVM_FFI_HANDLE:
      CALL_LOOP(st, rc |= ffi_peer_call(c->kind == K_TVM_FFI ? NULL : c->fn.handle, args, c->nargs, &rv));
      break;
    case K_BACKEND:
      CALL_LOOP(st, rc |= dh_device_call(g_cpu, "echo", args, c->nargs, &rv));
      break;
  }
  if (rc != 0) {
    dh_bench_skip_error(st, "call failed");
    return;
  }
  dh_gb_set_items_processed(st, dh_gb_iterations(st));
  dh_gb_set_label(st, "time per call");
}

/* Finds the module: $env when set, else <exe_dir>/../lib/<name> (the build tree and an
 * installed tree), <exe_dir>/../../lib/<name>. Writes the path (or the first place
 * looked) into buf; 0 when found. */
static int find_file(const char* exe_dir, const char* env, const char* name, char* buf,
                     size_t buf_size) {
  const char* e = env ? getenv(env) : NULL;
  if (e && *e) {
    snprintf(buf, buf_size, "%s", e);
    return access(buf, R_OK) == 0 ? 0 : -1;
  }
  static const char* const kRel[] = {"../lib", "../../lib"};
  for (size_t i = 0; i < sizeof kRel / sizeof kRel[0]; ++i) {
    snprintf(buf, buf_size, "%s/%s/%s", exe_dir ? exe_dir : ".", kRel[i], name);
    if (access(buf, R_OK) == 0) return 0;
  }
  snprintf(buf, buf_size, "%s/../lib/%s", exe_dir ? exe_dir : ".", name);
  return -1;
}

static int add(const dh_bench_opts_t* o, const char* name, int kind, int32_t nargs,
               const dh_function_t* fn, const char* why) {
  call_ctx_t* c = dh_bench_keep(sizeof *c);
  if (!c) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "bench: out of memory registering %s", name);
  c->kind = kind;
  c->nargs = nargs;
  if (fn) c->fn = *fn;
  if (why) snprintf(c->why, sizeof c->why, "%s", why);
  return dh_bench_register(name, bm_call, c, o, DH_GB_NS) ? 0 : -1;
}

int dh_bench_suite_call(const dh_bench_opts_t* o) {
  if (dh_func_register("bench.noop", noop_safe, NULL, 1) != 0) return dh_error_prefix("bench: call suite");
  static dh_function_t got;
  if (got.handle == NULL && dh_func_get("bench.noop", &got) != 0)
    return dh_error_prefix("bench: call suite");

  /* Module: bench/measure/ffi_noop.c built as devharness_bench_ffi_noop.so. */
  char path[4096], mwhy[4400] = "";
  static dh_function_t mfn;
  if (!g_module) {
    if (find_file(o->exe_dir, "DEVHARNESS_BENCH_FFI_NOOP", "devharness_bench_ffi_noop.so", path,
                  sizeof path) != 0)
      snprintf(mwhy, sizeof mwhy, "module not found: %s (set DEVHARNESS_BENCH_FFI_NOOP)", path);
    else if (dh_module_load(path, &g_module) != 0)
      snprintf(mwhy, sizeof mwhy, "dh_module_load: %s", dh_bench_error_text());
  }
  if (g_module && mfn.handle == NULL && dh_module_get_function(g_module, "noop", &mfn) != 0)
    snprintf(mwhy, sizeof mwhy, "dh_module_get_function: %s", dh_bench_error_text());

  /* The cpu backend's echo, through devharness and straight through tvm-ffi. */
  char bwhy[1024] = "";
  static dh_function_t echo;
  const dh_backend_t* cpu = NULL;
  if (dh_device_api_get("cpu", &cpu) != 0)
    snprintf(bwhy, sizeof bwhy, "cpu backend not loaded: %s", dh_bench_error_text());
  else if (echo.handle == NULL && dh_func_get("cpu.echo", &echo) != 0)
    snprintf(bwhy, sizeof bwhy, "cpu.echo: %s", dh_bench_error_text());
  else {
    dh_any_t a[6], rv; /* make_args fills 6 */
    make_args(a);
    if (dh_device_call(g_cpu, "echo", a, 3, &rv) != 0 || rv.type_index != DH_TYPE_OPAQUE_PTR)
      snprintf(bwhy, sizeof bwhy, "cpu.echo does not answer: %s", dh_bench_error_text());
  }

  /* tvm-ffi peer. */
  char fwhy[1024] = "";
  void* sc;
  dh_safe_call_t f = noop_safe;
  memcpy(&sc, &f, sizeof sc);
  if (dh_bench_ffi_peer_open(sc, fwhy, sizeof fwhy) == 0) fwhy[0] = '\0';

  int n = 0;
#define ADD(...)                          \
  do {                                    \
    if (add(o, __VA_ARGS__) != 0) return -1; \
    ++n;                                  \
  } while (0)
  ADD("call/direct/3args", K_DIRECT, 3, NULL, NULL);
  ADD("call/indirect/3args", K_INDIRECT, 3, NULL, NULL);
  ADD("call/packed/0args", K_PACKED, 0, &got, NULL);
  ADD("call/packed/1arg", K_PACKED, 1, &got, NULL);
  ADD("call/packed/3args", K_PACKED, 3, &got, NULL);
  ADD("call/packed/6args", K_PACKED, 6, &got, NULL);
  ADD("call/registry_lookup", K_LOOKUP, 0, NULL, NULL);
  ADD("call/module/3args", K_MODULE, 3, &mfn, mwhy[0] ? mwhy : NULL);
  ADD("call/tvm_ffi/3args", K_TVM_FFI, 3, NULL, fwhy[0] ? fwhy : NULL);
  ADD("call/tvm_ffi_backend/3args", K_TVM_FFI_HANDLE, 3, &echo, bwhy[0] ? bwhy : NULL);
  ADD("call/backend/3args", K_BACKEND, 3, NULL, bwhy[0] ? bwhy : NULL);
#undef ADD
  const char* fp = dh_bench_ffi_peer_path();
  dh_gb_add_context("tvm_ffi.library", fp[0] ? fp : "not loaded (call/tvm_ffi skipped)");
  if (dh_bench_ffi_peer_version()[0]) dh_gb_add_context("tvm_ffi.version", dh_bench_ffi_peer_version());
  dh_gb_add_context("devharness.call_module", g_module ? dh_module_path(g_module) : "not loaded");
  return n;
}
