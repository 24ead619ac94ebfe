/*
 * bench/call.c — the call suite: what one call costs, host side only.
 *
 *   call/direct/3args        direct C call of a no-op (int64, double, void*)
 *   call/indirect/3args      the same through a function pointer
 *   call/packed/{0,1,3,6}args dh_func_call on a registered no-op safe call
 *                            (mixed POD args: Int, Float, OpaquePtr, Bool, Device, DataType)
 *   call/registry_lookup     dh_func_get by name
 *   call/module/3args        dh_func_call on __tvm_ffi_noop loaded from a shared object
 *                            (bench/ffi_noop.c) with dh_module_load
 *   call/tvm_ffi/3args       tvm-ffi's TVMFFIFunctionCall on the same no-op safe call
 *                            wrapped by TVMFFIFunctionCreate (skipped with the reason
 *                            when apache-tvm-ffi is absent)
 * Each loop body does DH_CALL_BATCH calls per keep-running check so the loop overhead
 * of Google Benchmark (and of the C wrapper's extern call) is amortised; times are per
 * call.
 */
#include <stdio.h>
#include <string.h>

#include "bench_internal.h"
#include "devharness/error.h"
#include "devharness/function.h"
#include "devharness/module.h"

#define DH_CALL_BATCH 64
#define BARRIER() __asm__ volatile("" ::: "memory")

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

enum { K_DIRECT, K_INDIRECT, K_PACKED, K_LOOKUP, K_MODULE, K_TVM_FFI };

static dh_module_t* g_module;
static char g_marker;

static void make_args(dh_any_t* a) {
  DLDevice d = {kDLCPU, 0};
  DLDataType t = {kDLFloat, 32, 1};
  a[0] = dh_any_int(42);
  a[1] = dh_any_float(1.5);
  a[2] = dh_any_ptr(&g_marker);
  a[3] = dh_any_bool(1);
  a[4] = dh_any_device(d);
  a[5] = dh_any_dtype(t);
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
      while (dh_gb_keep_running_batch(st, DH_CALL_BATCH))
        for (int i = 0; i < DH_CALL_BATCH; ++i) {
          dh_bench_direct3(i, 1.5, &g_marker);
          BARRIER();
        }
      break;
    case K_INDIRECT:
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
      while (dh_gb_keep_running_batch(st, DH_CALL_BATCH))
        for (int i = 0; i < DH_CALL_BATCH; ++i) {
          rc |= dh_func_call(&c->fn, args, c->nargs, &rv);
          BARRIER();
        }
      break;
    case K_LOOKUP:
      while (dh_gb_keep_running_batch(st, DH_CALL_BATCH))
        for (int i = 0; i < DH_CALL_BATCH; ++i) {
          dh_function_t f;
          rc |= dh_func_get("bench.noop", &f);
          BARRIER();
        }
      break;
    case K_TVM_FFI:
      while (dh_gb_keep_running_batch(st, DH_CALL_BATCH))
        for (int i = 0; i < DH_CALL_BATCH; ++i) {
          rv = dh_any_none();
          rc |= dh_bench_ffi_peer_call(args, c->nargs, &rv);
          BARRIER();
        }
      break;
  }
  if (rc != 0) {
    dh_bench_skip_error(st, "call failed");
    return;
  }
  dh_gb_set_items_processed(st, dh_gb_iterations(st));
  dh_gb_set_label(st, "time per call");
}

static int add(const dh_bench_opts_t* o, const char* name, int kind, int32_t nargs,
               const dh_function_t* fn, const char* why) {
  call_ctx_t* c = dh_bench_keep(sizeof *c);
  if (!c) return dh_error_set("OutOfMemoryError", "bench: out of memory registering %s", name);
  c->kind = kind;
  c->nargs = nargs;
  if (fn) c->fn = *fn;
  if (why) snprintf(c->why, sizeof c->why, "%s", why);
  dh_gb_bench_t* b = dh_gb_register(name, bm_call, c);
  if (!b) return dh_error_set("InternalError", "bench: cannot register %s", name);
  dh_bench_common(b, o);
  dh_gb_bench_unit(b, DH_GB_NS);
  return 0;
}

int dh_bench_suite_call(const dh_bench_opts_t* o) {
  dh_function_t noop = {noop_safe, NULL};
  if (dh_func_register("bench.noop", noop, 1) != 0) return dh_error_prefix("bench: call suite");
  dh_function_t got;
  if (dh_func_get("bench.noop", &got) != 0) return dh_error_prefix("bench: call suite");

  /* Module: bench/ffi_noop.c built as devharness_bench_ffi_noop.so. */
  char path[4096], mwhy[4400] = "";
  dh_function_t mfn = {NULL, NULL};
  if (!g_module) {
    if (dh_bench_find_file(o->exe_dir, "DEVHARNESS_BENCH_FFI_NOOP", "devharness_bench_ffi_noop.so",
                           path, sizeof path) != 0)
      snprintf(mwhy, sizeof mwhy, "module not found: %s (set DEVHARNESS_BENCH_FFI_NOOP)", path);
    else if (dh_module_load(path, &g_module) != 0)
      snprintf(mwhy, sizeof mwhy, "dh_module_load: %s", dh_bench_error_text());
  }
  if (g_module && dh_module_get_function(g_module, "noop", &mfn) != 0)
    snprintf(mwhy, sizeof mwhy, "dh_module_get_function: %s", dh_bench_error_text());

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
#undef ADD
  return n;
}

/* Path of the loaded no-op module, for the run's context ("" when not loaded). */
const char* dh_bench_call_module_path(void);
const char* dh_bench_call_module_path(void) { return g_module ? dh_module_path(g_module) : ""; }
