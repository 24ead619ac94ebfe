/*
 * bench/suites/matrix.c — the matrix suite: copies between every ordered pair (src,
 * dst) of the devices under test, diagonal included, at 4 B, 1 MiB and 256 MiB (quick:
 * 4 B and 1 MiB), one direction and both at once. The N x N tables after the run are
 * bench/report/matrix_table.c's (bench/suites/matrix.h).
 *
 * Names: matrix/<uni|bidir>/<src spec>/<dst spec>/harness/<bytes>
 * Paths (bench/suites/matrix.h dh_bench_matrix_path_t), all through the dispatch facade
 * (dh_device_copy_data_from_to on 1-D uint8 DLTensors, default streams):
 *   on-device  src = dst: a D2D copy on that device;
 *   peer       two device ids of one backend (sim:0 -> sim:1, cuda:0 -> cuda:1): one
 *              copy across them, as the backend does it (CUDA: cuMemcpyPeerAsync; the
 *              peer access state from the backend's optional "peer_access" function);
 *              a backend that refuses it is "unsupported: <its error>";
 *   direct     one end is cpu: one H2D or D2H copy;
 *   staged     two backends (the facade copies only when one side is cpu or both are on
 *              one backend): src -> host buffer, stream_sync of src, host -> dst.
 * One iteration: the copy (copies), then stream_sync of every non-cpu end; host clock
 * around it. bidir issues src -> dst and dst -> src before waiting for either (staged:
 * both D2H, both syncs, both H2D), bytes processed count both directions.
 * Method: buffers DH_BENCH_BUFFER_ALIGN-aligned, kept for the run (buffer_cache.c), every
 * buffer written before it is timed; when a kept set is made the copy runs once untimed
 * and the destination is read back and compared with the source's pattern: a cell that
 * copied wrong bytes is reported as not measured, with the first differing byte.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/measure/timer.h"
#include "bench/suites/matrix.h"
#include "bench/suites/suites.h"
#include "devharness/backend.h"
#include "devharness/device_api.h"
#include "devharness/error.h"
#include "devharness/tensor.h"

enum { MX_MAX_CELLS = 8192 };
static dh_bench_matrix_cell_t* g_cells[MX_MAX_CELLS];
static size_t g_ncells;
static const dh_bench_device_t* g_devs;
static size_t g_ndevs;

dh_bench_matrix_cell_t* const* dh_bench_matrix_cells(size_t* out_n) {
  *out_n = g_ncells;
  return g_ncells ? g_cells : NULL;
}

const dh_bench_device_t* dh_bench_matrix_devices(size_t* out_n) {
  *out_n = g_ndevs;
  return g_devs;
}

void dh_bench_matrix_forget(void) {
  g_ncells = 0;
  g_devs = NULL;
  g_ndevs = 0;
}

static DLDevice src_dev(const dh_bench_matrix_cell_t* x) { return g_devs[x->src].dev; }
static DLDevice dst_dev(const dh_bench_matrix_cell_t* x) { return g_devs[x->dst].dev; }
static const DLDevice kHost = {kDLCPU, 0};

/* One copy of n bytes through the facade, on the default stream. 0/-1. */
static int copy_bytes(void* from, DLDevice fd, void* to, DLDevice td, size_t n) {
  DLTensor f, t;
  int64_t sf, st;
  dh_tensor_init_bytes(&f, from, fd, 0, n, &sf);
  dh_tensor_init_bytes(&t, to, td, 0, n, &st);
  return dh_device_copy_data_from_to(&f, &t, NULL);
}

/* stream_sync of a non-cpu device's default stream (cpu copies are done on return). */
static int sync_dev(DLDevice d) {
  return d.device_type == kDLCPU ? 0 : dh_device_stream_sync(d, NULL);
}

static int same_dev(DLDevice a, DLDevice b) {
  return a.device_type == b.device_type && a.device_id == b.device_id;
}

static int sync_ends(const dh_bench_matrix_cell_t* x) {
  if (sync_dev(src_dev(x)) != 0) return -1;
  return same_dev(src_dev(x), dst_dev(x)) ? 0 : sync_dev(dst_dev(x));
}

/* Kept set: p[0] source on src, p[1] destination on dst; bidir: p[2] source on dst,
 * p[3] destination on src; staged: p[4] (and p[5] for bidir) host staging buffers. */
static int iterate(const dh_bench_matrix_cell_t* x, void* const* p) {
  DLDevice a = src_dev(x), b = dst_dev(x);
  size_t n = x->bytes;
  if (x->path == DH_MX_STAGED) {
    if (copy_bytes(p[0], a, p[4], kHost, n) != 0) return -1;
    if (x->bidir && copy_bytes(p[2], b, p[5], kHost, n) != 0) return -1;
    if (sync_dev(a) != 0 || (x->bidir && sync_dev(b) != 0)) return -1;
    if (copy_bytes(p[4], kHost, p[1], b, n) != 0) return -1;
    if (x->bidir && copy_bytes(p[5], kHost, p[3], a, n) != 0) return -1;
  } else {
    if (copy_bytes(p[0], a, p[1], b, n) != 0) return -1;
    if (x->bidir && copy_bytes(p[2], b, p[3], a, n) != 0) return -1;
  }
  return sync_ends(x);
}

static void mx_release(dh_bench_cache_t* c) {
  const dh_bench_matrix_cell_t* x = c->owner;
  if (sync_ends(x) != 0) dh_error_clear();
  DLDevice on[4] = {src_dev(x), dst_dev(x), dst_dev(x), src_dev(x)};
  for (int i = 0; i < 4; ++i)
    if (c->p[i]) dh_device_free_data_space(on[i], c->p[i]);
  free(c->p[4]);
  free(c->p[5]);
}

static uint8_t pattern(size_t i, unsigned seed) { return (uint8_t)(i * 131u + seed); }

/* Writes device buffer p on dev with pattern `seed` (0: zeros) through host buffer tmp. */
static int write_pattern(DLDevice dev, void* p, uint8_t* tmp, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i) tmp[i] = seed ? pattern(i, seed) : 0;
  if (copy_bytes(tmp, kHost, p, dev, n) != 0) return -1;
  return sync_dev(dev);
}

/* Reads device buffer p on dev back into tmp and compares it with pattern `seed`: 0, -1
 * when it cannot be read back, -2 when a byte differs (the error says which). */
static int check_pattern(const dh_bench_matrix_cell_t* x, DLDevice dev, void* p, uint8_t* tmp,
                         unsigned seed, const char* dir) {
  memset(tmp, 0, x->bytes);
  if (copy_bytes(p, dev, tmp, kHost, x->bytes) != 0 || sync_dev(dev) != 0) return -1;
  for (size_t i = 0; i < x->bytes; ++i)
    if (tmp[i] != pattern(i, seed))
      return dh_error_set(DH_KIND_VALUE_ERROR,
                          "%s: byte %zu of %zu arrived as 0x%02x, expected 0x%02x", dir, i,
                          x->bytes, tmp[i], pattern(i, seed)) - 1;
  return 0;
}

/* Records why cell x is not measured: "<what>: <kind>: <message>" from the last error. */
static int not_measured(dh_bench_matrix_cell_t* x, const char* what) {
  snprintf(x->why, sizeof x->why, "%s: %s", what, dh_bench_error_text());
  return -1;
}

/* The kept set's buffers, each written (sources with their pattern, the rest zeroed). */
static int make_buffers(dh_bench_matrix_cell_t* x, dh_bench_cache_t* c, uint8_t* tmp) {
  DLDevice on[4] = {src_dev(x), dst_dev(x), dst_dev(x), src_dev(x)};
  static const unsigned kSeed[4] = {0x5a, 0, 0xa5, 0};
  size_t n = x->bytes;
  for (int i = 0; i < (x->bidir ? 4 : 2); ++i) {
    if (dh_bench_alloc_device(on[i], n, &c->p[i]) != 0) return not_measured(x, "buffers");
    if (write_pattern(on[i], c->p[i], tmp, n, kSeed[i]) != 0) return not_measured(x, "write");
  }
  for (int i = 4; x->path == DH_MX_STAGED && i < (x->bidir ? 6 : 5); ++i) {
    if (!(c->p[i] = aligned_alloc(DH_BENCH_BUFFER_ALIGN, DH_BENCH_ROUND_UP(n)))) {
      dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "cannot allocate %zu host bytes", n);
      return not_measured(x, "staging buffer");
    }
    memset(c->p[i], 0, n);
  }
  return 0;
}

/* The copy once, untimed, then every destination read back and compared. */
static int first_copy(dh_bench_matrix_cell_t* x, dh_bench_cache_t* c, uint8_t* tmp) {
  if (iterate(x, c->p) != 0) {
    const char* k = dh_error_kind();
    int refused = k && (strcmp(k, DH_KIND_NOT_IMPLEMENTED_ERROR) == 0 ||
                        strcmp(k, DH_KIND_VALUE_ERROR) == 0);
    return not_measured(x, refused ? "unsupported" : "copy failed");
  }
  int rc = check_pattern(x, dst_dev(x), c->p[1], tmp, 0x5a, "src -> dst");
  if (rc == 0 && x->bidir) rc = check_pattern(x, src_dev(x), c->p[3], tmp, 0xa5, "dst -> src");
  if (rc != 0) return not_measured(x, rc == -2 ? "copied bytes differ" : "read back");
  x->verified = 1;
  return 0;
}

static int new_set(dh_bench_matrix_cell_t* x, dh_bench_cache_t** out) {
  dh_bench_cache_t* c = dh_bench_cache_slot();
  uint8_t* tmp = aligned_alloc(DH_BENCH_BUFFER_ALIGN, DH_BENCH_ROUND_UP(x->bytes));
  if (!c || !tmp) {
    dh_bench_cache_drop(c);
    free(tmp);
    dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "cannot allocate %zu host bytes", x->bytes);
    return not_measured(x, "buffers");
  }
  c->owner = x;
  c->size = x->bytes;
  c->release = mx_release;
  size_t dirs = x->bidir ? 2 : 1;
  c->bytes = dirs * x->bytes * (x->path == DH_MX_STAGED ? 3 : 2);
  int rc = make_buffers(x, c, tmp);
  if (rc == 0) rc = first_copy(x, c, tmp);
  free(tmp);
  if (rc != 0) {
    dh_bench_cache_drop(c);
    return -1;
  }
  *out = c;
  return 0;
}

/* The kept set of x, made (and verified) on first use; after an OutOfMemoryError every
 * kept set is released and the set made once more. */
static int kept_set(dh_bench_matrix_cell_t* x, dh_bench_cache_t** out) {
  if ((*out = dh_bench_cache_get(x, x->bytes)) != NULL) return 0;
  if (new_set(x, out) == 0) return 0;
  if (!dh_error_kind() || strcmp(dh_error_kind(), DH_KIND_OUT_OF_MEMORY_ERROR) != 0) return -1;
  dh_bench_cache_release();
  dh_error_clear();
  x->why[0] = '\0';
  return new_set(x, out);
}

static void bm_matrix(dh_gb_state_t* st, void* user) {
  dh_bench_matrix_cell_t* x = user;
  dh_bench_cache_t* c = NULL;
  if (kept_set(x, &c) != 0) {
    dh_gb_skip_with_error(st, x->why);
    return;
  }
  while (dh_gb_keep_running(st)) {
    double t0 = dh_bench_now();
    int rc = iterate(x, c->p);
    double s = dh_bench_now() - t0;
    if (rc != 0) {
      not_measured(x, "copy failed");
      dh_gb_skip_with_error(st, x->why);
      return;
    }
    dh_gb_set_iteration_time(st, s);
  }
  x->why[0] = '\0';
  dh_gb_set_bytes_processed(st, dh_gb_iterations(st) * (int64_t)x->bytes * (x->bidir ? 2 : 1));
  char label[400];
  snprintf(label, sizeof label, "%s; bytes verified; counted once%s; host clock", x->how,
           x->bidir ? " per direction, both directions summed" : "");
  dh_gb_set_label(st, label);
}

static dh_bench_matrix_path_t path_of(const dh_bench_device_t* a, const dh_bench_device_t* b) {
  if (a->backend == b->backend && a->dev.device_type == b->dev.device_type)
    return a->dev.device_id == b->dev.device_id ? DH_MX_ON_DEVICE : DH_MX_PEER;
  if (a->dev.device_type == kDLCPU || b->dev.device_type == kDLCPU) return DH_MX_DIRECT;
  return DH_MX_STAGED;
}

/* The peer access state of a -> b from a's backend's optional DH_FUNC_PEER_ACCESS. */
static void peer_access(const dh_bench_device_t* a, const dh_bench_device_t* b, char* buf,
                        size_t size) {
  dh_any_t args[2] = {dh_any_device(a->dev), dh_any_int(b->dev.device_id)};
  dh_any_t rv = dh_any_none();
  dh_byte_array_t text;
  if (dh_device_call(a->dev, DH_FUNC_PEER_ACCESS, args, 2, &rv) != 0) {
    snprintf(buf, size, "peer access not reported (%s)", dh_bench_error_text());
    dh_error_clear();
  } else if (dh_any_as_str(&rv, &text) == 0) {
    snprintf(buf, size, "peer access: %.*s", (int)text.size, text.data);
  } else {
    snprintf(buf, size, "peer access not reported (%s.%s returned no string)",
             a->backend->name, DH_FUNC_PEER_ACCESS);
  }
  dh_any_release(&rv);
}

/* The cell's path in words. */
static void describe(const dh_bench_device_t* a, const dh_bench_device_t* b,
                     dh_bench_matrix_cell_t* x) {
  char pa[200];
  switch (x->path) {
    case DH_MX_ON_DEVICE:
      snprintf(x->how, sizeof x->how, "on one device: copy_data_from_to D2D on %s", a->spec);
      break;
    case DH_MX_PEER:
      peer_access(a, b, pa, sizeof pa);
      snprintf(x->how, sizeof x->how, "peer: copy_data_from_to across %s device ids (%s)",
               a->backend->name, pa);
      break;
    case DH_MX_DIRECT:
      snprintf(x->how, sizeof x->how, "direct: copy_data_from_to %s",
               a->dev.device_type == kDLCPU ? "H2D" : "D2H");
      break;
    default:
      snprintf(x->how, sizeof x->how,
               "staged through host memory: %s -> host -> %s (two copies, the D2H synced "
               "before the H2D)", a->spec, b->spec);
  }
}

/* Registers the cell (i -> j, mode, n). 0, or -1 with the error set. */
static int add_cell(const dh_bench_opts_t* o, size_t i, size_t j, int bidir, size_t n) {
  if (g_ncells == MX_MAX_CELLS)
    return dh_error_set(DH_KIND_VALUE_ERROR, "matrix: more than %d cells (%zu devices)",
                        MX_MAX_CELLS, o->num_devices);
  dh_bench_matrix_cell_t tmpl = {.src = i, .dst = j, .bidir = bidir, .bytes = n};
  dh_bench_matrix_cell_t* x = dh_bench_keep_copy(&tmpl, sizeof tmpl);
  if (!x) return -1;
  const dh_bench_device_t *a = &o->devices[i], *b = &o->devices[j];
  x->path = path_of(a, b);
  describe(a, b, x);
  char base[160];
  snprintf(base, sizeof base, "matrix/%s/%s/%s/harness", bidir ? "bidir" : "uni", a->spec, b->spec);
  snprintf(x->name, sizeof x->name, "%s/%zu/manual_time", base, n);
  dh_gb_bench_t* bm = dh_bench_register_timed(base, bm_matrix, x, o);
  if (!bm) return -1;
  dh_gb_bench_arg(bm, (int64_t)n);
  g_cells[g_ncells++] = x;
  return 0;
}

int dh_bench_suite_matrix(const dh_bench_opts_t* o) {
  static const size_t kFull[] = {4, (size_t)1 << 20, (size_t)256 << 20};
  size_t nsizes = o->quick ? 2 : 3;
  dh_bench_matrix_forget();
  g_devs = o->devices;
  g_ndevs = o->num_devices;
  for (int bidir = 0; bidir <= 1; ++bidir)
    for (size_t s = 0; s < nsizes; ++s)
      for (size_t i = 0; i < o->num_devices; ++i)
        for (size_t j = 0; j < o->num_devices; ++j)
          if (add_cell(o, i, j, bidir, kFull[s]) != 0) return -1;
  return (int)g_ncells;
}
