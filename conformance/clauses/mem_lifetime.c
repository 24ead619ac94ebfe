/* conformance/clauses/mem_lifetime.c — memory clauses on what frees and cycles leave
 * behind: growth over alloc/free cycles, frees while copies are queued, double frees and
 * stale handles, concurrent allocation, sizes and ranges whose arithmetic wraps (TVM
 * DeviceAPI::AllocDataSpace / FreeDataSpace / AllocWorkspace, docs/contract.md §Memory;
 * the family after mem.c's in the catalogue). */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* AddressSanitizer's quarantine keeps freed blocks mapped, so address-space and
 * mapping growth say nothing under it; thread counts and the available-memory check
 * still apply. */
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

/* What create/free cycles can leak, read at one moment: the process's threads
 * (Threads: of /proc/self/status), its mappings (lines of /proc/self/maps), its
 * address space (VmSize, /proc/self/statm) and the device's kAvailableGlobalMemory.
 * -1 where unknown (no /proc, ASan for maps and address space, attribute None). */
typedef struct {
  long long threads, maps, vm, avail;
} footprint_t;

static long long proc_threads(void) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  long long n = -1;
  if (!f) return -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "Threads: %lld", &n) == 1) break;
  fclose(f);
  return n;
}

static long long proc_maps(void) {
  if (DC_ASAN) return -1;
  FILE* f = fopen("/proc/self/maps", "r");
  if (!f) return -1;
  long long n = 0;
  int ch;
  while ((ch = getc(f)) != EOF) n += ch == '\n';
  fclose(f);
  return n;
}

static long long proc_vm(void) {
  if (DC_ASAN) return -1;
  FILE* f = fopen("/proc/self/statm", "r");
  unsigned long long pages = 0;
  if (!f) return -1;
  int got = fscanf(f, "%llu", &pages);
  fclose(f);
  return got == 1 ? (long long)pages * 4096 : -1;
}

static void footprint(DLDevice dev, footprint_t* f) {
  dh_any_t a = dh_any_none();
  f->threads = proc_threads();
  f->maps = proc_maps();
  f->vm = proc_vm();
  f->avail = dh_device_get_attr(dev, DH_ATTR_AVAILABLE_GLOBAL_MEMORY, &a) == 0 && a.type_index == DH_TYPE_INT
                 ? a.v_int64 : -1;
  dh_error_clear();
}

/* One create/free cycle of what a clause cycles (i: its number, negative while warming
 * up; arg: the clause's cycles_t.arg); 0, or -1 after recording the failed call into c. */
typedef int (*cycle_fn)(dh_conf_ctx_t* c, int i, void* arg);

/* A leak check by cycles: `what` names the cycles ("workspace alloc/free pairs of
 * 262144 bytes"); `n` cycles after `warmup` unmeasured ones; `bytes`: the smallest leak
 * per cycle it must see in the address space (and in kAvailableGlobalMemory when
 * `avail` is set). */
typedef struct {
  const char* what;
  cycle_fn cycle;
  void* arg;
  int warmup, n;
  long long bytes;
  int avail;
} cycles_t;

static const char* const k_measure[4] = {"thread count", "mapping count", "address space (bytes)",
                                         "drop of kAvailableGlobalMemory (bytes)"};

/* Runs spec's cycles in two halves and fails when one measure grew past its limit in
 * both. A leak grows in every half; a one-off reservation (a malloc arena of 64 MiB,
 * a thread pool a driver starts lazily, a pool it grows once) shows in one half only,
 * so a busy machine, where other threads make glibc reserve arenas at any time, does
 * not fail the clause. Limits per half of h cycles: h/4 threads, h/4 mappings,
 * h*bytes/4 bytes of address space and of available memory: a leak of one thread, one
 * mapping or `bytes` per cycle grows 4 times past them. */
static void cycles_no_growth(dh_conf_ctx_t* c, const cycles_t* spec) {
  for (int i = 0; i < spec->warmup; i++)
    if (spec->cycle(c, -1 - i, spec->arg) != 0) return;
  int h = spec->n / 2;
  long long grow[2][4];
  for (int half = 0; half < 2; half++) {
    footprint_t a, b;
    footprint(c->dev, &a);
    for (int i = half * h; i < (half + 1) * h; i++)
      if (spec->cycle(c, i, spec->arg) != 0) return;
    footprint(c->dev, &b);
    long long was[4] = {a.threads, a.maps, a.vm, b.avail}, now[4] = {b.threads, b.maps, b.vm, a.avail};
    for (int m = 0; m < 4; m++) grow[half][m] = was[m] >= 0 && now[m] >= 0 ? now[m] - was[m] : 0;
  }
  long long limit[4] = {h / 4, h / 4, (long long)h * spec->bytes / 4, (long long)h * spec->bytes / 4};
  for (int m = 0; m < 4; m++) {
    if (m == 3 && !spec->avail) continue;
    if (grow[0][m] > limit[m] && grow[1][m] > limit[m]) {
      char e[64], g[96];
      snprintf(e, sizeof e, "growth <= %lld in a half", limit[m]);
      snprintf(g, sizeof g, "grew %lld and %lld", grow[0][m], grow[1][m]);
      FAIL(e, g, "%s grew in both halves of %d %s", k_measure[m], spec->n, spec->what);
    }
  }
}

#define WS_SIZE (256 * 1024)
#define WS_ITERS 1000

static int ws_cycle(dh_conf_ctx_t* c, int i, void* arg) {
  (void)arg;
  void* w = NULL;
  if (dh_device_alloc_workspace(c->dev, WS_SIZE, dc_u8(), &w) == 0 && dh_device_free_workspace(c->dev, w) == 0)
    return 0;
  char call[96];
  snprintf(call, sizeof call, "workspace alloc/free of %d bytes in cycle %d", WS_SIZE, i);
  dc_fail_call(c, __FILE__, __LINE__, call);
  return -1;
}

static int alloc_cycle(dh_conf_ctx_t* c, int i, void* arg) {
  (void)arg;
  void* p = NULL;
  if (dh_device_alloc_data_space(c->dev, WS_SIZE, 0, dc_u8(), &p) == 0 && dh_device_free_data_space(c->dev, p) == 0)
    return 0;
  char call[96];
  snprintf(call, sizeof call, "alloc/free_data_space of %d bytes in cycle %d", WS_SIZE, i);
  dc_fail_call(c, __FILE__, __LINE__, call);
  return -1;
}

/* create_stream, 64 bytes H2D queued on it into arg (a 64-byte allocation; lazy
 * per-stream resources come to life), stream_sync, free_stream. */
static int stream_cycle(dh_conf_ctx_t* c, int i, void* arg) {
  dh_stream_t s = NULL;
  uint8_t src[64];
  memset(src, i & 0xff, sizeof src);
  const char* call = "create_stream";
  if (dh_device_create_stream(c->dev, &s) == 0) {
    call = "64-byte H2D on the new stream";
    DLTensor from, to;
    int64_t from_shape[1], to_shape[1];
    dh_tensor_init_bytes(&from, src, dc_host(), 0, sizeof src, from_shape);
    dh_tensor_init_bytes(&to, arg, c->dev, 0, sizeof src, to_shape);
    int rc = dh_device_copy_data_from_to(&from, &to, s);
    if (rc == 0) call = "stream_sync of the new stream";
    if (rc == 0) rc = dh_device_stream_sync(c->dev, s);
    if (rc == 0) call = "free_stream";
    if (dh_device_free_stream(c->dev, s) == 0 && rc == 0) return 0;
  }
  char what[96];
  snprintf(what, sizeof what, "%s in cycle %d", call, i);
  dc_fail_call(c, __FILE__, __LINE__, what);
  return -1;
}

/* Workspace alloc/free pairs leave no growth behind: not in kAvailableGlobalMemory, not
 * in the process (address space, mappings, threads). */
static void workspace_no_growth(dh_conf_ctx_t* c) {
  cycles_t ws = {"workspace alloc/free pairs of 262144 bytes", ws_cycle, NULL, 1, WS_ITERS, WS_SIZE, 1};
  cycles_no_growth(c, &ws);
}

/* Create/free cycles of streams, allocations and workspaces leak no thread, mapping or
 * address space (the sharp symptom of a stream whose worker thread is never joined: 8
 * MiB of stack per stream). 8 warm-up cycles first: drivers start thread pools and
 * caches lazily (PoCL's per-queue threads, lavapipe's). */
static void cycles_no_leak(dh_conf_ctx_t* c) {
  void* buf = dc_dev_alloc(c, 64);
  if (!buf) return;
  const cycles_t kinds[3] = {
      {"stream create/use/free cycles", stream_cycle, buf, 8, 200, 4 * (long long)DC_MIB, 0},
      {"alloc/free_data_space pairs of 262144 bytes", alloc_cycle, NULL, 8, 1000, WS_SIZE, 0},
      {"workspace alloc/free pairs of 262144 bytes", ws_cycle, NULL, 8, 1000, WS_SIZE, 0},
  };
  for (int k = 0; k < 3 && c->status == DC_PASS; k++) cycles_no_growth(c, &kinds[k]);
  dh_device_free_data_space(c->dev, buf);
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
/* A slow allocator stops after CC_MAX_MS of steps, going straight to its last window:
 * NVIDIA's Vulkan driver on an H200 took over 10 s (the case timeout) for the 32000
 * allocations of 16 threads x CC_STEPS, the threads still overlapping all along. */
#define CC_MAX_MS 3000.0
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
    if (i >= 2 * CC_WINDOW && i < CC_STEPS - CC_WINDOW && dc_now_ms() - t0 > CC_MAX_MS) i = CC_STEPS - CC_WINDOW;
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
  pthread_barrier_t start;
  memset(t, 0, sizeof t);
  CHECK(pthread_barrier_init(&start, NULL, CC_THREADS) == 0, "pthread_barrier_init failed");
  for (int i = 0; i < CC_THREADS; i++) {
    t[i].ctx = *c;
    t[i].index = i;
    t[i].start = &start;
  }
  if (dc_run_threads(c, CC_THREADS, alloc_thread, t, sizeof t[0], "mem.concurrent") != 0) return;
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
  if (c->status == DC_PASS) TRY(dc_roundtrip_size(c, 4096, 41));
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
 * the pending write clobber the new owner's data). Per round: ballast D2D copies on a
 * created stream, then a D2D into A behind it; A is freed at once, N of the same size
 * allocated and given a pattern through the default stream (synced); once the stream
 * is done, N must still hold that pattern. Four rounds, the ballast doubling from
 * 6 x 8 MiB to 48 x 8 MiB, so that the write is still queued when N is written even
 * where the host side is slow (a sanitizer build on a busy machine finished 6 copies
 * first). On a single-queue device the write is done when the copy returns and the
 * clause passes. */
#define FW_BALLAST 6
#define FW_ROUNDS 4
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
  for (int round = 1; round <= FW_ROUNDS; round++) {
    if (!(f->A = dc_dev_alloc(c, FQ_BIG))) return;
    for (int i = 0; i < FW_BALLAST << (round - 1); i++) DC_D2D(f->S, 0, f->B, 0, FQ_BIG, f->s);
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
  TRY(dc_roundtrip_size(c, 4096, 617));
}

/* Sizes whose arithmetic wraps: SIZE_MAX itself, SIZE_MAX - 63 (rounding up to the
 * 64-byte kAllocAlignment wraps to 0), SIZE_MAX - 4095 with alignment 4096 (rounding to
 * a page wraps), and SIZE_MAX / 2 + 1 with a float32x4 hint (16-byte elements: an
 * element count times 16, or a doubling for a staging copy, wraps). Each must fail with
 * OutOfMemoryError, never succeed behind a block of the wrapped size; the device keeps
 * working. */
static void size_overflow(dh_conf_ctx_t* c) {
  const struct {
    size_t n, align;
    DLDataType hint;
  } cases[] = {
      {SIZE_MAX, 0, {kDLUInt, 8, 1}},
      {SIZE_MAX - 63, 64, {kDLUInt, 8, 1}},
      {SIZE_MAX - 4095, 4096, {kDLUInt, 8, 1}},
      {SIZE_MAX / 2 + 1, 0, {kDLFloat, 32, 4}},
      {SIZE_MAX - 15, 0, {kDLFloat, 32, 4}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    void* p = NULL;
    int rc = dh_device_alloc_data_space(c->dev, cases[i].n, cases[i].align, cases[i].hint, &p);
    if (rc == 0) dh_device_free_data_space(c->dev, p);
    char call[128];
    snprintf(call, sizeof call, "alloc_data_space(%zu bytes, alignment %zu, %u-bit x%u hint)", cases[i].n,
             cases[i].align, cases[i].hint.bits, cases[i].hint.lanes);
    if (!dc_expect_error(c, __FILE__, __LINE__, call, rc, DH_KIND_OUT_OF_MEMORY_ERROR)) return;
  }
  dh_error_clear();
  TRY(dc_roundtrip_size(c, 4096, 619));
}

/* A copy from `from` to `to` that must be refused (what: "D2H from", ...; off: the
 * out-of-range device byte_offset); records a failure when it is accepted, at the call
 * or at stream_sync. */
static void refused_copy(dh_conf_ctx_t* c, const char* what, const DLTensor* from, const DLTensor* to, uint64_t off) {
  int rc = dh_device_copy_data_from_to(from, to, NULL);
  if (rc == 0) rc = dh_device_stream_sync(c->dev, NULL);
  dh_error_clear();
  if (rc == 0)
    dc_fail(c, __FILE__, __LINE__, "-1 (an error) at the copy or at stream_sync", "0 (success)",
            "%s device byte_offset %" PRIu64 " of a 4096-byte allocation (64 bytes) succeeded", what, off);
}

/* Copies outside a 4096-byte allocation are refused with an error, never done on
 * wrapped addresses: device byte_offset 2^40, and byte_offset SIZE_MAX - 15 with 64
 * bytes, whose offset + size wraps past SIZE_MAX to inside the allocation (a check
 * written `offset + nbytes > size` passes it); D2H, H2D and D2D both ways. Reads come
 * first, so a backend that does the wrapped copy reads before it writes. The allocation
 * keeps its bytes and the device keeps working. The core passes byte_offset to the
 * backend unchecked (runtime/device_api.c dh_device_copy_data_from_to), so this is the
 * backend's check; a copy whose byte size (shape x dtype, lanes included) overflows is
 * refused by the core before any backend (runtime/tensor.c dh_tensor_nbytes), so no
 * clause can test a backend on it. Opaque handles only: a host-pointer backend (TVM's CPU) has no
 * allocation size to check against. */
static void range_overflow(dh_conf_ctx_t* c) {
  uint8_t want[4096], got[4096], host[64];
  void* p = dc_dev_alloc(c, sizeof want);
  void* q = p ? dc_dev_alloc(c, 64) : NULL;
  if (q) {
    dc_pattern(want, sizeof want, 623);
    dc_upload(c, __LINE__, p, 0, want, sizeof want);
  }
  memset(host, 0x5a, sizeof host);
  const uint64_t offs[2] = {(uint64_t)SIZE_MAX - 15, (uint64_t)1 << 40};
  /* out: p at the bad offset; h: host bytes; o: the other allocation at 0 */
  DLTensor out, h, o;
  int64_t s1[1], s2[1], s3[1];
  dh_tensor_init_bytes(&h, host, dc_host(), 0, sizeof host, s2);
  dh_tensor_init_bytes(&o, q, c->dev, 0, sizeof host, s3);
  for (int i = 0; i < 2 && c->status == DC_PASS; i++) {
    dh_tensor_init_bytes(&out, p, c->dev, offs[i], sizeof host, s1);
    refused_copy(c, "D2H from", &out, &h, offs[i]);
    if (c->status == DC_PASS) refused_copy(c, "D2D from", &out, &o, offs[i]);
  }
  for (int i = 0; i < 2 && c->status == DC_PASS; i++) {
    dh_tensor_init_bytes(&out, p, c->dev, offs[i], sizeof host, s1);
    refused_copy(c, "H2D to", &h, &out, offs[i]);
    if (c->status == DC_PASS) refused_copy(c, "D2D to", &o, &out, offs[i]);
  }
  if (c->status == DC_PASS) dc_download(c, __LINE__, p, 0, got, sizeof got);
  if (p) dh_device_free_data_space(c->dev, p);
  if (q) dh_device_free_data_space(c->dev, q);
  if (c->status) return;
  CHECK_BYTES("the allocation after refused out-of-range copies", got, want, sizeof got, 0);
  TRY(dc_roundtrip_size(c, 4096, 627));
}

const dh_clause_t dc_mem_lifetime_clauses[] = {
    {"mem.workspace_no_growth", "1000 workspace alloc/free pairs do not grow memory use", DC_MUST,
     "devharness backend.h alloc_workspace", DC_RUN_ALONE, workspace_no_growth, NULL, DC_PROFILE_STRICT},
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
     "data", DC_MUST, "devharness backend.h threading; level-zero-tests", DC_RUN_ALONE, concurrent, NULL,
     DC_PROFILE_STRICT},
    {"mem.size_overflow", "sizes whose arithmetic wraps (SIZE_MAX, SIZE_MAX - 63, SIZE_MAX - 4095 "
     "aligned 4096, 2^63 as float32x4) fail with OutOfMemoryError", DC_MUST,
     "devharness backend.h alloc_data_space (too large -> OutOfMemoryError)", 0, size_overflow, NULL,
     DC_PROFILE_STRICT},
    {"mem.range_overflow", "copies at device byte_offset 2^40 or whose offset + size wraps past "
     "SIZE_MAX are refused; the allocation keeps its bytes", DC_MUST,
     "devharness backend.h copy_data_from_to (entries never abort on bad input)", DC_NEED_OPAQUE,
     range_overflow, NULL, DC_PROFILE_STRICT},
    {"mem.cycles_no_leak", "create/free cycles of streams (200), allocations and workspaces (1000 "
     "each) leak no thread, mapping or address space", DC_MUST,
     "devharness backend.h create_stream/free_stream, free_data_space, free_workspace",
     DC_RUN_ALONE, cycles_no_leak, NULL, DC_PROFILE_STRICT},
};
const size_t dc_mem_lifetime_count = sizeof dc_mem_lifetime_clauses / sizeof dc_mem_lifetime_clauses[0];
