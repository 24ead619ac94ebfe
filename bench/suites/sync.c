/*
 * bench/suites/sync.c — the sync suite (host clock; manual time):
 *   sync/idle/<spec>/{harness,raw}        dh_device_stream_sync on an idle stream /
 *                                         the raw twin's DH_RAW_STREAM_SYNC
 *   sync/after_copy4/<spec>/{harness,raw} a 4-byte H2D copy, then the sync /
 *                                         the raw twin's 4-byte DH_RAW_COPY_H2D (copy + wait)
 *   sync/from_to/<spec>/harness           dh_device_sync_stream_from_to(s1, s2) + sync(s2)
 * Streams are created with dh_device_create_stream (NULL on single-queue devices).
 */
#include <stdio.h>

#include "bench/measure/timer.h"
#include "bench/suites/suites.h"
#include "devharness/device_api.h"
#include "devharness/error.h"
#include "devharness/tensor.h"

enum { S_IDLE, S_AFTER_COPY, S_FROM_TO };

typedef struct sync_ctx {
  const dh_bench_device_t* d;
  int kind;
  int raw;
} sync_ctx_t;

static void bm_sync(dh_gb_state_t* st, void* user) {
  const sync_ctx_t* x = user;
  const dh_bench_device_t* d = x->d;
  if (x->raw) {
    const dh_raw_context_t* ctx = dh_bench_raw_ctx(x, d, x->kind == S_IDLE ? DH_RAW_STREAM_SYNC : DH_RAW_COPY_H2D,
                                 4, 0);
    if (!ctx) {
      dh_bench_skip_error(st, "raw twin setup");
      return;
    }
    while (dh_gb_keep_running(st)) {
      double t0 = dh_bench_now();
      if (dh_device_raw_run(ctx, 1, NULL) != 0) {
        dh_bench_skip_error(st, "raw twin run");
        return;
      }
      dh_gb_set_iteration_time(st, dh_bench_now() - t0);
    }
    dh_gb_set_label(st, "host clock");
    return;
  }
  dh_stream_t s1 = NULL, s2 = NULL;
  void* dbuf = NULL;
  uint32_t word = 0x12345678u;
  DLTensor from, to;
  int64_t sf, stt;
  int ok = 0;
  if (dh_bench_helper_create_stream(d->dev, &s1) != 0) goto out;
  if (x->kind == S_FROM_TO && dh_bench_helper_create_stream(d->dev, &s2) != 0) goto out;
  if (x->kind == S_AFTER_COPY) {
    DLDataType u8 = {kDLUInt, 8, 1};
    DLDevice cpu = {kDLCPU, 0};
    if (dh_device_alloc_data_space(d->dev, 4, 0, u8, &dbuf) != 0) goto out;
    dh_tensor_init_bytes(&from, &word, cpu, 0, 4, &sf);
    dh_tensor_init_bytes(&to, dbuf, d->dev, 0, 4, &stt);
  }
  while (dh_gb_keep_running(st)) {
    double t0 = dh_bench_now();
    switch (x->kind) {
      case S_IDLE:
        if (dh_device_stream_sync(d->dev, s1) != 0) goto out;
        break;
      case S_AFTER_COPY:
        if (dh_device_copy_data_from_to(&from, &to, s1) != 0 ||
            dh_device_stream_sync(d->dev, s1) != 0)
          goto out;
        break;
      default:
        if (dh_device_sync_stream_from_to(d->dev, s1, s2) != 0 ||
            dh_device_stream_sync(d->dev, s2) != 0)
          goto out;
        break;
    }
    dh_gb_set_iteration_time(st, dh_bench_now() - t0);
  }
  ok = 1;
  dh_gb_set_label(st, "host clock");
out:
  if (!ok) dh_bench_skip_error(st, "sync");
  if (dbuf) dh_device_free_data_space(d->dev, dbuf);
  if (s1) dh_device_free_stream(d->dev, s1);
  if (s2) dh_device_free_stream(d->dev, s2);
}

int dh_bench_suite_sync(const dh_bench_opts_t* o) {
  static const char* const kNames[] = {"idle", "after_copy4", "from_to"};
  int count = 0;
  for (size_t i = 0; i < o->num_devices; ++i) {
    const dh_bench_device_t* d = &o->devices[i];
    for (int k = S_IDLE; k <= S_FROM_TO; ++k) {
      for (int raw = 0; raw <= 1; ++raw) {
        if (raw && (!d->backend->raw || k == S_FROM_TO)) continue;
        sync_ctx_t* x = dh_bench_keep_copy(&(sync_ctx_t){d, k, raw}, sizeof(sync_ctx_t));
        char name[128];
        snprintf(name, sizeof name, "sync/%s/%s/%s", kNames[k], d->spec, raw ? "raw" : "harness");
        if (!x || !dh_bench_register_timed(name, bm_sync, x, o)) return -1;
        ++count;
      }
    }
  }
  return count;
}
