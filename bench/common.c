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

static dh_bench_cache_t g_cache;

dh_bench_cache_t* dh_bench_cache_get(const void* owner, size_t size) {
  if (g_cache.owner == owner && g_cache.size == size && owner) return &g_cache;
  dh_bench_cache_release();
  return NULL;
}

dh_bench_cache_t* dh_bench_cache_slot(void) { return &g_cache; }

void dh_bench_cache_release(void) {
  if (g_cache.release) g_cache.release(&g_cache);
  memset(&g_cache, 0, sizeof g_cache);
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

/*--- pinning-aware stream creation ---*/
int dh_bench_unpinned_create_stream(DLDevice dev, dh_stream_t* out_stream) {
  cpu_set_t old, all;
  int have = sched_getaffinity(0, sizeof old, &old) == 0;
  if (have) {
    CPU_ZERO(&all);
    long n = sysconf(_SC_NPROCESSORS_CONF);
    for (long i = 0; i < n && i < CPU_SETSIZE; ++i) CPU_SET((int)i, &all);
    if (sched_setaffinity(0, sizeof all, &all) != 0) have = 0;
  }
  int rc = dh_device_create_stream(dev, out_stream);
  if (have) sched_setaffinity(0, sizeof old, &old);
  return rc;
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
