/*
 * module/cases.c — the cases of `module check`, each run in a forked child
 * (main.c) for one exported function and one device (docs/kernel-libraries.md lists
 * them): the call with arguments made from the type schema returns without error;
 * wrong arity, types, device, dtype and a non-contiguous view raise a tvm-ffi error
 * with a kind and a message (a crash or hang fails the case in the runner); the work
 * is ordered on the environment stream. Calls args.c.
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module/check.h"

static const dm_scalar_t kPlain = {1, 1.0};

/* An error was raised with a kind and a message: "" when so, else what is missing. */
static const char* raised_ok(int rc) {
  if (rc == 0) return "returned without error";
  const char* kind = dh_error_kind();
  if (kind == NULL) return "returned an error code without raising an error";
  if (kind[0] == '\0') return "raised an error without a kind";
  if (dh_error_message()[0] == '\0') return "raised an error without a message";
  return "";
}

static void case_metadata(const dm_target_t* t, dm_verdict_t* v) {
  if (t->func->alias)
    return dm_verdict(v, DS_SKIP, "an alias of %s (TVM's module main function): checked as %s", t->func->sig_name,
                      t->func->sig_name);
  if (t->func->has_sig && !t->func->has_schema)
    return dm_verdict(v, DS_SKIP, "no type schema; checked from the signature %s", t->func->signature);
  if (!t->func->has_schema) return dm_verdict(v, DS_SKIP, "no type schema (checked with inferred arguments)");
  if (t->func->other[0]) return dm_verdict(v, DS_SKIP, "%s: takes %s, no argument can be made for it", t->func->signature, t->func->other);
  dm_verdict(v, DS_PASS, "%s", t->func->signature);
}

static void case_call_valid(const dm_target_t* t, dm_verdict_t* v) {
  dm_call_t c;
  if (dm_call_open(t, &c, v) != 0) return;
  if (c.f.has_sig) return dm_verdict(v, DS_PASS, "returned without error: the shapes and dtypes of %s", c.f.signature);
  char dt[32];
  snprintf(dt, sizeof dt, "%s%d", c.layout.dtype.code == kDLFloat ? "float" : c.layout.dtype.code == kDLInt ? "int" : "uint",
           c.layout.dtype.bits);
  dm_verdict(v, DS_PASS, "returned without error: %s tensors, %s%s%s", dt,
          c.layout.pattern == 0 ? "all [64]" : c.layout.pattern == 1 ? "the last [1]" : "all [1]",
          c.inferred[0] ? "; " : "", c.inferred);
}

static void case_scalar_edges(const dm_target_t* t, dm_verdict_t* v) {
  dm_call_t c;
  if (dm_call_open(t, &c, v) != 0) return;
  if (c.f.nparams == dm_count_tensors(&c.f)) return dm_verdict(v, DS_SKIP, "no scalar parameter");
  static const dm_scalar_t edges[] = {{INT64_MIN, -INFINITY}, {-1, -0.0}, {0, NAN}, {INT64_MAX, DBL_MAX}, {1, INFINITY}};
  int errors = 0;
  for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
    int rc = dm_call_try(&c, t->dev, &c.layout, edges[i]);
    if (rc != 0 && *raised_ok(rc)) return dm_verdict(v, DS_FAIL, "edge %zu: %s", i, raised_ok(rc));
    errors += rc != 0;
    dh_error_clear();
  }
  dm_verdict(v, DS_PASS, "5 edge values (int64 min/max, -1, 0; +-inf, nan, -0.0, DBL_MAX): %d raised, the rest returned", errors);
}

static void case_wrong_arity(const dm_target_t* t, dm_verdict_t* v) {
  dm_call_t c;
  if (dm_call_open(t, &c, v) != 0) return;
  dm_args_t a;
  if (dm_args_make(&c.f, t->dev, &c.layout, kPlain, &a) != 0) return dm_verdict(v, DS_FAIL, "arguments: %s", dh_error_message());
  a.v[a.n] = dh_any_int(0);
  const char* bad = "";
  int which = 0;
  for (int d = -1; d <= 1 && !*bad; d += 2) {
    if (a.n + d < 0) continue;
    dh_any_t rv = dh_any_none();
    int rc = dh_func_call(&c.fn, a.v, a.n + d, &rv);
    if (rc == 0) dh_any_release(&rv), dm_settle(t->dev);
    bad = raised_ok(rc), which = a.n + d;
    dh_error_clear();
  }
  dm_args_free(&a);
  if (*bad) return dm_verdict(v, DS_FAIL, "called with %d argument(s) instead of %d: %s", which, c.f.nparams, bad);
  dm_verdict(v, DS_PASS, "%d-1 and %d+1 arguments raised errors", c.f.nparams, c.f.nparams);
}

/* A value of another type than kind k. */
static dh_any_t wrong_value(dm_kind_t k) {
  return k == DM_TENSOR || k == DM_TENSOR_OBJ ? dh_any_int(1) : k == DM_STR || k == DM_DEVICE ? dh_any_float(0.5)
                                                                                            : dh_any_str("x");
}

static void case_wrong_type(const dm_target_t* t, dm_verdict_t* v) {
  dm_call_t c;
  if (dm_call_open(t, &c, v) != 0) return;
  if (c.f.nparams == 0) return dm_verdict(v, DS_SKIP, "no parameter");
  for (int i = 0; i < c.f.nparams; i++) {
    dm_args_t a;
    if (dm_args_make(&c.f, t->dev, &c.layout, kPlain, &a) != 0) return dm_verdict(v, DS_FAIL, "arguments: %s", dh_error_message());
    a.v[i] = wrong_value(c.f.kinds[i]);
    dh_any_t rv = dh_any_none();
    int rc = dh_func_call(&c.fn, a.v, a.n, &rv);
    if (rc == 0) dh_any_release(&rv), dm_settle(t->dev);
    const char* bad = raised_ok(rc);
    dm_args_free(&a);
    if (*bad) return dm_verdict(v, DS_FAIL, "parameter %d given a %s: %s", i, dh_type_index_name(wrong_value(c.f.kinds[i]).type_index), bad);
    dh_error_clear();
  }
  dm_verdict(v, DS_PASS, "each of %d parameter(s) given a wrong type raised an error", c.f.nparams);
}

/* Calls with layout l; "" when an error with kind and message was raised, else what
 * happened. */
static const char* expect_raise(dm_call_t* c, DLDevice dev, const dm_layout_t* l, char* msg, size_t msg_size) {
  int rc = dm_call_try(c, dev, l, kPlain);
  const char* bad = rc == -2 ? "devharness could not make the arguments" : raised_ok(rc);
  if (rc != 0) dm_error_text(msg, msg_size);
  else snprintf(msg, msg_size, "no error");
  dh_error_clear();
  return bad;
}

static void case_wrong_device(const dm_target_t* t, dm_verdict_t* v) {
  dm_call_t c;
  char msg[600], alt[64];
  if (dm_call_open(t, &c, v) != 0) return;
  int nt = dm_count_tensors(&c.f);
  if (nt < 2) return dm_verdict(v, DS_SKIP, "%d tensor parameter(s): no other tensor to disagree with", nt);
  if (t->alt.device_id < 0) return dm_verdict(v, DS_SKIP, "no other device to put a tensor on");
  dm_layout_t l = c.layout;
  l.odd_tensor = nt - 1;
  l.alt = t->alt;
  const char* bad = expect_raise(&c, t->dev, &l, msg, sizeof msg);
  dh_device_format(t->alt, alt, sizeof alt);
  if (*bad) return dm_verdict(v, DS_FAIL, "tensor %d on %s, the others here: %s (%s)", nt - 1, alt, bad, msg);
  dm_verdict(v, DS_PASS, "tensor %d on %s raised %s", nt - 1, alt, msg);
}

static void case_wrong_dtype(const dm_target_t* t, dm_verdict_t* v) {
  dm_call_t c;
  char msg[600];
  if (dm_call_open(t, &c, v) != 0) return;
  if (dm_count_tensors(&c.f) == 0) return dm_verdict(v, DS_SKIP, "no tensor parameter");
  dm_layout_t l = c.layout;
  l.odd_tensor = 0;
  DLDataType d0 = l.dtype;
  for (int i = 0; c.f.has_sig && i < c.f.nparams; i++) /* a signature's first tensor has its own */
    if (c.f.kinds[i] == DM_TENSOR) {
      d0 = c.f.dtypes[i];
      break;
    }
  int f32 = d0.code == kDLFloat && d0.bits == 32;
  l.odd_dtype = f32 ? (DLDataType){kDLInt, 32, 1} : (DLDataType){kDLFloat, 32, 1};
  const char* bad = expect_raise(&c, t->dev, &l, msg, sizeof msg);
  if (*bad) return dm_verdict(v, DS_FAIL, "tensor 0 as %s: %s (%s)", f32 ? "int32" : "float32", bad, msg);
  dm_verdict(v, DS_PASS, "tensor 0 as %s raised %s", f32 ? "int32" : "float32", msg);
}

/* The first byte of tensor i's buffer outside its elements that is no longer
 * DM_CANARY, or -1. */
static long outside_written(const dm_args_t* a, int i, const uint8_t* buf) {
  size_t esz = dm_args_esize(a, i), st = (size_t)a->stride[i];
  for (size_t b = 0; b < a->data_bytes[i]; b++) {
    size_t el = (b - a->pad[i]) / esz;
    int inside = b >= a->pad[i] && el % st == 0 && (int64_t)(el / st) < a->numel[i];
    if (!inside && buf[b] != DM_CANARY) return (long)b;
  }
  return -1;
}

static void case_non_contiguous(const dm_target_t* t, dm_verdict_t* v) {
  dm_call_t c;
  if (dm_call_open(t, &c, v) != 0) return;
  if (dm_count_tensors(&c.f) == 0) return dm_verdict(v, DS_SKIP, "no tensor parameter");
  dm_layout_t l = c.layout;
  l.stride = 2;
  dm_args_t a;
  if (dm_args_make(&c.f, t->dev, &l, kPlain, &a) != 0) return dm_verdict(v, DS_FAIL, "arguments: %s", dh_error_message());
  dh_any_t rv = dh_any_none();
  int rc = dh_func_call(&c.fn, a.v, a.n, &rv);
  char msg[600];
  dm_error_text(msg, sizeof msg);
  const char* bad = raised_ok(rc);
  if (rc == 0) dh_any_release(&rv);
  dh_error_clear();
  dm_settle(t->dev);
  long off = -1;
  int which = -1;
  for (int i = 0; i < a.n && off < 0; i++) {
    uint8_t* buf;
    if (a.data[i] == NULL || dm_args_read(&a, i, &buf) != 0) continue;
    if ((off = outside_written(&a, i, buf)) >= 0) which = i;
    free(buf);
  }
  dm_args_free(&a);
  if (off >= 0)
    return dm_verdict(v, DS_FAIL, "wrote outside a strided view (stride 2): tensor %d, byte %ld of its buffer%s%s", which, off,
                   rc ? ", then raised " : "", rc ? msg : "");
  if (rc != 0 && *bad) return dm_verdict(v, DS_FAIL, "a view of stride 2: %s", bad);
  if (*bad) return dm_verdict(v, DS_PASS, "accepted views of stride 2 and kept to their elements");
  dm_verdict(v, DS_PASS, "views of stride 2 raised %s", msg);
}

/* "<backend>.kernel_log"(dev, i) as an Int (i < 0) or a pointer; -1 on error. */
static int kernel_log(dh_function_t* log, DLDevice dev, int64_t i, dh_any_t* out) {
  dh_any_t args[2] = {dh_any_device(dev), dh_any_int(i)};
  *out = dh_any_none();
  return dh_func_call(log, args, 2, out);
}

/* Runs the call with a new stream set as the environment stream and checks every
 * kernel the backend's stream log recorded meanwhile against it. */
static void env_stream_check(dm_call_t* c, const dm_target_t* t, dh_function_t* log, dm_verdict_t* v) {
  dh_stream_t s = NULL;
  dh_any_t n0, n1, si;
  if (dh_device_create_stream(t->dev, &s) != 0 || dh_env_set_stream(t->dev, s) != 0)
    return dm_verdict(v, DS_FAIL, "cannot create or set a stream: %s", dh_error_message());
  int rc = kernel_log(log, t->dev, -1, &n0);
  int call = rc == 0 ? dm_call_try(c, t->dev, &c->layout, kPlain) : 0;
  if (rc == 0) rc = kernel_log(log, t->dev, -1, &n1);
  if (rc != 0 || call != 0) return dm_verdict(v, DS_FAIL, "%s: %s", call ? "the call raised" : "stream log", dh_error_message());
  if (n1.v_int64 == n0.v_int64) return dm_verdict(v, DS_SKIP, "no kernel reached the stream log: ordering not observable");
  for (int64_t i = n0.v_int64; i < n1.v_int64; i++) {
    if (kernel_log(log, t->dev, i, &si) != 0) return dm_verdict(v, DS_FAIL, "stream log: %s", dh_error_message());
    if (si.v_ptr != s)
      return dm_verdict(v, DS_FAIL, "kernel %lld of the call was queued on stream %p, not on the environment stream %p",
                     (long long)(i - n0.v_int64), si.v_ptr, (void*)s);
  }
  dh_env_set_stream(t->dev, NULL);
  dh_device_free_stream(t->dev, s);
  dm_verdict(v, DS_PASS, "%lld kernel(s) queued on the environment stream", (long long)(n1.v_int64 - n0.v_int64));
}

static void case_env_stream(const dm_target_t* t, dm_verdict_t* v) {
  const dh_backend_t* b;
  dh_function_t log;
  char key[160];
  if (dh_device_api_get_by_type(t->dev.device_type, &b) != 0) return dm_verdict(v, DS_FAIL, "%s", dh_error_message());
  snprintf(key, sizeof key, "%s.%s", b->name, DH_FUNC_KERNEL_LOG);
  if (dh_func_get(key, &log) != 0)
    return dh_error_clear(), dm_verdict(v, DS_SKIP, "%s keeps no stream log (%s): ordering not observable here", b->name, key);
  dm_call_t c;
  if (dm_call_open(t, &c, v) == 0) env_stream_check(&c, t, &log, v);
  dh_func_release(&log);
}

static const dm_case_t kCases[] = {
    {"module.metadata", "the function has tvm-ffi metadata with a type schema arguments can be made from", 0,
     case_metadata},
    {"module.call_valid", "called with arguments made from its schema on the device, it returns without error", 1,
     case_call_valid},
    {"module.scalar_edges", "scalars at their edges: it returns or raises, never crashes", 1, case_scalar_edges},
    {"module.wrong_arity", "one argument fewer or more: it raises an error with a kind and a message", 1,
     case_wrong_arity},
    {"module.wrong_type", "a parameter given a value of another type: it raises", 1, case_wrong_type},
    {"module.wrong_device", "one tensor on another device: it raises", 1, case_wrong_device},
    {"module.wrong_dtype", "a tensor of another dtype: it raises", 1, case_wrong_dtype},
    {"module.non_contiguous", "strided views: it raises, or keeps to their elements; never writes past them", 1,
     case_non_contiguous},
    {"module.env_stream", "with a stream set through TVMFFIEnvSetStream, its kernels are queued on that stream", 1,
     case_env_stream},
    {"module.results", "seeded inputs: every tensor after the call equals the reference's (per-dtype tolerance), at "
     "every size tried", 1, dm_case_results},
    {"module.edge_values", "float inputs with NaN, +-inf, -0.0 and denormals: every tensor equals the reference's "
     "(NaN as NaN)", 1, dm_case_edge_values},
    {"module.writes", "each tensor is left byte-identical or fully rewritten (outputs start from two sentinels)", 1,
     dm_case_writes},
    {"module.bounds", "guard bytes before and after every tensor are unchanged, at every size tried (0 and odd "
     "sizes included): it returns or raises, never crashes", 1, dm_case_bounds},
    {"module.deterministic", "the same inputs twice give bit-identical tensors", 1, dm_case_deterministic},
    {"module.byte_offset", "tensors at a nonzero byte_offset: refused, or the same results as at offset 0", 1,
     dm_case_byte_offset},
    {"module.float_width", "float64 tensors where it takes float32 (the same values): refused, or computed as the "
     "float32 call", 1, dm_case_float_width},
};

const dm_case_t* dm_cases(size_t* count) {
  *count = sizeof kCases / sizeof kCases[0];
  return kCases;
}
