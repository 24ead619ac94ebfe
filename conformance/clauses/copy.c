/* conformance/clauses/copy.c — copy clauses (TVM DeviceAPI::CopyDataFromTo, docs/contract.md §Copies).
 * Offsets always travel in byte_offset, never by pointer arithmetic on handles.
 * What else a backend could get wrong here, and which clause catches it:
 * docs/contract.md "What else a backend could get wrong: copies". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy.h"

/* Large sizes are not all whole MiB: a backend that rounds or truncates a copy to a
 * chunk size (1 MiB, 64 KiB, a page) loses the odd tail of 1 MiB + 3 or 16 MiB - 1. */
static const size_t k_sizes[] = {1,         3,          4,        31,         33,
                                 4096,      65537,      1u << 20, (1u << 20) + 3,
                                 16u << 20, (16u << 20) - 1};
#define N_SIZES (sizeof k_sizes / sizeof k_sizes[0])
static const size_t k_offsets[] = {0, 1, 4, 8, 16, 4095};
#define N_OFFSETS (sizeof k_offsets / sizeof k_offsets[0])

/* One size of copy.h2d_d2h_sizes (via_d2d 0) or copy.d2d_sizes (via_d2d 1): a pattern
 * goes up, through a second device buffer when via_d2d, and back into a sentinel. */
static void round_trip(dh_conf_ctx_t* c, scratch_t* s, size_t n, uint32_t seed, int via_d2d) {
  HOST(0, n);
  HOST(1, n);
  DEV(0, n);
  if (via_d2d) DEV(1, n);
  dc_pattern(s->h[0], n, seed);
  dc_sentinel(s->h[1], n);
  DC_UPLOAD(s->d[0], 0, s->h[0], n);
  if (via_d2d) DC_D2D(s->d[0], 0, s->d[1], 0, n, NULL);
  DC_DOWNLOAD(s->d[via_d2d], 0, s->h[1], n);
  CHECK_BYTESF(s->h[1], s->h[0], n, 0, via_d2d ? "%zu-byte D2D copy" : "%zu-byte H2D+D2H round trip", n);
  scratch_free(c, s);
}

WITH_SCRATCH(h2d_d2h_sizes) {
  for (size_t k = 0; k < N_SIZES; k++) TRY(round_trip(c, s, k_sizes[k], (uint32_t)k + 11, 0));
}

WITH_SCRATCH(d2d_sizes) {
  for (size_t k = 0; k < N_SIZES; k++) TRY(round_trip(c, s, k_sizes[k], (uint32_t)k + 23, 1));
}

/* Fills the device buffer d and the host expectation want (n bytes each) with the
 * sentinel: a copy into part of d must leave the rest of it as want has it. */
static void sentinel_fill(dh_conf_ctx_t* c, void* d, uint8_t* want, size_t n) {
  dc_sentinel(want, n);
  DC_UPLOAD(d, 0, want, n); /* sentinel pre-fill */
}

/* Waits for the default stream, then reads n bytes of the device buffer d into got. */
static void sync_read(dh_conf_ctx_t* c, void* d, uint8_t* got, size_t n) {
  DC_SYNC(NULL);
  DC_DOWNLOAD(d, 0, got, n);
}

/* Device buffer d[0] of n bytes holding the pattern of seed, which host buffer h[0] keeps. */
static void pattern_on_device(dh_conf_ctx_t* c, scratch_t* s, size_t n, uint32_t seed) {
  HOST(0, n);
  DEV(0, n);
  dc_pattern(s->h[0], n, seed);
  DC_UPLOAD(s->d[0], 0, s->h[0], n);
}

#define OFF_N 1000
#define OFF_BUF (4095 + OFF_N + 64)

WITH_SCRATCH(src_offsets) {
  HOST(0, OFF_BUF);
  HOST(1, OFF_N);
  DEV(0, OFF_N);
  dc_pattern(s->h[0], OFF_BUF, 5);
  for (size_t k = 0; k < N_OFFSETS; k++) {
    size_t off = k_offsets[k];
    DC_H2D(s->h[0], off, s->d[0], 0, OFF_N, NULL);
    TRY(sync_read(c, s->d[0], s->h[1], OFF_N));
    CHECK_BYTESF(s->h[1], s->h[0] + off, OFF_N, 0, "H2D from host byte_offset %zu", off);
  }
}

WITH_SCRATCH(dst_offsets) {
  HOST(0, OFF_N);
  HOST(1, OFF_BUF);
  HOST(2, OFF_BUF);
  DEV(0, OFF_BUF);
  dc_pattern(s->h[0], OFF_N, 17);
  for (size_t k = 0; k < N_OFFSETS; k++) {
    size_t off = k_offsets[k];
    TRY(sentinel_fill(c, s->d[0], s->h[2], OFF_BUF));
    DC_H2D(s->h[0], 0, s->d[0], off, OFF_N, NULL);
    memcpy(s->h[2] + off, s->h[0], OFF_N);
    TRY(sync_read(c, s->d[0], s->h[1], OFF_BUF));
    CHECK_BYTESF(s->h[1], s->h[2], OFF_BUF, 0, "device buffer after H2D of %d bytes to byte_offset %zu",
                 OFF_N, off);
  }
}

WITH_SCRATCH(d2h_offsets) {
  TRY(pattern_on_device(c, s, OFF_BUF, 29));
  HOST(1, OFF_N);
  for (size_t k = 0; k < N_OFFSETS; k++) {
    size_t off = k_offsets[k];
    dc_sentinel(s->h[1], OFF_N);
    DC_D2H(s->d[0], off, s->h[1], 0, OFF_N, NULL);
    DC_SYNC(NULL);
    CHECK_BYTESF(s->h[1], s->h[0] + off, OFF_N, 0, "D2H from device byte_offset %zu", off);
  }
}

#define D2D_N 777
WITH_SCRATCH(d2d_offsets) {
  TRY(pattern_on_device(c, s, OFF_BUF, 31));
  HOST(1, OFF_BUF);
  HOST(2, OFF_BUF);
  DEV(1, OFF_BUF);
  for (size_t a = 0; a < N_OFFSETS; a++) {
    for (size_t b = 0; b < N_OFFSETS; b++) {
      size_t so = k_offsets[a], doff = k_offsets[b];
      TRY(sentinel_fill(c, s->d[1], s->h[2], OFF_BUF));
      DC_D2D(s->d[0], so, s->d[1], doff, D2D_N, NULL);
      memcpy(s->h[2] + doff, s->h[0] + so, D2D_N);
      TRY(sync_read(c, s->d[1], s->h[1], OFF_BUF));
      CHECK_BYTESF(s->h[1], s->h[2], OFF_BUF, 0, "D2D byte_offset %zu -> %zu (%d bytes)", so, doff, D2D_N);
    }
  }
}

WITH_SCRATCH(offset_matrix) {
  static const size_t sizes[] = {1, 3, 31, 33, 4096};
  static const size_t offs[] = {1, 4, 8, 16};
  size_t buf = 16 + 4096 + 64;
  HOST(0, buf);
  HOST(1, buf);
  HOST(2, buf);
  DEV(0, buf);
  dc_pattern(s->h[0], buf, 37);
  for (size_t i = 0; i < 5; i++) {
    for (size_t j = 0; j < 4; j++) {
      size_t n = sizes[i], off = offs[j];
      TRY(sentinel_fill(c, s->d[0], s->h[2], buf));
      DC_H2D(s->h[0], off, s->d[0], off, n, NULL);
      memcpy(s->h[2] + off, s->h[0] + off, n);
      TRY(sync_read(c, s->d[0], s->h[1], buf));
      CHECK_BYTESF(s->h[1], s->h[2], buf, 0, "%zu bytes at byte_offset %zu (host and device)", n, off);
    }
  }
}

WITH_SCRATCH(host_dst_outside) {
  TRY(pattern_on_device(c, s, OFF_N, 41));
  HOST(1, OFF_BUF);
  HOST(2, OFF_BUF);
  for (size_t k = 0; k < N_OFFSETS; k++) {
    size_t off = k_offsets[k];
    dc_sentinel(s->h[1], OFF_BUF);
    dc_sentinel(s->h[2], OFF_BUF);
    memcpy(s->h[2] + off, s->h[0], OFF_N);
    DC_D2H(s->d[0], 0, s->h[1], off, OFF_N, NULL);
    DC_SYNC(NULL);
    CHECK_BYTESF(s->h[1], s->h[2], OFF_BUF, 0, "host buffer after D2H to host byte_offset %zu", off);
  }
}

/* A host source h[0] with the pattern of seed, its copy h[1] kept as the expectation,
 * h[2] to read back into and d[0] to copy to, n bytes each. */
static void source_and_copy(dh_conf_ctx_t* c, scratch_t* s, size_t n, uint32_t seed) {
  HOST(0, n);
  HOST(1, n);
  HOST(2, n);
  DEV(0, n);
  dc_pattern(s->h[0], n, seed);
  memcpy(s->h[1], s->h[0], n);
}

WITH_SCRATCH(source_unchanged) {
  size_t n = 50000;
  TRY(source_and_copy(c, s, n, 43));
  DEV(1, n);
  DC_H2D(s->h[0], 0, s->d[0], 0, n, NULL);
  DC_SYNC(NULL);
  CHECK_BYTES("host source after H2D", s->h[0], s->h[1], n, 0);
  DC_D2D(s->d[0], 0, s->d[1], 0, n, NULL);
  DC_SYNC(NULL);
  DC_DOWNLOAD(s->d[0], 0, s->h[2], n);
  CHECK_BYTES("device source after D2D", s->h[2], s->h[1], n, 0);
}

WITH_SCRATCH(zero_length) {
  size_t n = 256;
  TRY(pattern_on_device(c, s, n, 47));
  HOST(1, n);
  HOST(2, n);
  DEV(1, n);
  DC_UPLOAD(s->d[1], 0, s->h[0], n);
  dc_sentinel(s->h[1], n);
  memcpy(s->h[2], s->h[1], n);
  DC_H2D(s->h[1], 0, s->d[0], 16, 0, NULL);
  DC_D2H(s->d[0], 0, s->h[1], 8, 0, NULL);
  DC_D2D(s->d[0], 4, s->d[1], 8, 0, NULL);
  DC_SYNC(NULL);
  CHECK_BYTES("host buffer after zero-length D2H", s->h[1], s->h[2], n, 0);
  DC_DOWNLOAD(s->d[0], 0, s->h[1], n);
  CHECK_BYTES("device buffer after zero-length H2D", s->h[1], s->h[0], n, 0);
  DC_DOWNLOAD(s->d[1], 0, s->h[1], n);
  CHECK_BYTES("device buffer after zero-length D2D", s->h[1], s->h[0], n, 0);
  /* The core returns before the backend on nbytes 0 (runtime/device_api.c), so the
   * same copies go to the backend's own copy_data_from_to as well: each must succeed
   * and write nothing, also with offsets at the very end of the buffers. */
  const dh_backend_t* b = c->backend;
  DLDevice h = dc_host();
  dc_sentinel(s->h[1], n);
  struct {
    const void* from;
    size_t fo;
    void* to;
    size_t to_off;
    DLDevice df, dt;
    const char* what;
  } z[] = {{s->h[1], 16, s->d[0], 16, h, c->dev, "H2D"},
           {s->h[1], n, s->d[0], n, h, c->dev, "H2D at the end of both buffers"},
           {s->d[0], 8, s->h[1], 8, c->dev, h, "D2H"},
           {s->d[0], n, s->h[1], n, c->dev, h, "D2H at the end of both buffers"},
           {s->d[0], 4, s->d[1], 8, c->dev, c->dev, "D2D"},
           {s->d[0], n, s->d[1], n, c->dev, c->dev, "D2D at the end of both buffers"}};
  for (size_t i = 0; i < sizeof z / sizeof z[0]; i++) {
    if (dc_abi_copy_flat(b, z[i].from, z[i].fo, z[i].to, z[i].to_off, 0, z[i].df, z[i].dt) != 0) {
      char call[96];
      snprintf(call, sizeof call, "backend copy_data_from_to(nbytes 0, %s)", z[i].what);
      dc_fail_call(c, __FILE__, __LINE__, call);
      return;
    }
  }
  DC_SYNC(NULL);
  CHECK_BYTES("host buffer after zero-length D2H (backend entry)", s->h[1], s->h[2], n, 0);
  DC_DOWNLOAD(s->d[0], 0, s->h[1], n);
  CHECK_BYTES("device buffer after zero-length H2D (backend entry)", s->h[1], s->h[0], n, 0);
  DC_DOWNLOAD(s->d[1], 0, s->h[1], n);
  CHECK_BYTES("device buffer after zero-length D2D (backend entry)", s->h[1], s->h[0], n, 0);
}

#define DISJOINT 64
#define DJ_N 1000
#define DJ_STRIDE 1024
static void many_disjoint(dh_conf_ctx_t* c) {
  uint8_t* src[DISJOINT] = {0};
  size_t total = DISJOINT * DJ_STRIDE;
  uint8_t* want = dc_host_alloc(c, total);
  uint8_t* got = dc_host_alloc(c, total);
  void* d = (want && got) ? dc_dev_alloc(c, total) : NULL;
  if (d) {
    dc_sentinel(want, total);
    dc_upload(c, __LINE__, d, 0, want, total);
  }
  for (int i = 0; i < DISJOINT && d && !c->status; i++) {
    if (!(src[i] = dc_host_alloc(c, DJ_N))) break;
    dc_pattern(src[i], DJ_N, 100u + (uint32_t)i * 7u);
    memcpy(want + (size_t)i * DJ_STRIDE, src[i], DJ_N);
    dc_copy(c, __LINE__, src[i], dc_host(), 0, d, c->dev, (size_t)i * DJ_STRIDE, DJ_N, NULL);
  }
  if (d && !c->status && dh_device_stream_sync(c->dev, NULL) != 0)
    dc_fail_call(c, __FILE__, __LINE__, "stream_sync after 64 queued copies");
  if (d && !c->status) dc_download(c, __LINE__, d, 0, got, total);
  if (d && !c->status)
    dc_check_bytes(c, __FILE__, __LINE__, "device buffer after 64 disjoint H2D copies and one sync",
                   got, want, total, 0);
  for (int i = 0; i < DISJOINT; i++) free(src[i]);
  if (d) dh_device_free_data_space(c->dev, d);
  free(want);
  free(got);
}

WITH_SCRATCH(host_source_released) {
  size_t n = 4 * DC_MIB;
  TRY(source_and_copy(c, s, n, 61));
  DC_H2D(s->h[0], 0, s->d[0], 0, n, NULL);
  memset(s->h[0], 0x5a, n); /* overwrite the source before syncing */
  DC_SYNC(NULL);
  DC_DOWNLOAD(s->d[0], 0, s->h[2], n);
  CHECK_BYTES("device data after the host source was overwritten before stream_sync", s->h[2],
              s->h[1], n, 0);
}

WITH_SCRATCH(on_stream) {
  dh_stream_t st = NULL;
  TRY(dc_stream_create(c, &st));
  size_t n = 65540;
  HOST(0, n);
  HOST(1, n);
  DEV(0, n);
  DEV(1, n);
  dc_pattern(s->h[0], n, 67);
  dc_sentinel(s->h[1], n);
  dc_copy(c, __LINE__, s->h[0], dc_host(), 0, s->d[0], c->dev, 0, n, st);
  if (!c->status) dc_copy(c, __LINE__, s->d[0], c->dev, 0, s->d[1], c->dev, 0, n, st);
  if (!c->status) dc_copy(c, __LINE__, s->d[1], c->dev, 0, s->h[1], dc_host(), 0, n, st);
  if (!c->status && dh_device_stream_sync(c->dev, st) != 0)
    dc_fail_call(c, __FILE__, __LINE__, "stream_sync(created stream)");
  if (!c->status)
    dc_check_bytes(c, __FILE__, __LINE__, "H2D, D2D, D2H on a created stream", s->h[1], s->h[0], n, 0);
  dh_device_free_stream(c->dev, st);
}

/* D2D between disjoint ranges of one buffer (the same handle on both sides, as a copy
 * from one view of a storage into another): each copy lands at its destination offset
 * and every other byte stays. Three copies at aligned and odd offsets, one after the
 * other on the default stream. */
WITH_SCRATCH(same_buffer) {
  static const struct {
    size_t from, to, n;
  } cs[] = {{0, 8192, 4096}, {8193, 1, 777}, {12000, 4000, 3000}};
  const size_t buf = 16384;
  HOST(0, buf);
  HOST(1, buf);
  DEV(0, buf);
  dc_pattern(s->h[0], buf, 43);
  DC_UPLOAD(s->d[0], 0, s->h[0], buf);
  for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
    DC_D2D(s->d[0], cs[k].from, s->d[0], cs[k].to, cs[k].n, NULL);
    memmove(s->h[0] + cs[k].to, s->h[0] + cs[k].from, cs[k].n);
    DC_DOWNLOAD(s->d[0], 0, s->h[1], buf);
    CHECK_BYTESF(s->h[1], s->h[0], buf, 0, "buffer after D2D within it, byte_offset %zu -> %zu (%zu bytes)",
                 cs[k].from, cs[k].to, cs[k].n);
  }
}

/* An H2D takes its place in its stream's order: queued behind work that writes the
 * same device bytes, it lands after that work (a backend that writes host-visible
 * device memory at once, past the queue, lands it first and the queued work then
 * overwrites it). A holds 0xdeadbeef; the stream copies C <-> D ten times (16 MiB
 * each) and C -> A, then H2D P -> A, then D2H A; after stream_sync A must be P. On a
 * single-queue device the stream is the default one. */
#define IO_N (16 * DC_MIB)
typedef struct {
  uint8_t* h[3]; /* P, C's pattern, what comes back */
  void* d[3];    /* A, C, D */
  dh_stream_t s;
} io_t;

static void io_free(dh_conf_ctx_t* c, io_t* v) {
  if (v->s) dh_device_stream_sync(c->dev, v->s);
  dh_device_stream_sync(c->dev, NULL);
  for (int i = 0; i < 3; i++) {
    free(v->h[i]);
    if (v->d[i]) dh_device_free_data_space(c->dev, v->d[i]);
  }
  if (v->s) dh_device_free_stream(c->dev, v->s);
  dh_error_clear();
}

DC_WITH_STATE(h2d_in_order, io_t, v, io_free) {
  for (int i = 0; i < 3; i++)
    if (!(v->h[i] = dc_host_alloc(c, IO_N)) || !(v->d[i] = dc_dev_alloc(c, IO_N))) return;
  TRY(dc_stream_create(c, &v->s));
  dc_sentinel(v->h[2], IO_N);
  DC_UPLOAD(v->d[0], 0, v->h[2], IO_N);
  dc_pattern(v->h[1], IO_N, 91);
  DC_UPLOAD(v->d[1], 0, v->h[1], IO_N);
  dc_pattern(v->h[0], IO_N, 92);
  for (int i = 0; i < 5; i++) {
    DC_D2D(v->d[1], 0, v->d[2], 0, IO_N, v->s);
    DC_D2D(v->d[2], 0, v->d[1], 0, IO_N, v->s);
  }
  DC_D2D(v->d[1], 0, v->d[0], 0, IO_N, v->s);
  DC_H2D(v->h[0], 0, v->d[0], 0, IO_N, v->s);
  DC_D2H(v->d[0], 0, v->h[2], 0, IO_N, v->s);
  DC_SYNC(v->s);
  CHECK_BYTES("A after D2D C -> A then H2D P -> A on one stream (the H2D landed before the "
              "queued D2D?)", v->h[2], v->h[0], IO_N, 0);
}

/* Pinned host memory from the backend's alloc_host as copy endpoints: an H2D source
 * overwritten right after the call returns must not change what lands (the host-source
 * rule holds for pinned memory too, where a backend may let the device read it
 * directly), and a D2H into pinned memory at a byte_offset lands after stream_sync
 * with the bytes around it untouched. */
static void pinned_host_body(dh_conf_ctx_t* c, uint8_t* src, uint8_t* dst, uint8_t* want,
                             void* d, size_t n) {
  const size_t so = 4, doff = 8;
  dc_pattern(want, n, 71);
  memcpy(src + so, want, n);
  dc_sentinel(dst, n + 2 * doff);
  DC_H2D(src, so, d, 0, n, NULL);
  memset(src, 0x5a, n + so); /* overwrite the pinned source before syncing */
  DC_SYNC(NULL);
  DC_D2H(d, 0, dst, doff, n, NULL);
  DC_SYNC(NULL);
  CHECK_BYTES("pinned destination after H2D from an overwritten pinned source, D2H, sync",
              dst + doff, want, n, doff);
  uint8_t edge[16];
  dc_sentinel(edge, sizeof edge);
  CHECK_BYTES("pinned destination bytes before the byte_offset", dst, edge, doff, 0);
  dc_sentinel(want, n + 2 * doff); /* the sentinel of the whole buffer, for the tail */
  CHECK_BYTES("pinned destination bytes after the copied range", dst + doff + n, want + doff + n,
              doff, doff + n);
}

static void pinned_host(dh_conf_ctx_t* c) {
  const size_t n = DC_MIB + 12, extra = 16;
  void *src = NULL, *dst = NULL, *d = NULL;
  uint8_t* want = dc_host_alloc(c, n + extra);
  if (!want) return;
  if (dh_device_alloc_host(c->dev, n + extra, &src) != 0 || !src)
    dc_fail_call(c, __FILE__, __LINE__, "alloc_host(source)");
  else if (dh_device_alloc_host(c->dev, n + extra, &dst) != 0 || !dst)
    dc_fail_call(c, __FILE__, __LINE__, "alloc_host(destination)");
  else if ((d = dc_dev_alloc(c, n)) != NULL)
    pinned_host_body(c, src, dst, want, d, n);
  if (d) dh_device_free_data_space(c->dev, d);
  if (dst && dh_device_free_host(c->dev, dst) != 0 && c->status == DC_PASS)
    dc_fail_call(c, __FILE__, __LINE__, "free_host(destination)");
  if (src && dh_device_free_host(c->dev, src) != 0 && c->status == DC_PASS)
    dc_fail_call(c, __FILE__, __LINE__, "free_host(source)");
  free(want);
}

/* A flat byte copy between any two devices (the host included) on the default stream;
 * 0, or -1 with the error raised. */
static int flat_copy(const void* from, DLDevice from_dev, size_t from_off, void* to, DLDevice to_dev,
                     size_t to_off, size_t n) {
  DLTensor a, b;
  int64_t sa, sb;
  dh_tensor_init_bytes(&a, (void*)from, from_dev, from_off, n, &sa);
  dh_tensor_init_bytes(&b, to, to_dev, to_off, n, &sb);
  return dh_device_copy_data_from_to(&a, &b, NULL);
}

/* cross_device, the way back: n bytes at byte offset src_off of od on device other to
 * offset 0 of dptr on this device, read into host and compared with want. */
static void cross_device_back(dh_conf_ctx_t* c, void* od, DLDevice other, size_t src_off, void* dptr,
                              uint8_t* host, const uint8_t* want, size_t n) {
  if (flat_copy(od, other, src_off, dptr, c->dev, 0, n) != 0 || dh_device_stream_sync(other, NULL) != 0 ||
      dh_device_stream_sync(c->dev, NULL) != 0) {
    dc_fail_call(c, __FILE__, __LINE__, "copy_data_from_to(other device -> this device)");
    return;
  }
  dc_download(c, __LINE__, dptr, 0, host, n);
  if (c->status == DC_PASS)
    dc_check_bytes(c, __FILE__, __LINE__, "this device after the copy back from the other", host, want, n, 0);
}

/* D2D between two devices of one backend (sim:0 -> sim:1), both directions, with
 * byte offsets: devharness's rule (profile strict). TVM's CopyDataFromTo takes dev_from
 * and dev_to (apache/tvm 0.27 include/tvm/runtime/device_api.h:296-311) and its CUDA
 * backend does peer copies, but its docs ask only CPU<->device and copies within one
 * device (apache/tvm 0.27 docs/arch/device_target_interactions.rst:100-104). The copy
 * goes on the source device's default stream; both devices' default streams are synced
 * before reading. */
WITH_SCRATCH(cross_device) {
  DLDevice other = {c->dev.device_type, c->dev.device_id == 0 ? 1 : 0};
  size_t n = DC_MIB + 3, off = 5, total = n + 2 * off;
  TRY(pattern_on_device(c, s, total, 619));
  HOST(1, total);
  HOST(2, total);
  void* od = NULL; /* on the other device: freed there at the end */
  if (dh_device_alloc_data_space(other, total, 0, dc_u8(), &od) != 0 || !od)
    FAIL("a buffer on the other device", "an error", "alloc_data_space on device id %d failed",
         other.device_id);
  /* fill other with the sentinel, then this -> other at offsets */
  dc_sentinel(s->h[2], total);
  int ok = flat_copy(s->h[2], dc_host(), 0, od, other, 0, total) == 0 && dh_device_stream_sync(other, NULL) == 0;
  if (ok && flat_copy(s->d[0], c->dev, off, od, other, 2 * off, n) != 0) {
    dc_fail_call(c, __FILE__, __LINE__, "copy_data_from_to(this device -> other device)");
    ok = 0;
  } else if (ok && (dh_device_stream_sync(c->dev, NULL) != 0 || dh_device_stream_sync(other, NULL) != 0)) {
    dc_fail_call(c, __FILE__, __LINE__, "stream_sync after a cross-device copy");
    ok = 0;
  }
  if (ok && (flat_copy(od, other, 0, s->h[1], dc_host(), 0, total) != 0 || dh_device_stream_sync(other, NULL) != 0)) {
    dc_fail_call(c, __FILE__, __LINE__, "D2H from the other device");
    ok = 0;
  }
  if (ok) {
    memcpy(s->h[2] + 2 * off, s->h[0] + off, n);
    char what[96];
    snprintf(what, sizeof what, "device %d after a D2D from device %d (byte_offset %zu -> %zu)",
             other.device_id, c->dev.device_id, off, 2 * off);
    dc_check_bytes(c, __FILE__, __LINE__, what, s->h[1], s->h[2], total, 0);
  }
  /* and back: other -> this, at offset 0 */
  if (ok && c->status == DC_PASS) cross_device_back(c, od, other, 2 * off, s->d[0], s->h[1], s->h[0] + off, n);
  dh_device_stream_sync(other, NULL);
  dh_device_free_data_space(other, od);
  dh_error_clear();
}

const dh_clause_t dc_copy_clauses[] = {
    {"copy.h2d_d2h_sizes", "H2D then D2H round trips over 1 B..16 MiB (incl. 1 MiB + 3, 16 MiB - 1) keep "
     "every byte", DC_MUST,
     "TVM docs §DeviceAPI \"Copy data\" (device_target_interactions.rst:100-109); IREE HAL CTS "
     "buffer_mapping", 0, h2d_d2h_sizes, NULL, DC_PROFILE_TVM},
    {"copy.d2d_sizes", "D2D copies over 1 B..16 MiB (incl. 1 MiB + 3, 16 MiB - 1) keep every byte", DC_MUST,
     "TVM docs §DeviceAPI \"Copy data\" (device_target_interactions.rst:100-109); IREE HAL CTS "
     "copy_buffer", 0, d2d_sizes, NULL, DC_PROFILE_TVM},
    {"copy.src_offsets", "H2D honours the host source byte_offset {0,1,4,8,16,4095}", DC_MUST,
     "apache/tvm 0.27 include/tvm/runtime/device_api.h:296-311 CopyDataFromTo (from_offset)", 0,
     src_offsets, NULL, DC_PROFILE_TVM},
    {"copy.dst_offsets",
     "H2D to device byte_offset {0,1,4,8,16,4095} leaves bytes outside the range", DC_MUST,
     "apache/tvm 0.27 include/tvm/runtime/device_api.h:296-311 CopyDataFromTo (to_offset); "
     "OpenCL-CTS test_buffers (0xdeadbeef)", 0, dst_offsets, NULL, DC_PROFILE_TVM},
    {"copy.d2h_offsets", "D2H honours the device source byte_offset {0,1,4,8,16,4095}", DC_MUST,
     "apache/tvm 0.27 include/tvm/runtime/device_api.h:296-311 CopyDataFromTo (from_offset)", 0,
     d2h_offsets, NULL, DC_PROFILE_TVM},
    {"copy.d2d_offsets", "D2D honours every source x destination byte_offset pair", DC_MUST,
     "apache/tvm 0.27 include/tvm/runtime/device_api.h:296-311 CopyDataFromTo; IREE HAL CTS "
     "copy_buffer sub-range", 0, d2d_offsets, NULL, DC_PROFILE_TVM},
    {"copy.offset_matrix", "sizes {1,3,31,33,4096} x misaligned offsets {1,4,8,16} land exactly",
     DC_MUST,
     "apache/tvm 0.27 include/tvm/runtime/device_api.h:296-311 CopyDataFromTo; IREE HAL CTS "
     "size x alignment matrix", 0, offset_matrix, NULL, DC_PROFILE_TVM},
    {"copy.host_dst_outside", "D2H into a host byte_offset leaves host bytes outside the range",
     DC_MUST,
     "TVM docs §DeviceAPI \"Copy data\" (device_target_interactions.rst:100-109); OpenCL-CTS "
     "test_buffers (sentinel pre-fill)", 0, host_dst_outside, NULL, DC_PROFILE_TVM},
    {"copy.source_unchanged", "H2D leaves the host source and D2D the device source unchanged",
     DC_MUST,
     "TVM docs §DeviceAPI \"Copy data\" (device_target_interactions.rst:100-109); OpenCL-CTS "
     "test_buffers", 0, source_unchanged, NULL, DC_PROFILE_TVM},
    {"copy.zero_length", "zero-length copies in every direction are no-ops, through the core and the "
     "backend entry", DC_MUST,
     "devharness device_api.h dh_device_copy_data_from_to; IREE HAL CTS (zero-length copy)", 0,
     zero_length, NULL, DC_PROFILE_STRICT},
};
const size_t dc_copy_count = sizeof dc_copy_clauses / sizeof dc_copy_clauses[0];

/* The copy family after copy_tensor.c's in the catalogue: copies in flight. */
const dh_clause_t dc_copy_async_clauses[] = {
    {"copy.many_disjoint", "64 disjoint copies queued then one stream_sync all land", DC_MUST,
     "TVM docs §DeviceAPI \"Copy data\" (device_target_interactions.rst:100-109); IREE HAL CTS "
     "(64 disjoint copies)", 0, many_disjoint, NULL, DC_PROFILE_TVM},
    {"copy.host_source_released",
     "after the copy call returns the backend no longer reads the host source", DC_MUST,
     "TVM docs §DeviceAPI \"Copy data\" (device_target_interactions.rst:111-114: CPU buffers "
     "not valid after the call)", 0, host_source_released, NULL, DC_PROFILE_TVM},
    {"copy.pinned_host",
     "pinned host memory (alloc_host) as H2D source and D2H destination: source released on "
     "return, destination exact after stream_sync", DC_MUST,
     "TVM docs §DeviceAPI \"Copy data\" (device_target_interactions.rst:111-114: CPU buffers, "
     "pinned ones too, not valid after the call); devharness backend.h alloc_host",
     DC_NEED_PINNED_HOST, pinned_host, NULL, DC_PROFILE_TVM},
    {"copy.cross_device", "D2D between two devices of one backend (both directions, with "
     "byte offsets) keeps every byte", DC_MUST,
     "devharness backend.h copy_data_from_to (dev_from, dev_to of one backend); TVM's docs ask "
     "only CPU<->device and within one device (device_target_interactions.rst:100-104), its "
     "header names dev_from/dev_to (apache/tvm 0.27 include/tvm/runtime/device_api.h:296-311)",
     DC_NEED_TWO_DEVICES, cross_device, NULL, DC_PROFILE_STRICT},
    {"copy.on_stream", "H2D, D2D, D2H queued on a created stream land after stream_sync", DC_MUST,
     "TVM docs §DeviceAPI \"Copy data\" (device_target_interactions.rst:111-112: queued on a "
     "TVMStreamHandle)", DC_NEED_MULTI_QUEUE, on_stream, NULL, DC_PROFILE_TVM},
    {"copy.h2d_in_order", "an H2D queued behind work that writes the same device bytes lands "
     "after it, in stream order", DC_MUST,
     "TVM docs §DeviceAPI \"Copy data\" (device_target_interactions.rst:111-112: queued on a "
     "TVMStreamHandle) and \"Execution stream management\" (:117-134: in order)", 0,
     h2d_in_order, NULL, DC_PROFILE_TVM},
    {"copy.same_buffer", "D2D between disjoint ranges of one buffer lands at the destination offset "
     "and leaves every other byte", DC_MUST,
     "apache/tvm 0.27 include/tvm/runtime/device_api.h:296-311 CopyDataFromTo (from, from_offset, "
     "to, to_offset: nothing sets from == to apart)", 0, same_buffer, NULL, DC_PROFILE_TVM},
};
const size_t dc_copy_async_count = sizeof dc_copy_async_clauses / sizeof dc_copy_async_clauses[0];
