/*
 * bench/copy.c — the copy suite: H2D, D2H and D2D latency and bandwidth.
 *
 * Names: copy/<h2d|d2h|d2d>/<pageable|pinned|device>/<spec>/<harness|raw>/<bytes>
 *   harness: dh_device_copy_data_from_to on 1-D uint8 DLTensors + dh_device_stream_sync
 *            on the default stream (the full public path: checks, dispatch, backend);
 *   raw:     the backend's raw twin (vendor API: memcpy, clEnqueue*, vkCmdCopyBuffer..)
 *            with repeat = 1, which also waits for completion.
 * Timing: device events / the twin's device timer where available, else (and always
 * with --timing host) the host clock around copy + sync.
 * One iteration = one copy + its sync. Bytes processed = bytes copied, counted ONCE
 * (not read + written), so bytes_per_second is the copy bandwidth.
 * pinned: host memory from the backend's alloc_host (DH_CAP_PINNED_HOST) and
 * DH_RAW_PINNED for the twin; pageable: aligned_alloc'ed and touched host memory.
 * Sizes: 4 B to 256 MiB in x4 steps (quick: 4 B, 64 KiB, 1 MiB).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/device_api.h"
#include "devharness/error.h"
#include "devharness/tensor.h"
#include "devop.h"

typedef struct copy_ctx {
  const dh_bench_device_t* d;
  dh_raw_op_t dir;
  int pinned;
  int raw;
  int host_timing; /* --timing host */
} copy_ctx_t;

static void copy_release(dh_bench_cache_t* c) {
  const copy_ctx_t* x = c->owner;
  DLDevice dev = x->d->dev;
  if (c->p[0]) {
    if (x->pinned) x->d->backend->free_host(dev, c->p[0]);
    else free(c->p[0]);
  }
  if (c->p[1]) dh_device_free_data_space(dev, c->p[1]);
  if (c->p[2]) dh_device_free_data_space(dev, c->p[2]);
}

/* Host buffer p[0] (not for d2d), device buffers p[1] (and p[2] for d2d). */
static int harness_buffers(const copy_ctx_t* x, size_t n, void** host, void** da, void** db) {
  dh_bench_cache_t* c = dh_bench_cache_get(x, n);
  if (!c) {
    c = dh_bench_cache_slot();
    c->owner = x;
    c->size = n;
    c->release = copy_release;
    DLDataType u8 = {kDLUInt, 8, 1};
    size_t an = n ? n : 1;
    if (x->dir != DH_RAW_COPY_D2D) {
      if (x->pinned) {
        if (x->d->backend->alloc_host(x->d->dev, an, &c->p[0]) != 0) goto fail;
      } else {
        c->p[0] = aligned_alloc(4096, (an + 4095) & ~(size_t)4095);
        if (!c->p[0]) {
          dh_error_set("OutOfMemoryError", "cannot allocate %zu host bytes", an);
          goto fail;
        }
      }
      memset(c->p[0], 0x5a, an);
    }
    if (dh_device_alloc_data_space(x->d->dev, an, 0, u8, &c->p[1]) != 0) goto fail;
    if (x->dir == DH_RAW_COPY_D2D &&
        dh_device_alloc_data_space(x->d->dev, an, 0, u8, &c->p[2]) != 0)
      goto fail;
  }
  *host = c->p[0];
  *da = c->p[1];
  *db = c->p[2];
  return 0;
fail:
  dh_bench_cache_release();
  return -1;
}

static void bm_copy(dh_gb_state_t* st, void* user) {
  const copy_ctx_t* x = user;
  size_t n = (size_t)dh_gb_range(st, 0);
  const char* src = "host clock";
  if (x->raw) {
    void* ctx = dh_bench_raw_ctx(x, x->d, x->dir, n, x->pinned ? DH_RAW_PINNED : 0);
    if (!ctx) { dh_bench_skip_error(st, "raw twin setup"); return; }
    while (dh_gb_keep_running(st)) {
      double s;
      int dev = 0;
      int rc;
      if (x->host_timing) {
        double t0 = dh_bench_now();
        rc = x->d->backend->raw->run(ctx, 1, NULL);
        s = dh_bench_now() - t0;
      } else {
        rc = dh_bench_raw_run(x->d, ctx, 1, &s, &dev);
      }
      if (rc != 0)
        { dh_bench_skip_error(st, "raw twin run"); return; }
      dh_gb_set_iteration_time(st, s);
      if (dev) src = "device timer";
    }
  } else {
    void *host, *da, *db;
    if (harness_buffers(x, n, &host, &da, &db) != 0)
      { dh_bench_skip_error(st, "buffers"); return; }
    DLDevice cpu = {kDLCPU, 0};
    DLTensor from, to;
    int64_t sf, stt;
    switch (x->dir) {
      case DH_RAW_COPY_H2D:
        dh_tensor_init_bytes(&from, host, cpu, 0, n, &sf);
        dh_tensor_init_bytes(&to, da, x->d->dev, 0, n, &stt);
        break;
      case DH_RAW_COPY_D2H:
        dh_tensor_init_bytes(&from, da, x->d->dev, 0, n, &sf);
        dh_tensor_init_bytes(&to, host, cpu, 0, n, &stt);
        break;
      default:
        dh_tensor_init_bytes(&from, da, x->d->dev, 0, n, &sf);
        dh_tensor_init_bytes(&to, db, x->d->dev, 0, n, &stt);
        break;
    }
    dh_bench_timer_t t;
    dh_bench_timer_init(&t, x->d, NULL, !x->host_timing);
    src = dh_bench_timer_source(&t);
    while (dh_gb_keep_running(st)) {
      double s;
      if (dh_bench_timer_start(&t) != 0 || dh_device_copy_data_from_to(&from, &to, NULL) != 0 ||
          dh_bench_timer_stop(&t, &s) != 0) {
        dh_bench_timer_free(&t);
        { dh_bench_skip_error(st, "copy"); return; }
      }
      dh_gb_set_iteration_time(st, s);
    }
    dh_bench_timer_free(&t);
  }
  dh_gb_set_bytes_processed(st, dh_gb_iterations(st) * (int64_t)n);
  char label[96];
  snprintf(label, sizeof label, "bytes copied counted once; %s", src);
  dh_gb_set_label(st, label);
}

int dh_bench_suite_copy(const dh_bench_opts_t* o) {
  static const int64_t kQuick[] = {4, 64 << 10, 1 << 20};
  static const struct {
    dh_raw_op_t op;
    const char* name;
  } kDirs[] = {{DH_RAW_COPY_H2D, "h2d"}, {DH_RAW_COPY_D2H, "d2h"}, {DH_RAW_COPY_D2D, "d2d"}};
  int count = 0;
  for (size_t i = 0; i < o->num_devices; ++i) {
    const dh_bench_device_t* d = &o->devices[i];
    int has_pinned = (d->backend->caps & DH_CAP_PINNED_HOST) && d->backend->alloc_host &&
                     d->backend->free_host;
    for (size_t k = 0; k < 3; ++k) {
      for (int pinned = 0; pinned <= 1; ++pinned) {
        if (pinned && (!has_pinned || kDirs[k].op == DH_RAW_COPY_D2D)) continue;
        for (int raw = 0; raw <= 1; ++raw) {
          if (raw && !d->backend->raw) continue;
          copy_ctx_t* x = dh_bench_keep(sizeof *x);
          if (!x) return dh_error_set("OutOfMemoryError", "bench: out of memory");
          x->d = d;
          x->dir = kDirs[k].op;
          x->pinned = pinned;
          x->raw = raw;
          x->host_timing = o->host_timing;
          char name[160];
          snprintf(name, sizeof name, "copy/%s/%s/%s/%s", kDirs[k].name,
                   kDirs[k].op == DH_RAW_COPY_D2D ? "device" : pinned ? "pinned" : "pageable",
                   d->spec, raw ? "raw" : "harness");
          dh_gb_bench_t* b = dh_gb_register(name, bm_copy, x);
          if (!b) return dh_error_set("InternalError", "bench: cannot register %s", name);
          if (o->quick) {
            for (size_t s = 0; s < sizeof kQuick / sizeof kQuick[0]; ++s)
              dh_gb_bench_arg(b, kQuick[s]);
          } else {
            for (int64_t s = 4; s <= ((int64_t)256 << 20); s *= 4) dh_gb_bench_arg(b, s);
          }
          dh_bench_common(b, o);
          dh_gb_bench_use_manual_time(b);
          dh_gb_bench_unit(b, DH_GB_US);
          ++count;
        }
      }
    }
  }
  return count;
}
