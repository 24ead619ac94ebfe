/* bench/common.c — helpers shared by the suites (bench/bench_internal.h). */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_internal.h"
#include "devharness/device_api.h"
#include "devharness/error.h"

double dh_bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

dh_gb_bench_t* dh_bench_common(dh_gb_bench_t* b, const dh_bench_opts_t* o) {
  /* min time, warm-up and repetitions are given as Google Benchmark flags by
   * dh_bench_main (per-benchmark settings would append "/min_time:..." to every name). */
  (void)o;
  return b;
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

/*--- errors ---*/
static _Thread_local char g_errtext[DH_ERROR_MESSAGE_MAX + DH_ERROR_KIND_MAX + 4];

const char* dh_bench_error_text(void) {
  const char* k = dh_error_kind();
  snprintf(g_errtext, sizeof g_errtext, "%s: %s", k ? k : "Error", dh_error_message());
  return g_errtext;
}

void dh_bench_skip_error(dh_gb_state_t* st, const char* what) {
  char buf[sizeof g_errtext + 256];
  snprintf(buf, sizeof buf, "%s: %s", what, dh_bench_error_text());
  dh_gb_skip_with_error(st, buf);
}

int dh_bench_find_file(const char* exe_dir, const char* env, const char* name, char* buf,
                       size_t buf_size) {
  const char* e = env ? getenv(env) : NULL;
  if (e && *e) {
    snprintf(buf, buf_size, "%s", e);
    return access(buf, R_OK) == 0 ? 0 : -1;
  }
  static const char* const kRel[] = {"../lib", "../lib/devharness-bench", "../../lib"};
  for (size_t i = 0; i < sizeof kRel / sizeof kRel[0]; ++i) {
    snprintf(buf, buf_size, "%s/%s/%s", exe_dir ? exe_dir : ".", kRel[i], name);
    if (access(buf, R_OK) == 0) return 0;
  }
  snprintf(buf, buf_size, "%s/../lib/%s", exe_dir ? exe_dir : ".", name);
  return -1;
}
