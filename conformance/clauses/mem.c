/* conformance/clauses/mem.c — memory clauses (TVM DeviceAPI::AllocDataSpace / FreeDataSpace /
 * AllocWorkspace, docs/contract.md §Memory). */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Allocates n bytes, writes a pattern, reads it back (offset 0, NULL stream). */
static void roundtrip_size(dh_conf_ctx_t* c, size_t n, uint32_t seed) {
  uint8_t* src = dc_host_alloc(c, n);
  uint8_t* dst = dc_host_alloc(c, n);
  void* d = (src && dst) ? dc_dev_alloc(c, n) : NULL;
  if (d) {
    dc_pattern(src, n, seed);
    dc_sentinel(dst, n);
    dc_upload(c, __LINE__, d, 0, src, n);
    if (!c->status) dc_download(c, __LINE__, d, 0, dst, n);
    if (!c->status) {
      char what[64];
      snprintf(what, sizeof what, "%zu-byte allocation read back", n);
      dc_check_bytes(c, __FILE__, __LINE__, what, dst, src, n, 0);
    }
    dh_device_free_data_space(c->dev, d);
  }
  free(src);
  free(dst);
}

static void sizes_small(dh_conf_ctx_t* c) {
  size_t sizes[] = {1, 3, 4, 31, 33, 4096, 65537};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) TRY(roundtrip_size(c, sizes[i], (uint32_t)i));
}

static void sizes_large(dh_conf_ctx_t* c) {
  size_t sizes[] = {DC_MIB, DC_MIB + 3, 16 * DC_MIB};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) TRY(roundtrip_size(c, sizes[i], 7 + (uint32_t)i));
}

static void size_64mib(dh_conf_ctx_t* c) { TRY(roundtrip_size(c, 64 * DC_MIB, 99)); }

static void zero_bytes(dh_conf_ctx_t* c) {
  void* p = (void*)0x1;
  CHECK_OK(dh_device_alloc_data_space(c->dev, 0, 0, dc_u8(), &p));
  CHECK_OK(dh_device_free_data_space(c->dev, p));
  /* the device still works */
  TRY(roundtrip_size(c, 64, 3));
}

static void alignment(dh_conf_ctx_t* c) {
  size_t aligns[] = {64, 128, 256, 4096};
  for (size_t i = 0; i < 4; i++) {
    void* p = NULL;
    CHECK_OK(dh_device_alloc_data_space(c->dev, 100, aligns[i], dc_u8(), &p));
    uintptr_t u = (uintptr_t)p;
    dh_device_free_data_space(c->dev, p);
    if (u % aligns[i]) {
      char e[64], g[64];
      snprintf(e, sizeof e, "address %% %zu == 0", aligns[i]);
      snprintf(g, sizeof g, "%p (remainder %zu)", p, (size_t)(u % aligns[i]));
      FAIL(e, g, "alloc_data_space(alignment %zu) returned a misaligned address", aligns[i]);
    }
  }
}

static void default_alignment(dh_conf_ctx_t* c) {
  size_t aligns[] = {0, 1, 4, 16};
  for (size_t i = 0; i < 4; i++) {
    void* p = NULL;
    CHECK_OK(dh_device_alloc_data_space(c->dev, 33, aligns[i], dc_u8(), &p));
    uintptr_t u = (uintptr_t)p;
    dh_device_free_data_space(c->dev, p);
    if (u % DH_ALLOC_ALIGNMENT) {
      char g[64];
      snprintf(g, sizeof g, "%p", p);
      FAIL("address % 64 == 0", g, "alloc_data_space(alignment %zu) is not kAllocAlignment (64)"
           "-aligned", aligns[i]);
    }
  }
}

#define OVERLAP_N 32
static void no_overlap(dh_conf_ctx_t* c) {
  void* h[OVERLAP_N] = {0};
  size_t sz[OVERLAP_N];
  uint8_t* want = NULL;
  uint8_t* got = NULL;
  size_t maxn = 0;
  for (int i = 0; i < OVERLAP_N; i++) {
    sz[i] = 1000 + (size_t)(OVERLAP_N - i) * 97; /* descending: a reused handle is big enough */
    if (sz[i] > maxn) maxn = sz[i];
  }
  want = dc_host_alloc(c, maxn);
  got = dc_host_alloc(c, maxn);
  for (int i = 0; i < OVERLAP_N && !c->status; i++) {
    h[i] = dc_dev_alloc(c, sz[i]);
    if (!c->status) {
      dc_pattern(want, sz[i], 1000u + (uint32_t)i * 13u);
      dc_upload(c, __LINE__, h[i], 0, want, sz[i]);
    }
  }
  for (int i = 0; i < OVERLAP_N && !c->status; i++) {
    dc_download(c, __LINE__, h[i], 0, got, sz[i]);
    if (c->status) break;
    dc_pattern(want, sz[i], 1000u + (uint32_t)i * 13u);
    char what[96];
    snprintf(what, sizeof what, "allocation %d of %d live (%zu bytes; overwritten by another?)",
             i, OVERLAP_N, sz[i]);
    dc_check_bytes(c, __FILE__, __LINE__, what, got, want, sz[i], 0);
  }
  for (int i = 0; i < OVERLAP_N; i++)
    if (h[i]) dh_device_free_data_space(c->dev, h[i]);
  free(want);
  free(got);
}

static size_t total_memory(dh_conf_ctx_t* c) {
  dh_any_t v = dh_any_none();
  if (dh_device_get_attr(c->dev, DH_ATTR_TOTAL_GLOBAL_MEMORY, &v) == 0 && v.type_index == DH_TYPE_INT &&
      v.v_int64 > 0)
    return (size_t)v.v_int64;
  return 0;
}

static size_t too_large_size(dh_conf_ctx_t* c) {
  size_t t = total_memory(c);
  if (t && t < ((size_t)1 << 60)) return t * 4;
  return (size_t)1 << 62;
}

static void too_large(dh_conf_ctx_t* c) {
  void* p = NULL;
  size_t n = too_large_size(c);
  int rc = dh_device_alloc_data_space(c->dev, n, 0, dc_u8(), &p);
  if (rc == 0) {
    dh_device_free_data_space(c->dev, p);
    char e[64];
    snprintf(e, sizeof e, "-1 for %zu bytes", n);
    FAIL(e, "0 (success)", "alloc_data_space of %zu bytes (more than the device has) succeeded", n);
  }
  dh_error_clear();
  TRY(roundtrip_size(c, 4096, 5));
}

static void too_large_kind(dh_conf_ctx_t* c) {
  void* p = NULL;
  size_t n = too_large_size(c);
  int rc = dh_device_alloc_data_space(c->dev, n, 0, dc_u8(), &p);
  if (rc == 0) dh_device_free_data_space(c->dev, p);
  CHECK_ERR(rc, DH_KIND_OUT_OF_MEMORY_ERROR);
}

static void free_null(dh_conf_ctx_t* c) {
  CHECK_OK(dh_device_free_data_space(c->dev, NULL));
  CHECK_OK(dh_device_free_data_space(c->dev, NULL));
}

static void dtype_hints(dh_conf_ctx_t* c) {
  DLDataType ts[] = {{kDLFloat, 32, 1}, {kDLInt, 8, 1}, {kDLFloat, 64, 1}, {kDLInt, 32, 4},
                     {kDLFloat, 16, 1}, {kDLBfloat, 16, 1}};
  for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
    void* p = NULL;
    CHECK_OK(dh_device_alloc_data_space(c->dev, 256, 0, ts[i], &p));
    CHECK_OK(dh_device_free_data_space(c->dev, p));
  }
}

static void realloc_cycle(dh_conf_ctx_t* c) {
  for (int i = 0; i < 200; i++) {
    void* p = NULL;
    CHECK_OK(dh_device_alloc_data_space(c->dev, 4096 + (size_t)i, 0, dc_u8(), &p));
    CHECK_OK(dh_device_free_data_space(c->dev, p));
  }
  TRY(roundtrip_size(c, 333, 8));
}

static void workspace_roundtrip(dh_conf_ctx_t* c) {
  void* w = NULL;
  CHECK_OK(dh_device_alloc_workspace(c->dev, 8192, dc_u8(), &w));
  CHECK(w != NULL, "alloc_workspace(8192) returned a NULL handle");
  CHECK_OK(dh_device_free_workspace(c->dev, w));
}

/* AddressSanitizer's quarantine keeps freed blocks mapped, so address-space growth
 * says nothing under it; the available-memory check still applies. */
#if defined(__SANITIZE_ADDRESS__)
#define DC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DC_ASAN 1
#endif
#endif
#ifndef DC_ASAN
#define DC_ASAN 0
#endif

/* VmSize of this process in bytes (0 when unknown or under ASan). */
static size_t vm_size(void) {
  if (DC_ASAN) return 0;
  FILE* f = fopen("/proc/self/statm", "r");
  unsigned long pages = 0;
  if (!f) return 0;
  if (fscanf(f, "%lu", &pages) != 1) pages = 0;
  fclose(f);
  return (size_t)pages * 4096;
}

#define WS_SIZE (256 * 1024)
#define WS_ITERS 1000

/* One half of workspace_no_growth: n alloc/free pairs; the fall of
 * kAvailableGlobalMemory (0 when not reported) and the growth of the address space (0
 * when unknown) over them. 0, or -1 after recording the failed call. */
static int ws_half(dh_conf_ctx_t* c, int first, int n, int64_t* out_drop, size_t* out_growth) {
  dh_any_t a0 = dh_any_none(), a1 = dh_any_none();
  dh_device_get_attr(c->dev, DH_ATTR_AVAILABLE_GLOBAL_MEMORY, &a0);
  size_t vm0 = vm_size();
  for (int i = first; i < first + n; i++) {
    void* w = NULL;
    if (dh_device_alloc_workspace(c->dev, WS_SIZE, dc_u8(), &w) != 0 || dh_device_free_workspace(c->dev, w) != 0) {
      char call[96];
      snprintf(call, sizeof call, "workspace alloc/free of %d bytes in iteration %d of %d", WS_SIZE, i, WS_ITERS);
      dc_fail_call(c, __FILE__, __LINE__, call);
      return -1;
    }
  }
  size_t vm1 = vm_size();
  dh_device_get_attr(c->dev, DH_ATTR_AVAILABLE_GLOBAL_MEMORY, &a1);
  *out_drop = a0.type_index == DH_TYPE_INT && a1.type_index == DH_TYPE_INT ? a0.v_int64 - a1.v_int64 : 0;
  *out_growth = vm0 && vm1 > vm0 ? vm1 - vm0 : 0;
  return 0;
}

/* A leak grows memory in both halves of the run; a one-off reservation (a malloc arena
 * of 64 MiB, a thread stack, a pool the driver grows once) in one half only, so only
 * growth past the limit in both halves fails: the clause stays deterministic on a busy
 * machine, where other threads of the driver make glibc reserve arenas at any time. */
static void workspace_no_growth(dh_conf_ctx_t* c) {
  /* warm up once so lazy pools do not count as growth */
  void* w = NULL;
  CHECK_OK(dh_device_alloc_workspace(c->dev, WS_SIZE, dc_u8(), &w));
  CHECK_OK(dh_device_free_workspace(c->dev, w));
  int64_t drop[2];
  size_t growth[2];
  for (int h = 0; h < 2; h++)
    if (ws_half(c, h * WS_ITERS / 2, WS_ITERS / 2, &drop[h], &growth[h]) != 0) return;
  int64_t limit = (int64_t)WS_SIZE * (WS_ITERS / 2) / 4;
  char e[64], g[96];
  if (drop[0] > limit && drop[1] > limit) {
    snprintf(e, sizeof e, "drop < %" PRId64 " bytes in a half", limit);
    snprintf(g, sizeof g, "dropped %" PRId64 " and %" PRId64 " bytes", drop[0], drop[1]);
    FAIL(e, g, "kAvailableGlobalMemory fell in both halves of %d workspace alloc/free pairs of %d bytes",
         WS_ITERS, WS_SIZE);
  }
  if ((int64_t)growth[0] > limit && (int64_t)growth[1] > limit) {
    snprintf(e, sizeof e, "growth < %" PRId64 " bytes in a half", limit);
    snprintf(g, sizeof g, "grew %zu and %zu bytes", growth[0], growth[1]);
    FAIL(e, g, "process address space grew in both halves of %d workspace alloc/free pairs of %d bytes",
         WS_ITERS, WS_SIZE);
  }
}

/* Concurrent alloc/free. An allocator without its lock loses or shares a slot only
 * when two calls meet inside it, so a few hundred calls from 4 threads catch it only on
 * some runs. Here 16 threads start together at a barrier; each keeps a window of 16
 * live allocations, replacing the oldest per step (free, alloc) for 2000 steps and at
 * least 0.9 s, so calls meet hundreds of thousands of times (threads are also
 * preempted inside the allocator on a loaded machine); a handle given to two threads shows
 * as a failed free (the second free of it) or, when both are still live at the end,
 * as a shared handle; the last window's allocations get a pattern unique to thread
 * and step, read back at the end. */
#define CC_THREADS 16
#define CC_WINDOW 16
#define CC_STEPS 2000
#define CC_MS 900.0
#define CC_N 96

struct thr {
  dh_conf_ctx_t ctx;
  int index;
  pthread_barrier_t* start;
  void* live[CC_WINDOW];
  uint32_t seed[CC_WINDOW];
};

static void* alloc_thread(void* arg) {
  struct thr* t = arg;
  dh_conf_ctx_t* c = &t->ctx;
  uint8_t buf[CC_N], got[CC_N];
  pthread_barrier_wait(t->start);
  double t0 = dc_now_ms();
  for (int i = 0; i < CC_STEPS && !c->status; i++) {
    int w = i % CC_WINDOW, last = i >= CC_STEPS - CC_WINDOW;
    /* at least CC_STEPS steps and at least CC_MS of them: a fast allocator gets more
     * collisions, a slow one stops after CC_STEPS */
    if (i == CC_STEPS - CC_WINDOW - 1 && dc_now_ms() - t0 < CC_MS) i -= CC_WINDOW * 16;
    if (t->live[w]) {
      if (dh_device_free_data_space(c->dev, t->live[w]) != 0) {
        dc_fail_call(c, __FILE__, __LINE__, "free_data_space (concurrent)");
        break;
      }
      t->live[w] = NULL;
    }
    void* p = NULL;
    /* zero-byte allocations between sized ones: the allocator's bookkeeping without
     * the time spent in malloc */
    size_t n = (last || (i & 1)) ? CC_N : 0;
    if (dh_device_alloc_data_space(c->dev, n, 0, dc_u8(), &p) != 0) {
      dc_fail_call(c, __FILE__, __LINE__, "alloc_data_space (concurrent)");
      break;
    }
    t->live[w] = p;
    t->seed[w] = (uint32_t)(t->index * 100000 + i);
    /* write through the default stream only in the last window: the allocator is what
     * is under test, copies would spread its calls apart */
    if (last) {
      dc_pattern(buf, CC_N, t->seed[w]);
      dc_upload(c, __LINE__, p, 0, buf, CC_N);
    } else {
      t->seed[w] = 0;
    }
  }
  for (int w = 0; w < CC_WINDOW && !c->status; w++) {
    if (!t->live[w] || !t->seed[w]) continue;
    dc_pattern(buf, CC_N, t->seed[w]);
    dc_download(c, __LINE__, t->live[w], 0, got, CC_N);
    if (c->status) break;
    char what[96];
    snprintf(what, sizeof what, "thread %d: live allocation %d after concurrent alloc/free", t->index, w);
    dc_check_bytes(c, __FILE__, __LINE__, what, got, buf, CC_N, 0);
  }
  return NULL;
}

static void concurrent(dh_conf_ctx_t* c) {
  static struct thr t[CC_THREADS];
  pthread_t th[CC_THREADS];
  pthread_barrier_t start;
  memset(t, 0, sizeof t);
  CHECK(pthread_barrier_init(&start, NULL, CC_THREADS) == 0, "pthread_barrier_init failed");
  int started = 0;
  for (; started < CC_THREADS; started++) {
    t[started].ctx = *c;
    t[started].index = started;
    t[started].start = &start;
    if (pthread_create(&th[started], NULL, alloc_thread, &t[started]) != 0) break;
  }
  if (started < CC_THREADS) {
    /* the barrier would never open: the threads already waiting are stuck, so the
     * case's timeout ends it; say why first */
    dc_fail(c, __FILE__, __LINE__, NULL, NULL, "pthread_create failed for thread %d", started);
    fprintf(stderr, "mem.concurrent: pthread_create failed\n");
    return;
  }
  for (int i = 0; i < CC_THREADS; i++) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&start);
  for (int i = 0; i < CC_THREADS && c->status == DC_PASS; i++)
    if (t[i].ctx.status == DC_FAIL) *c = t[i].ctx;
  /* every live handle of every thread is distinct */
  for (int i = 0; i < CC_THREADS && c->status == DC_PASS; i++)
    for (int w = 0; w < CC_WINDOW && c->status == DC_PASS; w++)
      for (int j = i; j < CC_THREADS && c->status == DC_PASS && t[i].live[w]; j++)
        for (int v = (j == i ? w + 1 : 0); v < CC_WINDOW; v++)
          if (t[j].live[v] == t[i].live[w]) {
            dc_fail(c, __FILE__, __LINE__, "distinct handles", "the same handle twice",
                    "live allocation %d of thread %d and %d of thread %d share handle %p", w, i,
                    v, j, t[i].live[w]);
            break;
          }
  for (int i = 0; i < CC_THREADS; i++)
    for (int w = 0; w < CC_WINDOW; w++)
      if (t[i].live[w]) dh_device_free_data_space(c->dev, t[i].live[w]);
  dh_error_clear();
  if (c->status == DC_PASS) TRY(roundtrip_size(c, 4096, 41));
}

/* free_data_space while queued work still reads the buffer: the queued copy still
 * lands the old bytes and nothing crashes (TVM's CUDA FreeDataSpace frees with
 * cudaFree, which waits for the device; OpenCL's clReleaseMemObject defers the release
 * until the commands using the object are done; IREE queue_dealloca is ordered after
 * the queued work). The source is freed right after a D2D that is queued behind 32 MiB
 * of ballast. */
#define FQ_BIG (8 * DC_MIB)
static void free_queued(dh_conf_ctx_t* c) {
  uint8_t* want = dc_host_alloc(c, FQ_BIG);
  uint8_t* got = want ? dc_host_alloc(c, FQ_BIG) : NULL;
  void *S = NULL, *B = NULL, *D = NULL;
  dh_stream_t s = NULL;
  if (got && (S = dc_dev_alloc(c, FQ_BIG)) && (B = dc_dev_alloc(c, FQ_BIG)) &&
      (D = dc_dev_alloc(c, FQ_BIG)))
    dc_stream_create(c, &s);
  if (D && c->status == DC_PASS) {
    dc_pattern(want, FQ_BIG, 611);
    dc_upload(c, __LINE__, S, 0, want, FQ_BIG);
    for (int i = 0; i < 4 && c->status == DC_PASS; i++)
      dc_copy(c, __LINE__, S, c->dev, 0, B, c->dev, 0, FQ_BIG, s);
    if (c->status == DC_PASS) dc_copy(c, __LINE__, S, c->dev, 0, D, c->dev, 0, FQ_BIG, s);
    if (c->status == DC_PASS) {
      void* victim = S;
      S = NULL;
      if (dh_device_free_data_space(c->dev, victim) != 0)
        dc_fail_call(c, __FILE__, __LINE__, "free_data_space of the source of a queued D2D");
    }
    if (c->status == DC_PASS && dh_device_stream_sync(c->dev, s) != 0)
      dc_fail_call(c, __FILE__, __LINE__, "stream_sync after freeing a queued copy's source");
    if (c->status == DC_PASS) dc_download(c, __LINE__, D, 0, got, FQ_BIG);
    if (c->status == DC_PASS)
      dc_check_bytes(c, __FILE__, __LINE__, "D2D destination whose source was freed while the copy "
                     "was queued", got, want, FQ_BIG, 0);
  }
  if (s) {
    dh_device_stream_sync(c->dev, s);
    dh_device_free_stream(c->dev, s);
  }
  void* d[3] = {S, B, D};
  for (int i = 0; i < 3; i++)
    if (d[i]) dh_device_free_data_space(c->dev, d[i]);
  dh_error_clear();
  free(want);
  free(got);
}

/* free_data_space while queued work still WRITES the buffer: the storage must not go to
 * the next allocation before that write is done (a pool that hands it out at once lets
 * the pending write clobber the new owner's data). Per round: 48 MiB of ballast on a
 * created stream, then a D2D into A behind it; A is freed at once, N of the same size
 * allocated and given a pattern through the default stream (synced); once the stream
 * is done, N must still hold that pattern. Two rounds. On a single-queue device the
 * write is done when the copy returns and the clause passes. */
#define FW_BALLAST 6
typedef struct {
  uint8_t *want, *got;
  void *S, *B, *A, *N;
  dh_stream_t s;
} fw_t;

static void fw_release(dh_conf_ctx_t* c, fw_t* f) {
  if (f->s) {
    dh_device_stream_sync(c->dev, f->s);
    dh_device_free_stream(c->dev, f->s);
  }
  dh_device_stream_sync(c->dev, NULL);
  void* d[4] = {f->S, f->B, f->A, f->N};
  for (int i = 0; i < 4; i++)
    if (d[i]) dh_device_free_data_space(c->dev, d[i]);
  dh_error_clear();
  free(f->want);
  free(f->got);
}

DC_WITH_STATE(free_queued_write, fw_t, f, fw_release) {
  if (!(f->want = dc_host_alloc(c, FQ_BIG)) || !(f->got = dc_host_alloc(c, FQ_BIG))) return;
  if (!(f->S = dc_dev_alloc(c, FQ_BIG)) || !(f->B = dc_dev_alloc(c, FQ_BIG))) return;
  TRY(dc_stream_create(c, &f->s));
  dc_pattern(f->want, FQ_BIG, 613);
  DC_UPLOAD(f->S, 0, f->want, FQ_BIG);
  for (int round = 1; round <= 2; round++) {
    if (!(f->A = dc_dev_alloc(c, FQ_BIG))) return;
    for (int i = 0; i < FW_BALLAST; i++) DC_D2D(f->S, 0, f->B, 0, FQ_BIG, f->s);
    DC_D2D(f->S, 0, f->A, 0, FQ_BIG, f->s);
    void* victim = f->A;
    f->A = NULL;
    if (dh_device_free_data_space(c->dev, victim) != 0) {
      dc_fail_call(c, __FILE__, __LINE__, "free_data_space of the destination of a queued D2D");
      return;
    }
    if (!(f->N = dc_dev_alloc(c, FQ_BIG))) return;
    dc_pattern(f->want, FQ_BIG, 617u + (uint32_t)round);
    DC_UPLOAD(f->N, 0, f->want, FQ_BIG);
    DC_SYNC(f->s);
    DC_DOWNLOAD(f->N, 0, f->got, FQ_BIG);
    CHECK_BYTESF(f->got, f->want, FQ_BIG, 0,
                 "round %d: new allocation written after freeing a buffer a queued D2D still wrote "
                 "(the freed storage went to the new allocation before the write was done?)", round);
    void* n = f->N;
    f->N = NULL;
    CHECK_OK(dh_device_free_data_space(c->dev, n));
    dc_pattern(f->want, FQ_BIG, 613);
  }
}

/* A freed handle is bad input: freeing it again gives an error, never a crash or abort
 * (backend.h: entries never abort on bad input), and another live allocation keeps its
 * bytes. No allocation happens between the two frees, so the freed handle cannot have
 * been handed out again. */
static void double_free(dh_conf_ctx_t* c) {
  void* p = dc_dev_alloc(c, 4096);
  if (!p) return;
  void* q = dc_dev_alloc(c, 4096);
  if (!q) {
    dh_device_free_data_space(c->dev, p);
    return;
  }
  uint8_t want[4096], got[4096];
  dc_pattern(want, sizeof want, 613);
  dc_upload(c, __LINE__, q, 0, want, sizeof want);
  if (c->status == DC_PASS && dh_device_free_data_space(c->dev, p) != 0)
    dc_fail_call(c, __FILE__, __LINE__, "free_data_space (first free)");
  if (c->status == DC_PASS && dh_device_free_data_space(c->dev, p) == 0)
    dc_fail(c, __FILE__, __LINE__, "-1 (an error)", "0 (success)",
            "free_data_space of an already freed handle succeeded");
  dh_error_clear();
  if (c->status == DC_PASS) dc_download(c, __LINE__, q, 0, got, sizeof got);
  dh_device_free_data_space(c->dev, q);
  if (c->status) return;
  CHECK_BYTES("a live allocation after a double free of another handle", got, want, sizeof want, 0);
}

static void stale_handle(dh_conf_ctx_t* c) {
  void* p = dc_dev_alloc(c, 4096);
  if (!p) return;
  CHECK_OK(dh_device_free_data_space(c->dev, p));
  uint8_t buf[64];
  memset(buf, 0, sizeof buf);
  DLTensor a, b;
  int64_t shape[1] = {64};
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  a.data = p;
  a.device = c->dev;
  a.ndim = 1;
  a.shape = shape;
  a.dtype = dc_u8();
  b = a;
  b.data = buf;
  b.device = dc_host();
  int rc = dh_device_copy_data_from_to(&a, &b, NULL);
  if (rc == 0) rc = dh_device_stream_sync(c->dev, NULL);
  if (rc == 0) FAIL("-1 (an error) at the copy or at stream_sync", "0 (success)",
                    "a D2H copy from a freed handle succeeded");
  dh_error_clear();
  TRY(roundtrip_size(c, 4096, 617));
}

const dh_clause_t dc_mem_clauses[] = {
    {"mem.sizes_small", "allocations of 1, 3, 4, 31, 33, 4096, 65537 bytes hold every byte written",
     DC_MUST,
     "TVM docs §DeviceAPI \"Allocate data space\" (device_target_interactions.rst:81-90); IREE "
     "HAL CTS allocator", 0, sizes_small, NULL, DC_PROFILE_TVM},
    {"mem.sizes_large", "allocations of 1 MiB, 1 MiB + 3 and 16 MiB hold every byte written",
     DC_MUST, "TVM docs §DeviceAPI \"Allocate data space\" (device_target_interactions.rst:81-90); "
     "OpenCL-CTS test_buffers", 0, sizes_large, NULL, DC_PROFILE_TVM},
    {"mem.size_64mib", "a 64 MiB allocation holds every byte written", DC_MUST,
     "TVM docs §DeviceAPI \"Allocate data space\" (device_target_interactions.rst:81-90); "
     "OpenCL-CTS test_buffers", 0, size_64mib, NULL, DC_PROFILE_TVM},
    {"mem.zero_bytes", "a zero-byte allocation succeeds and is freeable", DC_MUST,
     "devharness backend.h alloc_data_space (nbytes 0)", 0, zero_bytes, NULL, DC_PROFILE_STRICT},
    {"mem.alignment", "requested alignments 64..4096 are honoured where pointers are addresses",
     DC_MUST, "apache/tvm 0.27 include/tvm/runtime/device_api.h:166-175 AllocDataSpace (alignment)",
     DC_NEED_HOST_PTR, alignment, NULL, DC_PROFILE_TVM},
    {"mem.default_alignment", "every allocation is at least kAllocAlignment (64) aligned", DC_MUST,
     "apache/tvm 0.27 include/tvm/runtime/device_api.h:112-113 kAllocAlignment = 64 (each "
     "allocation)", DC_NEED_HOST_PTR, default_alignment, NULL, DC_PROFILE_TVM},
    {"mem.no_overlap", "32 live allocations never overlap (unique patterns survive)", DC_MUST,
     "TVM docs §DeviceAPI \"Allocate data space\" (device_target_interactions.rst:81-90); IREE "
     "HAL CTS allocator; OpenCL-CTS test_buffers", 0, no_overlap, NULL, DC_PROFILE_TVM},
    {"mem.too_large",
     "an allocation larger than the device fails cleanly and the device still works", DC_MUST,
     "devharness backend.h alloc_data_space; PJRT C API", 0, too_large, NULL, DC_PROFILE_STRICT},
    {"mem.too_large_kind", "an allocation larger than the device fails with OutOfMemoryError",
     DC_SHOULD, "devharness backend.h alloc_data_space", 0, too_large_kind, NULL,
     DC_PROFILE_STRICT},
    {"mem.free_null", "freeing NULL is a no-op", DC_MUST, "devharness backend.h free_data_space", 0,
     free_null, NULL, DC_PROFILE_STRICT},
    {"mem.dtype_hints", "allocation accepts float/int/bfloat type hints with lanes", DC_MUST,
     "apache/tvm 0.27 include/tvm/runtime/device_api.h:170-171 AllocDataSpace (type_hint)", 0,
     dtype_hints, NULL, DC_PROFILE_TVM},
    {"mem.realloc_cycle", "200 alloc/free cycles succeed and the device still works", DC_MUST,
     "TVM docs §DeviceAPI \"Allocate data space\" (device_target_interactions.rst:81-90)", 0,
     realloc_cycle, NULL, DC_PROFILE_TVM},
    {"mem.workspace", "alloc_workspace gives a handle that free_workspace releases", DC_MUST,
     "TVM docs §DeviceAPI \"Allocate work space\" (device_target_interactions.rst:92-98)", 0,
     workspace_roundtrip, NULL, DC_PROFILE_TVM},
    {"mem.workspace_no_growth", "1000 workspace alloc/free pairs do not grow memory use", DC_MUST,
     "devharness backend.h alloc_workspace", 0, workspace_no_growth, NULL, DC_PROFILE_STRICT},
    {"mem.free_queued", "free_data_space of a buffer a queued copy still reads: the copy lands, "
     "nothing crashes", DC_MUST, "devharness backend.h free_data_space; OpenCL 1.2 "
     "clReleaseMemObject (deferred until queued commands finish); IREE HAL CTS "
     "queue_alloca_test dealloca", 0, free_queued, NULL, DC_PROFILE_STRICT},
    {"mem.free_queued_write", "free_data_space of a buffer a queued copy still writes: the next "
     "allocation does not get its storage before the write is done (2 rounds)", DC_MUST,
     "devharness backend.h free_data_space; OpenCL 1.2 clReleaseMemObject (deferred until "
     "queued commands finish); IREE HAL CTS queue_alloca_test dealloca", 0, free_queued_write,
     NULL, DC_PROFILE_STRICT},
    {"mem.double_free", "freeing a freed handle is an error, not a crash, and live data survives",
     DC_MUST, "devharness backend.h (entries never abort on bad input)", DC_NEED_OPAQUE,
     double_free, NULL, DC_PROFILE_STRICT},
    {"mem.stale_handle", "a copy from a freed handle is an error, not a crash; the device still works",
     DC_MUST, "devharness backend.h (entries never abort on bad input)", DC_NEED_OPAQUE,
     stale_handle, NULL, DC_PROFILE_STRICT},
    {"mem.concurrent",
     "alloc/free from 16 threads at once (16 live each, >= 0.9 s) gives distinct handles and keeps "
     "data", DC_MUST, "devharness backend.h threading; level-zero-tests", 0, concurrent, NULL,
     DC_PROFILE_STRICT},
};
const size_t dc_mem_count = sizeof dc_mem_clauses / sizeof dc_mem_clauses[0];
