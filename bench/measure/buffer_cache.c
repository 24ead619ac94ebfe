/*
 * bench/measure/buffer_cache.c — memory a benchmark run keeps (bench/measure/measure.h): the
 * suites' per-benchmark contexts (dh_bench_keep), and the kept buffer sets, keyed by
 * (owner, size) and released least recently used first beyond a memory budget.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/measure/measure.h"
#include "devharness/device_api.h"
#include "devharness/error.h"

int dh_bench_alloc_device(DLDevice dev, size_t n, void** out) {
  DLDataType u8 = {kDLUInt, 8, 1};
  if (dh_device_alloc_data_space(dev, n, DH_BENCH_BUFFER_ALIGN, u8, out) == 0) return 0;
  if (strcmp(dh_error_kind(), DH_KIND_OUT_OF_MEMORY_ERROR) == 0) return -1;
  dh_error_clear();
  return dh_device_alloc_data_space(dev, n, DH_ALLOC_ALIGNMENT, u8, out);
}

/*--- kept allocations ---*/
static void** g_kept;
static size_t g_nkept, g_capkept;

void* dh_bench_keep(size_t size) {
  if (g_nkept == g_capkept) {
    size_t cap = g_capkept ? g_capkept * 2 : 64;
    void** n = realloc(g_kept, cap * sizeof *n);
    if (!n) return NULL;
    g_kept = n;
    g_capkept = cap;
  }
  void* p = calloc(1, size);
  if (p) g_kept[g_nkept++] = p;
  return p;
}

void* dh_bench_keep_copy(const void* ctx, size_t size) {
  void* p = dh_bench_keep(size);
  if (!p) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "bench: out of memory"), NULL;
  return memcpy(p, ctx, size);
}

/* Kept sets: an array of individually allocated entries (pointers handed out stay
 * valid until the entry is released). */
static dh_bench_cache_t** g_sets;
static size_t g_nsets, g_capsets;
static uint64_t g_tick;
static size_t g_last_miss;
static size_t g_budget;

size_t dh_bench_cache_budget(void) {
  if (g_budget) return g_budget;
  const char* e = getenv("DEVHARNESS_BENCH_KEEP_MIB");
  if (e && *e) {
    long long mib = atoll(e);
    if (mib > 0) return g_budget = (size_t)mib << 20;
  }
  size_t avail = 0;
  FILE* f = fopen("/proc/meminfo", "r");
  if (f) {
    char line[256];
    while (fgets(line, sizeof line, f))
      if (strncmp(line, "MemAvailable:", 13) == 0) {
        avail = (size_t)atoll(line + 13) << 10;
        break;
      }
    fclose(f);
  }
  g_budget = avail / 4;
  if (g_budget < ((size_t)1 << 30)) g_budget = (size_t)1 << 30;
  return g_budget;
}

static size_t set_bytes(const dh_bench_cache_t* c) { return c->bytes ? c->bytes : 2 * c->size; }

dh_bench_cache_t* dh_bench_cache_get(const void* owner, size_t size) {
  for (size_t i = 0; i < g_nsets; ++i)
    if (g_sets[i]->owner == owner && g_sets[i]->size == size && owner) {
      g_sets[i]->last_use = ++g_tick;
      return g_sets[i];
    }
  g_last_miss = size;
  return NULL;
}

static void release_at(size_t i) {
  dh_bench_cache_t* c = g_sets[i];
  if (c->release) c->release(c);
  free(c);
  g_sets[i] = g_sets[--g_nsets];
}

dh_bench_cache_t* dh_bench_cache_slot(void) {
  size_t budget = dh_bench_cache_budget();
  for (;;) {
    size_t held = 2 * g_last_miss, lru = 0;
    for (size_t i = 0; i < g_nsets; ++i) {
      held += set_bytes(g_sets[i]);
      if (g_sets[i]->last_use < g_sets[lru]->last_use) lru = i;
    }
    if (held <= budget || g_nsets == 0) break;
    release_at(lru);
  }
  if (g_nsets == g_capsets) {
    size_t cap = g_capsets ? 2 * g_capsets : 64;
    dh_bench_cache_t** n = realloc(g_sets, cap * sizeof *n);
    if (!n) return NULL;
    g_sets = n;
    g_capsets = cap;
  }
  dh_bench_cache_t* c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->last_use = ++g_tick;
  g_sets[g_nsets++] = c;
  return c;
}

void dh_bench_cache_drop(dh_bench_cache_t* c) {
  for (size_t i = 0; c && i < g_nsets; ++i)
    if (g_sets[i] == c) {
      release_at(i);
      return;
    }
}

void dh_bench_cache_release(void) {
  /* Newest first, so a set is released before what older sets may share with it. */
  while (g_nsets) release_at(g_nsets - 1);
  free(g_sets);
  g_sets = NULL;
  g_capsets = 0;
}

void dh_bench_free_all(void) {
  dh_bench_cache_release();
  for (size_t i = 0; i < g_nkept; ++i) free(g_kept[i]);
  free(g_kept);
  g_kept = NULL;
  g_nkept = g_capkept = 0;
}
