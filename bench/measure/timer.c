/* bench/measure/timer.c — the timers and raw-twin runs of the copy, sync and launch suites
 * (bench/measure/timer.h). */
#include <string.h>
#include <time.h>

#include "bench/measure/timer.h"
#include "devharness/device_api.h"
#include "devharness/error.h"

double dh_bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void dh_bench_timer_init(dh_bench_timer_t* t, const dh_bench_device_t* d, dh_stream_t stream,
                         int want_device) {
  memset(t, 0, sizeof *t);
  t->d = d;
  t->stream = stream;
  const dh_backend_t* be = d->backend;
  if (!want_device || !(dh_device_caps(be) & DH_CAP_EVENT_TIMING) || !be->event_create ||
      !be->event_record || !be->event_elapsed_ms || !be->event_free)
    return;
  if (dh_device_event_create(d->dev, &t->ev[0]) != 0) return;
  if (dh_device_event_create(d->dev, &t->ev[1]) != 0) {
    dh_device_event_free(d->dev, t->ev[0]);
    t->ev[0] = NULL;
    return;
  }
  t->device = 1;
}

int dh_bench_timer_start(dh_bench_timer_t* t) {
  if (t->device) return dh_device_event_record(t->d->dev, t->ev[0], t->stream);
  t->t0 = dh_bench_now();
  return 0;
}

int dh_bench_timer_stop(dh_bench_timer_t* t, double* out_s) {
  if (t->device) {
    if (dh_device_event_record(t->d->dev, t->ev[1], t->stream) != 0) return -1;
    if (dh_device_stream_sync(t->d->dev, t->stream) != 0) return -1;
    double ms = 0;
    if (dh_device_event_elapsed_ms(t->d->dev, t->ev[0], t->ev[1], &ms) != 0) return -1;
    *out_s = ms * 1e-3;
    return 0;
  }
  if (dh_device_stream_sync(t->d->dev, t->stream) != 0) return -1;
  *out_s = dh_bench_now() - t->t0;
  return 0;
}

void dh_bench_timer_free(dh_bench_timer_t* t) {
  if (t->device) {
    dh_device_event_free(t->d->dev, t->ev[0]);
    dh_device_event_free(t->d->dev, t->ev[1]);
  }
  t->device = 0;
}

const char* dh_bench_timer_source(const dh_bench_timer_t* t) {
  return t->device ? "device events" : "host clock";
}

static void raw_release(dh_bench_cache_t* c) { dh_device_raw_teardown(&c->raw); }

typedef struct raw_setup_arg {
  DLDevice dev;
  dh_raw_op_t op;
  size_t nbytes;
  uint32_t flags;
  dh_raw_context_t raw;
} raw_setup_arg_t;

/* Setup and a first (warm-up) run: a twin may start its worker lazily on first use. */
static int raw_setup_fn(void* p) {
  raw_setup_arg_t* a = p;
  if (dh_device_raw_setup(a->dev, a->op, a->nbytes, a->flags, &a->raw) != 0) return -1;
  if (dh_device_raw_run(&a->raw, 1, NULL) != 0) {
    dh_device_raw_teardown(&a->raw);
    return -1;
  }
  return 0;
}

const dh_raw_context_t* dh_bench_raw_ctx(const void* owner, const dh_bench_device_t* d, dh_raw_op_t op,
                                         size_t nbytes, uint32_t flags) {
  dh_bench_cache_t* c = dh_bench_cache_get(owner, nbytes);
  if (c) return &c->raw;
  const dh_raw_twin_t* raw = d->backend->raw;
  if (!raw || !raw->setup || !raw->run)
    return dh_error_set(DH_KIND_NOT_IMPLEMENTED_ERROR, "backend %s has no raw twin", d->backend->name),
           NULL;
  c = dh_bench_cache_slot();
  if (!c) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "bench: out of memory"), NULL;
  /* Set up on the helper PUs, as the harness's streams are created
   * (dh_bench_helper_create_stream): a worker thread the twin starts is then placed
   * like the harness's, not inherited from the pinned benchmark thread. */
  raw_setup_arg_t a = {d->dev, op, nbytes, flags, {NULL, NULL}};
  if (dh_bench_as_helper(raw_setup_fn, &a) != 0) {
    dh_bench_cache_drop(c);
    /* Device memory can be smaller than the host-memory budget of the kept sets:
     * release them all and try once more. */
    if (!dh_error_kind() || strcmp(dh_error_kind(), DH_KIND_OUT_OF_MEMORY_ERROR) != 0) return NULL;
    dh_bench_cache_release();
    dh_error_clear();
    c = dh_bench_cache_slot();
    if (!c) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "bench: out of memory"), NULL;
    if (dh_bench_as_helper(raw_setup_fn, &a) != 0) {
      dh_bench_cache_drop(c);
      return NULL;
    }
  }
  c->owner = owner;
  c->size = nbytes;
  c->bytes = (op == DH_RAW_COPY_BIDIR ? 4 : 2) * nbytes;
  c->backend = d->backend;
  c->dev = d->dev;
  c->raw = a.raw;
  c->release = raw_release;
  return &c->raw;
}

int dh_bench_raw_run(const dh_raw_context_t* raw, uint32_t repeat, double* out_s, int* out_device) {
  double ms = -1;
  double t0 = dh_bench_now();
  if (dh_device_raw_run(raw, repeat, &ms) != 0) return -1;
  double t1 = dh_bench_now();
  if (ms >= 0) {
    *out_s = ms * 1e-3;
    *out_device = 1;
  } else {
    *out_s = t1 - t0;
    *out_device = 0;
  }
  return 0;
}
