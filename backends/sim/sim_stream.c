/*
 * backends/sim/sim_stream.c — streams: one worker thread per stream with a FIFO queue.
 *
 * This is the sim's "device": every command (copy, fill, kernel, event record,
 * cross-stream marker) is appended to a stream's queue and the call returns; the
 * stream's worker thread pops commands in order and executes them, paying the
 * configured latency first. So everything the DeviceAPI says about asynchrony is
 * observable: a missing stream_sync reads stale bytes, a missing sync_stream_from_to
 * lets the destination stream run ahead.
 *
 * Bookkeeping: `submitted` counts queued commands, `completed` is the sequence number
 * of the last finished one; stream_sync waits until completed reaches the value
 * submitted had when it was called (FIFO makes that "all prior work").
 */
#include <stdlib.h>
#include <string.h>

#include "devharness/error.h"
#include "sim_internal.h"

/*===========================================================================
 * Markers (sync_stream_from_to)
 *===========================================================================*/

typedef struct dh_sim_marker {
  dh_sim_obj_t obj;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done;
} dh_sim_marker_t;

static void dh_sim_marker_destroy(dh_sim_obj_t* obj) {
  dh_sim_marker_t* m = (dh_sim_marker_t*)obj;
  pthread_mutex_destroy(&m->mu);
  pthread_cond_destroy(&m->cv);
  free(m);
}

/*===========================================================================
 * Staging pool
 *===========================================================================*/

#define DH_SIM_POOL_SLOTS 4
/* All buffers kept, together: room for the staging of a 256 MiB copy (the bench's
 * largest) and smaller ones, so that no benchmarked H2D mallocs its staging and faults
 * it in again (which would make harness and twin times vary with the page faults). */
#define DH_SIM_POOL_MAX_BYTES ((size_t)512 << 20)

static struct {
  void* p;
  size_t cap;
} dh_sim_pool[DH_SIM_POOL_SLOTS];
static pthread_mutex_t dh_sim_pool_mu = PTHREAD_MUTEX_INITIALIZER;

void* dh_sim_staging_get(size_t n, size_t* out_cap) {
  int best = -1;
  pthread_mutex_lock(&dh_sim_pool_mu);
  for (int i = 0; i < DH_SIM_POOL_SLOTS; i++)
    if (dh_sim_pool[i].p && dh_sim_pool[i].cap >= n &&
        (best < 0 || dh_sim_pool[i].cap < dh_sim_pool[best].cap))
      best = i;
  if (best >= 0) {
    void* p = dh_sim_pool[best].p;
    *out_cap = dh_sim_pool[best].cap;
    dh_sim_pool[best].p = NULL;
    pthread_mutex_unlock(&dh_sim_pool_mu);
    return p;
  }
  pthread_mutex_unlock(&dh_sim_pool_mu);
  void* p = malloc(n ? n : 1);
  if (p == NULL) {
    dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "sim: cannot stage %zu bytes for a host-to-device copy", n);
    return NULL;
  }
  *out_cap = n;
  return p;
}

void dh_sim_staging_put(void* p, size_t cap) {
  if (p == NULL) return;
  if (cap > DH_SIM_POOL_MAX_BYTES) {
    free(p);
    return;
  }
  /* Keep it in an empty slot, else in place of the smallest buffer if larger. */
  int victim = -1;
  pthread_mutex_lock(&dh_sim_pool_mu);
  for (int i = 0; i < DH_SIM_POOL_SLOTS; i++) {
    if (dh_sim_pool[i].p == NULL) {
      victim = i;
      break;
    }
    if (victim < 0 || dh_sim_pool[i].cap < dh_sim_pool[victim].cap) victim = i;
  }
  void* drop = p;
  size_t kept = 0;
  for (int i = 0; i < DH_SIM_POOL_SLOTS; i++)
    if (dh_sim_pool[i].p && i != victim) kept += dh_sim_pool[i].cap;
  if ((dh_sim_pool[victim].p == NULL || dh_sim_pool[victim].cap < cap) &&
      kept + cap <= DH_SIM_POOL_MAX_BYTES) {
    drop = dh_sim_pool[victim].p;
    dh_sim_pool[victim].p = p;
    dh_sim_pool[victim].cap = cap;
  }
  pthread_mutex_unlock(&dh_sim_pool_mu);
  free(drop);
}

void dh_sim_staging_drain(void) {
  pthread_mutex_lock(&dh_sim_pool_mu);
  for (int i = 0; i < DH_SIM_POOL_SLOTS; i++) {
    free(dh_sim_pool[i].p);
    dh_sim_pool[i].p = NULL;
  }
  pthread_mutex_unlock(&dh_sim_pool_mu);
}

/*===========================================================================
 * Commands
 *===========================================================================*/

dh_sim_cmd_t* dh_sim_cmd_new(dh_sim_cmd_kind_t kind) {
  dh_sim_cmd_t* cmd = calloc(1, sizeof *cmd);
  if (cmd == NULL) {
    dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "sim: cannot allocate a command");
    return NULL;
  }
  cmd->kind = kind;
  return cmd;
}

void dh_sim_cmd_discard(dh_sim_cmd_t* cmd) {
  if (cmd == NULL) return;
  dh_sim_staging_put(cmd->staging, cmd->staging_cap);
  dh_sim_obj_release(cmd->refs[0]);
  dh_sim_obj_release(cmd->refs[1]);
  if (cmd->event) dh_sim_obj_release(&cmd->event->obj);
  if (cmd->marker) dh_sim_obj_release(&cmd->marker->obj);
  free(cmd);
}

/* Simulated cost of moving n bytes: fixed latency + bandwidth term. */
static uint64_t dh_sim_transfer_ns(size_t nbytes) {
  const dh_sim_config_t* c = &dh_sim_state.config;
  return c->latency_ns + (uint64_t)((double)nbytes / 1024.0 * (double)c->delay_ns_per_kib);
}

/* Executes one command on the worker thread. */
static void dh_sim_cmd_run(dh_sim_cmd_t* cmd) {
  switch (cmd->kind) {
    case DH_SIM_CMD_COPY:
      /* The bytes land at the END of the simulated transfer time. */
      dh_sim_delay_ns(dh_sim_transfer_ns(cmd->nbytes));
      if (cmd->nbytes) memmove(cmd->dst, cmd->src, cmd->nbytes);
      break;
    case DH_SIM_CMD_FILL:
      dh_sim_delay_ns(dh_sim_transfer_ns(cmd->nbytes));
      for (size_t i = 0; i + 4 <= cmd->nbytes; i += 4) memcpy(cmd->dst + i, &cmd->pattern, 4);
      break;
    case DH_SIM_CMD_NOOP:
      break;
    case DH_SIM_CMD_EVENT: {
      dh_sim_event_t* e = cmd->event;
      uint64_t now = dh_sim_now_ns();
      pthread_mutex_lock(&e->mu);
      e->time_ns = now;
      e->done++;
      pthread_cond_broadcast(&e->cv);
      pthread_mutex_unlock(&e->mu);
      break;
    }
    case DH_SIM_CMD_SIGNAL:
      pthread_mutex_lock(&cmd->marker->mu);
      cmd->marker->done = 1;
      pthread_cond_broadcast(&cmd->marker->cv);
      pthread_mutex_unlock(&cmd->marker->mu);
      break;
    case DH_SIM_CMD_WAIT:
      /* Real waiting: this worker blocks until the source stream got there. */
      pthread_mutex_lock(&cmd->marker->mu);
      while (!cmd->marker->done) pthread_cond_wait(&cmd->marker->cv, &cmd->marker->mu);
      pthread_mutex_unlock(&cmd->marker->mu);
      break;
    case DH_SIM_CMD_HOST_FN:
      cmd->fn(cmd->ctx);
      break;
    case DH_SIM_CMD_TRAP: /* fails; the worker records it on its stream */
      break;
    case DH_SIM_CMD_STOP:
      break;
  }
}

/*===========================================================================
 * Streams
 *===========================================================================*/

static void* dh_sim_worker_main(void* arg) {
  dh_sim_stream_t* s = arg;
  for (;;) {
    pthread_mutex_lock(&s->mu);
    while (s->head == NULL) pthread_cond_wait(&s->work_cv, &s->mu);
    dh_sim_cmd_t* cmd = s->head;
    s->head = cmd->next;
    if (s->head == NULL) s->tail = NULL;
    pthread_mutex_unlock(&s->mu);

    int stop = cmd->kind == DH_SIM_CMD_STOP;
    int trap = cmd->kind == DH_SIM_CMD_TRAP;
    uint64_t seq = cmd->seq;
    dh_sim_cmd_run(cmd);
    dh_sim_cmd_discard(cmd); /* drop buffer references before reporting completion */

    pthread_mutex_lock(&s->mu);
    s->completed = seq;
    if (trap && s->failed_seq == 0) s->failed_seq = seq;
    pthread_cond_broadcast(&s->done_cv);
    pthread_mutex_unlock(&s->mu);
    if (stop) return NULL;
  }
}

static dh_sim_stream_t* dh_sim_orphans;
static pthread_mutex_t dh_sim_orphans_mu = PTHREAD_MUTEX_INITIALIZER;

void dh_sim_stream_orphan(dh_sim_stream_t* s) {
  pthread_mutex_lock(&dh_sim_orphans_mu);
  s->orphan_next = dh_sim_orphans;
  dh_sim_orphans = s;
  pthread_mutex_unlock(&dh_sim_orphans_mu);
}

void dh_sim_stream_atfork_child(void) {
  pthread_mutex_init(&dh_sim_pool_mu, NULL);
  pthread_mutex_init(&dh_sim_orphans_mu, NULL);
}

static void dh_sim_stream_destroy(dh_sim_obj_t* obj) {
  dh_sim_stream_t* s = (dh_sim_stream_t*)obj;
  if (s->fork_gen != atomic_load(&dh_sim_state.fork_gen)) { /* the parent's */
    dh_sim_stream_orphan(s);
    return;
  }
  dh_sim_stream_close(s); /* no-op when already closed and joined */
  pthread_mutex_destroy(&s->mu);
  pthread_cond_destroy(&s->work_cv);
  pthread_cond_destroy(&s->done_cv);
  free(s);
}

int dh_sim_stream_create(int device_id, dh_sim_stream_t** out_stream) {
  dh_sim_stream_t* s = calloc(1, sizeof *s);
  if (s == NULL) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "sim: cannot allocate a stream");
  atomic_init(&s->obj.refs, 1);
  s->obj.destroy = dh_sim_stream_destroy;
  s->device_id = device_id;
  s->fork_gen = atomic_load(&dh_sim_state.fork_gen);
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->work_cv, NULL);
  pthread_cond_init(&s->done_cv, NULL);
  int err = pthread_create(&s->thread, NULL, dh_sim_worker_main, s);
  if (err != 0) {
    s->closed = 1;
    dh_sim_obj_release(&s->obj);
    return dh_error_set(DH_KIND_RUNTIME_ERROR, "sim:%d: cannot start a stream worker thread: %s",
                        device_id, strerror(err));
  }
  s->has_thread = 1;
  *out_stream = s;
  return 0;
}

int dh_sim_stream_get(dh_sim_device_t* d, dh_stream_t handle, dh_sim_stream_t** out_stream) {
  if (handle == NULL) {
    /* The default stream is created on first use, so processes that never queue
     * work on a device never start its thread. */
    pthread_mutex_lock(&d->mu);
    if (d->default_stream == NULL && dh_sim_stream_create(d->id, &d->default_stream) != 0) {
      pthread_mutex_unlock(&d->mu);
      return -1;
    }
    dh_sim_obj_retain(&d->default_stream->obj);
    *out_stream = d->default_stream;
    pthread_mutex_unlock(&d->mu);
    return 0;
  }
  dh_sim_obj_t* obj;
  if (dh_sim_table_get(&d->streams, DH_SIM_KIND_STREAM, d->id, handle, "stream", &obj) != 0)
    return -1;
  if (((dh_sim_stream_t*)obj)->fork_gen != atomic_load(&dh_sim_state.fork_gen)) {
    dh_sim_obj_release(obj); /* never destroyed here: it goes to the orphan list */
    return dh_error_set(DH_KIND_VALUE_ERROR,
                        "sim:%d: stream %p was created before fork(); its worker thread "
                        "exists only in the parent process", d->id, handle);
  }
  *out_stream = (dh_sim_stream_t*)obj;
  return 0;
}

int dh_sim_stream_enqueue(dh_sim_stream_t* s, dh_sim_cmd_t* cmd) {
  pthread_mutex_lock(&s->mu);
  if (s->closed) {
    pthread_mutex_unlock(&s->mu);
    dh_sim_cmd_discard(cmd);
    return dh_error_set(DH_KIND_VALUE_ERROR, "sim:%d: stream %p is being freed", s->device_id,
                        (void*)s);
  }
  cmd->next = NULL;
  cmd->seq = ++s->submitted;
  if (s->tail) s->tail->next = cmd;
  else s->head = cmd;
  s->tail = cmd;
  if (cmd->kind == DH_SIM_CMD_STOP) s->closed = 1;
  pthread_cond_signal(&s->work_cv);
  pthread_mutex_unlock(&s->mu);
  return 0;
}

int dh_sim_stream_wait(dh_sim_stream_t* s) {
  if (s->has_thread && pthread_equal(pthread_self(), s->thread))
    return dh_error_set(DH_KIND_RUNTIME_ERROR,
                        "sim:%d: stream_sync called from the stream's own worker (deadlock)",
                        s->device_id);
  pthread_mutex_lock(&s->mu);
  uint64_t target = s->submitted;
  while (s->completed < target) pthread_cond_wait(&s->done_cv, &s->mu);
  pthread_mutex_unlock(&s->mu);
  return 0;
}

int dh_sim_stream_wait_report(dh_sim_stream_t* s) {
  if (dh_sim_stream_wait(s) != 0) return -1;
  pthread_mutex_lock(&s->mu);
  uint64_t failed = s->failed_seq;
  s->failed_seq = 0;
  pthread_mutex_unlock(&s->mu);
  if (failed != 0)
    return dh_error_set(DH_KIND_RUNTIME_ERROR,
                        "sim:%d: kernel 'trap' failed on the device (command %llu of this stream)",
                        s->device_id, (unsigned long long)failed);
  return 0;
}

int dh_sim_stream_close(dh_sim_stream_t* s) {
  if (!s->has_thread || atomic_load(&s->joined)) return 0;
  if (s->fork_gen != atomic_load(&dh_sim_state.fork_gen)) return 0; /* worker not in this process */
  if (pthread_equal(pthread_self(), s->thread))
    return dh_error_set(DH_KIND_RUNTIME_ERROR, "sim:%d: a stream cannot free itself from its worker",
                        s->device_id);
  pthread_mutex_lock(&s->mu);
  int already = s->closed;
  pthread_mutex_unlock(&s->mu);
  if (!already) {
    dh_sim_cmd_t* stop = dh_sim_cmd_new(DH_SIM_CMD_STOP);
    if (stop == NULL) return -1;
    if (dh_sim_stream_enqueue(s, stop) != 0) return -1;
    /* Everything queued before STOP runs first: freeing never loses work. */
    pthread_join(s->thread, NULL);
    atomic_store(&s->joined, 1);
    return 0;
  }
  /* Someone else is closing it: just wait for the drain. */
  return dh_sim_stream_wait(s);
}

int dh_sim_stream_order(dh_sim_stream_t* src, dh_sim_stream_t* dst) {
  if (src == dst) return 0;
  dh_sim_marker_t* m = calloc(1, sizeof *m);
  dh_sim_cmd_t* sig = dh_sim_cmd_new(DH_SIM_CMD_SIGNAL);
  dh_sim_cmd_t* wait = dh_sim_cmd_new(DH_SIM_CMD_WAIT);
  if (m == NULL || sig == NULL || wait == NULL) {
    free(m);
    free(sig);
    free(wait);
    return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "sim: cannot allocate a marker");
  }
  atomic_init(&m->obj.refs, 2); /* one per command */
  m->obj.destroy = dh_sim_marker_destroy;
  pthread_mutex_init(&m->mu, NULL);
  pthread_cond_init(&m->cv, NULL);
  sig->marker = m;
  wait->marker = m;
  /* Signal first: a wait never depends on a signal queued after it, so chains of
   * sync_stream_from_to calls cannot deadlock. */
  if (dh_sim_stream_enqueue(src, sig) != 0) {
    dh_sim_cmd_discard(wait);
    return -1;
  }
  if (dh_sim_stream_enqueue(dst, wait) != 0) return -1;
  return 0;
}

/*===========================================================================
 * Events
 *===========================================================================*/

static void dh_sim_event_destroy(dh_sim_obj_t* obj) {
  dh_sim_event_t* e = (dh_sim_event_t*)obj;
  pthread_mutex_destroy(&e->mu);
  pthread_cond_destroy(&e->cv);
  free(e);
}

int dh_sim_event_new(dh_sim_event_t** out_event) {
  dh_sim_event_t* e = calloc(1, sizeof *e);
  if (e == NULL) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "sim: cannot allocate an event");
  atomic_init(&e->obj.refs, 1);
  e->obj.destroy = dh_sim_event_destroy;
  pthread_mutex_init(&e->mu, NULL);
  pthread_cond_init(&e->cv, NULL);
  *out_event = e;
  return 0;
}

int dh_sim_event_enqueue(dh_sim_event_t* e, dh_sim_stream_t* s) {
  dh_sim_cmd_t* cmd = dh_sim_cmd_new(DH_SIM_CMD_EVENT);
  if (cmd == NULL) return -1;
  dh_sim_obj_retain(&e->obj);
  cmd->event = e;
  pthread_mutex_lock(&e->mu);
  e->requested++;
  pthread_mutex_unlock(&e->mu);
  if (dh_sim_stream_enqueue(s, cmd) != 0) {
    pthread_mutex_lock(&e->mu);
    e->requested--;
    pthread_mutex_unlock(&e->mu);
    return -1;
  }
  return 0;
}

int dh_sim_event_wait(dh_sim_event_t* e, uint64_t* out_time_ns) {
  pthread_mutex_lock(&e->mu);
  uint64_t target = e->requested;
  if (target == 0) {
    pthread_mutex_unlock(&e->mu);
    return dh_error_set(DH_KIND_VALUE_ERROR, "sim: event %p was never recorded", (void*)e);
  }
  while (e->done < target) pthread_cond_wait(&e->cv, &e->mu);
  *out_time_ns = e->time_ns;
  pthread_mutex_unlock(&e->mu);
  return 0;
}

/*===========================================================================
 * Streams
 *===========================================================================*/

int dh_sim_create_stream(DLDevice dev, dh_stream_t* out_stream) {
  if (out_stream == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "sim: create_stream: out_stream is NULL");
  *out_stream = NULL;
  dh_sim_device_t* d;
  dh_sim_stream_t* s;
  if (dh_sim_device_get(dev, &d) != 0 || dh_sim_stream_create(d->id, &s) != 0) return -1;
  if (dh_sim_table_add(&d->streams, DH_SIM_KIND_STREAM, d->id, &s->obj, out_stream) != 0) {
    dh_sim_stream_close(s);
    dh_sim_obj_release(&s->obj);
    return -1;
  }
  return 0;
}

int dh_sim_free_stream(DLDevice dev, dh_stream_t stream) {
  dh_sim_device_t* d;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  if (stream == NULL) return 0; /* the default stream lives until shutdown */
  dh_sim_obj_t* obj;
  if (dh_sim_table_remove(&d->streams, DH_SIM_KIND_STREAM, d->id, stream, "stream", &obj) != 0)
    return -1;
  if (dh_env_get_stream(dh_sim_dev(d->id)) == stream) dh_env_set_stream(dh_sim_dev(d->id), NULL);
  /* Pending work completes before the worker exits (TVM: FreeStream loses nothing). */
  int rc = dh_sim_stream_close((dh_sim_stream_t*)obj);
  dh_sim_obj_release(obj);
  return rc;
}

int dh_sim_set_stream(DLDevice dev, dh_stream_t stream) {
  dh_sim_device_t* d;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  if (stream != NULL) {
    dh_sim_stream_t* s;
    if (dh_sim_stream_get(d, stream, &s) != 0) return -1;
    dh_sim_obj_release(&s->obj);
  }
  return dh_env_set_stream(dh_sim_dev(d->id), stream);
}

int dh_sim_get_current_stream(DLDevice dev, dh_stream_t* out_stream) {
  dh_sim_device_t* d;
  if (out_stream == NULL)
    return dh_error_set(DH_KIND_VALUE_ERROR, "sim: get_current_stream: out_stream is NULL");
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  *out_stream = dh_env_get_stream(dh_sim_dev(d->id));
  return 0;
}

int dh_sim_stream_sync(DLDevice dev, dh_stream_t stream) {
  dh_sim_device_t* d;
  dh_sim_stream_t* s;
  if (dh_sim_device_get(dev, &d) != 0 || dh_sim_stream_get(d, stream, &s) != 0) return -1;
  int rc = dh_sim_stream_wait_report(s);
  dh_sim_obj_release(&s->obj);
  return rc;
}

int dh_sim_sync_stream_from_to(DLDevice dev, dh_stream_t src, dh_stream_t dst) {
  dh_sim_device_t* d;
  dh_sim_stream_t *s_src = NULL, *s_dst = NULL;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  int rc = -1;
  if (dh_sim_stream_get(d, src, &s_src) == 0 && dh_sim_stream_get(d, dst, &s_dst) == 0)
    rc = dh_sim_stream_order(s_src, s_dst); /* no-op when src == dst */
  dh_sim_obj_release(s_src ? &s_src->obj : NULL);
  dh_sim_obj_release(s_dst ? &s_dst->obj : NULL);
  return rc;
}

/*===========================================================================
 * Events (device-side timing: the worker timestamps the record command)
 *===========================================================================*/

int dh_sim_event_create(DLDevice dev, dh_event_t* out_event) {
  if (out_event == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "sim: event_create: out_event is NULL");
  *out_event = NULL;
  dh_sim_device_t* d;
  dh_sim_event_t* e;
  if (dh_sim_device_get(dev, &d) != 0 || dh_sim_event_new(&e) != 0) return -1;
  if (dh_sim_table_add(&d->events, DH_SIM_KIND_EVENT, d->id, &e->obj, out_event) != 0) {
    dh_sim_obj_release(&e->obj);
    return -1;
  }
  return 0;
}

static int dh_sim_event_lookup(dh_sim_device_t* d, dh_event_t h, dh_sim_event_t** out) {
  dh_sim_obj_t* obj;
  if (h == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "sim:%d: NULL event", d->id);
  if (dh_sim_table_get(&d->events, DH_SIM_KIND_EVENT, d->id, h, "event", &obj) != 0) return -1;
  *out = (dh_sim_event_t*)obj;
  return 0;
}

int dh_sim_event_record(DLDevice dev, dh_event_t event, dh_stream_t stream) {
  dh_sim_device_t* d;
  dh_sim_event_t* e = NULL;
  dh_sim_stream_t* s = NULL;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  int rc = -1;
  if (dh_sim_event_lookup(d, event, &e) == 0 && dh_sim_stream_get(d, stream, &s) == 0)
    rc = dh_sim_event_enqueue(e, s);
  dh_sim_obj_release(e ? &e->obj : NULL);
  dh_sim_obj_release(s ? &s->obj : NULL);
  return rc;
}

int dh_sim_event_elapsed_ms(DLDevice dev, dh_event_t start, dh_event_t end,
                            double* out_ms) {
  dh_sim_device_t* d;
  dh_sim_event_t *e0 = NULL, *e1 = NULL;
  if (out_ms == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "sim: event_elapsed_ms: out_ms is NULL");
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  int rc = -1;
  uint64_t t0, t1;
  if (dh_sim_event_lookup(d, start, &e0) == 0 && dh_sim_event_lookup(d, end, &e1) == 0 &&
      dh_sim_event_wait(e1, &t1) == 0 && dh_sim_event_wait(e0, &t0) == 0) {
    *out_ms = ((double)t1 - (double)t0) / 1e6;
    rc = 0;
  }
  dh_sim_obj_release(e0 ? &e0->obj : NULL);
  dh_sim_obj_release(e1 ? &e1->obj : NULL);
  return rc;
}

int dh_sim_event_free(DLDevice dev, dh_event_t event) {
  dh_sim_device_t* d;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  if (event == NULL) return 0;
  dh_sim_obj_t* obj;
  if (dh_sim_table_remove(&d->events, DH_SIM_KIND_EVENT, d->id, event, "event", &obj) != 0)
    return -1;
  dh_sim_obj_release(obj); /* a queued record keeps it alive until it ran */
  return 0;
}

/*===========================================================================
 * Test helper declared in sim.h
 *===========================================================================*/

int dh_sim_enqueue_host_fn(DLDevice dev, dh_stream_t stream, void (*fn)(void* ctx), void* ctx) {
  dh_sim_device_t* d;
  dh_sim_stream_t* s;
  if (fn == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "sim: enqueue_host_fn: fn is NULL");
  if (dh_sim_device_get(dev, &d) != 0 || dh_sim_stream_get(d, stream, &s) != 0) return -1;
  dh_sim_cmd_t* cmd = dh_sim_cmd_new(DH_SIM_CMD_HOST_FN);
  int rc = -1;
  if (cmd != NULL) {
    cmd->fn = fn;
    cmd->ctx = ctx;
    rc = dh_sim_stream_enqueue(s, cmd);
  }
  dh_sim_obj_release(&s->obj);
  return rc;
}
