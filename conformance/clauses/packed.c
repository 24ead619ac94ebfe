/* conformance/clauses/packed.c — packed-call clauses: module functions noop/fill/echo/raise
 * (devharness backend.h, tvm-ffi safe call; docs/contract.md §Module functions). What else a
 * backend could get wrong here: docs/contract.md "What else ...: module functions". */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void functions_found(dh_conf_ctx_t* c) {
  const char* names[] = {DH_FUNC_NOOP, DH_FUNC_FILL, DH_FUNC_ECHO, DH_FUNC_RAISE};
  for (int i = 0; i < 4; i++) {
    char full[128];
    snprintf(full, sizeof full, "%s.%s", c->backend->name, names[i]);
    dh_function_t fn;
    if (dh_func_get(full, &fn) != 0) {
      char call[160];
      snprintf(call, sizeof call, "dh_func_get(\"%s\")", full);
      dc_fail_call(c, __FILE__, __LINE__, call);
      return;
    }
    int found = fn.handle != NULL;
    dh_func_release(&fn);
    CHECK(found, "function %s has a NULL handle", full);
  }
}

static void unknown_function(dh_conf_ctx_t* c) {
  dh_any_t rv;
  CHECK_ERR(dh_device_call(c->dev, "no_such_function", NULL, 0, &rv), DH_KIND_KEY_ERROR);
}

/* Raw equality: type index, padding/length and the 8 payload bytes; a RawStr or
 * ByteArrayPtr comes back as an owned Str/Bytes (or small form) of the same bytes
 * (backend.h "echo": tvm-ffi refuses borrowed pointers as results). */
static int same(const dh_any_t* got, const dh_any_t* sent) {
  if (sent->type_index == DH_TYPE_RAW_STR || sent->type_index == DH_TYPE_BYTE_ARRAY_PTR)
    return got->type_index != sent->type_index && dh_any_equal(got, sent);
  const dh_any_t *a = got, *b = sent;
  return a->type_index == b->type_index && a->zero_padding == b->zero_padding &&
         a->v_uint64 == b->v_uint64;
}

static void describe(const dh_any_t* v, char* buf, size_t n) {
  snprintf(buf, n, "%s (index %d, pad %u, payload 0x%016" PRIx64 ")", dh_type_index_name(v->type_index),
           v->type_index, v->zero_padding, v->v_uint64);
}

/* Echoes v through both routes to the backend's own "echo": dh_device_call (the
 * slot's reference to the function) and the tvm-ffi global "<backend>.echo" the loader
 * registered from the backend's function table. */
static void echo_one(dh_conf_ctx_t* c, int line, const dh_any_t* v) {
  char key[128];
  snprintf(key, sizeof key, "%s.%s", c->backend->name, DH_FUNC_ECHO);
  for (int route = 0; route < 2; route++) {
    dh_any_t args[2] = {dh_any_int(0), *v};
    dh_any_t rv = dh_any_none();
    int rc;
    if (route == 0) {
      rc = dh_device_call(c->dev, DH_FUNC_ECHO, args, 2, &rv);
    } else {
      dh_function_t fn;
      if (dh_func_get(key, &fn) != 0) {
        dc_fail_call(c, __FILE__, line, "dh_func_get(\"<backend>.echo\")");
        return;
      }
      rc = dh_func_call(&fn, args, 2, &rv);
      dh_func_release(&fn);
    }
    if (rc != 0) {
      dc_fail_call(c, __FILE__, line, route ? "<backend>.echo(0, value) through tvm-ffi" : "echo(0, value)");
      return;
    }
    if (!same(&rv, v)) {
      char e[160], g[160];
      describe(v, e, sizeof e);
      describe(&rv, g, sizeof g);
      dh_any_release(&rv);
      dc_fail(c, __FILE__, line, e, g, "echo returned a different %s%s", dh_type_index_name(v->type_index),
              route ? " (called as the tvm-ffi global <backend>.echo)" : "");
      return;
    }
    dh_any_release(&rv);
  }
}
#define ECHO(v)                           \
  do {                                    \
    dh_any_t ev_ = (v);                   \
    TRY(echo_one(c, __LINE__, &ev_));     \
  } while (0)

static void echo_none(dh_conf_ctx_t* c) { ECHO(dh_any_none()); }
static void echo_int(dh_conf_ctx_t* c) {
  ECHO(dh_any_int(0));
  ECHO(dh_any_int(-1));
  ECHO(dh_any_int(INT64_MAX));
  ECHO(dh_any_int(INT64_MIN));
  ECHO(dh_any_int(0x0123456789abcdefLL));
}
static void echo_bool(dh_conf_ctx_t* c) {
  ECHO(dh_any_bool(1));
  ECHO(dh_any_bool(0));
}
static void echo_float(dh_conf_ctx_t* c) {
  ECHO(dh_any_float(3.25));
  ECHO(dh_any_float(-0.0));
  ECHO(dh_any_float(1e-300));
  ECHO(dh_any_float(DBL_MAX));
  ECHO(dh_any_float(INFINITY));
  ECHO(dh_any_float(0.1));
}
static void echo_ptr(dh_conf_ctx_t* c) {
  int x;
  ECHO(dh_any_ptr(&x));
  ECHO(dh_any_ptr(NULL));
  ECHO(dh_any_ptr((void*)(uintptr_t)0xfedcba9876543210ULL));
}
static void echo_dtype(dh_conf_ctx_t* c) {
  DLDataType a = {kDLFloat, 32, 1}, b = {kDLInt, 8, 4}, d = {kDLBfloat, 16, 1};
  ECHO(dh_any_dtype(a));
  ECHO(dh_any_dtype(b));
  ECHO(dh_any_dtype(d));
}
static void echo_device(dh_conf_ctx_t* c) {
  ECHO(dh_any_device(c->dev));
  DLDevice d = {kDLCUDA, 7};
  ECHO(dh_any_device(d));
}
static void echo_tensor(dh_conf_ctx_t* c) {
  DLTensor t;
  int64_t shape[1] = {4};
  uint8_t data[4] = {1, 2, 3, 4};
  dh_tensor_init_bytes(&t, data, dc_host(), 0, 4, shape);
  ECHO(dh_any_tensor(&t));
}
static void echo_str(dh_conf_ctx_t* c) {
  static const char s[] = "a raw string argument, longer than seven bytes";
  ECHO(dh_any_str(s));
  ECHO(dh_any_str(""));
}
static void echo_bytes(dh_conf_ctx_t* c) {
  dh_byte_array_t b = {"\x00\x01\x02\xff", 4};
  ECHO(dh_any_bytes(&b));
}
static void echo_small(dh_conf_ctx_t* c) {
  dh_any_t s = dh_any_make(DH_TYPE_SMALL_STR);
  memcpy(s.v_bytes, "abcdefg", 7);
  s.small_str_len = 7;
  ECHO(s);
  dh_any_t b = dh_any_make(DH_TYPE_SMALL_BYTES);
  memcpy(b.v_bytes, "\x00\xff\x01\xfe\x02\xfd\x03\xfc", 8);
  b.small_str_len = 8;
  ECHO(b);
}

static void echo_mixed(dh_conf_ctx_t* c) {
  static const char str[] = "mixed";
  DLDataType f16 = {kDLFloat, 16, 1};
  dh_any_t vals[6] = {dh_any_int(-42), dh_any_float(2.5), dh_any_str(str),
                      dh_any_bool(1), dh_any_dtype(f16), dh_any_device(c->dev)};
  for (int i = 0; i < 6; i++) {
    dh_any_t args[7];
    args[0] = dh_any_int(i);
    memcpy(args + 1, vals, sizeof vals);
    dh_any_t rv = dh_any_none();
    CHECK_OK(dh_device_call(c->dev, DH_FUNC_ECHO, args, 7, &rv));
    if (!same(&rv, &vals[i])) {
      char e[160], g[160];
      describe(&vals[i], e, sizeof e);
      describe(&rv, g, sizeof g);
      dh_any_release(&rv);
      FAIL(e, g, "echo(%d, 6 mixed arguments) returned the wrong argument", i);
    }
    dh_any_release(&rv);
  }
}

static void echo_index_error(dh_conf_ctx_t* c) {
  dh_any_t args[2] = {dh_any_int(5), dh_any_int(1)};
  dh_any_t rv;
  CHECK_ERR(dh_device_call(c->dev, DH_FUNC_ECHO, args, 2, &rv), DH_KIND_INDEX_ERROR);
  args[0] = dh_any_int(-1);
  CHECK_ERR(dh_device_call(c->dev, DH_FUNC_ECHO, args, 2, &rv), DH_KIND_INDEX_ERROR);
}

static void echo_type_error(dh_conf_ctx_t* c) {
  dh_any_t args[2] = {dh_any_str("0"), dh_any_int(1)};
  dh_any_t rv;
  CHECK_ERR(dh_device_call(c->dev, DH_FUNC_ECHO, args, 2, &rv), DH_KIND_TYPE_ERROR);
  CHECK_ERR(dh_device_call(c->dev, DH_FUNC_ECHO, NULL, 0, &rv), NULL);
}

static void raise_kind(dh_conf_ctx_t* c) {
  const char* kinds[] = {"ValueError", "RuntimeError", "MyVendorError"};
  for (int i = 0; i < 3; i++) {
    dh_any_t args[2] = {dh_any_str(kinds[i]), dh_any_str("conformance probe 42")};
    dh_any_t rv;
    CHECK_ERR(dh_device_call(c->dev, DH_FUNC_RAISE, args, 2, &rv), kinds[i]);
  }
}

static void raise_message(dh_conf_ctx_t* c) {
  static const char msg[] = "conformance probe: message with unicode \xc3\xa9 and 42";
  dh_any_t args[2] = {dh_any_str("ValueError"), dh_any_str(msg)};
  dh_any_t rv;
  int rc = dh_device_call(c->dev, DH_FUNC_RAISE, args, 2, &rv);
  CHECK_EQ_INT(rc, -1, "raise returned");
  const char* m = dh_error_message();
  if (!strstr(m, msg)) FAIL(msg, m, "raise: the error message was not carried to the caller");
}

static void error_then_success(dh_conf_ctx_t* c) {
  dh_any_t args[2] = {dh_any_str("ValueError"), dh_any_str("first")};
  dh_any_t rv;
  CHECK_ERR(dh_device_call(c->dev, DH_FUNC_RAISE, args, 2, &rv), NULL);
  dh_any_t e[2] = {dh_any_int(0), dh_any_int(77)};
  CHECK_OK(dh_device_call(c->dev, DH_FUNC_ECHO, e, 2, &rv));
  CHECK_EQ_INT(rv.v_int64, 77, "echo after an error");
}

static void noop(dh_conf_ctx_t* c) {
  dh_any_t arg = dh_any_device(c->dev), rv;
  for (int i = 0; i < 100; i++) CHECK_OK(dh_device_call(c->dev, DH_FUNC_NOOP, &arg, 1, &rv));
  void* d = dc_dev_alloc(c, 64);
  if (!d) return;
  int rc = dh_device_stream_sync(c->dev, NULL);
  dh_device_free_data_space(c->dev, d);
  CHECK_EQ_INT(rc, 0, "stream_sync after 100 noop launches");
}

static void noop_type_error(dh_conf_ctx_t* c) {
  dh_any_t rv, arg = dh_any_int(3);
  CHECK_ERR(dh_device_call(c->dev, DH_FUNC_NOOP, NULL, 0, &rv), DH_KIND_TYPE_ERROR);
  CHECK_ERR(dh_device_call(c->dev, DH_FUNC_NOOP, &arg, 1, &rv), DH_KIND_TYPE_ERROR);
}

static void fill_call(dh_conf_ctx_t* c, int line, void* d, size_t off, size_t n, uint32_t value) {
  DLTensor t;
  int64_t shape[1];
  dh_tensor_init_bytes(&t, d, c->dev, off, n, shape);
  dh_any_t args[2] = {dh_any_tensor(&t), dh_any_int((int64_t)value)}, rv;
  if (dh_device_call(c->dev, DH_FUNC_FILL, args, 2, &rv) != 0) {
    char call[96];
    snprintf(call, sizeof call, "fill(%zu bytes at byte_offset %zu, 0x%08x)", n, off, value);
    dc_fail_call(c, __FILE__, line, call);
  }
}
#define FILL(d, off, n, v) TRY(fill_call(c, __LINE__, (d), (off), (n), (v)))

static void words(uint8_t* buf, size_t n, uint32_t v) {
  for (size_t i = 0; i + 4 <= n; i += 4) memcpy(buf + i, &v, 4);
}

#define FN 4096
static void fill_body(dh_conf_ctx_t* c, uint8_t** h, void** d) {
  if (!(h[0] = dc_host_alloc(c, FN)) || !(h[1] = dc_host_alloc(c, FN))) return;
  if (!(d[0] = dc_dev_alloc(c, FN))) return;
  dc_pattern(h[0], FN, 83);
  DC_UPLOAD(d[0], 0, h[0], FN);
  FILL(d[0], 0, FN, 0xa5c3e187u);
  DC_SYNC(NULL);
  DC_DOWNLOAD(d[0], 0, h[1], FN);
  words(h[0], FN, 0xa5c3e187u);
  CHECK_BYTES("device buffer after fill(0xa5c3e187)", h[1], h[0], FN, 0);
}

static void fill_offset_body(dh_conf_ctx_t* c, uint8_t** h, void** d) {
  if (!(h[0] = dc_host_alloc(c, FN)) || !(h[1] = dc_host_alloc(c, FN))) return;
  if (!(d[0] = dc_dev_alloc(c, FN))) return;
  dc_sentinel(h[0], FN);
  DC_UPLOAD(d[0], 0, h[0], FN);
  FILL(d[0], 64, 1024, 0x01020304u);
  DC_SYNC(NULL);
  DC_DOWNLOAD(d[0], 0, h[1], FN);
  words(h[0] + 64, 1024, 0x01020304u);
  CHECK_BYTES("device buffer after fill of [64, 1088)", h[1], h[0], FN, 0);
}

static void fill_bad_body(dh_conf_ctx_t* c, uint8_t** h, void** d) {
  (void)h;
  if (!(d[0] = dc_dev_alloc(c, 64))) return;
  DLTensor t;
  int64_t shape[1];
  dh_any_t rv;
  dh_tensor_init_bytes(&t, d[0], c->dev, 2, 8, shape);
  dh_any_t args[2] = {dh_any_tensor(&t), dh_any_int(1)};
  CHECK_ERR(dh_device_call(c->dev, DH_FUNC_FILL, args, 2, &rv), DH_KIND_VALUE_ERROR);
  dh_tensor_init_bytes(&t, d[0], c->dev, 0, 6, shape);
  CHECK_ERR(dh_device_call(c->dev, DH_FUNC_FILL, args, 2, &rv), DH_KIND_VALUE_ERROR);
  args[1] = dh_any_str("x");
  dh_tensor_init_bytes(&t, d[0], c->dev, 0, 8, shape);
  CHECK_ERR(dh_device_call(c->dev, DH_FUNC_FILL, args, 2, &rv), DH_KIND_TYPE_ERROR);
}

static void fill_in_order_body(dh_conf_ctx_t* c, uint8_t** h, void** d) {
  dh_stream_t s = NULL;
  if (!(h[0] = dc_host_alloc(c, FN)) || !(h[1] = dc_host_alloc(c, FN)) ||
      !(h[2] = dc_host_alloc(c, FN)))
    return;
  if (!(d[0] = dc_dev_alloc(c, FN)) || !(d[1] = dc_dev_alloc(c, FN))) return;
  TRY(dc_stream_create(c, &s));
  d[2] = s;
  CHECK_OK(dh_device_set_stream(c->dev, s));
  dc_pattern(h[0], FN, 89);
  /* all on the current stream s: A <- pattern; fill A=v1; B <- A; fill A=v2; read both */
  TRY(dc_copy(c, __LINE__, h[0], dc_host(), 0, d[0], c->dev, 0, FN, s));
  FILL(d[0], 0, FN, 0x11111111u);
  TRY(dc_copy(c, __LINE__, d[0], c->dev, 0, d[1], c->dev, 0, FN, s));
  FILL(d[0], 0, FN, 0x22222222u);
  TRY(dc_copy(c, __LINE__, d[0], c->dev, 0, h[1], dc_host(), 0, FN, s));
  TRY(dc_copy(c, __LINE__, d[1], c->dev, 0, h[2], dc_host(), 0, FN, s));
  DC_SYNC(s);
  words(h[0], FN, 0x11111111u);
  CHECK_BYTES("B (copied from A after fill 0x11111111, before fill 0x22222222)", h[2], h[0], FN, 0);
  words(h[0], FN, 0x22222222u);
  CHECK_BYTES("A after the second fill", h[1], h[0], FN, 0);
}

/* fill sizes its tensor as DLPack does: every dimension times the dtype's bytes (bits
 * x lanes / 8), at byte_offset. Three shapes in one 4096-byte buffer of sentinel: a
 * float32 [8][33] at byte_offset 64, a uint16 [4][2][64] at 2048 and an int8x4 [3][5]
 * (lanes 4) at 3200; a backend that reads only shape[0], or the element count as
 * bytes, writes too little. */
static void fill_shapes_body(dh_conf_ctx_t* c, uint8_t** h, void** d) {
  static const struct {
    size_t off;
    int ndim;
    int64_t shape[3];
    DLDataType dt;
    uint32_t value;
  } cases[] = {
      {64, 2, {8, 33, 1}, {kDLFloat, 32, 1}, 0x3f800001u},
      {2048, 3, {4, 2, 64}, {kDLUInt, 16, 1}, 0x00c100c2u},
      {3200, 2, {3, 5, 1}, {kDLInt, 8, 4}, 0x11223344u},
  };
  if (!(h[0] = dc_host_alloc(c, FN)) || !(h[1] = dc_host_alloc(c, FN))) return;
  if (!(d[0] = dc_dev_alloc(c, FN))) return;
  dc_sentinel(h[0], FN);
  DC_UPLOAD(d[0], 0, h[0], FN);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    DLTensor t;
    memset(&t, 0, sizeof t);
    int64_t shape[3];
    memcpy(shape, cases[k].shape, sizeof shape);
    t.data = d[0];
    t.device = c->dev;
    t.ndim = cases[k].ndim;
    t.dtype = cases[k].dt;
    t.shape = shape;
    t.strides = NULL;
    t.byte_offset = cases[k].off;
    size_t n = (size_t)cases[k].dt.bits / 8 * cases[k].dt.lanes;
    for (int i = 0; i < t.ndim; i++) n *= (size_t)shape[i];
    dh_any_t args[2] = {dh_any_tensor(&t), dh_any_int((int64_t)cases[k].value)}, rv;
    if (dh_device_call(c->dev, DH_FUNC_FILL, args, 2, &rv) != 0) {
      char call[96];
      snprintf(call, sizeof call, "fill(%d-d tensor of %zu bytes at byte_offset %zu)", t.ndim, n,
               cases[k].off);
      dc_fail_call(c, __FILE__, __LINE__, call);
      return;
    }
    words(h[0] + cases[k].off, n, cases[k].value);
  }
  DC_SYNC(NULL);
  DC_DOWNLOAD(d[0], 0, h[1], FN);
  CHECK_BYTES("buffer after fill of float32 [8][33] at 64, uint16 [4][2][64] at 2048, int8x4 [3][5] "
              "at 3200", h[1], h[0], FN, 0);
}

/* fill refuses a tensor that is not contiguous with ValueError (backend.h "fill": "dst
 * must be contiguous ... else ValueError") and writes nothing; the same shape with
 * explicit row-major strides (DLPack >= 1.2 callers always pass strides) is contiguous
 * and filled. In one 4096-byte buffer of sentinel: a uint32 [8][16] view with a row
 * pitch of 32 elements at byte_offset 0, its transpose [16][8] with strides [1, 16], and
 * a uint32 [8][16] with strides [16, 1] at byte_offset 2048. */
static int fill_2d(dh_conf_ctx_t* c, void* d, size_t off, int64_t rows, int64_t cols,
                   int64_t s0, int64_t s1, uint32_t value) {
  int64_t shape[2] = {rows, cols}, strides[2] = {s0, s1};
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = d;
  t.device = c->dev;
  t.ndim = 2;
  t.dtype = (DLDataType){kDLUInt, 32, 1};
  t.shape = shape;
  t.strides = strides;
  t.byte_offset = off;
  dh_any_t args[2] = {dh_any_tensor(&t), dh_any_int((int64_t)value)}, rv;
  return dh_device_call(c->dev, DH_FUNC_FILL, args, 2, &rv);
}

static void fill_strided_body(dh_conf_ctx_t* c, uint8_t** h, void** d) {
  if (!(h[0] = dc_host_alloc(c, FN)) || !(h[1] = dc_host_alloc(c, FN))) return;
  if (!(d[0] = dc_dev_alloc(c, FN))) return;
  dc_sentinel(h[0], FN);
  DC_UPLOAD(d[0], 0, h[0], FN);
  if (!dc_expect_error(c, __FILE__, __LINE__, "fill(uint32 [8][16], strides [32, 1]: rows 32 apart)",
                       fill_2d(c, d[0], 0, 8, 16, 32, 1, 0x5a5a5a5au), DH_KIND_VALUE_ERROR) ||
      !dc_expect_error(c, __FILE__, __LINE__, "fill(uint32 [16][8], strides [1, 16]: a transpose)",
                       fill_2d(c, d[0], 0, 16, 8, 1, 16, 0x5a5a5a5au), DH_KIND_VALUE_ERROR))
    return;
  if (fill_2d(c, d[0], 2048, 8, 16, 16, 1, 0x0badf00du) != 0) {
    dc_fail_call(c, __FILE__, __LINE__, "fill(uint32 [8][16], strides [16, 1], byte_offset 2048)");
    return;
  }
  DC_SYNC(NULL);
  DC_DOWNLOAD(d[0], 0, h[1], FN);
  words(h[0] + 2048, 512, 0x0badf00du);
  CHECK_BYTES("buffer after two refused strided fills and one of [8][16] with row-major strides "
              "at 2048", h[1], h[0], FN, 0);
}

typedef void (*body_fn)(dh_conf_ctx_t*, uint8_t**, void**);
static void with_bufs(dh_conf_ctx_t* c, body_fn body, int has_stream) {
  uint8_t* h[3] = {0};
  void* d[3] = {0};
  body(c, h, d);
  dh_device_stream_sync(c->dev, NULL);
  if (has_stream && d[2]) dh_device_stream_sync(c->dev, d[2]);
  dh_device_set_stream(c->dev, NULL);
  for (int i = 0; i < 3; i++) free(h[i]);
  for (int i = 0; i < 2; i++)
    if (d[i]) dh_device_free_data_space(c->dev, d[i]);
  if (has_stream && d[2]) dh_device_free_stream(c->dev, d[2]);
}
static void fill(dh_conf_ctx_t* c) { with_bufs(c, fill_body, 0); }
static void fill_offset(dh_conf_ctx_t* c) { with_bufs(c, fill_offset_body, 0); }
static void fill_bad(dh_conf_ctx_t* c) { with_bufs(c, fill_bad_body, 0); }
static void fill_in_order(dh_conf_ctx_t* c) { with_bufs(c, fill_in_order_body, 1); }
static void fill_shapes(dh_conf_ctx_t* c) { with_bufs(c, fill_shapes_body, 0); }
static void fill_strided(dh_conf_ctx_t* c) { with_bufs(c, fill_strided_body, 0); }

/* The backend's optional "trap" (devharness backend.h DH_FUNC_TRAP): a kernel that fails
 * on the device, on the default stream between an upload and a download. The failure is
 * reported (by trap itself or by the next stream_sync) with a message; the upload queued
 * before it has landed; once reported, the stream works again: a download and its
 * stream_sync succeed, twice. */
static void device_failure_body(dh_conf_ctx_t* c, uint8_t** h, void** d) {
  if (!(h[0] = dc_host_alloc(c, FN)) || !(h[1] = dc_host_alloc(c, FN))) return;
  if (!(d[0] = dc_dev_alloc(c, FN))) return;
  dc_pattern(h[0], FN, 97);
  TRY(dc_copy(c, __LINE__, h[0], dc_host(), 0, d[0], c->dev, 0, FN, NULL));
  dh_any_t arg = dh_any_device(c->dev), rv = dh_any_none();
  int rc_launch = dh_device_call(c->dev, DH_FUNC_TRAP, &arg, 1, &rv);
  char why[DC_VAL_MAX] = "";
  if (rc_launch != 0) snprintf(why, sizeof why, "%s", dh_error_message());
  int rc_sync = dh_device_stream_sync(c->dev, NULL);
  if (rc_launch == 0 && rc_sync != 0) snprintf(why, sizeof why, "%s", dh_error_message());
  if (rc_launch == 0 && rc_sync == 0)
    FAIL("-1 from trap or from the next stream_sync", "0 and 0",
         "a kernel that failed on the device was never reported (trap and stream_sync both succeeded)");
  if (why[0] == '\0') FAIL("a message naming the failure", "\"\"", "the device-side failure has no message");
  for (int round = 0; round < 2; round++) {
    dc_sentinel(h[1], FN);
    TRY(dc_copy(c, __LINE__, d[0], c->dev, 0, h[1], dc_host(), 0, FN, NULL));
    if (dh_device_stream_sync(c->dev, NULL) != 0) {
      char call[96];
      snprintf(call, sizeof call, "stream_sync (round %d) after the device-side failure was reported",
               round + 1);
      dc_fail_call(c, __FILE__, __LINE__, call);
      return;
    }
    CHECK_BYTES("the upload queued before the failing kernel, read after the failure", h[1], h[0], FN, 0);
  }
}
static void device_failure(dh_conf_ctx_t* c) {
  int found = 0;
  for (size_t i = 0; i < c->backend->num_functions; i++)
    if (strcmp(c->backend->functions[i].name, DH_FUNC_TRAP) == 0) found = 1;
  if (!found)
    SKIP("the backend has no \"trap\" function: it cannot provoke a device-side failure "
         "(devharness backend.h DH_FUNC_TRAP)");
  with_bufs(c, device_failure_body, 0);
}

#define FFI "tvm-ffi 0.1.15 include/tvm/ffi/c_api.h:480-515 TVMFFISafeCallType (TVMFFIAny arguments)"
#define ECHO_CLAUSE(id, what, fn)                                                                 \
  {"packed.echo_" id, "echo returns a " what " argument intact", DC_MUST, FFI, DC_NEED_FUNCTIONS, \
   fn, NULL, DC_PROFILE_STRICT}
const dh_clause_t dc_packed_clauses[] = {
    {"packed.functions_found", "noop, fill, echo and raise are registered as <backend>.<name>",
     DC_MUST, "devharness backend.h module functions", DC_NEED_FUNCTIONS, functions_found, NULL,
     DC_PROFILE_STRICT},
    {"packed.unknown_function", "calling a function the backend lacks gives KeyError", DC_MUST,
     "devharness device_api.h dh_device_call", 0, unknown_function, NULL, DC_PROFILE_STRICT},
    ECHO_CLAUSE("none", "None", echo_none),
    ECHO_CLAUSE("int", "Int (incl. INT64_MIN/MAX)", echo_int),
    ECHO_CLAUSE("bool", "Bool", echo_bool),
    ECHO_CLAUSE("float", "Float (incl. -0.0, inf, DBL_MAX)", echo_float),
    ECHO_CLAUSE("ptr", "OpaquePtr", echo_ptr),
    ECHO_CLAUSE("dtype", "DataType", echo_dtype),
    ECHO_CLAUSE("device", "Device", echo_device),
    ECHO_CLAUSE("tensor", "DLTensorPtr", echo_tensor),
    ECHO_CLAUSE("str", "RawStr (same bytes, as an owned Str)", echo_str),
    ECHO_CLAUSE("bytes", "ByteArrayPtr (same bytes, as owned Bytes)", echo_bytes),
    ECHO_CLAUSE("small", "SmallStr / SmallBytes", echo_small),
    {"packed.echo_mixed", "each of 6 mixed arguments arrives intact at its index", DC_MUST, FFI,
     DC_NEED_FUNCTIONS, echo_mixed, NULL, DC_PROFILE_STRICT},
    {"packed.echo_index_error", "echo with an index out of range gives IndexError", DC_MUST,
     "devharness backend.h echo", DC_NEED_FUNCTIONS, echo_index_error, NULL, DC_PROFILE_STRICT},
    {"packed.echo_type_error", "echo with a non-Int index gives TypeError", DC_MUST,
     "devharness backend.h echo", DC_NEED_FUNCTIONS, echo_type_error, NULL, DC_PROFILE_STRICT},
    {"packed.raise_kind", "an error's kind reaches the caller unchanged", DC_MUST,
     "tvm-ffi 0.1.15 include/tvm/ffi/c_api.h:480-515 TVMFFISafeCallType (error kind)",
     DC_NEED_FUNCTIONS, raise_kind, NULL, DC_PROFILE_STRICT},
    {"packed.raise_message", "an error's message reaches the caller unchanged", DC_MUST,
     "tvm-ffi 0.1.15 include/tvm/ffi/c_api.h:480-515 TVMFFISafeCallType (error message)",
     DC_NEED_FUNCTIONS, raise_message, NULL, DC_PROFILE_STRICT},
    {"packed.error_then_success", "a call after a failed call succeeds normally", DC_MUST,
     "tvm-ffi 0.1.15 include/tvm/ffi/c_api.h:480-515 TVMFFISafeCallType", DC_NEED_FUNCTIONS,
     error_then_success, NULL, DC_PROFILE_STRICT},
    {"packed.noop", "100 noop launches succeed and the stream syncs", DC_MUST,
     "devharness backend.h noop", DC_NEED_FUNCTIONS, noop, NULL, DC_PROFILE_STRICT},
    {"packed.noop_type_error", "noop without a Device argument gives TypeError", DC_MUST,
     "devharness backend.h noop", DC_NEED_FUNCTIONS, noop_type_error, NULL, DC_PROFILE_STRICT},
    {"packed.fill", "fill writes its 32-bit value to every word of the tensor", DC_MUST,
     "devharness backend.h fill; IREE HAL CTS fill_buffer", DC_NEED_FUNCTIONS, fill, NULL,
     DC_PROFILE_STRICT},
    {"packed.fill_offset", "fill honours byte_offset and leaves bytes outside unchanged", DC_MUST,
     "devharness backend.h fill; IREE HAL CTS fill at offsets", DC_NEED_FUNCTIONS, fill_offset,
     NULL, DC_PROFILE_STRICT},
    {"packed.fill_bad_args", "fill with a misaligned offset/size or a non-Int value errors",
     DC_MUST, "devharness backend.h fill", DC_NEED_FUNCTIONS, fill_bad, NULL, DC_PROFILE_STRICT},
    {"packed.fill_in_order",
     "fill launched through a packed call lands in order on the current stream", DC_MUST,
     "devharness backend.h fill; IREE HAL CTS (fill->copy->fill)", DC_NEED_FUNCTIONS, fill_in_order,
     NULL, DC_PROFILE_STRICT},
    {"packed.fill_shapes", "fill covers every dimension of a multi-dimensional tensor of any dtype "
     "(bits x lanes), at byte_offset", DC_MUST,
     "devharness backend.h fill (\"nbytes(dst)\"); dmlc/dlpack v1.3 dlpack.h DLTensor (size = "
     "product of shape x bits x lanes / 8)", DC_NEED_FUNCTIONS, fill_shapes, NULL, DC_PROFILE_STRICT},
    {"packed.fill_strided", "fill refuses a non-contiguous tensor with ValueError and writes nothing; "
     "row-major strides are contiguous", DC_MUST, "devharness backend.h fill (\"dst must be contiguous ... "
     "else ValueError\"); dmlc/dlpack v1.3 dlpack.h DLTensor.strides", DC_NEED_FUNCTIONS, fill_strided,
     NULL, DC_PROFILE_STRICT},
    {"packed.device_failure", "a kernel that fails on the device (trap) is reported with a message; "
     "work queued before it lands and the stream works after the report", DC_MUST,
     "IREE HAL CTS cts/core/semaphore_test.cc (Failure, "
     "FailurePreservesStatusCode); OpenCL-CTS test_conformance/events/test_callbacks.cpp "
     "(callback_on_error: a failed command's status reaches the host); devharness backend.h "
     "DH_FUNC_TRAP", DC_NEED_FUNCTIONS, device_failure, NULL, DC_PROFILE_STRICT},
};
const size_t dc_packed_count = sizeof dc_packed_clauses / sizeof dc_packed_clauses[0];
