/* conformance/clauses/mem_distinct.c — memory clauses on buffers that must stay apart:
 * live workspaces (in any order, from several threads), an interior handle's free, host
 * buffers (TVM DeviceAPI::AllocWorkspace / FreeDataSpace / AllocDataSpace on the host,
 * docs/contract.md §Memory; the family after mem_lifetime.c's in the catalogue). */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Live workspaces never share storage: WSD_N workspaces of descending sizes (a reused
 * block is big enough) are allocated and freed once, so a pool or cache behind
 * alloc_workspace holds them, then WSD_N are live at once; their handles differ and a
 * pattern unique to each, written through H2D copies after all are allocated, reads
 * back from each. */
#define WSD_N 8
static int wsd_alloc(dh_conf_ctx_t* c, void** w, const size_t* sz) {
  for (int i = 0; i < WSD_N; i++) {
    if (dh_device_alloc_workspace(c->dev, sz[i], dc_u8(), &w[i]) != 0) {
      dc_fail_call(c, __FILE__, __LINE__, "alloc_workspace (8 live)");
      return -1;
    }
    for (int j = 0; j < i; j++)
      if (w[j] == w[i]) {
        dc_fail(c, __FILE__, __LINE__, "distinct handles", "the same handle twice",
                "live workspaces %d and %d share handle %p", j, i, w[i]);
        return -1;
      }
  }
  return 0;
}

static void wsd_free(dh_conf_ctx_t* c, void** w) {
  for (int i = WSD_N - 1; i >= 0; i--) /* stack order, as TVM's pool expects */
    if (w[i] && dh_device_free_workspace(c->dev, w[i]) != 0 && c->status == DC_PASS)
      dc_fail_call(c, __FILE__, __LINE__, "free_workspace");
  memset(w, 0, WSD_N * sizeof *w);
  dh_error_clear();
}

/* WSD_N workspaces of sizes `first` allocated and freed (so a pool keeps them), then
 * WSD_N of sizes `then` live at once: a pattern unique to each (seed + i * step),
 * written through H2D copies after all are allocated, reads back from each. `how` goes
 * into the failure message after the size. */
static void wsd_refill_check(dh_conf_ctx_t* c, const size_t* first, const size_t* then, uint32_t seed,
                             uint32_t step, const char* how) {
  void* w[WSD_N] = {0};
  uint8_t want[8192], got[8192];
  wsd_alloc(c, w, first);
  wsd_free(c, w);
  if (c->status == DC_PASS) wsd_alloc(c, w, then);
  for (int i = 0; i < WSD_N && c->status == DC_PASS; i++) {
    dc_pattern(want, then[i], seed + (uint32_t)i * step);
    dc_upload(c, __LINE__, w[i], 0, want, then[i]);
  }
  for (int i = 0; i < WSD_N && c->status == DC_PASS; i++) {
    dc_download(c, __LINE__, w[i], 0, got, then[i]);
    if (c->status) break;
    dc_pattern(want, then[i], seed + (uint32_t)i * step);
    dc_check_bytesf(c, __FILE__, __LINE__, got, want, then[i], 0,
                    "live workspace %d of %d (%zu bytes%s; overwritten by another?)", i, WSD_N, then[i], how);
  }
  wsd_free(c, w);
}

static void workspaces_distinct(dh_conf_ctx_t* c) {
  size_t sz[WSD_N];
  for (int i = 0; i < WSD_N; i++) sz[i] = 8192 - (size_t)i * 512;
  wsd_refill_check(c, sz, sz, 700u, 17u, "");
}

/* Live workspaces never share storage when the sizes asked repeat in another order: a
 * pool that serves requests from the blocks it keeps (TVM 0.27 src/runtime/
 * workspace_pool.cc reuses freed blocks by size) is filled by WSD_N requests with
 * repeated sizes, freed in stack order, then asked for the same sizes permuted; every
 * live workspace has its own handle and keeps its own bytes. */
static void workspaces_reordered(dh_conf_ctx_t* c) {
  static const size_t first[WSD_N] = {1024, 4096, 1024, 2048, 4096, 8192, 2048, 1024};
  static const size_t then[WSD_N] = {4096, 1024, 8192, 1024, 2048, 1024, 4096, 2048};
  wsd_refill_check(c, first, then, 900u, 29u, ", sizes asked again in another order");
}

/* Workspaces of threads running at once do not overlap: TVM's AllocWorkspace doc says a
 * workspace "should not overlap between different threads (i.e. be threadlocal)"
 * (apache/tvm 0.27 include/tvm/runtime/device_api.h:250-266). WT_THREADS threads each
 * hold WT_PER workspaces at once (stack style, as TVM's callers use them), write their
 * own pattern into each, wait until every thread has written, then read theirs back. */
#define WT_THREADS 4
#define WT_PER 2
struct wt_thr {
  dh_conf_ctx_t ctx;
  int index;
  pthread_barrier_t* written; /* every thread has written its workspaces */
  void* w[WT_PER];
};

static size_t wt_size(int i) { return 4096 - (size_t)i * 1024; }

static void* workspace_thread(void* arg) {
  struct wt_thr* t = arg;
  dh_conf_ctx_t* c = &t->ctx;
  uint8_t want[4096], got[4096];
  for (int i = 0; i < WT_PER && c->status == DC_PASS; i++) {
    if (dh_device_alloc_workspace(c->dev, wt_size(i), dc_u8(), &t->w[i]) != 0) {
      dc_fail_call(c, __FILE__, __LINE__, "alloc_workspace (one thread of several)");
      t->w[i] = NULL;
      break;
    }
    dc_pattern(want, wt_size(i), 900u + (uint32_t)(t->index * WT_PER + i) * 31u);
    dc_upload(c, __LINE__, t->w[i], 0, want, wt_size(i));
  }
  pthread_barrier_wait(t->written);
  for (int i = 0; i < WT_PER && c->status == DC_PASS; i++) {
    dc_download(c, __LINE__, t->w[i], 0, got, wt_size(i));
    if (c->status) break;
    dc_pattern(want, wt_size(i), 900u + (uint32_t)(t->index * WT_PER + i) * 31u);
    dc_check_bytesf(c, __FILE__, __LINE__, got, want, wt_size(i), 0,
                    "thread %d's live workspace %d after %d threads wrote theirs (overwritten by "
                    "another thread's?)", t->index, i, WT_THREADS);
  }
  /* each thread frees its own, last first: TVM's pool is per thread and refuses a free
   * from another (apache/tvm 0.27 src/runtime/workspace_pool.cc:98), which TVM's doc does
   * not say, so no clause asks either way */
  for (int i = WT_PER - 1; i >= 0; i--)
    if (t->w[i] && dh_device_free_workspace(c->dev, t->w[i]) != 0 && c->status == DC_PASS)
      dc_fail_call(c, __FILE__, __LINE__, "free_workspace (by the thread that allocated it)");
  dh_error_clear();
  return NULL;
}

static void workspace_threads(dh_conf_ctx_t* c) {
  static struct wt_thr t[WT_THREADS];
  pthread_barrier_t written;
  memset(t, 0, sizeof t);
  CHECK(pthread_barrier_init(&written, NULL, WT_THREADS) == 0, "pthread_barrier_init failed");
  for (int i = 0; i < WT_THREADS; i++) {
    t[i].ctx = *c;
    t[i].index = i;
    t[i].written = &written;
  }
  if (dc_run_threads(c, WT_THREADS, workspace_thread, t, sizeof t[0], "mem.workspace_threads") != 0) return;
  pthread_barrier_destroy(&written);
  for (int i = 0; i < WT_THREADS && c->status == DC_PASS; i++)
    if (t[i].ctx.status == DC_FAIL) *c = t[i].ctx;
}

/* free_data_space of an interior handle (handle + 65) is an error and frees nothing:
 * the allocation keeps its bytes and frees normally afterwards. A backend that looks a
 * freed handle up by the range containing it would free the allocation under its
 * owner. Opaque handles only: on a host-pointer backend handle + 65 is a host address
 * the allocator cannot refuse (free() of it aborts). The offset is odd: handles that
 * are pointers to records (vulkan's 56-byte records sit in 64-byte malloc chunks) are
 * aligned, so handle + 65 is never another live handle, as handle + 64 could be (the
 * next record: a correct backend freed it and failed the clause). */
static void free_interior(dh_conf_ctx_t* c) {
  uint8_t want[4096], got[4096];
  void* p = dc_dev_alloc(c, sizeof want);
  if (!p) return;
  dc_pattern(want, sizeof want, 631);
  dc_upload(c, __LINE__, p, 0, want, sizeof want);
  if (c->status == DC_PASS && dh_device_free_data_space(c->dev, (uint8_t*)p + 65) == 0)
    dc_fail(c, __FILE__, __LINE__, "-1 (an error)", "0 (success)",
            "free_data_space of an interior handle (a live handle + 65) succeeded");
  dh_error_clear();
  if (c->status == DC_PASS) dc_download(c, __LINE__, p, 0, got, sizeof got);
  if (c->status == DC_PASS) dc_check_bytes(c, __FILE__, __LINE__, "the allocation after a refused free of "
                                           "handle + 65", got, want, sizeof got, 0);
  int rc = dh_device_free_data_space(c->dev, p);
  if (c->status == DC_PASS && rc != 0) dc_fail_call(c, __FILE__, __LINE__, "free_data_space of the handle "
                                                    "after a refused free of handle + 65");
  dh_error_clear();
}

/* Pinned host blocks from alloc_host are each the caller's own: HD_N live blocks of
 * 64 KiB get a pattern unique to each, written after all are allocated, and each reads
 * its own back; each frees with free_host. */
#define HD_N 8
#define HD_SIZE (64 * 1024)
static void host_distinct(dh_conf_ctx_t* c) {
  uint8_t* h[HD_N] = {0};
  uint8_t* want = dc_host_alloc(c, HD_SIZE);
  for (int i = 0; i < HD_N && c->status == DC_PASS; i++) {
    void* p = NULL;
    if (dh_device_alloc_host(c->dev, HD_SIZE, &p) != 0 || p == NULL)
      dc_fail_call(c, __FILE__, __LINE__, "alloc_host(65536) (8 live)");
    h[i] = p;
  }
  for (int i = 0; i < HD_N && c->status == DC_PASS; i++) dc_pattern(h[i], HD_SIZE, 800u + (uint32_t)i * 19u);
  for (int i = 0; i < HD_N && c->status == DC_PASS; i++) {
    dc_pattern(want, HD_SIZE, 800u + (uint32_t)i * 19u);
    dc_check_bytesf(c, __FILE__, __LINE__, h[i], want, HD_SIZE, 0,
                    "live alloc_host block %d of %d (overwritten through another?)", i, HD_N);
  }
  for (int i = HD_N - 1; i >= 0; i--)
    if (h[i] && dh_device_free_host(c->dev, h[i]) != 0 && c->status == DC_PASS)
      dc_fail_call(c, __FILE__, __LINE__, "free_host");
  dh_error_clear();
  free(want);
}

const dh_clause_t dc_mem_distinct_clauses[] = {
    {"mem.workspaces_distinct", "8 live workspaces have distinct handles and keep distinct bytes",
     DC_MUST, "devharness backend.h alloc_workspace; apache/tvm 0.27 "
     "src/runtime/workspace_pool.cc:46-85 (Alloc takes a block off the free list into allocated_)", 0, workspaces_distinct, NULL, DC_PROFILE_STRICT},
    {"mem.workspaces_reordered", "8 live workspaces keep distinct handles and bytes when the sizes "
     "asked repeat in another order", DC_MUST, "devharness backend.h alloc_workspace; apache/tvm 0.27 "
     "src/runtime/workspace_pool.cc:46-85 (a freed block is reused for any request it fits)", 0,
     workspaces_reordered, NULL, DC_PROFILE_STRICT},
    {"mem.workspace_threads", "workspaces held at once by 4 threads (2 each) keep distinct bytes",
     DC_MUST, "apache/tvm 0.27 include/tvm/runtime/device_api.h:250-266 AllocWorkspace (\"Workspace "
     "should not overlap between different threads\")", 0, workspace_threads, NULL, DC_PROFILE_TVM},
    {"mem.free_interior", "free_data_space of handle + 65 is an error; the allocation keeps its "
     "bytes and frees normally", DC_MUST, "devharness backend.h (entries never abort on bad input)",
     DC_NEED_OPAQUE, free_interior, NULL, DC_PROFILE_STRICT},
    {"mem.host_distinct", "8 live alloc_host blocks of 64 KiB each keep their own bytes and free with "
     "free_host", DC_MUST, "devharness backend.h alloc_host (pinned host memory, host-addressable "
     "bytes)", DC_NEED_PINNED_HOST, host_distinct, NULL, DC_PROFILE_STRICT},
};
const size_t dc_mem_distinct_count = sizeof dc_mem_distinct_clauses / sizeof dc_mem_distinct_clauses[0];
