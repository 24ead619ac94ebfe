/*
 * bench/measure/ffi_peer.c — the tvm-ffi peer of the call benchmarks: the same C no-op safe
 * call wrapped by tvm-ffi (TVMFFIFunctionCreate) and called through its own
 * TVMFFIFunctionCall, side by side with devharness's dh_func_call, and backend
 * functions called with TVMFFIFunctionCall on the handle devharness registered
 * (apache-tvm-ffi 0.1.15 include/tvm/ffi/c_api.h). libtvm_ffi.so is the library
 * libdevharness links: there is one copy in the process.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#include "bench/measure/measure.h"

static char g_path[4096];
static char g_version[64];
static TVMFFIObjectHandle g_func;

_Static_assert(sizeof(TVMFFIAny) == sizeof(dh_any_t), "TVMFFIAny is dh_any_t");

const char* dh_bench_ffi_peer_path(void) { return g_path; }
const char* dh_bench_ffi_peer_version(void) { return g_version; }

int dh_bench_ffi_peer_open(void* safe_call, char* why, size_t why_size) {
  if (g_func) return 0;
  TVMFFISafeCallType sc;
  memcpy(&sc, &safe_call, sizeof sc);
  if (TVMFFIFunctionCreate(NULL, sc, NULL, &g_func) != 0) {
    snprintf(why, why_size, "TVMFFIFunctionCreate failed: %s", dh_bench_error_text());
    g_func = NULL;
    return -1;
  }
  Dl_info info;
  void* sym;
  __typeof__(&TVMFFIFunctionCall) f = TVMFFIFunctionCall;
  memcpy(&sym, &f, sizeof sym);
  if (dladdr(sym, &info) != 0 && info.dli_fname != NULL)
    snprintf(g_path, sizeof g_path, "%s", info.dli_fname);
  TVMFFIVersion v;
  TVMFFIGetVersion(&v);
  snprintf(g_version, sizeof g_version, "%u.%u.%u", (unsigned)v.major, (unsigned)v.minor,
           (unsigned)v.patch);
  return 0;
}

int dh_bench_ffi_peer_call(void* handle, void* args, int32_t num_args, void* result) {
  void* h = handle != NULL ? handle : g_func;
  if (!h) return -1;
  return TVMFFIFunctionCall(h, (TVMFFIAny*)args, num_args, (TVMFFIAny*)result);
}
