/*
 * bench/suites/copy.c — the copy suite: H2D, D2H, D2D and bidirectional latency and
 * bandwidth.
 *
 * Names: copy/<h2d|d2h|d2d|bidir>/<pageable|pinned|device>/<spec>/<impl>/<bytes>
 *   harness:      dh_device_copy_data_from_to on 1-D uint8 DLTensors + dh_device_stream_sync
 *                 (the full public path: checks, dispatch, backend);
 *   raw:          the backend's raw twin (vendor API: memcpy, clEnqueue*, vkCmdCopyBuffer,
 *                 cuMemcpy*Async) with repeat = 1, which also waits for completion: the
 *                 fastest correct use of the API;
 *   raw_released: H2D and bidir, the twin under the harness's contract (DH_RAW_HOST_
 *                 SOURCE_RELEASED: the host source of each H2D is free as soon as it is
 *                 issued), so
 *                 both "harness vs what the API allows" and "harness vs the same
 *                 contract" ratios show.
 *   bidir:        an H2D and a D2H of <bytes> each at once (nvbandwidth's bidirectional
 *                 test): harness on two streams made with dh_device_create_stream (the
 *                 default stream twice on single-queue devices), raw = DH_RAW_COPY_BIDIR.
 *                 Bytes processed count both directions.
 * Method (docs/benchmarks.md "Method"):
 *  - every buffer on both sides is allocated DH_BENCH_BUFFER_ALIGN-aligned (same
 *    relative alignment of source and destination for harness and twin) and written
 *    before it is timed (device buffers by an H2D copy of a pattern, twins in setup);
 *  - buffers and twin contexts are kept for the whole run (bench/measure/buffer_cache.c kept sets),
 *    and every call of a benchmark function (so every repetition) first runs the copy
 *    once untimed;
 *  - timing: host clock around copy + sync on both sides (default, --timing auto/host),
 *    or with --timing device the backend's events / the twin's device timer, which do
 *    not bracket the same span on every API (see docs/benchmarks.md).
 *  - after the timed loop, fresh bytes are copied once more and read back: a row whose
 *    destination lacks them (a stream_sync that returned before the copy was done) is
 *    an error "implausible: ...", never a bandwidth (verify_copy).
 * One iteration = one copy + its sync. Bytes processed = bytes copied, counted ONCE
 * (not read + written), so bytes_per_second is the copy bandwidth.
 * pinned: host memory from the backend's alloc_host (DH_CAP_PINNED_HOST) and
 * DH_RAW_PINNED for the twin; pageable: aligned_alloc'ed and written host memory.
 * Sizes: 4 B to 256 MiB in x4 steps (quick: 4 B, 64 KiB, 1 MiB; bidir 1 MiB).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/measure/timer.h"
#include "bench/suites/suites.h"
#include "devharness/device_api.h"
#include "devharness/error.h"
#include "devharness/tensor.h"

enum { IMPL_HARNESS, IMPL_RAW, IMPL_RAW_RELEASED };

typedef struct copy_ctx {
  const dh_bench_device_t* d;
  dh_raw_op_t dir;
  int pinned;
  int impl;
  int host_timing; /* host clock on both sides */
} copy_ctx_t;

/* Kept set: p[0] host source / destination, p[3] host destination (bidir), p[1], p[2]
 * device buffers, p[4], p[5] streams (bidir). */
static void free_host_buf(const copy_ctx_t* x, void* p) {
  if (!p) return;
  if (x->pinned) dh_device_free_host(x->d->dev, p);
  else free(p);
}

static void copy_release(dh_bench_cache_t* c) {
  const copy_ctx_t* x = c->owner;
  DLDevice dev = x->d->dev;
  if (c->p[4] || c->p[5]) {
    if (dh_device_stream_sync(dev, c->p[4]) != 0 || dh_device_stream_sync(dev, c->p[5]) != 0)
      dh_error_clear();
    if (c->p[4]) dh_device_free_stream(dev, c->p[4]);
    if (c->p[5]) dh_device_free_stream(dev, c->p[5]);
  } else if (dh_device_stream_sync(dev, NULL) != 0) {
    dh_error_clear();
  }
  /* device memory first: a backend whose stream_sync does not wait (verify_copy) may
   * still be copying into the host buffers until its free waits for the queue */
  if (c->p[1]) dh_device_free_data_space(dev, c->p[1]);
  if (c->p[2]) dh_device_free_data_space(dev, c->p[2]);
  free_host_buf(x, c->p[0]);
  free_host_buf(x, c->p[3]);
}

static int alloc_host_buf(const copy_ctx_t* x, size_t an, void** out) {
  if (x->pinned) return dh_device_alloc_host(x->d->dev, an, out);
  size_t rounded = DH_BENCH_ROUND_UP(an);
  *out = aligned_alloc(DH_BENCH_BUFFER_ALIGN, rounded);
  if (!*out) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "cannot allocate %zu host bytes", an);
  return 0;
}

/* Writes device buffer `dbuf` (n bytes) with the pattern in `host` by an H2D copy. */
static int write_device(const copy_ctx_t* x, const void* host, void* dbuf, size_t n) {
  DLTensor from, to;
  int64_t sf, stt;
  DLDevice cpu = {kDLCPU, 0};
  dh_tensor_init_bytes(&from, (void*)host, cpu, 0, n, &sf);
  dh_tensor_init_bytes(&to, dbuf, x->d->dev, 0, n, &stt);
  if (dh_device_copy_data_from_to(&from, &to, NULL) != 0) return -1;
  return dh_device_stream_sync(x->d->dev, NULL);
}

static int harness_buffers_new(const copy_ctx_t* x, size_t n, dh_bench_cache_t** out) {
  dh_bench_cache_t* c = dh_bench_cache_slot();
  if (!c) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "bench: out of memory");
  c->owner = x;
  c->size = n;
  c->release = copy_release;
  size_t an = n ? n : 1;
  int two_dev = x->dir == DH_RAW_COPY_D2D || x->dir == DH_RAW_COPY_BIDIR;
  c->bytes = (x->dir == DH_RAW_COPY_BIDIR ? 4 : 2) * an;
  void* pattern = NULL;
  if (x->dir != DH_RAW_COPY_D2D) {
    if (alloc_host_buf(x, an, &c->p[0]) != 0) goto fail;
    memset(c->p[0], 0x5a, an);
    pattern = c->p[0];
  }
  if (x->dir == DH_RAW_COPY_BIDIR) {
    if (alloc_host_buf(x, an, &c->p[3]) != 0) goto fail;
    memset(c->p[3], 0xa5, an);
  }
  if (dh_bench_alloc_device(x->d->dev, an, &c->p[1]) != 0) goto fail;
  if (two_dev && dh_bench_alloc_device(x->d->dev, an, &c->p[2]) != 0) goto fail;
  /* Every device buffer holds data before it is timed: a never-written buffer of a
   * host-memory backend maps the kernel's zero page, so reading it would cost nothing. */
  void* tmp = NULL;
  if (!pattern) {
    tmp = aligned_alloc(DH_BENCH_BUFFER_ALIGN,
                        DH_BENCH_ROUND_UP(an));
    if (!tmp) {
      dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "cannot allocate %zu host bytes", an);
      goto fail;
    }
    memset(tmp, 0x5a, an);
    pattern = tmp;
  }
  int wrc = write_device(x, pattern, c->p[1], an);
  if (wrc == 0 && c->p[2]) wrc = write_device(x, pattern, c->p[2], an);
  free(tmp);
  if (wrc != 0) goto fail;
  if (x->dir == DH_RAW_COPY_BIDIR) {
    dh_stream_t s1 = NULL, s2 = NULL;
    if (dh_bench_helper_create_stream(x->d->dev, &s1) != 0) goto fail;
    c->p[4] = s1;
    if (dh_bench_helper_create_stream(x->d->dev, &s2) != 0) goto fail;
    c->p[5] = s2;
  }
  *out = c;
  return 0;
fail:
  dh_bench_cache_drop(c);
  return -1;
}

/* The kept set of (x, n), made on first use. The budget is host memory; a device with
 * less memory than the kept sets need answers OutOfMemoryError: then every kept set is
 * released and the allocation tried once more. */
static int harness_buffers(const copy_ctx_t* x, size_t n, dh_bench_cache_t** out) {
  dh_bench_cache_t* c = dh_bench_cache_get(x, n);
  if (c) {
    *out = c;
    return 0;
  }
  if (harness_buffers_new(x, n, out) == 0) return 0;
  if (!dh_error_kind() || strcmp(dh_error_kind(), DH_KIND_OUT_OF_MEMORY_ERROR) != 0) return -1;
  dh_bench_cache_release();
  dh_error_clear();
  return harness_buffers_new(x, n, out);
}

/* One harness iteration (untimed parts excluded by the caller). */
typedef struct harness_op {
  DLTensor from, to, from2, to2;
  int64_t s[4];
  dh_stream_t s1, s2;
  int bidir;
  int h2d_first; /* bidir: pageable and the twin's bidir_order says H2D first */
} harness_op_t;

/* bidir issues its two copies in the twin's order (backend.h dh_raw_twin_t.bidir_order),
 * by default the D2H (s2) before the H2D (s1): under TVM's host-source rule an H2D
 * may return only once its source is consumed (OpenCL's blocking write; a staged or
 * waited-for copy elsewhere), while a D2H returns once queued, so this order is the one
 * that lets the two directions run at once, as a user of the contract would issue them.
 * Where a D2H into pageable memory returns only once done (CUDA) the H2D goes first
 * with pageable buffers (DH_RAW_BIDIR_PAGEABLE_H2D_FIRST).
 * The twins issue both without waiting in between. */
static int harness_issue(const copy_ctx_t* x, harness_op_t* h) {
  (void)x;
  if (h->bidir && !h->h2d_first && dh_device_copy_data_from_to(&h->from2, &h->to2, h->s2) != 0)
    return -1;
  if (dh_device_copy_data_from_to(&h->from, &h->to, h->s1) != 0) return -1;
  if (h->bidir && h->h2d_first && dh_device_copy_data_from_to(&h->from2, &h->to2, h->s2) != 0)
    return -1;
  return 0;
}

/* The twin's dh_raw_twin_t.bidir_order, 0 when it has none or predates the field. */
static uint32_t twin_bidir_order(const dh_backend_t* b) {
  const dh_raw_twin_t* r = b->raw;
  if (!r || r->struct_size < offsetof(dh_raw_twin_t, bidir_order) + sizeof r->bidir_order)
    return 0;
  return r->bidir_order;
}

static int harness_wait(const copy_ctx_t* x, harness_op_t* h) {
  if (dh_device_stream_sync(x->d->dev, h->s1) != 0) return -1;
  if (h->bidir && dh_device_stream_sync(x->d->dev, h->s2) != 0) return -1;
  return 0;
}

/* The raw twin's side: one untimed run (every call, so every repetition, warms up),
 * then the timed loop. Returns the time source for the label, or NULL after skipping
 * the benchmark with the error. */
static const char* time_raw(dh_gb_state_t* st, const copy_ctx_t* x, size_t n) {
  const char* src = "host clock";
  uint32_t flags = (x->pinned ? DH_RAW_PINNED : 0) |
                   (x->impl == IMPL_RAW_RELEASED ? DH_RAW_HOST_SOURCE_RELEASED : 0);
  const dh_raw_context_t* ctx = dh_bench_raw_ctx(x, x->d, x->dir, n, flags);
  if (!ctx) return dh_bench_skip_error(st, "raw twin setup"), NULL;
  if (dh_device_raw_run(ctx, 1, NULL) != 0) return dh_bench_skip_error(st, "raw twin run"), NULL;
  while (dh_gb_keep_running(st)) {
    double s;
    int dev = 0;
    int rc;
    if (x->host_timing) {
      double t0 = dh_bench_now();
      rc = dh_device_raw_run(ctx, 1, NULL);
      s = dh_bench_now() - t0;
    } else {
      rc = dh_bench_raw_run(ctx, 1, &s, &dev);
    }
    if (rc != 0) return dh_bench_skip_error(st, "raw twin run"), NULL;
    dh_gb_set_iteration_time(st, s);
    if (dev) src = "device timer";
  }
  return src;
}

/* The harness's tensors and streams over kept set c (p[0]/p[3] host, p[1]/p[2] device,
 * p[4]/p[5] bidir's streams). */
static void harness_op_init(harness_op_t* h, const copy_ctx_t* x, const dh_bench_cache_t* c,
                            size_t n) {
  DLDevice cpu = {kDLCPU, 0};
  memset(h, 0, sizeof *h);
  switch (x->dir) {
    case DH_RAW_COPY_H2D:
      dh_tensor_init_bytes(&h->from, c->p[0], cpu, 0, n, &h->s[0]);
      dh_tensor_init_bytes(&h->to, c->p[1], x->d->dev, 0, n, &h->s[1]);
      break;
    case DH_RAW_COPY_D2H:
      dh_tensor_init_bytes(&h->from, c->p[1], x->d->dev, 0, n, &h->s[0]);
      dh_tensor_init_bytes(&h->to, c->p[0], cpu, 0, n, &h->s[1]);
      break;
    case DH_RAW_COPY_BIDIR:
      dh_tensor_init_bytes(&h->from, c->p[0], cpu, 0, n, &h->s[0]);
      dh_tensor_init_bytes(&h->to, c->p[1], x->d->dev, 0, n, &h->s[1]);
      dh_tensor_init_bytes(&h->from2, c->p[2], x->d->dev, 0, n, &h->s[2]);
      dh_tensor_init_bytes(&h->to2, c->p[3], cpu, 0, n, &h->s[3]);
      h->s1 = c->p[4];
      h->s2 = c->p[5];
      h->bidir = 1;
      h->h2d_first = !x->pinned && (twin_bidir_order(x->d->backend) & DH_RAW_BIDIR_PAGEABLE_H2D_FIRST);
      break;
    default:
      dh_tensor_init_bytes(&h->from, c->p[1], x->d->dev, 0, n, &h->s[0]);
      dh_tensor_init_bytes(&h->to, c->p[2], x->d->dev, 0, n, &h->s[1]);
      break;
  }
}

/* Writes byte v into all n bytes of t: host memory directly, device memory by an H2D
 * copy and a sync through the harness. */
static int fill_side(const copy_ctx_t* x, const DLTensor* t, unsigned char v, size_t n, unsigned char* tmp) {
  if (t->device.device_type == kDLCPU) return memset(t->data, v, n), 0;
  memset(tmp, v, n);
  return write_device(x, tmp, t->data, n);
}

/* The n bytes of t into out: host memory directly, device memory by a D2H copy and a
 * sync through the harness. */
static int read_side(const copy_ctx_t* x, const DLTensor* t, size_t n, unsigned char* out) {
  if (t->device.device_type == kDLCPU) return memcpy(out, t->data, n), 0;
  DLTensor to;
  int64_t sh;
  dh_tensor_init_bytes(&to, out, (DLDevice){kDLCPU, 0}, 0, n, &sh);
  if (dh_device_copy_data_from_to(t, &to, NULL) != 0) return -1;
  return dh_device_stream_sync(x->d->dev, NULL);
}

/* Bytes of buf (n) that are not v. */
static size_t count_wrong(const unsigned char* buf, size_t n, unsigned char v) {
  size_t wrong = 0;
  for (size_t i = 0; i < n; i++) wrong += buf[i] != v;
  return wrong;
}

/* verify_copy's host buffer of at least n bytes. Never freed, and a smaller one is kept
 * when a larger is made: a device whose stream_sync does not wait may still be copying
 * into one after verify_copy returned. One a power of two up to 2^40 bytes. */
static unsigned char* scratch(size_t n) {
  static unsigned char* kept[41];
  int k = 0;
  while (k < 40 && ((size_t)1 << k) < n) k++;
  if (kept[k] == NULL) kept[k] = malloc((size_t)1 << k);
  return kept[k];
}

/* After the timed loop: is what was timed a finished copy? Fresh bytes into every
 * source, one more copy and sync as timed, then every destination read back. A
 * destination without all its bytes means stream_sync returned before the copy was
 * done, so the timed figures are not a copy's: 0 when the bytes arrived, else -1 with
 * the reason (the row is then reported as an error, never as a bandwidth). */
static int verify_copy(const copy_ctx_t* x, harness_op_t* h, size_t n) {
  static unsigned char round;
  unsigned char v = (unsigned char)(0x11 + (round++ % 200)); /* never the setup patterns */
  if (n == 0) return 0;
  unsigned char* tmp = scratch(n);
  if (tmp == NULL) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "bench: out of memory");
  int rc = fill_side(x, &h->from, v, n, tmp);
  if (rc == 0 && h->bidir) rc = fill_side(x, &h->from2, (unsigned char)(v + 1), n, tmp);
  if (rc == 0) rc = harness_issue(x, h) != 0 || harness_wait(x, h) != 0 ? -1 : 0;
  size_t wrong = 0;
  if (rc == 0 && (rc = read_side(x, &h->to, n, tmp)) == 0) wrong = count_wrong(tmp, n, v);
  if (rc == 0 && h->bidir && (rc = read_side(x, &h->to2, n, tmp)) == 0)
    wrong += count_wrong(tmp, n, (unsigned char)(v + 1));
  if (rc != 0 || wrong == 0) return rc;
  return dh_error_set(DH_KIND_RUNTIME_ERROR,
                      "implausible: after copy_data_from_to and stream_sync returned, %zu of %zu bytes had not "
                      "arrived, so stream_sync did not wait for the copy and the timed figures are not a copy's",
                      wrong, h->bidir ? 2 * n : n);
}

/* The harness's side, like time_raw: bidir on the host clock (two streams), the other
 * directions with the timer (device events with --timing device). */
static const char* time_harness(dh_gb_state_t* st, const copy_ctx_t* x, size_t n) {
  dh_bench_cache_t* c = NULL;
  if (harness_buffers(x, n, &c) != 0) return dh_bench_skip_error(st, "buffers"), NULL;
  harness_op_t h;
  harness_op_init(&h, x, c, n);
  if (harness_issue(x, &h) != 0 || harness_wait(x, &h) != 0)
    return dh_bench_skip_error(st, "copy"), NULL;
  dh_bench_timer_t t;
  dh_bench_timer_init(&t, x->d, h.s1, !x->host_timing && !h.bidir);
  const char* src = dh_bench_timer_source(&t);
  while (dh_gb_keep_running(st)) {
    double s;
    int rc;
    if (h.bidir) {
      double t0 = dh_bench_now();
      rc = harness_issue(x, &h) || harness_wait(x, &h) ? -1 : 0;
      s = dh_bench_now() - t0;
    } else {
      rc = dh_bench_timer_start(&t) != 0 || harness_issue(x, &h) != 0 ||
                   dh_bench_timer_stop(&t, &s) != 0
               ? -1
               : 0;
    }
    if (rc != 0) {
      dh_bench_timer_free(&t);
      return dh_bench_skip_error(st, "copy"), NULL;
    }
    dh_gb_set_iteration_time(st, s);
  }
  dh_bench_timer_free(&t);
  if (verify_copy(x, &h, n) != 0) return dh_bench_skip_error(st, "copy check"), NULL;
  return src;
}

static void bm_copy(dh_gb_state_t* st, void* user) {
  const copy_ctx_t* x = user;
  size_t n = (size_t)dh_gb_range(st, 0);
  const char* src = x->impl != IMPL_HARNESS ? time_raw(st, x, n) : time_harness(st, x, n);
  if (!src) return;
  int64_t per_iter = (int64_t)n * (x->dir == DH_RAW_COPY_BIDIR ? 2 : 1);
  dh_gb_set_bytes_processed(st, dh_gb_iterations(st) * per_iter);
  char label[96];
  snprintf(label, sizeof label, "bytes copied counted once%s; %s",
           x->dir == DH_RAW_COPY_BIDIR ? " per direction, both directions summed" : "", src);
  dh_gb_set_label(st, label);
}

static const struct {
  dh_raw_op_t op;
  const char* name;
} kDirs[] = {{DH_RAW_COPY_H2D, "h2d"}, {DH_RAW_COPY_D2H, "d2h"}, {DH_RAW_COPY_D2D, "d2d"},
             {DH_RAW_COPY_BIDIR, "bidir"}};

/* The sizes of one copy benchmark: 4 B to 256 MiB in x4 steps; quick: 4 B, 64 KiB and
 * 1 MiB, bidir 1 MiB only (keeps `make run` short). */
static void add_sizes(dh_gb_bench_t* b, const dh_bench_opts_t* o, dh_raw_op_t dir) {
  static const int64_t kQuick[] = {4, 64 << 10, 1 << 20};
  if (o->quick && dir == DH_RAW_COPY_BIDIR) {
    dh_gb_bench_arg(b, 1 << 20);
  } else if (o->quick) {
    for (size_t s = 0; s < sizeof kQuick / sizeof kQuick[0]; ++s) dh_gb_bench_arg(b, kQuick[s]);
  } else {
    for (int64_t s = 4; s <= ((int64_t)256 << 20); s *= 4) dh_gb_bench_arg(b, s);
  }
}

/* Registers copy/<dir>/<memory>/<spec>/<impl> of kDirs[k]. 0, or -1 with the error set. */
static int add_copy(const dh_bench_opts_t* o, const dh_bench_device_t* d, size_t k, int pinned,
                    int impl) {
  static const char* const kImpl[] = {"harness", "raw", "raw_released"};
  copy_ctx_t ctx = {d, kDirs[k].op, pinned, impl, o->host_timing};
  copy_ctx_t* x = dh_bench_keep_copy(&ctx, sizeof ctx);
  char name[160];
  snprintf(name, sizeof name, "copy/%s/%s/%s/%s", kDirs[k].name,
           kDirs[k].op == DH_RAW_COPY_D2D ? "device" : pinned ? "pinned" : "pageable", d->spec,
           kImpl[impl]);
  dh_gb_bench_t* b = x ? dh_bench_register_timed(name, bm_copy, x, o) : NULL;
  if (!b) return -1;
  add_sizes(b, o, kDirs[k].op);
  return 0;
}

int dh_bench_suite_copy(const dh_bench_opts_t* o) {
  int count = 0;
  for (size_t i = 0; i < o->num_devices; ++i) {
    const dh_bench_device_t* d = &o->devices[i];
    int has_pinned = (dh_device_caps(d->backend) & DH_CAP_PINNED_HOST) && d->backend->alloc_host &&
                     d->backend->free_host;
    for (size_t k = 0; k < sizeof kDirs / sizeof kDirs[0]; ++k) {
      for (int pinned = 0; pinned <= 1; ++pinned) {
        if (pinned && (!has_pinned || kDirs[k].op == DH_RAW_COPY_D2D)) continue;
        for (int impl = IMPL_HARNESS; impl <= IMPL_RAW_RELEASED; ++impl) {
          if (impl != IMPL_HARNESS && !d->backend->raw) continue;
          if (impl == IMPL_RAW_RELEASED && kDirs[k].op != DH_RAW_COPY_H2D &&
              kDirs[k].op != DH_RAW_COPY_BIDIR)
            continue;
          if (add_copy(o, d, k, pinned, impl) != 0) return -1;
          ++count;
        }
      }
    }
  }
  return count;
}
