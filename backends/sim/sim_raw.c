/*
 * backends/sim/sim_raw.c — the sim's raw twin (backend.h dh_raw_twin_t, api_name
 * "sim internal") for the benchmarks: the same copies, syncs and launches through the
 * sim's internal queue API, bypassing devharness dispatch, handle lookup and argument
 * checks. Calls down into sim_memory.c, sim_stream.c and sim_device.c.
 */
#include <stdlib.h>
#include <string.h>

#include "devharness/error.h"
#include "devharness/tensor.h"
#include "sim_internal.h"

/*===========================================================================
 * Raw twin: the same copies/syncs/launches through the sim's internal queue API,
 * bypassing devharness dispatch, handle lookup and argument checks.
 *===========================================================================*/

typedef struct dh_sim_raw_ctx {
  dh_raw_op_t op;
  size_t nbytes;
  dh_sim_device_t* d;
  dh_sim_stream_t* s;     /* private stream */
  dh_sim_stream_t* s2;    /* BIDIR: second private stream (the D2H b -> host2) */
  uint8_t* host2;
  dh_sim_buffer_t* a;     /* device buffers (references) */
  dh_sim_buffer_t* b;
  void* ha;               /* handles of a and b, for freeing */
  void* hb;
  uint8_t* host;          /* host buffer */
} dh_sim_raw_ctx_t;

static void dh_sim_raw_teardown(void* ctx_) {
  dh_sim_raw_ctx_t* c = ctx_;
  if (c == NULL) return;
  if (c->s) {
    dh_sim_stream_close(c->s);
    dh_sim_obj_release(&c->s->obj);
  }
  if (c->s2) {
    dh_sim_stream_close(c->s2);
    dh_sim_obj_release(&c->s2->obj);
  }
  free(c->host2);
  dh_sim_obj_release(c->a ? &c->a->obj : NULL);
  dh_sim_obj_release(c->b ? &c->b->obj : NULL);
  if (c->ha) dh_sim_mem_free(c->d, c->ha);
  if (c->hb) dh_sim_mem_free(c->d, c->hb);
  free(c->host);
  free(c);
}

static int dh_sim_raw_setup(DLDevice dev, dh_raw_op_t op, size_t nbytes, uint32_t flags,
                            void** out_ctx) {
  (void)flags; /* pinned == pageable in the sim */
  if (out_ctx == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "sim raw: out_ctx is NULL");
  *out_ctx = NULL;
  if (op < DH_RAW_COPY_H2D || op > DH_RAW_COPY_BIDIR)
    return dh_error_set(DH_KIND_NOT_IMPLEMENTED_ERROR, "sim raw: unknown op %d", (int)op);
  dh_sim_raw_ctx_t* c = calloc(1, sizeof *c);
  if (c == NULL) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "sim raw: no memory");
  c->op = op;
  c->nbytes = nbytes;
  if (dh_sim_device_get(dev, &c->d) != 0 || dh_sim_stream_create(c->d->id, &c->s) != 0) goto fail;
  int bidir = op == DH_RAW_COPY_BIDIR;
  if (bidir && dh_sim_stream_create(c->d->id, &c->s2) != 0) goto fail;
  if (op <= DH_RAW_COPY_D2D || bidir) {
    /* Every buffer written (no zero-page reads); host and device buffers 4096-aligned
     * like the bench's harness side (bench/measure/measure.h DH_BENCH_BUFFER_ALIGN), so
     * the worker's memmove runs at the same relative alignment on both sides (a
     * different alignment changes the memmove's speed, not the harness's). */
    size_t an = ((nbytes ? nbytes : 1) + 4095) & ~(size_t)4095;
    if (dh_sim_mem_alloc(c->d, nbytes, 4096, &c->ha) != 0 ||
        dh_sim_mem_get(c->d, c->ha, &c->a) != 0)
      goto fail;
    if (nbytes) memset(c->a->data, 0x5a, nbytes);
    if (op == DH_RAW_COPY_D2D || bidir) {
      if (dh_sim_mem_alloc(c->d, nbytes, 4096, &c->hb) != 0 ||
          dh_sim_mem_get(c->d, c->hb, &c->b) != 0)
        goto fail;
      if (nbytes) memset(c->b->data, 0x5a, nbytes);
    }
    if (op != DH_RAW_COPY_D2D) {
      c->host = aligned_alloc(4096, an);
      if (bidir) c->host2 = aligned_alloc(4096, an);
      if (c->host == NULL || (bidir && c->host2 == NULL)) {
        dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "sim raw: cannot allocate %zu host bytes", nbytes);
        goto fail;
      }
      memset(c->host, 0x5a, an);
      if (bidir) memset(c->host2, 0xa5, an);
    }
  }
  *out_ctx = c;
  return 0;
fail:
  dh_sim_raw_teardown(c);
  return -1;
}

static int dh_sim_raw_run(void* ctx_, uint32_t repeat, double* out_device_ms) {
  dh_sim_raw_ctx_t* c = ctx_;
  if (c == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "sim raw: NULL context");
  dh_sim_event_t *e0 = NULL, *e1 = NULL;
  if (out_device_ms) {
    *out_device_ms = -1;
    if (dh_sim_event_new(&e0) != 0 || dh_sim_event_new(&e1) != 0 ||
        dh_sim_event_enqueue(e0, c->s) != 0)
      goto fail;
  }
  for (uint32_t i = 0; i < repeat; i++) {
    if (c->op == DH_RAW_STREAM_SYNC) {
      if (dh_sim_stream_wait(c->s) != 0) goto fail;
      continue;
    }
    if (c->op == DH_RAW_COPY_BIDIR) {
      /* The D2H first, on the second stream: it runs while this thread stages the H2D's
       * source, the order the harness issues them in (backend.h dh_raw_twin_t
       * bidir_order 0). Staging first left the D2H waiting for the memcpy (bidir
       * harness/raw 0.83-0.89 at 64 KiB-1 MiB). */
      dh_sim_cmd_t* back = dh_sim_cmd_new(DH_SIM_CMD_COPY);
      if (back == NULL) goto fail;
      back->nbytes = c->nbytes;
      back->src = c->b->data;
      back->dst = c->host2;
      if (dh_sim_stream_enqueue(c->s2, back) != 0) goto fail;
    }
    dh_sim_cmd_t* cmd = dh_sim_cmd_new(c->op == DH_RAW_LAUNCH ? DH_SIM_CMD_NOOP : DH_SIM_CMD_COPY);
    if (cmd == NULL) goto fail;
    cmd->nbytes = c->nbytes;
    switch (c->op) {
      case DH_RAW_COPY_BIDIR:
      case DH_RAW_COPY_H2D:
        /* Same device semantics as the real entry: the host source is staged. */
        if ((cmd->staging = dh_sim_staging_get(c->nbytes, &cmd->staging_cap)) == NULL) {
          dh_sim_cmd_discard(cmd);
          goto fail;
        }
        if (c->nbytes) memcpy(cmd->staging, c->host, c->nbytes);
        cmd->src = cmd->staging;
        cmd->dst = c->a->data;
        break;
      case DH_RAW_COPY_D2H: cmd->src = c->a->data; cmd->dst = c->host; break;
      case DH_RAW_COPY_D2D: cmd->src = c->a->data; cmd->dst = c->b->data; break;
      default: break;
    }
    if (dh_sim_stream_enqueue(c->s, cmd) != 0) goto fail;
  }
  if (e1 && dh_sim_event_enqueue(e1, c->s) != 0) goto fail;
  if (dh_sim_stream_wait(c->s) != 0) goto fail;
  if (c->s2 && dh_sim_stream_wait(c->s2) != 0) goto fail;
  if (out_device_ms) {
    uint64_t t0, t1;
    if (dh_sim_event_wait(e0, &t0) != 0 || dh_sim_event_wait(e1, &t1) != 0) goto fail;
    *out_device_ms = ((double)t1 - (double)t0) / 1e6;
  }
  dh_sim_obj_release(e0 ? &e0->obj : NULL);
  dh_sim_obj_release(e1 ? &e1->obj : NULL);
  return 0;
fail:
  dh_sim_stream_wait(c->s);
  if (c->s2) dh_sim_stream_wait(c->s2);
  dh_sim_obj_release(e0 ? &e0->obj : NULL);
  dh_sim_obj_release(e1 ? &e1->obj : NULL);
  return -1;
}

const dh_raw_twin_t dh_sim_raw_twin =
    DH_RAW_TWIN("sim internal", dh_sim_raw_setup, dh_sim_raw_run, dh_sim_raw_teardown);

