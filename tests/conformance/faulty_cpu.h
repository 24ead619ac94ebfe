/*
 * tests/conformance/faulty_cpu.h — faulty backends derived from the cpu backend, for
 * the clauses only a backend whose pointers are host addresses reaches
 * (DH_CAP_HOST_POINTER_ARITHMETIC: mem.alignment, mem.default_alignment,
 * cap.host_pointer). Each faulty_cpu<x>.c is built on its own (no backend sources):
 * its dh_backend_entry dlopens the built cpu plugin (lib/devharness/libdevharness_cpu.so
 * beside this build's tests/ folder), copies its vtable, renames it "faulty_cpu<x>" and
 * breaks one entry. The cpu serves kDLCPU, so the faulty copy does too; faulty.t loads
 * it alone (--plugin), never beside the real cpu backend.
 *
 * Shifted pointers: a faulty allocator that hands out (allocation + shift) records
 * the pair here so that free and copies find the real allocation again.
 */
#ifndef DEVHARNESS_TESTS_CONFORMANCE_FAULTY_CPU_H_
#define DEVHARNESS_TESTS_CONFORMANCE_FAULTY_CPU_H_

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "devharness/backend.h"
#include "devharness/error.h"

static dh_backend_t faulty;
static const dh_backend_t* cpu;

#define SHIFT_MAX 4096
static struct {
  void* shown;
  void* real;
} shifted[SHIFT_MAX];
static pthread_mutex_t shifted_mu = PTHREAD_MUTEX_INITIALIZER;

static inline int shift_put(void* shown, void* real) {
  pthread_mutex_lock(&shifted_mu);
  for (int i = 0; i < SHIFT_MAX; i++)
    if (shifted[i].shown == NULL) {
      shifted[i].shown = shown;
      shifted[i].real = real;
      pthread_mutex_unlock(&shifted_mu);
      return 0;
    }
  pthread_mutex_unlock(&shifted_mu);
  return dh_error_set("OutOfMemoryError", "faulty cpu: more than %d live shifted allocations", SHIFT_MAX);
}

/* The real allocation behind `p` (p itself when it is not a shifted pointer); with
 * take, the record is removed. */
static inline void* shift_real(void* p, int take) {
  if (p == NULL) return NULL;
  pthread_mutex_lock(&shifted_mu);
  for (int i = 0; i < SHIFT_MAX; i++)
    if (shifted[i].shown == p) {
      void* r = shifted[i].real;
      if (take) shifted[i].shown = NULL;
      pthread_mutex_unlock(&shifted_mu);
      return r;
    }
  pthread_mutex_unlock(&shifted_mu);
  return p;
}

/* Allocates nbytes + shift with `alignment` from the cpu and returns allocation + shift. */
static inline int shift_alloc(DLDevice dev, size_t nbytes, size_t alignment, size_t shift, DLDataType hint,
                              void** out) {
  void* real = NULL;
  *out = NULL;
  if (cpu->alloc_data_space(dev, nbytes + shift, alignment, hint, &real) != 0) return -1;
  if (shift_put((uint8_t*)real + shift, real) != 0) {
    cpu->free_data_space(dev, real);
    return -1;
  }
  *out = (uint8_t*)real + shift;
  return 0;
}

static inline int shift_free(DLDevice dev, void* ptr) { return cpu->free_data_space(dev, shift_real(ptr, 1)); }

static inline const dh_backend_t* faulty_cpu_load(void) {
  Dl_info info;
  if (dladdr((void*)&faulty_cpu_load, &info) == 0 || info.dli_fname == NULL) return NULL;
  char path[4096];
  snprintf(path, sizeof path, "%s", info.dli_fname);
  char* slash = strrchr(path, '/');
  if (slash == NULL) return NULL;
  /* <build>/tests/conformance/libdevharness_faulty_x.so -> <build>/lib/devharness/ */
  snprintf(slash, sizeof path - (size_t)(slash - path), "/../../lib/devharness/libdevharness_cpu.so");
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) return NULL;
  const dh_backend_t* (*entry)(void);
  void* sym = dlsym(h, DH_BACKEND_ENTRY_SYMBOL);
  if (sym == NULL) return NULL;
  memcpy(&entry, &sym, sizeof entry);
  return entry();
}

/* kAvailableGlobalMemory is the host's (MemAvailable), which other processes on the
 * machine move between two reads: the faulty copies report None for it, so that the
 * clauses failing depend on the fault alone (attr.available_* skip). */
static inline int faulty_cpu_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (kind == DH_ATTR_AVAILABLE_GLOBAL_MEMORY) {
    *out = dh_any_none();
    return 0;
  }
  return cpu->get_attr(dev, kind, out);
}

/* Defines dh_backend_entry: loads the cpu, copies it, renames it, then runs `edit`.
 * NULL (the loader reports "returned NULL") when the cpu plugin is not built. */
#define FAULTY_CPU_ENTRY(NAME, EDIT)                                                   \
  __attribute__((visibility("default"))) const dh_backend_t* dh_backend_entry(void); \
  const dh_backend_t* dh_backend_entry(void) {                                       \
    if (cpu == NULL && (cpu = faulty_cpu_load()) == NULL) return NULL;               \
    faulty = *cpu;                                                                   \
    faulty.name = "faulty_" NAME;                                                    \
    faulty.description = "cpu with one fault: " NAME;                                \
    faulty.get_attr = faulty_cpu_get_attr;                                           \
    EDIT;                                                                            \
    return &faulty;                                                                  \
  }

#endif /* DEVHARNESS_TESTS_CONFORMANCE_FAULTY_CPU_H_ */
