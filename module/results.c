/*
 * module/results.c — the cases of `module check` that look at what a function
 * computes (docs/kernel-libraries.md "What the results cases check"): every tensor
 * after a call with seeded inputs against a reference (module.results; reference.c),
 * and what needs no reference: each tensor untouched or fully rewritten
 * (module.writes), guard bytes around every tensor (module.bounds, at every size
 * tried), the same inputs twice (module.deterministic), a nonzero byte_offset
 * (module.byte_offset). Calls cases.c (dm_call_*) and args.c.
 *
 * Inputs: float elements are multiples of 1/8 in [-4, 4), so sums and products of a
 * few thousand are exact in any order (a correct reduction or matmul matches its
 * reference at any size); signed integers in [-9, 9], unsigned in [0, 9], bool 0/1
 * (torch.testing.make_tensor's integer ranges).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module/check.h"

#define MAX_NUMEL (1 << 22) /* a size is tried when no tensor has more elements */
#define GUARD 64            /* guard bytes before and after each tensor */

static const dm_scalar_t kScalars = {1, 1.0};

/* The extents tried for symbolic dimensions; the first is the default. */
static const int64_t kSizes[] = {64, 0, 1, 7, 63, 1000, 65537};

/* splitmix64 (Steele, Lea, Flood 2014): the inputs' generator. */
static uint64_t next_random(uint64_t* s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* IEEE half <-> float for the values used here (normal numbers and zero). */
static uint16_t to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
  int exp = (int)((x >> 23) & 0xFF) - 127 + 15;
  if ((x & 0x7FFFFFFF) == 0) return sign;
  if (exp <= 0) return sign;
  return (uint16_t)(sign | (uint16_t)(exp << 10) | (uint16_t)((x >> 13) & 0x3FF));
}

static float from_half(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1F, man = h & 0x3FF, x;
  if (exp == 0) {
    float f = ldexpf((float)man, -24);
    return sign ? -f : f;
  }
  x = exp == 31 ? sign | 0x7F800000u | (man << 13) : sign | ((exp - 15 + 127) << 23) | (man << 13);
  float f;
  memcpy(&f, &x, 4);
  return f;
}

/* Element e of a tensor of dtype dt at p, as a double. */
static double load(const uint8_t* p, DLDataType dt) {
  switch (dt.code) {
    case kDLFloat:
      if (dt.bits == 16) { uint16_t h; memcpy(&h, p, 2); return from_half(h); }
      if (dt.bits == 32) { float f; memcpy(&f, p, 4); return f; }
      if (dt.bits == 64) { double d; memcpy(&d, p, 8); return d; }
      return 0;
    case kDLBfloat: { uint16_t h; uint32_t x; float f; memcpy(&h, p, 2); x = (uint32_t)h << 16; memcpy(&f, &x, 4); return f; }
    case kDLInt:
      if (dt.bits == 8) return (int8_t)p[0];
      if (dt.bits == 16) { int16_t v; memcpy(&v, p, 2); return v; }
      if (dt.bits == 32) { int32_t v; memcpy(&v, p, 4); return v; }
      if (dt.bits == 64) { int64_t v; memcpy(&v, p, 8); return (double)v; }
      return 0;
    default: {
      uint64_t v = 0;
      memcpy(&v, p, dt.bits >= 8 ? (size_t)dt.bits / 8 : 1);
      return (double)v;
    }
  }
}

/* The edge values of module.edge_values: NaN, +-inf, -0.0 and the smallest float32
 * denormal (a float16's 0; a float64's denormal), one element in four. */
static const double kEdges[] = {NAN, INFINITY, -INFINITY, -0.0, 1.401298464324817e-45};

/* One seeded element of dtype dt at p; with edges, one float in four an edge value. */
static void store_random(uint8_t* p, DLDataType dt, uint64_t r, int edges) {
  int fl = dt.code == kDLFloat || dt.code == kDLBfloat;
  double x = fl && edges && (r >> 40) % 4 == 0 ? kEdges[(r >> 20) % (sizeof kEdges / sizeof kEdges[0])]
             : fl ? (double)((int64_t)(r % 64) - 32) / 8.0
             : dt.code == kDLInt ? (double)((int64_t)(r % 19) - 9)
             : dt.code == kDLBool || dt.bits == 1 ? (double)(r & 1) : (double)(r % 10);
  float f = (float)x;
  if (dt.code == kDLFloat && dt.bits == 16) { uint16_t h = isnan(f) ? 0x7E00 : isinf(f) ? (f > 0 ? 0x7C00 : 0xFC00) : to_half(f); memcpy(p, &h, 2); }
  else if (dt.code == kDLFloat && dt.bits == 32) memcpy(p, &f, 4);
  else if (dt.code == kDLFloat && dt.bits == 64) memcpy(p, &x, 8);
  else if (dt.code == kDLBfloat) { uint32_t u; memcpy(&u, &f, 4); uint16_t h = (uint16_t)(u >> 16); memcpy(p, &h, 2); }
  else {
    int64_t v = (int64_t)x;
    memcpy(p, &v, dt.bits >= 8 ? (size_t)dt.bits / 8 : 1); /* little-endian: the low bytes */
  }
}

/* Tensor i's flat element index k written as [i, j, ...] into buf. */
static const char* index_text(const dm_args_t* a, int i, int64_t k, char* buf, size_t cap) {
  int nd = a->t[i].ndim;
  int64_t idx[DM_MAX_NDIM];
  for (int d = nd - 1; d >= 0; d--) idx[d] = a->shape[i][d] ? k % a->shape[i][d] : 0, k = a->shape[i][d] ? k / a->shape[i][d] : 0;
  size_t o = (size_t)snprintf(buf, cap, "[");
  for (int d = 0; d < nd && o < cap; d++) o += (size_t)snprintf(buf + o, cap - o, "%s%lld", d ? ", " : "", (long long)idx[d]);
  if (o < cap) snprintf(buf + o, cap - o, "]");
  return buf;
}

/* The size tried for symbolic dimensions (`sized` layouts), within MAX_NUMEL. */
typedef struct sizes {
  int64_t v[sizeof kSizes / sizeof kSizes[0]];
  size_t n;
} sizes_t;

/* The sizes a function is tried at: every one of kSizes when a dimension is symbolic
 * (a signature's, or a 1-D layout's [n]) and no tensor gets more than MAX_NUMEL
 * elements; else only its own shapes. */
static sizes_t sizes_of(const dm_call_t* c) {
  sizes_t s = {{64}, 1};
  int symbolic = !c->f.has_sig && c->layout.pattern != 2, maxdims = 1;
  for (int i = 0; c->f.has_sig && i < c->f.nparams; i++) {
    int nsym = 0;
    for (int d = 0; d < c->f.ndim[i]; d++) nsym += c->f.dims[i][d] < 0;
    symbolic |= nsym > 0;
    if (nsym > maxdims) maxdims = nsym;
  }
  if (!symbolic) return s;
  for (size_t k = 1; k < sizeof kSizes / sizeof kSizes[0]; k++)
    if (pow((double)kSizes[k], maxdims) <= MAX_NUMEL) s.v[s.n++] = kSizes[k];
  return s;
}

/* The layout of a call at size `size`, guard bytes on request. */
static dm_layout_t layout_at(const dm_call_t* c, const dm_target_t* t, int64_t size, int guard) {
  dm_layout_t l = c->layout;
  l.sized = 1;
  l.size = size;
  l.odd_tensor = -1;
  if (guard) {
    const dh_backend_t* b = NULL;
    l.pad = GUARD;
    l.pad_as_offset = dh_device_api_get_by_type(t->dev.device_type, &b) != 0 ||
                      !(dh_device_caps(b) & DH_CAP_HOST_POINTER_ARITHMETIC);
    dh_error_clear();
  }
  return l;
}

/* The arguments of one call and the host copies of every tensor's buffer. */
typedef struct io {
  dm_args_t a;
  uint8_t* in[DM_MAX_PARAMS];
  uint8_t* out[DM_MAX_PARAMS];
  uint8_t* ref[DM_MAX_PARAMS];
  int rc; /* the call's: 0 returned, -1 raised */
  char raised[300];
} io_t;

static void io_free(io_t* o) {
  dm_args_free(&o->a);
  for (int i = 0; i < DM_MAX_PARAMS; i++) free(o->in[i]), free(o->out[i]), free(o->ref[i]);
  memset(o, 0, sizeof *o);
}

/* Makes the arguments of l on dev with seeded elements (guard bytes DM_CANARY),
 * tensors in `sentinel` (a bit set) filled with the byte fill instead. -1 with the
 * error when they cannot be made. */
static int io_make(io_t* o, dm_call_t* c, DLDevice dev, const dm_layout_t* l, uint64_t seed, unsigned sentinel,
                   int fill, int edges) {
  memset(o, 0, sizeof *o);
  if (dm_args_make(&c->f, dev, l, kScalars, &o->a) != 0) return -1;
  for (int i = 0; i < o->a.n; i++) {
    if (o->a.data[i] == NULL) continue;
    size_t esz = dm_args_esize(&o->a, i), span = dm_args_span(&o->a, i);
    if ((o->in[i] = malloc(o->a.data_bytes[i] + 1)) == NULL) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "out of memory");
    memset(o->in[i], DM_CANARY, o->a.data_bytes[i]);
    uint64_t s = seed * 1000003u + (uint64_t)i;
    for (size_t b = 0; b + esz <= span; b += esz)
      if (sentinel & (1u << i)) memset(o->in[i] + o->a.pad[i] + b, fill, esz);
      else store_random(o->in[i] + o->a.pad[i] + b, o->a.t[i].dtype, next_random(&s), edges);
    if (dm_args_write(&o->a, i, o->in[i]) != 0) return -1;
  }
  return 0;
}

/* Calls and reads every tensor back into o->out. -1 when a read fails (the error). */
static int io_call(io_t* o, dm_call_t* c, DLDevice dev) {
  dh_any_t rv = dh_any_none();
  o->rc = dh_func_call(&c->fn, o->a.v, o->a.n, &rv);
  if (o->rc == 0) dh_any_release(&rv);
  else snprintf(o->raised, sizeof o->raised, "%s: %s", dh_error_kind() ? dh_error_kind() : "?", dh_error_message());
  char* nl = strchr(o->raised, '\n');
  if (nl) *nl = '\0';
  dh_error_clear();
  if (dm_settle(dev) != 0) return -1;
  for (int i = 0; i < o->a.n; i++)
    if (o->a.data[i] != NULL && dm_args_read(&o->a, i, &o->out[i]) != 0) return -1;
  return 0;
}

/* Whether elements differ beyond the tolerance; the first difference described. */
static int compare_tensor(const dm_args_t* a, int i, const uint8_t* got, const uint8_t* want, dm_tolerance_t tol,
                          const char* what, char* msg, size_t cap) {
  DLDataType dt = a->t[i].dtype;
  int fl = dt.code == kDLFloat || dt.code == kDLBfloat;
  double rtol = tol.rtol >= 0 ? tol.rtol : !fl ? 0 : dt.code == kDLBfloat ? 1.6e-2 : dt.bits == 16 ? 1e-3 : dt.bits == 64 ? 1e-7 : 1.3e-6;
  double atol = tol.atol >= 0 ? tol.atol : !fl ? 0 : dt.bits == 64 ? 1e-7 : 1e-5;
  size_t esz = dm_args_esize(a, i);
  int64_t bad = 0, first = -1;
  double max_abs = 0, max_rel = 0, g0 = 0, w0 = 0;
  for (int64_t k = 0; k < a->numel[i]; k++) {
    size_t off = a->pad[i] + (size_t)k * (size_t)a->stride[i] * esz;
    double g = load(got + off, dt), w = load(want + off, dt), d = fabs(g - w);
    int same = (isnan(g) && isnan(w)) || g == w || d <= atol + rtol * fabs(w);
    if (same) continue;
    if (first < 0) first = k, g0 = g, w0 = w;
    bad++;
    if (!isnan(d) && d > max_abs) max_abs = d;
    if (w != 0 && d / fabs(w) > max_rel) max_rel = d / fabs(w);
  }
  if (bad == 0) return 0;
  char ix[96];
  snprintf(msg, cap, "tensor %d: %lld of %lld elements differ from %s, first at %s: %.9g, want %.9g (max abs err %.3g, "
           "max rel err %.3g; rtol %.3g atol %.3g)", i, (long long)bad, (long long)a->numel[i], what,
           index_text(a, i, first, ix, sizeof ix), g0, w0, max_abs, max_rel, rtol, atol);
  return 1;
}

/* Compares every tensor of two runs with the same inputs; 1 and msg at the first
 * tensor that differs. */
static int compare_all(const dm_args_t* a, uint8_t* const* got, uint8_t* const* want, dm_tolerance_t tol,
                       const char* what, char* msg, size_t cap) {
  for (int i = 0; i < a->n; i++)
    if (got[i] != NULL && want[i] != NULL && compare_tensor(a, i, got[i], want[i], tol, what, msg, cap)) return 1;
  return 0;
}

static const char* ref_name(const dm_target_t* t, char* buf, size_t cap) {
  char dev[64];
  dh_device_format(t->ref.dev, dev, sizeof dev);
  if (t->ref.kind == DM_REF_PY) snprintf(buf, cap, "the reference %s", t->ref.path);
  else if (t->ref.kind == DM_REF_LIB) snprintf(buf, cap, "the reference %s on %s", t->ref.path, dev);
  else snprintf(buf, cap, "the reference %s", dev);
  return buf;
}

/* module.results at one size: 0 agreed (or the call raised: *raised_at noted), 1
 * the verdict set. */
static int results_at(dm_call_t* c, const dm_target_t* t, int64_t size, int edges, char* raised_at, size_t cap,
                      dm_verdict_t* v) {
  io_t o;
  char who[600], msg[700];
  dm_layout_t l = layout_at(c, t, size, 0);
  ref_name(t, who, sizeof who);
  int rc = io_make(&o, c, t->dev, &l, t->seed, 0, 0, edges) != 0 ? 1 : io_call(&o, c, t->dev) != 0 ? 1 : 0;
  if (rc) dm_verdict(v, DS_FAIL, "size %lld: %s", (long long)size, dh_error_message());
  else if (o.rc != 0 && size == kSizes[0]) rc = 1, dm_verdict(v, DS_FAIL, "size %lld: the call raised %s", (long long)size, o.raised);
  else if (o.rc != 0) snprintf(raised_at + strlen(raised_at), cap - strlen(raised_at), " %lld", (long long)size);
  else if (dm_reference_run(t, c, &l, &o.a, o.in, o.ref) != 0) {
    rc = 1;
    int skip = t->ref.implied;
    dm_verdict(v, skip ? DS_SKIP : DS_FAIL, "%s%s", skip ? "no reference: the default " : "", dh_error_message());
  } else if (compare_all(&o.a, o.out, o.ref, t->tol, who, msg, sizeof msg)) {
    rc = 1;
    dm_verdict(v, DS_FAIL, "%s at size %lld%s: %s", c->f.name, (long long)size, edges ? " with edge values" : "", msg);
  }
  dh_error_clear();
  io_free(&o);
  return rc;
}

/* module.results and module.edge_values: every size of the function (at most
 * max_sizes of them) against the reference; the verdict set. */
static void results_over(const dm_target_t* t, int edges, size_t max_sizes, dm_verdict_t* v) {
  dm_call_t c;
  char raised[200] = "", who[600], list[160] = "";
  if (t->ref.kind == DM_REF_NONE)
    return dm_verdict(v, DS_SKIP, "no reference: give --reference DEVICE, --reference-lib LIB.so[@DEVICE] or "
                      "--reference-py FILE.py");
  if (dm_call_open(t, &c, v) != 0) return;
  int tensors = 0, floats = 0;
  for (int i = 0; i < c.f.nparams; i++) {
    DLDataType dt = c.f.has_sig ? c.f.dtypes[i] : c.layout.dtype;
    int is_tensor = c.f.kinds[i] == DM_TENSOR || c.f.kinds[i] == DM_TENSOR_OBJ;
    tensors += is_tensor;
    floats += is_tensor && (dt.code == kDLFloat || dt.code == kDLBfloat);
  }
  if (tensors == 0 || (edges && floats == 0))
    return dm_verdict(v, DS_SKIP, "no %stensor parameter", tensors ? "float " : "");
  sizes_t s = sizes_of(&c);
  for (size_t k = 0; k < s.n && k < max_sizes; k++) {
    if (results_at(&c, t, s.v[k], edges, raised, sizeof raised, v)) return;
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%lld", k ? ", " : "", (long long)s.v[k]);
  }
  ref_name(t, who, sizeof who);
  if (edges)
    dm_verdict(v, DS_PASS, "with NaN, +-inf, -0.0 and denormals in one float element in four, every tensor equals %s "
               "at size%s %s (NaN as NaN)%s%s", who, s.n > 1 ? "s" : "", list, raised[0] ? "; it raised at" : "", raised);
  else
    dm_verdict(v, DS_PASS, "every tensor equals %s at size%s %s (seed %llu)%s%s", who, s.n > 1 ? "s" : "", list,
               (unsigned long long)t->seed, raised[0] ? "; it raised at" : "", raised);
}

void dm_case_results(const dm_target_t* t, dm_verdict_t* v) { results_over(t, 0, sizeof kSizes / sizeof kSizes[0], v); }

void dm_case_edge_values(const dm_target_t* t, dm_verdict_t* v) { results_over(t, 1, 4, v); /* 64, 0, 1, 7 */ }

/* module.writes at one size: tensors that change are fully rewritten. */
static int writes_at(dm_call_t* c, const dm_target_t* t, int64_t size, dm_verdict_t* v) {
  io_t o, s1, s2;
  memset(&s1, 0, sizeof s1), memset(&s2, 0, sizeof s2);
  dm_layout_t l = layout_at(c, t, size, 0);
  unsigned changed = 0;
  if (io_make(&o, c, t->dev, &l, t->seed, 0, 0, 0) != 0 || io_call(&o, c, t->dev) != 0)
    return dm_verdict(v, DS_FAIL, "size %lld: %s", (long long)size, dh_error_message()), io_free(&o), 1;
  for (int i = 0; i < o.a.n; i++)
    if (o.out[i] && memcmp(o.out[i] + o.a.pad[i], o.in[i] + o.a.pad[i], dm_args_span(&o.a, i)) != 0) changed |= 1u << i;
  int raised = o.rc != 0, rc = 0;
  io_free(&o);
  if (raised || changed == 0) return 0;
  if (io_make(&s1, c, t->dev, &l, t->seed, changed, 0xA5, 0) != 0 || io_call(&s1, c, t->dev) != 0 ||
      io_make(&s2, c, t->dev, &l, t->seed, changed, 0x5A, 0) != 0 || io_call(&s2, c, t->dev) != 0) {
    dm_verdict(v, DS_FAIL, "size %lld: %s", (long long)size, dh_error_message());
    return io_free(&s1), io_free(&s2), 1;
  }
  for (int i = 0; i < s1.a.n && !rc; i++) {
    if (!(changed & (1u << i))) continue;
    size_t esz = dm_args_esize(&s1.a, i);
    int64_t unwritten = 0, first = -1;
    for (int64_t k = 0; k < s1.a.numel[i]; k++) {
      size_t off = s1.a.pad[i] + (size_t)k * esz;
      if (memcmp(s1.out[i] + off, s1.in[i] + off, esz) == 0 && memcmp(s2.out[i] + off, s2.in[i] + off, esz) == 0)
        unwritten++, first = first < 0 ? k : first;
    }
    char ix[96];
    if (unwritten > 0)
      rc = 1, dm_verdict(v, DS_FAIL, "size %lld: tensor %d is written but %lld of its %lld elements are not (first %s: "
                         "it kept the sentinel 0xA5 and 0x5A bytes)", (long long)size, i, (long long)unwritten,
                         (long long)s1.a.numel[i], index_text(&s1.a, i, first, ix, sizeof ix));
  }
  io_free(&s1), io_free(&s2);
  return rc;
}

void dm_case_writes(const dm_target_t* t, dm_verdict_t* v) {
  dm_call_t c;
  if (dm_call_open(t, &c, v) != 0) return;
  if (dm_count_tensors(&c.f) == 0) return dm_verdict(v, DS_SKIP, "no tensor parameter");
  sizes_t s = sizes_of(&c);
  for (size_t k = 0; k < s.n; k++)
    if (writes_at(&c, t, s.v[k], v)) return;
  dm_verdict(v, DS_PASS, "every tensor was left byte-identical or fully rewritten, at %zu size(s)", s.n);
}

/* The first guard byte (outside tensor i's elements) that changed, or -1. */
static long guard_changed(const dm_args_t* a, int i, const uint8_t* buf) {
  size_t span = dm_args_span(a, i);
  for (size_t b = 0; b < a->data_bytes[i]; b++)
    if ((b < a->pad[i] || b >= a->pad[i] + span) && buf[b] != DM_CANARY) return (long)b;
  return -1;
}

void dm_case_bounds(const dm_target_t* t, dm_verdict_t* v) {
  dm_call_t c;
  char raised[200] = "";
  if (dm_call_open(t, &c, v) != 0) return;
  if (dm_count_tensors(&c.f) == 0) return dm_verdict(v, DS_SKIP, "no tensor parameter");
  sizes_t s = sizes_of(&c);
  for (size_t k = 0; k < s.n; k++) {
    io_t o;
    dm_layout_t l = layout_at(&c, t, s.v[k], 1);
    if (io_make(&o, &c, t->dev, &l, t->seed, 0, 0, 0) != 0 || io_call(&o, &c, t->dev) != 0)
      return dm_verdict(v, DS_FAIL, "size %lld: %s", (long long)s.v[k], dh_error_message()), io_free(&o);
    if (o.rc != 0) snprintf(raised + strlen(raised), sizeof raised - strlen(raised), " %lld", (long long)s.v[k]);
    for (int i = 0; i < o.a.n; i++) {
      long b = o.out[i] ? guard_changed(&o.a, i, o.out[i]) : -1;
      if (b < 0) continue;
      long rel = b < (long)o.a.pad[i] ? b - (long)o.a.pad[i] : b - (long)(o.a.pad[i] + dm_args_span(&o.a, i));
      dm_verdict(v, DS_FAIL, "size %lld: wrote outside tensor %d: the guard byte %ld %s its elements changed%s%s",
                 (long long)s.v[k], i, rel < 0 ? -rel : rel + 1, rel < 0 ? "before" : "after", o.rc ? "; it raised " : "",
                 o.rc ? o.raised : "");
      return io_free(&o);
    }
    io_free(&o);
  }
  dm_verdict(v, DS_PASS, "%d guard bytes around every tensor unchanged at %zu size(s)%s%s", GUARD, s.n,
             raised[0] ? "; it raised at" : "", raised);
}

/* Two calls with the same seeded inputs at the default size, the second's tensors at
 * byte_offset GUARD when shifted: 0, or -1 with the verdict set (no call accepted, no
 * tensor, arguments or reads failed). */
static int two_calls(const dm_target_t* t, dm_call_t* c, io_t* a, io_t* b, int shifted, dm_verdict_t* v) {
  memset(a, 0, sizeof *a), memset(b, 0, sizeof *b);
  if (dm_call_open(t, c, v) != 0) return -1;
  if (dm_count_tensors(&c->f) == 0) return dm_verdict(v, DS_SKIP, "no tensor parameter"), -1;
  dm_layout_t l0 = layout_at(c, t, kSizes[0], 0), l1 = l0;
  if (shifted) l1.pad = GUARD, l1.pad_as_offset = 1;
  if (io_make(a, c, t->dev, &l0, t->seed, 0, 0, 0) || io_call(a, c, t->dev) ||
      io_make(b, c, t->dev, &l1, t->seed, 0, 0, 0) || io_call(b, c, t->dev))
    return dm_verdict(v, DS_FAIL, "%s", dh_error_message()), -1;
  return 0;
}

void dm_case_deterministic(const dm_target_t* t, dm_verdict_t* v) {
  dm_call_t c;
  io_t a, b;
  char msg[700];
  dm_tolerance_t exact = {0, 0};
  if (t->nondeterministic) return dm_verdict(v, DS_SKIP, "declared nondeterministic (--nondeterministic)");
  if (two_calls(t, &c, &a, &b, 0, v) != 0) (void)0;
  else if (a.rc != b.rc) dm_verdict(v, DS_FAIL, "the same inputs: one call raised, the other returned (%s%s)", a.raised, b.raised);
  else if (compare_all(&a.a, b.out, a.out, exact, "the first call's", msg, sizeof msg))
    dm_verdict(v, DS_FAIL, "the same inputs twice: %s", msg);
  else dm_verdict(v, DS_PASS, "the same inputs twice gave bit-identical tensors");
  io_free(&a), io_free(&b);
}

void dm_case_byte_offset(const dm_target_t* t, dm_verdict_t* v) {
  dm_call_t c;
  io_t a, b;
  char msg[700];
  int rc = two_calls(t, &c, &a, &b, 1, v);
  dm_tolerance_t exact = {0, 0};
  uint8_t* shifted[DM_MAX_PARAMS] = {0};
  if (rc) (void)0;
  else if (a.rc != 0) dm_verdict(v, DS_FAIL, "at byte_offset 0 the call raised %s", a.raised);
  else if (b.rc != 0) dm_verdict(v, DS_PASS, "a byte_offset of %d was refused: %s", GUARD, b.raised);
  else {
    for (int i = 0; i < b.a.n; i++) shifted[i] = b.out[i] ? b.out[i] + GUARD : NULL; /* the elements, at a's place */
    long g = -1;
    int gi = -1;
    for (int i = 0; i < b.a.n && g < 0; i++) g = b.out[i] ? guard_changed(&b.a, i, b.out[i]) : -1, gi = i;
    if (g >= 0) dm_verdict(v, DS_FAIL, "at byte_offset %d it wrote outside tensor %d's elements (byte %ld of its "
                           "buffer): it ignores byte_offset", GUARD, gi, g);
    else if (compare_all(&a.a, shifted, a.out, exact, "those at byte_offset 0", msg, sizeof msg))
      dm_verdict(v, DS_FAIL, "at byte_offset %d: %s", GUARD, msg);
    else dm_verdict(v, DS_PASS, "at byte_offset %d the same tensors as at 0", GUARD);
  }
  io_free(&a), io_free(&b);
}

/* The same call with every float32 tensor as float64 (the same values). */
static int wide_call(const dm_target_t* t, dm_call_t* c, io_t* w, int* widened) {
  dm_call_t wc = *c;
  dm_layout_t l = layout_at(c, t, kSizes[0], 0);
  const DLDataType f32 = {kDLFloat, 32, 1}, f64 = {kDLFloat, 64, 1};
  *widened = 0;
  for (int i = 0; i < wc.f.nparams; i++) {
    int is_tensor = wc.f.kinds[i] == DM_TENSOR || wc.f.kinds[i] == DM_TENSOR_OBJ;
    DLDataType* dt = wc.f.has_sig ? &wc.f.dtypes[i] : &l.dtype;
    if (is_tensor && dt->code == f32.code && dt->bits == f32.bits) *dt = f64, (*widened)++;
    else if (is_tensor && !wc.f.has_sig && dt->code == f64.code && dt->bits == 64) (*widened)++;
  }
  if (*widened == 0) return 0;
  return io_make(w, &wc, t->dev, &l, t->seed, 0, 0, 0) || io_call(w, &wc, t->dev) ? -1 : 0;
}

void dm_case_float_width(const dm_target_t* t, dm_verdict_t* v) {
  dm_call_t c;
  io_t a, w;
  int widened = 0;
  char ix[96];
  memset(&a, 0, sizeof a), memset(&w, 0, sizeof w);
  if (dm_call_open(t, &c, v) != 0) return;
  dm_layout_t l = layout_at(&c, t, kSizes[0], 0);
  if (io_make(&a, &c, t->dev, &l, t->seed, 0, 0, 0) || io_call(&a, &c, t->dev) || wide_call(t, &c, &w, &widened))
    dm_verdict(v, DS_FAIL, "%s", dh_error_message());
  else if (widened == 0) dm_verdict(v, DS_SKIP, "no float32 tensor parameter");
  else if (w.rc != 0) dm_verdict(v, DS_PASS, "float64 tensors for float32 were refused: %s", w.raised);
  else {
    for (int i = 0; i < a.a.n; i++) { /* computed: the float32 results, to float32's tolerance */
      for (int64_t k = 0; a.out[i] && k < a.a.numel[i]; k++) {
        double x = load(a.out[i] + (size_t)k * dm_args_esize(&a.a, i), a.a.t[i].dtype);
        double y = load(w.out[i] + (size_t)k * dm_args_esize(&w.a, i), w.a.t[i].dtype);
        if ((isnan(x) && isnan(y)) || fabs(x - y) <= 1e-5 + 1.3e-6 * fabs(x)) continue;
        dm_verdict(v, DS_FAIL, "float64 tensors for float32 were accepted and computed wrong: tensor %d at %s is "
                   "%.9g, %.9g as float32", i, index_text(&w.a, i, k, ix, sizeof ix), y, x);
        return io_free(&a), io_free(&w);
      }
    }
    dm_verdict(v, DS_PASS, "float64 tensors for float32 were accepted and computed as the float32 call");
  }
  io_free(&a), io_free(&w);
}
