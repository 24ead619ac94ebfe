/* conformance/clauses/event.c — device-side timing (DH_CAP_EVENT_TIMING: event_create /
 * event_record / event_elapsed_ms / event_free, devharness/backend.h), which the
 * benchmarks and the regression gate rely on (bench/measure/timer.c), and the capability
 * clauses: every capability flag a backend claims is checked by a clause that fails
 * when the backend does not deliver it.
 *
 * Event clauses are skipped, with the reason, on backends without events. What else a
 * backend could get wrong here: docs/contract.md "What else a backend could get wrong:
 * events". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define EV_BIG (8 * DC_MIB)
/* event.elapsed_waits queues this many 8 MiB copies before the end event (96 MiB: about
 * 10 ms on a host-memory backend), so that a backend answering event_elapsed_ms without
 * waiting is still copying when D is read, even when the host thread is preempted
 * (under ASan with a busy CPU beside it, 3 copies let the worker finish first in about
 * 1 run of 3). */
#define EV_WAITS_COPIES 12

/* Host/device state of one event clause. */
typedef struct {
  dh_event_t e[3];
  dh_stream_t s;
  void *S, *D, *B;
  uint8_t *want, *got;
  int got_pinned; /* got is from the backend's alloc_host (free_host it) */
} ev_t;

static int has_events(const dh_backend_t* b) {
  return (dh_device_caps(b) & DH_CAP_EVENT_TIMING) && b->event_create && b->event_record &&
         b->event_elapsed_ms && b->event_free;
}

/* Syncs only when the clause got as far as buffers (work may be queued): a clause that
 * skipped before that queued nothing, and a sync of an idle stream that never returns
 * must not turn its skip into a timeout (stream.sync_idle names that fault). */
static void ev_free(dh_conf_ctx_t* c, ev_t* v) {
  if (v->S || v->D || v->B) {
    if (v->s) dh_device_stream_sync(c->dev, v->s);
    dh_device_stream_sync(c->dev, NULL);
  }
  for (int i = 0; i < 3; i++)
    if (v->e[i]) dh_device_event_free(c->dev, v->e[i]);
  if (v->s) dh_device_free_stream(c->dev, v->s);
  if (v->S) dh_device_free_data_space(c->dev, v->S);
  if (v->D) dh_device_free_data_space(c->dev, v->D);
  if (v->B) dh_device_free_data_space(c->dev, v->B);
  free(v->want);
  if (v->got_pinned)
    dh_device_free_host(c->dev, v->got);
  else
    free(v->got);
  dh_error_clear();
}

/* Creates 3 events, a stream, S (pattern) and D (8 MiB each). */
static void ev_setup(dh_conf_ctx_t* c, ev_t* v) {
  if (!has_events(c->backend)) SKIP("no device-side timing: no DH_CAP_EVENT_TIMING (event_*)");
  for (int i = 0; i < 3; i++)
    if (dh_device_event_create(c->dev, &v->e[i]) != 0) {
      dc_fail_call(c, __FILE__, __LINE__, "event_create");
      return;
    }
  TRY(dc_stream_create(c, &v->s));
  if (!(v->want = dc_host_alloc(c, EV_BIG)) || !(v->got = dc_host_alloc(c, EV_BIG))) return;
  if (!(v->S = dc_dev_alloc(c, EV_BIG)) || !(v->D = dc_dev_alloc(c, EV_BIG))) return;
  dc_pattern(v->want, EV_BIG, 501);
  TRY(dc_upload(c, __LINE__, v->S, 0, v->want, EV_BIG));
}

/* Queues 4 D2D copies of 8 MiB S -> D on v->s. */
static void ev_work(dh_conf_ctx_t* c, ev_t* v) {
  for (int i = 0; i < 4; i++) TRY(dc_copy(c, __LINE__, v->S, c->dev, 0, v->D, c->dev, 0, EV_BIG, v->s));
}

#define EV_RECORD(i)                                                          \
  do {                                                                        \
    if (dh_device_event_record(c->dev, v->e[i], v->s) != 0) {               \
      dc_fail_call(c, __FILE__, __LINE__, "event_record(e" #i ")");           \
      return;                                                                 \
    }                                                                         \
  } while (0)

static int ev_elapsed(dh_conf_ctx_t* c, ev_t* v, int a, int b, double* ms) {
  if (dh_device_event_elapsed_ms(c->dev, v->e[a], v->e[b], ms) != 0) {
    char call[64];
    snprintf(call, sizeof call, "event_elapsed_ms(e%d, e%d)", a, b);
    dc_fail_call(c, __FILE__, __LINE__, call);
    return -1;
  }
  return 0;
}

/* event_elapsed_ms waits for the end event: the device work queued before the end
 * record is done when it returns. B holds an old pattern, S the new one; the stream
 * copies B -> D EV_WAITS_COPIES times, then S -> D, then records the end; right after
 * event_elapsed_ms, D is read through the default stream and must hold the new
 * pattern. (Device-side only: a staged D2H may finish its host part at stream_sync.) */
/* B <- an old pattern (seed), on a fresh allocation. */
static void ev_old_pattern(dh_conf_ctx_t* c, ev_t* v, uint32_t seed) {
  if (!(v->B = dc_dev_alloc(c, EV_BIG))) return;
  dc_pattern(v->got, EV_BIG, seed);
  dc_upload(c, __LINE__, v->B, 0, v->got, EV_BIG);
}

/* e0; B -> D EV_WAITS_COPIES times, then S -> D; e1; event_elapsed_ms(e0, e1); then D,
 * read through the default stream at once, must hold S's pattern ("what" names it). */
static void ev_overwrite_then_read(dh_conf_ctx_t* c, ev_t* v, const char* what) {
  EV_RECORD(0);
  for (int i = 0; i < EV_WAITS_COPIES; i++)
    TRY(dc_copy(c, __LINE__, v->B, c->dev, 0, v->D, c->dev, 0, EV_BIG, v->s));
  TRY(dc_copy(c, __LINE__, v->S, c->dev, 0, v->D, c->dev, 0, EV_BIG, v->s));
  EV_RECORD(1);
  double ms = -1;
  if (ev_elapsed(c, v, 0, 1, &ms) != 0) return;
  dc_sentinel(v->got, EV_BIG);
  TRY(dc_download(c, __LINE__, v->D, 0, v->got, EV_BIG));
  CHECK_BYTES(what, v->got, v->want, EV_BIG, 0);
}

DC_WITH_STATE(elapsed_waits, ev_t, v, ev_free) {
  TRY(ev_setup(c, v));
  TRY(ev_old_pattern(c, v, 502));
  ev_overwrite_then_read(c, v, "device buffer read right after event_elapsed_ms (written by the last D2D "
                         "before the end event)");
}

/* Elapsed times are finite, not negative, add up (e0->e1 + e1->e2 = e0->e2 within 1 %
 * + 1 us), and 32 MiB of D2D copies take measurable device time (> 1 us). */
DC_WITH_STATE(elapsed_values, ev_t, v, ev_free) {
  TRY(ev_setup(c, v));
  EV_RECORD(0);
  TRY(ev_work(c, v));
  EV_RECORD(1);
  TRY(ev_work(c, v));
  EV_RECORD(2);
  double a = 0, b = 0, t = 0;
  if (ev_elapsed(c, v, 0, 1, &a) || ev_elapsed(c, v, 1, 2, &b) || ev_elapsed(c, v, 0, 2, &t)) return;
  char g[128];
  snprintf(g, sizeof g, "e0->e1 %.6f ms, e1->e2 %.6f ms, e0->e2 %.6f ms", a, b, t);
  if (!isfinite(a) || !isfinite(b) || !isfinite(t) || a < 0 || b < 0 || t < 0)
    FAIL("finite, >= 0", g, "event_elapsed_ms gave a negative or non-finite time");
  if (a < 0.001 || b < 0.001)
    FAIL("> 0.001 ms for 32 MiB of D2D copies", g,
         "event_elapsed_ms over 4 queued 8 MiB copies is (nearly) zero: the events do not "
         "time the work between them");
  if (fabs(a + b - t) > 0.01 * t + 0.001)
    FAIL("e0->e1 + e1->e2 = e0->e2 (within 1 % + 0.001 ms)", g,
         "elapsed times of consecutive intervals do not add up");
}

/* An event recorded again stands for its latest record (CUDA cuEventRecord: "the most
 * recent call"; the benchmarks re-record one pair of events per repetition): after e1
 * was recorded and waited for once, it is recorded again behind EV_WAITS_COPIES copies
 * that end writing D; event_elapsed_ms(e0, e1) must wait for that record, so D read
 * through the default stream right after it holds the last copy's bytes. A backend that
 * keeps the first record answers at once. */
DC_WITH_STATE(rerecord, ev_t, v, ev_free) {
  TRY(ev_setup(c, v));
  TRY(ev_old_pattern(c, v, 503));
  EV_RECORD(0);
  EV_RECORD(1);
  double ms = -1;
  if (ev_elapsed(c, v, 0, 1, &ms) != 0) return;
  ev_overwrite_then_read(c, v, "device buffer read right after event_elapsed_ms over re-recorded events "
                         "(written by the last D2D before the second record of the end event)");
}

/* Freeing events whose record is still queued neither crashes nor disturbs the
 * stream; the work queued around them still lands. */
DC_WITH_STATE(free_pending, ev_t, v, ev_free) {
  TRY(ev_setup(c, v));
  EV_RECORD(0);
  TRY(ev_work(c, v));
  EV_RECORD(1);
  for (int i = 0; i < 2; i++) {
    if (dh_device_event_free(c->dev, v->e[i]) != 0) {
      v->e[i] = NULL;
      dc_fail_call(c, __FILE__, __LINE__, "event_free with its record still queued");
      return;
    }
    v->e[i] = NULL;
  }
  dc_sentinel(v->got, EV_BIG);
  TRY(dc_copy(c, __LINE__, v->D, c->dev, 0, v->got, dc_host(), 0, EV_BIG, v->s));
  CHECK_OK(dh_device_stream_sync(c->dev, v->s));
  CHECK_BYTES("data copied around two freed, still-queued event records", v->got, v->want, EV_BIG, 0);
}

/*===========================================================================
 * Capabilities: a claimed flag is delivered
 *===========================================================================*/

static void cap_event_timing(dh_conf_ctx_t* c) {
  const dh_backend_t* b = c->backend;
  if (!(dh_device_caps(b) & DH_CAP_EVENT_TIMING)) SKIP("DH_CAP_EVENT_TIMING not claimed");
  CHECK(b->event_create && b->event_record && b->event_elapsed_ms && b->event_free,
        "DH_CAP_EVENT_TIMING claimed but an event entry is NULL (create %s, record %s, elapsed %s, "
        "free %s)", b->event_create ? "set" : "NULL", b->event_record ? "set" : "NULL",
        b->event_elapsed_ms ? "set" : "NULL", b->event_free ? "set" : "NULL");
  dh_event_t e0 = NULL, e1 = NULL;
  double ms = -1;
  int rc = dh_device_event_create(c->dev, &e0);
  if (rc == 0) rc = dh_device_event_create(c->dev, &e1);
  if (rc == 0) rc = dh_device_event_record(c->dev, e0, NULL);
  if (rc == 0) rc = dh_device_event_record(c->dev, e1, NULL);
  if (rc == 0) rc = dh_device_event_elapsed_ms(c->dev, e0, e1, &ms);
  if (rc != 0) dc_fail_call(c, __FILE__, __LINE__, "events on the default stream (create, record x2, elapsed)");
  if (e0) dh_device_event_free(c->dev, e0);
  if (e1) dh_device_event_free(c->dev, e1);
  if (c->status) return;
  CHECK(isfinite(ms) && ms >= 0, "elapsed time between two records on the default stream is %g ms", ms);
}

static void cap_pinned_host(dh_conf_ctx_t* c) {
  const dh_backend_t* b = c->backend;
  if (!(dh_device_caps(b) & DH_CAP_PINNED_HOST)) SKIP("DH_CAP_PINNED_HOST not claimed");
  CHECK(b->alloc_host && b->free_host, "DH_CAP_PINNED_HOST claimed but alloc_host is %s, free_host %s",
        b->alloc_host ? "set" : "NULL", b->free_host ? "set" : "NULL");
  size_t n = DC_MIB + 5;
  void* p = NULL;
  CHECK_OK(dh_device_alloc_host(c->dev, n, &p));
  CHECK(p != NULL, "alloc_host(%zu) succeeded with a NULL pointer", n);
  uint8_t* want = malloc(n);
  if (!want) {
    dh_device_free_host(c->dev, p);
    FAIL("malloc", "NULL", "out of host memory");
  }
  dc_pattern(want, n, 601);
  memcpy(p, want, n); /* host-addressable bytes, written and read by the CPU */
  int same = memcmp(p, want, n) == 0;
  free(want);
  CHECK(same, "bytes written to alloc_host memory do not read back");
  CHECK_OK(dh_device_free_host(c->dev, p));
}

static void cap_single_queue(dh_conf_ctx_t* c) {
  dh_stream_t s = NULL;
  CHECK_OK(dh_device_create_stream(c->dev, &s));
  int single = (dh_device_caps(c->backend) & DH_CAP_SINGLE_QUEUE) != 0;
  dh_device_free_stream(c->dev, s);
  if (single && s != NULL)
    FAIL("NULL (single queue)", "a stream", "DH_CAP_SINGLE_QUEUE claimed but create_stream returned "
         "a stream: the multi-queue clauses are skipped for nothing");
  if (!single && s == NULL)
    FAIL("a stream", "NULL", "DH_CAP_SINGLE_QUEUE not claimed but create_stream returned NULL: "
         "the multi-queue clauses would test the default stream twice");
}

static void cap_host_pointer(dh_conf_ctx_t* c) {
  if (!(dh_device_caps(c->backend) & DH_CAP_HOST_POINTER_ARITHMETIC))
    SKIP("DH_CAP_HOST_POINTER_ARITHMETIC not claimed");
  size_t n = 4096 + 7;
  uint8_t* want = dc_host_alloc(c, n);
  if (!want) return;
  void* d = dc_dev_alloc(c, n);
  if (d) {
    dc_pattern(want, n, 607);
    dc_upload(c, __LINE__, d, 0, want, n);
    if (!c->status)
      dc_check_bytes(c, __FILE__, __LINE__, "bytes read through the handle as a host address "
                     "(DH_CAP_HOST_POINTER_ARITHMETIC) at offset 1000", (const uint8_t*)d + 1000,
                     want + 1000, n - 1000, 1000);
    dh_device_free_data_space(c->dev, d);
  }
  free(want);
}

/* DH_CAP_ASYNC_COPY: copy_data_from_to returns before the copy is done. A D2H queued
 * behind 32 MiB of D2D copies has not landed when the call returns; three tries, one
 * is enough (a try fails only when the host thread was descheduled for the whole
 * queue). The D2H lands in pinned memory from alloc_host when the backend has it
 * (DH_CAP_PINNED_HOST): a D2H into pageable memory returns only once it is done on
 * CUDA (CUDA Runtime API 13.0, "API synchronization behavior", Asynchronous: "for
 * transfers from device memory to pageable host memory, the function will return only
 * once the copy has completed"), and seen so on an H100. */
DC_WITH_STATE(cap_async_copy, ev_t, v, ev_free) {
  const dh_backend_t* b = c->backend;
  if (!(dh_device_caps(b) & DH_CAP_ASYNC_COPY)) SKIP("DH_CAP_ASYNC_COPY not claimed");
  TRY(dc_stream_create(c, &v->s));
  if (!(v->want = dc_host_alloc(c, EV_BIG))) return;
  if ((dh_device_caps(b) & DH_CAP_PINNED_HOST) && b->alloc_host && b->free_host) {
    void* p = NULL;
    if (dh_device_alloc_host(c->dev, EV_BIG, &p) != 0 || !p) {
      dc_fail_call(c, __FILE__, __LINE__, "alloc_host(32 MiB D2H destination)");
      return;
    }
    v->got = p;
    v->got_pinned = 1;
  } else if (!(v->got = dc_host_alloc(c, EV_BIG))) {
    return;
  }
  if (!(v->S = dc_dev_alloc(c, EV_BIG)) || !(v->D = dc_dev_alloc(c, EV_BIG))) return;
  dc_pattern(v->want, EV_BIG, 503);
  TRY(dc_upload(c, __LINE__, v->S, 0, v->want, EV_BIG));
  for (int t = 0; t < 3; t++) {
    dc_sentinel(v->got, EV_BIG);
    TRY(ev_work(c, v));
    TRY(dc_copy(c, __LINE__, v->D, c->dev, 0, v->got, dc_host(), 0, EV_BIG, v->s));
    volatile uint8_t* g = v->got;
    int pending = g[EV_BIG - 1] != v->want[EV_BIG - 1] || g[0] != v->want[0];
    CHECK_OK(dh_device_stream_sync(c->dev, v->s));
    if (pending) return;
  }
  FAIL("a copy call that returns before its data landed", "every D2H complete on return (3 tries)",
       "DH_CAP_ASYNC_COPY claimed but a D2H queued behind 32 MiB of D2D copies had always "
       "landed when copy_data_from_to returned");
}

#define EV_SRC "devharness backend.h event_*; OpenCL-CTS events, device_timer"
const dh_clause_t dc_event_clauses[] = {
    {"event.elapsed_waits",
     "event_elapsed_ms returns only after the end event's work is done (no stream_sync needed)",
     DC_MUST, EV_SRC "; CUDA cuEventElapsedTime", 0, elapsed_waits, NULL, DC_PROFILE_STRICT},
    {"event.elapsed_values",
     "elapsed times are >= 0, finite, add up over consecutive intervals and time the work",
     DC_MUST, EV_SRC "; IREE HAL CTS semaphore timepoints", 0, elapsed_values, NULL,
     DC_PROFILE_STRICT},
    {"event.free_pending", "freeing events whose records are still queued neither crashes nor "
     "disturbs the stream", DC_MUST, EV_SRC "; OpenCL-CTS test_events (release)", 0, free_pending,
     NULL, DC_PROFILE_STRICT},
    {"event.rerecord", "an event recorded again stands for its latest record: event_elapsed_ms "
     "waits for that one", DC_MUST,
     "devharness backend.h event_record; CUDA Driver API cuEventRecord (re-recording captures "
     "the most recent work), as bench/measure/timer.c re-records its events", 0, rerecord, NULL,
     DC_PROFILE_STRICT},
};
const size_t dc_event_count = sizeof dc_event_clauses / sizeof dc_event_clauses[0];

const dh_clause_t dc_cap_clauses[] = {
    {"cap.event_timing", "DH_CAP_EVENT_TIMING claimed: the event entries exist and time the "
     "default stream", DC_MUST, "devharness backend.h DH_CAP_EVENT_TIMING", 0, cap_event_timing,
     NULL, DC_PROFILE_STRICT},
    {"cap.pinned_host", "DH_CAP_PINNED_HOST claimed: alloc_host/free_host exist and give "
     "host-addressable bytes", DC_MUST, "devharness backend.h DH_CAP_PINNED_HOST", 0,
     cap_pinned_host, NULL, DC_PROFILE_STRICT},
    {"cap.single_queue", "create_stream returns NULL exactly when DH_CAP_SINGLE_QUEUE is claimed",
     DC_MUST, "devharness backend.h DH_CAP_SINGLE_QUEUE (TVM CreateStream may return nullptr: "
     "apache/tvm 0.27 include/tvm/runtime/device_api.h)", 0, cap_single_queue, NULL,
     DC_PROFILE_STRICT},
    {"cap.host_pointer", "DH_CAP_HOST_POINTER_ARITHMETIC claimed: handle + offset is the host "
     "address of the bytes", DC_MUST, "devharness backend.h DH_CAP_HOST_POINTER_ARITHMETIC (TVM's "
     "SupportsDevicePointerArithmeticsOnHost, apache/tvm 0.27 include/tvm/runtime/device_api.h:293, "
     "promises less: arithmetic only)", 0, cap_host_pointer, NULL, DC_PROFILE_STRICT},
    {"cap.async_copy", "DH_CAP_ASYNC_COPY claimed: a copy queued behind 32 MiB of work returns "
     "before its data lands", DC_MUST, "devharness backend.h DH_CAP_ASYNC_COPY", 0, cap_async_copy,
     NULL, DC_PROFILE_STRICT},
};
const size_t dc_cap_count = sizeof dc_cap_clauses / sizeof dc_cap_clauses[0];
