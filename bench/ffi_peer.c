/*
 * bench/ffi_peer.c — the tvm-ffi peer of the call benchmarks: the same C no-op safe
 * call wrapped by tvm-ffi (TVMFFIFunctionCreate) and called through its own
 * TVMFFIFunctionCall, side by side with devharness's dh_func_call.
 *
 * This file is a translation unit of its own because tvm-ffi's c_api.h brings DLPack
 * 1.x while devharness builds against Debian's DLPack 0.6: it includes only c_api.h
 * (found at build time with `tvm-ffi-config --includedir`, macro DH_HAVE_TVM_FFI_H),
 * and takes the function types from it (__typeof__), so nothing is re-declared by
 * hand. The library is dlopen'ed at run time; without the header or the library the
 * peer reports why and the benchmark is skipped with that reason.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef DH_HAVE_TVM_FFI_H
#include <tvm/ffi/c_api.h>
#endif

/* Prototypes (bench_internal.h cannot be included here: it pulls DLPack 0.6). */
int dh_bench_ffi_peer_open(void* safe_call, char* why, size_t why_size);
int dh_bench_ffi_peer_call(void* args, int32_t num_args, void* result);
const char* dh_bench_ffi_peer_path(void);
const char* dh_bench_ffi_peer_version(void);

static char g_path[4096];
static char g_version[64];

const char* dh_bench_ffi_peer_path(void) { return g_path; }
const char* dh_bench_ffi_peer_version(void) { return g_version; }

#ifndef DH_HAVE_TVM_FFI_H

int dh_bench_ffi_peer_open(void* safe_call, char* why, size_t why_size) {
  (void)safe_call;
  snprintf(why, why_size,
           "tvm-ffi's c_api.h was not found at build time (tvm-ffi-config --includedir; "
           "pip install apache-tvm-ffi and rebuild)");
  return -1;
}

int dh_bench_ffi_peer_call(void* args, int32_t num_args, void* result) {
  (void)args;
  (void)num_args;
  (void)result;
  return -1;
}

#else

static __typeof__(&TVMFFIFunctionCreate) p_create;
static __typeof__(&TVMFFIFunctionCall) p_call;
static __typeof__(&TVMFFIGetVersion) p_version;
static TVMFFIObjectHandle g_func;

_Static_assert(sizeof(TVMFFIAny) == 16, "TVMFFIAny is 16 bytes like dh_any_t");

#ifndef DH_TVM_FFI_LIBFILE
#define DH_TVM_FFI_LIBFILE ""
#endif

/* First line of `tvm-ffi-config --libfiles`, or "" */
static void from_config(char* buf, size_t size) {
  buf[0] = '\0';
  FILE* p = popen("tvm-ffi-config --libfiles 2>/dev/null", "r");
  if (!p) return;
  if (fgets(buf, (int)size, p) == NULL) buf[0] = '\0';
  pclose(p);
  buf[strcspn(buf, "\r\n")] = '\0';
}

int dh_bench_ffi_peer_open(void* safe_call, char* why, size_t why_size) {
  if (g_func) return 0;
  const char* env = getenv("DEVHARNESS_TVM_FFI_LIB");
  char cand[3][4096];
  const char* source[3] = {"$DEVHARNESS_TVM_FFI_LIB", "build-time tvm-ffi-config",
                           "tvm-ffi-config --libfiles"};
  snprintf(cand[0], sizeof cand[0], "%s", env ? env : "");
  snprintf(cand[1], sizeof cand[1], "%s", env ? "" : DH_TVM_FFI_LIBFILE);
  if (env) cand[2][0] = '\0'; else from_config(cand[2], sizeof cand[2]);
  void* lib = NULL;
  char err[1024] = "no candidate path (set DEVHARNESS_TVM_FFI_LIB or install apache-tvm-ffi)";
  for (int i = 0; i < 3 && !lib; ++i) {
    if (!cand[i][0]) continue;
    lib = dlopen(cand[i], RTLD_NOW | RTLD_LOCAL);
    if (lib) {
      size_t l = strlen(cand[i]);
      if (l >= sizeof g_path) l = sizeof g_path - 1;
      memcpy(g_path, cand[i], l);
      g_path[l] = '\0';
    }
    else snprintf(err, sizeof err, "%s: %s", source[i], dlerror());
  }
  if (!lib) {
    snprintf(why, why_size, "libtvm_ffi.so not loadable: %s", err);
    return -1;
  }
  p_create = (__typeof__(p_create))dlsym(lib, "TVMFFIFunctionCreate");
  p_call = (__typeof__(p_call))dlsym(lib, "TVMFFIFunctionCall");
  p_version = (__typeof__(p_version))dlsym(lib, "TVMFFIGetVersion");
  if (!p_create || !p_call) {
    snprintf(why, why_size, "%s lacks TVMFFIFunctionCreate/TVMFFIFunctionCall", g_path);
    g_path[0] = '\0';
    return -1;
  }
  if (p_version) {
    TVMFFIVersion v;
    memset(&v, 0, sizeof v);
    p_version(&v);
    snprintf(g_version, sizeof g_version, "%u.%u.%u", (unsigned)v.major, (unsigned)v.minor,
             (unsigned)v.patch);
  }
  TVMFFISafeCallType fn;
  memcpy(&fn, &safe_call, sizeof fn);
  if (p_create(NULL, fn, NULL, &g_func) != 0 || !g_func) {
    snprintf(why, why_size, "TVMFFIFunctionCreate failed");
    g_func = NULL;
    return -1;
  }
  /* The library stays loaded until exit: tvm-ffi keeps global state. */
  return 0;
}

int dh_bench_ffi_peer_call(void* args, int32_t num_args, void* result) {
  if (!g_func) return -1;
  return p_call(g_func, (TVMFFIAny*)args, num_args, (TVMFFIAny*)result);
}

#endif
