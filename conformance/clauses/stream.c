/* conformance/clauses/stream.c — stream clauses (TVM DeviceAPI::CreateStream / StreamSync /
 * SyncStreamFromTo / SetStream, docs/contract.md §Streams). What else a backend could get
 * wrong here: docs/contract.md "What else a backend could get wrong: streams". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stream.h"


static void create_free(dh_conf_ctx_t* c) {
  dh_stream_t s = (dh_stream_t)0x1;
  CHECK_OK(dh_device_create_stream(c->dev, &s));
  CHECK_OK(dh_device_free_stream(c->dev, s));
}

static void create_free_many(dh_conf_ctx_t* c) {
  dh_stream_t s[64];
  memset(s, 0, sizeof s);
  int n = 0;
  for (; n < 64; n++) {
    if (dh_device_create_stream(c->dev, &s[n]) != 0) {
      char call[64];
      snprintf(call, sizeof call, "create_stream (#%d of 64)", n + 1);
      dc_fail_call(c, __FILE__, __LINE__, call);
      break;
    }
    for (int j = 0; j < n; j++)
      if (s[n] && s[j] == s[n]) {
        dc_fail(c, __FILE__, __LINE__, "a new handle", "a live stream's handle",
                "create_stream #%d returned the handle of live stream #%d", n + 1, j + 1);
        break;
      }
    if (c->status) break;
  }
  for (int j = n - 1; j >= 0; j--)
    if (dh_device_free_stream(c->dev, s[j]) != 0 && !c->status)
      dc_fail_call(c, __FILE__, __LINE__, "free_stream");
}

static void free_null(dh_conf_ctx_t* c) { CHECK_OK(dh_device_free_stream(c->dev, NULL)); }

static void null_stream(dh_conf_ctx_t* c) {
  size_t n = 4096;
  uint8_t* a = dc_host_alloc(c, n);
  uint8_t* b = dc_host_alloc(c, n);
  void* d = (a && b) ? dc_dev_alloc(c, n) : NULL;
  if (d) {
    dc_pattern(a, n, 71);
    if (dh_device_set_stream(c->dev, NULL) != 0) dc_fail_call(c, __FILE__, __LINE__, "set_stream(NULL)");
    if (!c->status) dc_upload(c, __LINE__, d, 0, a, n);
    if (!c->status) dc_download(c, __LINE__, d, 0, b, n);
    if (!c->status) dc_check_bytes(c, __FILE__, __LINE__, "round trip on the NULL stream", b, a, n, 0);
    if (!c->status && dh_device_sync_stream_from_to(c->dev, NULL, NULL) != 0)
      dc_fail_call(c, __FILE__, __LINE__, "sync_stream_from_to(NULL, NULL)");
    dh_device_free_data_space(c->dev, d);
  }
  free(a);
  free(b);
}

void dc_big_free(dh_conf_ctx_t* c, big_t* b) {
  /* wait for everything before freeing host buffers a backend may still write; both
   * ways (through the default stream and directly), so one broken primitive cannot
   * turn this clause's failure into a use-after-free */
  dh_stream_t ss[2] = {b->s1, b->s2};
  for (int i = 0; i < 2; i++)
    if (ss[i]) {
      dh_device_sync_stream_from_to(c->dev, ss[i], NULL);
      dh_device_stream_sync(c->dev, NULL);
      dh_device_stream_sync(c->dev, ss[i]);
    }
  dh_device_stream_sync(c->dev, NULL);
  dh_error_clear();
  free(b->old);
  free(b->neu);
  free(b->out);
  void* d[3] = {b->A, b->C, b->D};
  for (int i = 0; i < 3; i++)
    if (d[i]) dh_device_free_data_space(c->dev, d[i]);
  if (b->s1) dh_device_free_stream(c->dev, b->s1);
  if (b->s2) dh_device_free_stream(c->dev, b->s2);
}

/* A = old pattern; C = new pattern (both via the NULL stream, synced); then the
 * streams: s1, and s2 when two. */
void dc_big_setup(dh_conf_ctx_t* c, big_t* b, int streams) {
  if (!(b->old = dc_host_alloc(c, BIG)) || !(b->neu = dc_host_alloc(c, BIG)) ||
      !(b->out = dc_host_alloc(c, BIG)))
    return;
  if (!(b->A = dc_dev_alloc(c, BIG)) || !(b->C = dc_dev_alloc(c, BIG)) || !(b->D = dc_dev_alloc(c, BIG)))
    return;
  dc_pattern(b->old, BIG, 1);
  dc_pattern(b->neu, BIG, 2);
  dc_sentinel(b->out, BIG);
  TRY(dc_upload(c, __LINE__, b->A, 0, b->old, BIG));
  TRY(dc_upload(c, __LINE__, b->C, 0, b->neu, BIG));
  TRY(dc_stream_create(c, &b->s1));
  if (streams == 2) TRY(dc_stream_create(c, &b->s2));
}

/* Queues on s: a chain of D2D copies C->D->C... then D->A, so A gets the new pattern
 * only after several 16 MiB transfers. */
void dc_big_chain(dh_conf_ctx_t* c, big_t* b, dh_stream_t s) {
  for (int i = 0; i < 5; i++) {
    TRY(dc_copy(c, __LINE__, b->C, c->dev, 0, b->D, c->dev, 0, BIG, s));
    TRY(dc_copy(c, __LINE__, b->D, c->dev, 0, b->C, c->dev, 0, BIG, s));
  }
  TRY(dc_copy(c, __LINE__, b->C, c->dev, 0, b->A, c->dev, 0, BIG, s));
}

/* Queues on s the D2H of A into b->out. */
void dc_big_read_A(dh_conf_ctx_t* c, big_t* b, dh_stream_t s) {
  TRY(dc_copy(c, __LINE__, b->A, c->dev, 0, b->out, dc_host(), 0, BIG, s));
}

DC_WITH_STATE(in_order, big_t, b, dc_big_free) {
  TRY(dc_big_setup(c, b, 1));
  dh_stream_t s = b->s1;
  /* on one stream: A <- new (after a chain), then A -> host; the D2H must see new */
  TRY(dc_big_chain(c, b, s));
  TRY(dc_big_read_A(c, b, s));
  /* wait through the default stream so this clause does not depend on stream_sync(s) */
  if (s) {
    CHECK_OK(dh_device_sync_stream_from_to(c->dev, s, NULL));
  }
  DC_SYNC(NULL);
  if (s) DC_SYNC(s);
  CHECK_BYTES("host copy of A read after the chain that writes A on the same stream", b->out,
              b->neu, BIG, 0);
}

DC_WITH_STATE(sync_waits, big_t, b, dc_big_free) {
  TRY(dc_big_setup(c, b, 1));
  dh_stream_t s = b->s1;
  TRY(dc_big_chain(c, b, s));
  TRY(dc_big_read_A(c, b, s));
  CHECK_OK(dh_device_stream_sync(c->dev, s));
  CHECK_BYTES("host buffer right after stream_sync (D2H of 16 MiB queued behind 11 D2D copies)",
              b->out, b->neu, BIG, 0);
}

DC_WITH_STATE(sync_from_to, big_t, b, dc_big_free) {
  TRY(dc_big_setup(c, b, 2));
  if (!b->s1 || !b->s2) SKIP("single queue: create_stream returns NULL");
  /* src (s1): long chain ending in A <- new; dst (s2): waits, then A -> host */
  TRY(dc_big_chain(c, b, b->s1));
  CHECK_OK(dh_device_sync_stream_from_to(c->dev, b->s1, b->s2));
  TRY(dc_big_read_A(c, b, b->s2));
  /* wait for s2 through the default stream, not through stream_sync(s2) */
  CHECK_OK(dh_device_sync_stream_from_to(c->dev, b->s2, NULL));
  DC_SYNC(NULL);
  DC_SYNC(b->s2);
  CHECK_BYTES("D2H of A queued on dst after sync_stream_from_to(src, dst) (src writes A)", b->out,
              b->neu, BIG, 0);
}

/* sync_stream_from_to with the default stream (NULL) on either side orders as with two
 * created streams: NULL is a stream like any other (TVM docs "Create stream": a
 * single-queue device's only stream is nullptr; TVM CUDA SyncStreamFromTo records on
 * src and waits on dst whatever they are). A backend that reads NULL as "nothing to
 * order" leaves dst running ahead. Only dst is waited for. */
DC_WITH_STATE(sync_from_to_default, big_t, b, dc_big_free) {
  TRY(dc_big_setup(c, b, 1));
  if (!b->s1) SKIP("single queue: create_stream returns NULL");
  /* src = s, dst = default: the chain on s writes A; the default stream reads A */
  TRY(dc_big_chain(c, b, b->s1));
  CHECK_OK(dh_device_sync_stream_from_to(c->dev, b->s1, NULL));
  TRY(dc_big_read_A(c, b, NULL));
  DC_SYNC(NULL);
  CHECK_BYTES("D2H of A on the default stream after sync_stream_from_to(s, NULL) (s writes A), "
              "only the default stream synced", b->out, b->neu, BIG, 0);
  DC_SYNC(b->s1);
  /* src = default, dst = s: A back to the old pattern, the chain on the default stream
   * writes A again; s reads A */
  DC_UPLOAD(b->A, 0, b->old, BIG);
  dc_sentinel(b->out, BIG);
  TRY(dc_big_chain(c, b, NULL));
  CHECK_OK(dh_device_sync_stream_from_to(c->dev, NULL, b->s1));
  TRY(dc_big_read_A(c, b, b->s1));
  DC_SYNC(b->s1);
  CHECK_BYTES("D2H of A on s after sync_stream_from_to(NULL, s) (the default stream writes A), "
              "only s synced", b->out, b->neu, BIG, 0);
}

static void sync_from_to_same(dh_conf_ctx_t* c) {
  void* d = dc_dev_alloc(c, 64);
  if (!d) return;
  dh_stream_t s = NULL;
  dc_stream_create(c, &s);
  if (!c->status && dh_device_sync_stream_from_to(c->dev, s, s) != 0)
    dc_fail_call(c, __FILE__, __LINE__, "sync_stream_from_to(s, s)");
  if (!c->status && dh_device_sync_stream_from_to(c->dev, NULL, NULL) != 0)
    dc_fail_call(c, __FILE__, __LINE__, "sync_stream_from_to(NULL, NULL)");
  if (!c->status && dh_device_stream_sync(c->dev, s) != 0)
    dc_fail_call(c, __FILE__, __LINE__, "stream_sync after sync_stream_from_to(s, s)");
  dh_device_free_stream(c->dev, s);
  dh_device_free_data_space(c->dev, d);
}

static void sync_idle(dh_conf_ctx_t* c) {
  /* first thing in the case: no work has been queued anywhere */
  dh_stream_t s = NULL;
  TRY(dc_stream_create(c, &s));
  double t0 = dc_now_ms();
  CHECK_OK(dh_device_stream_sync(c->dev, NULL));
  if (s) CHECK_OK(dh_device_stream_sync(c->dev, s));
  CHECK_OK(dh_device_stream_sync(c->dev, NULL));
  double ms = dc_now_ms() - t0;
  dh_device_free_stream(c->dev, s);
  if (ms > 1000) {
    char g[64];
    snprintf(g, sizeof g, "%.0f ms", ms);
    FAIL("< 1000 ms", g, "stream_sync on idle streams took too long");
  }
}

static void get_default(dh_conf_ctx_t* c) {
  dh_stream_t s = (dh_stream_t)0x1;
  CHECK_OK(dh_device_get_current_stream(c->dev, &s));
  CHECK(s == NULL, "a thread that never set a stream got %p, not NULL", s);
}

static void set_get(dh_conf_ctx_t* c) {
  dh_stream_t s = NULL, g = NULL;
  TRY(dc_stream_create(c, &s));
  if (dh_device_set_stream(c->dev, s) != 0) {
    dc_fail_call(c, __FILE__, __LINE__, "set_stream");
  } else if (dh_device_get_current_stream(c->dev, &g) != 0) {
    dc_fail_call(c, __FILE__, __LINE__, "get_current_stream");
  } else if (g != s) {
    char e[32], gg[32];
    snprintf(e, sizeof e, "%p", s);
    snprintf(gg, sizeof gg, "%p", g);
    dc_fail(c, __FILE__, __LINE__, e, gg, "get_current_stream after set_stream");
  }
  dh_device_set_stream(c->dev, NULL);
  dh_device_free_stream(c->dev, s);
}

/* Creates a stream and makes it this thread's current stream on c->dev; skips on a
 * single-queue device (create_stream returns NULL). */
static void create_and_set(dh_conf_ctx_t* c, dh_stream_t* out) {
  dh_stream_t s = NULL;
  TRY(dc_stream_create(c, &s));
  if (!s) {
    dh_device_free_stream(c->dev, s);
    SKIP("single queue: create_stream returns NULL");
  }
  *out = s;
  CHECK_OK(dh_device_set_stream(c->dev, s));
}

struct other {
  DLDevice dev;
  dh_stream_t got;
  int rc;
};
static void* other_thread(void* arg) {
  struct other* o = arg;
  o->got = (dh_stream_t)0x1;
  o->rc = dh_device_get_current_stream(o->dev, &o->got);
  return NULL;
}

static void per_thread(dh_conf_ctx_t* c) {
  dh_stream_t s = NULL;
  TRY(create_and_set(c, &s));
  struct other o = {c->dev, NULL, 0};
  pthread_t th;
  CHECK(pthread_create(&th, NULL, other_thread, &o) == 0, "pthread_create failed");
  pthread_join(th, NULL);
  dh_device_set_stream(c->dev, NULL);
  dh_device_free_stream(c->dev, s);
  CHECK_EQ_INT(o.rc, 0, "get_current_stream on another thread");
  CHECK(o.got == NULL, "another thread sees %p as its current stream after this thread set %p",
        o.got, s);
}

static void per_device(dh_conf_ctx_t* c) {
  DLDevice other = {c->dev.device_type, c->dev.device_id == 0 ? 1 : 0};
  dh_stream_t s = NULL, g = (dh_stream_t)0x1;
  TRY(create_and_set(c, &s));
  int rc = dh_device_get_current_stream(other, &g);
  dh_device_set_stream(c->dev, NULL);
  dh_device_free_stream(c->dev, s);
  CHECK_EQ_INT(rc, 0, "get_current_stream on device id %d", other.device_id);
  CHECK(g == NULL, "device id %d sees %p as current stream after device %d set %p",
        other.device_id, g, c->dev.device_id, s);
}

/* free_stream with queued work. One queued copy is usually taken by the stream's
 * worker before the free, so a backend that drops queued work on free would be caught
 * only on some runs. Here each round queues 32 MiB of ballast (4 D2D copies of 8 MiB)
 * and behind it 16 copies of 512 KiB into distinct ranges, then frees the stream at
 * once: the payload is still queued at the free unless the device finished 40 MiB of
 * copies before the next host instruction, and any dropped copy leaves a range
 * unwritten. Three rounds; the data is polled through the default stream for up to
 * 1.5 s per round. */
#define FP_BIG (8 * DC_MIB)
#define FP_CHUNKS 16
#define FP_CHUNK (FP_BIG / FP_CHUNKS)
#define FP_ROUNDS 3
typedef struct {
  uint8_t *want, *got;
  void *S, *B, *D;
  dh_stream_t s;
} fp_t;

static void free_pending_round(dh_conf_ctx_t* c, fp_t* f, int round) {
  dc_sentinel(f->got, FP_BIG);
  TRY(dc_upload(c, __LINE__, f->D, 0, f->got, FP_BIG));
  TRY(dc_stream_create(c, &f->s));
  for (int i = 0; i < 4; i++) TRY(dc_copy(c, __LINE__, f->S, c->dev, 0, f->B, c->dev, 0, FP_BIG, f->s));
  for (int i = 0; i < FP_CHUNKS; i++) {
    size_t off = (size_t)i * FP_CHUNK;
    TRY(dc_copy(c, __LINE__, f->S, c->dev, off, f->D, c->dev, off, FP_CHUNK, f->s));
  }
  dh_stream_t s = f->s;
  f->s = NULL;
  if (dh_device_free_stream(c->dev, s) != 0) {
    dc_fail_call(c, __FILE__, __LINE__, "free_stream with 20 queued copies");
    return;
  }
  double t0 = dc_now_ms();
  for (;;) {
    TRY(dc_download(c, __LINE__, f->D, 0, f->got, FP_BIG));
    if (memcmp(f->want, f->got, FP_BIG) == 0) return;
    if (dc_now_ms() - t0 > 1500) {
      char what[128];
      snprintf(what, sizeof what, "round %d: device data 1.5 s after free_stream with 16 queued "
               "D2D copies of 512 KiB", round + 1);
      CHECK_BYTES(what, f->got, f->want, FP_BIG, 0);
      return;
    }
    struct timespec ts = {0, 5000000};
    nanosleep(&ts, NULL);
  }
}

static void free_pending(dh_conf_ctx_t* c) {
  fp_t f;
  memset(&f, 0, sizeof f);
  if ((f.want = dc_host_alloc(c, FP_BIG)) && (f.got = dc_host_alloc(c, FP_BIG)) &&
      (f.S = dc_dev_alloc(c, FP_BIG)) && (f.B = dc_dev_alloc(c, FP_BIG)) &&
      (f.D = dc_dev_alloc(c, FP_BIG))) {
    dc_pattern(f.want, FP_BIG, 73);
    dc_upload(c, __LINE__, f.S, 0, f.want, FP_BIG);
    for (int r = 0; r < FP_ROUNDS && c->status == DC_PASS; r++) free_pending_round(c, &f, r);
  }
  if (f.s) dh_device_free_stream(c->dev, f.s);
  dh_device_stream_sync(c->dev, NULL);
  dh_error_clear();
  void* d[3] = {f.S, f.B, f.D};
  for (int i = 0; i < 3; i++)
    if (d[i]) dh_device_free_data_space(c->dev, d[i]);
  free(f.want);
  free(f.got);
}

struct mt {
  dh_conf_ctx_t ctx;
  int i;
};
static void* stream_thread(void* arg) {
  struct mt* m = arg;
  dh_conf_ctx_t* c = &m->ctx;
  size_t n = 65536 + (size_t)m->i;
  uint8_t* a = dc_host_alloc(c, n);
  uint8_t* b = dc_host_alloc(c, n);
  void* d = (a && b) ? dc_dev_alloc(c, n) : NULL;
  dh_stream_t s = NULL;
  if (d) dc_stream_create(c, &s);
  for (int r = 0; r < 10 && d && !c->status; r++) {
    dc_pattern(a, n, 200u + (uint32_t)(m->i * 10 + r));
    dc_copy(c, __LINE__, a, dc_host(), 0, d, c->dev, 0, n, s);
    if (!c->status) dc_copy(c, __LINE__, d, c->dev, 0, b, dc_host(), 0, n, s);
    if (!c->status && dh_device_stream_sync(c->dev, s) != 0)
      dc_fail_call(c, __FILE__, __LINE__, "stream_sync (thread)");
    if (!c->status) dc_check_bytes(c, __FILE__, __LINE__, "round trip on a per-thread stream", b, a, n, 0);
  }
  if (d) {
    dh_device_free_stream(c->dev, s);
    dh_device_free_data_space(c->dev, d);
  }
  free(a);
  free(b);
  return NULL;
}

static void threads(dh_conf_ctx_t* c) {
  struct mt m[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    m[i].ctx = *c;
    m[i].i = i;
    CHECK(pthread_create(&th[i], NULL, stream_thread, &m[i]) == 0, "pthread_create failed");
  }
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < 4; i++)
    if (m[i].ctx.status == DC_FAIL) {
      *c = m[i].ctx;
      return;
    }
}

/* The backend's optional module function "trap" (devharness backend.h DH_FUNC_TRAP). */
int dc_has_trap(const dh_backend_t* b) {
  for (size_t i = 0; i < b->num_functions; i++)
    if (b->functions != NULL && strcmp(b->functions[i].name, DH_FUNC_TRAP) == 0) return 1;
  return 0;
}

/* Waits until the work queued on s so far has run, without syncing s: two events
 * recorded on s and event_elapsed_ms (which waits for both, event.elapsed_waits);
 * without event timing, 200 ms of sleep. */
static void drain_without_sync(dh_conf_ctx_t* c, dh_stream_t s) {
  const dh_backend_t* b = c->backend;
  dh_event_t e[2] = {NULL, NULL};
  int ok = (dh_device_caps(b) & DH_CAP_EVENT_TIMING) && b->event_create && b->event_record && b->event_elapsed_ms &&
           b->event_free && dh_device_event_create(c->dev, &e[0]) == 0 && dh_device_event_create(c->dev, &e[1]) == 0 &&
           dh_device_event_record(c->dev, e[0], s) == 0 && dh_device_event_record(c->dev, e[1], s) == 0;
  double ms = 0;
  if (!ok || dh_device_event_elapsed_ms(c->dev, e[0], e[1], &ms) != 0) {
    struct timespec ts = {0, 200 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  for (int i = 0; i < 2; i++)
    if (e[i]) dh_device_event_free(c->dev, e[i]);
  dh_error_clear();
}

/* A kernel that fails on the device (trap) on stream s; the failure must surface at
 * the next stream_sync of s, and only there: the default stream's sync, after s has
 * run the trap, is not told. Single-queue backends: the default stream alone. */
static void error_at_sync(dh_conf_ctx_t* c) {
  if (!dc_has_trap(c->backend))
    SKIP("the backend has no \"trap\" function: it cannot provoke a device-side failure "
         "(devharness backend.h DH_FUNC_TRAP)");
  dh_stream_t s = NULL;
  if (!(dh_device_caps(c->backend) & DH_CAP_SINGLE_QUEUE)) TRY(dc_stream_create(c, &s));
  if (dh_device_set_stream(c->dev, s) != 0) {
    dc_fail_call(c, __FILE__, __LINE__, "set_stream");
    dh_device_free_stream(c->dev, s);
    return;
  }
  dh_any_t arg = dh_any_device(c->dev), rv = dh_any_none();
  int rc = dh_device_call(c->dev, DH_FUNC_TRAP, &arg, 1, &rv);
  dh_device_set_stream(c->dev, NULL);
  if (rc != 0) {
    char why[DC_VAL_MAX];
    snprintf(why, sizeof why, "%s: %s", dh_error_kind() ? dh_error_kind() : "?", dh_error_message());
    dh_device_stream_sync(c->dev, s);
    dh_device_free_stream(c->dev, s);
    SKIP("trap reported the failure at launch (%s): the backend runs it synchronously, nothing "
         "is left to surface at sync", why);
  }
  int rc_other = 0;
  char other[DC_VAL_MAX] = "";
  if (s != NULL) {
    drain_without_sync(c, s);
    rc_other = dh_device_stream_sync(c->dev, NULL);
    if (rc_other != 0) snprintf(other, sizeof other, "-1 (%s: %s)", dh_error_kind(), dh_error_message());
  }
  int rc_own = dh_device_stream_sync(c->dev, s);
  char own[DC_VAL_MAX] = "0 (success)";
  if (rc_own != 0) snprintf(own, sizeof own, "-1 (%s: %s)", dh_error_kind(), dh_error_message());
  dh_device_stream_sync(c->dev, s); /* whatever is left of the failure */
  dh_device_stream_sync(c->dev, NULL);
  dh_device_free_stream(c->dev, s);
  if (rc_other != 0)
    FAIL("0 (the failure belongs to another stream)", other,
         "stream_sync of the default stream reported the failure of a kernel trapped on a created stream");
  if (rc_own == 0)
    FAIL("-1 with the device-side failure", own,
         "stream_sync after a kernel that failed on the device returned success: the failure was lost");
  if (!strstr(own, ": ") || strlen(own) < 12)
    FAIL("an error that names the failure", own, "stream_sync reported the failure without a message");
}

/*--- the environment stream (tvm-ffi TVMFFIEnvSetStream) -------------------------------
 * PyTorch and TVM make a stream current with TVMFFIEnvSetStream(device_type, device_id,
 * stream, NULL), not through the backend's set_stream; the clauses below set it the
 * same way (dh_env_set_stream, backend.h "The current stream") and then check what
 * must follow from it: get_current_stream answers it, the kernels run on it, a copy
 * given it runs on it, and a copy given NULL still runs on the default stream. Each
 * check is an ordering that a stream-ordered backend passes whatever its speed: the
 * stream is first made busy with 11 copies of 16 MiB (dc_big_chain), so that a kernel or
 * a copy placed on another queue runs at the wrong time, and then only the stream
 * the result must be on is waited for. */

const dh_clause_t dc_stream_clauses[] = {
    {"stream.create_free", "create_stream and free_stream succeed (NULL allowed for single queue)",
     DC_MUST, "TVM docs §DeviceAPI \"Create stream\" (device_target_interactions.rst:121-124)", 0,
     create_free, NULL, DC_PROFILE_TVM},
    {"stream.create_free_many", "64 live streams are distinct and all free cleanly", DC_MUST,
     "TVM docs §DeviceAPI \"Create stream\" (device_target_interactions.rst:121-124)", 0,
     create_free_many, NULL, DC_PROFILE_TVM},
    {"stream.free_null", "free_stream(NULL) is a no-op", DC_MUST,
     "devharness backend.h free_stream", 0, free_null, NULL, DC_PROFILE_STRICT},
    {"stream.null_stream",
     "the NULL stream works for set_stream, copies, sync and sync_stream_from_to", DC_MUST,
     "TVM docs §DeviceAPI \"Create stream\" (device_target_interactions.rst:121-124: single "
     "queue = nullptr)", 0, null_stream, NULL, DC_PROFILE_TVM},
    {"stream.sync_idle", "stream_sync on idle streams returns promptly", DC_MUST,
     "TVM docs §DeviceAPI \"Synchronize to CPU\" (device_target_interactions.rst:131-134); IREE "
     "HAL CTS semaphore", 0, sync_idle, NULL, DC_PROFILE_TVM},
    {"stream.in_order", "work queued on one stream runs in order", DC_MUST,
     "TVM docs §DeviceAPI \"Execution stream management\" "
     "(device_target_interactions.rst:117-134); IREE HAL CTS", 0, in_order, NULL, DC_PROFILE_TVM},
    {"stream.sync_waits", "stream_sync returns only after all work queued before it is done",
     DC_MUST, "TVM docs §DeviceAPI \"Synchronize to CPU\" (device_target_interactions.rst:131-134)",
     0, sync_waits, NULL, DC_PROFILE_TVM},
    {"stream.sync_from_to", "sync_stream_from_to makes dst wait for src's queued work", DC_MUST,
     "TVM docs §DeviceAPI \"Synchronize between streams\" "
     "(device_target_interactions.rst:136-140); IREE HAL CTS", DC_NEED_MULTI_QUEUE, sync_from_to,
     NULL, DC_PROFILE_TVM},
    {"stream.sync_from_to_default", "sync_stream_from_to orders the default stream (NULL) as src and "
     "as dst like a created stream", DC_MUST,
     "TVM docs §DeviceAPI \"Synchronize between streams\" (device_target_interactions.rst:136-140) "
     "and \"Create stream\" (:121-124: the default stream is nullptr)", DC_NEED_MULTI_QUEUE,
     sync_from_to_default, NULL, DC_PROFILE_TVM},
    {"stream.sync_from_to_same", "sync_stream_from_to with src == dst is a no-op", DC_MUST,
     "devharness backend.h sync_stream_from_to", 0, sync_from_to_same, NULL, DC_PROFILE_STRICT},
    {"stream.get_default", "a thread that never set a stream gets NULL (default stream)", DC_MUST,
     "tvm-ffi 0.1.15 include/tvm/ffi/extra/c_env_api.h:56-63 TVMFFIEnvGetStream; apache/tvm "
     "0.27 src/runtime/device_api.cc:171-173", 0, get_default, NULL, DC_PROFILE_TVM},
    {"stream.set_get", "get_current_stream returns what set_stream set", DC_MUST,
     "TVM docs §DeviceAPI \"Set active stream\" (device_target_interactions.rst:126-129); "
     "tvm-ffi 0.1.15 c_env_api.h:43-54 TVMFFIEnvSetStream", 0, set_get, NULL, DC_PROFILE_TVM},
    {"stream.per_thread", "the current stream is per thread", DC_MUST,
     "tvm-ffi 0.1.15 include/tvm/ffi/extra/c_env_api.h:43-63 TVMFFIEnvSetStream/GetStream, "
     "thread-local in src/ffi/extra/env_context.cc:78-79,96-106 (EnvContext::ThreadLocal)",
     DC_NEED_MULTI_QUEUE, per_thread, NULL, DC_PROFILE_TVM},
    {"stream.per_device", "the current stream is per device", DC_MUST,
     "tvm-ffi 0.1.15 include/tvm/ffi/extra/c_env_api.h:43-63 (keyed by device_type, device_id)",
     DC_NEED_MULTI_QUEUE | DC_NEED_TWO_DEVICES, per_device, NULL, DC_PROFILE_TVM},
    {"stream.free_pending",
     "freeing a stream with 20 queued copies (40 MiB) neither crashes nor loses any (3 rounds)",
     DC_MUST, "devharness backend.h free_stream", 0, free_pending, NULL, DC_PROFILE_STRICT},
    {"stream.threads", "4 threads each with their own stream round-trip data concurrently", DC_MUST,
     "devharness backend.h threading", 0, threads, NULL, DC_PROFILE_STRICT},
    {"stream.error_at_sync", "a kernel that fails on the device (trap) makes the next stream_sync "
     "of its stream fail, and not the sync of another stream", DC_MUST,
     "IREE HAL CTS cts/core/semaphore_test.cc (Failure, FailThenWait: the wait "
     "after a failure returns the failure); apache/tvm 0.27 src/backend/cuda/runtime/cuda_device_api.cc:272-275 "
     "StreamSync (TVM_FFI_CHECK_CUDA_ERROR: a kernel's asynchronous error raises there); devharness backend.h "
     "DH_FUNC_TRAP", DC_NEED_FUNCTIONS, error_at_sync, NULL, DC_PROFILE_STRICT},
};
const size_t dc_stream_count = sizeof dc_stream_clauses / sizeof dc_stream_clauses[0];
