/*
 * tests/runtime/test_device.c — device specs (dh_device_parse / dh_device_format),
 * tensor helpers (tensor.h), TVM CopyDataFromTo checks with CPU memory and no backend
 * (memcpy fallback), dispatch through the rtgood test plugin (prefixes, workspace
 * fallback, dh_device_call, the optional entries), the sim's optional entries, and
 * device selection (dh_device_select).
 */
#include "rt_test.h"

#include <stdlib.h>

#include "devharness/device_api.h"
#include "devharness/tensor.h"

static const DLDataType kU8 = {kDLUInt, 8, 1};
static const DLDevice kCPU = {kDLCPU, 0};
static const DLDevice kGood = {kDLVPI, 0};

static int load_good(void** state) {
  (void)state;
  char path[PATH_MAX];
  if (dh_plugin_load(rt_path(path, sizeof path, "runtime_plugins/libdevharness_rtgood.so"), NULL) != 0) {
    print_message("# %s\n", dh_error_message());
    return -1;
  }
  return 0;
}
static int unload(void** state) {
  (void)state;
  dh_plugins_unload_all();
  return 0;
}

/*---------------------------------------------------------------- specs */

typedef struct {
  const char* spec;
  const char* kind;
  const char* message; /* substring */
} bad_spec_t;

static void test_bad_specs(void** state) {
  (void)state;
  const bad_spec_t cases[] = {
      {"", "ParseError", "device spec '' is empty"},
      {":", "ParseError", "device spec ':': empty backend name"},
      {":0", "ParseError", "device spec ':0': empty backend name"},
      {"sim", "ParseError", "device spec 'sim': missing ':'"},
      {"sim:", "ParseError", "device spec 'sim:': missing device id"},
      {"cuda:-1", "ParseError", "device spec 'cuda:-1': device id '-1' is not a non-negative decimal integer"},
      {"sim:0x1", "ParseError", "device id '0x1' is not a non-negative decimal integer"},
      {"sim:1 ", "ParseError", "device id '1 ' is not a non-negative decimal integer"},
      {"sim: 1", "ParseError", "device id ' 1' is not a non-negative decimal integer"},
      {"opencl:99999999999", "ParseError", "device spec 'opencl:99999999999': device id '99999999999' is too large (max 2147483647)"},
      {"opencl:2147483648", "ParseError", "is too large"},
      {"sim:0:1", "ParseError", "device spec 'sim:0:1': more than one ':'"},
      {"a:b:0", "ParseError", "device spec 'a:b:0': more than one ':'"},
      {"sim::0", "ParseError", "more than one ':'"},
      {"sim:+1", "ParseError", "device id '+1' is not a non-negative decimal integer"},
      {"rtgood:2147483647", "IndexError", "backend rtgood has no device 2147483647"},
      {"foo:0", "KeyError", "device spec 'foo:0': Device API foo is not enabled: no plugin libdevharness_foo.so found in"},
      {"rtgood:1", "IndexError", "device spec 'rtgood:1': backend rtgood has no device 1 (1 device)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    DLDevice d = {kDLCPU, 77};
    const dh_backend_t* b = (const dh_backend_t*)1;
    if (dh_device_parse(cases[i].spec, &d, &b) != -1) fail_msg("spec '%s' was accepted", cases[i].spec);
    assert_null(b);
    assert_int_equal(d.device_id, 77); /* untouched */
    if (strcmp(dh_error_kind(), cases[i].kind) != 0)
      fail_msg("spec '%s': kind %s, expected %s (%s)", cases[i].spec, dh_error_kind(), cases[i].kind,
               dh_error_message());
    assert_contains(dh_error_message(), cases[i].message);
  }
  assert_int_equal(dh_device_parse(NULL, NULL, NULL), -1);
  assert_string_equal(dh_error_kind(), "ParseError");
}

/* dh_device_spec_split: the syntax alone, nothing resolved (the runner's parser too). */
static void test_spec_split(void** state) {
  (void)state;
  char name[DH_DEVICE_NAME_MAX];
  int32_t id = -5;
  assert_int_equal(dh_device_spec_split("tvm-cpu:0", name, sizeof name, &id), 0);
  assert_string_equal(name, "tvm-cpu");
  assert_int_equal(id, 0);
  /* no backend is needed: "nosuch" is not loaded */
  assert_int_equal(dh_device_spec_split("nosuch:007", name, sizeof name, &id), 0);
  assert_string_equal(name, "nosuch");
  assert_int_equal(id, 7);
  assert_int_equal(dh_device_spec_split("x:2147483647", name, sizeof name, &id), 0);
  assert_int_equal(id, 2147483647);
  id = -5;
  assert_int_equal(dh_device_spec_split("x:2147483648", name, sizeof name, &id), -1);
  assert_string_equal(dh_error_kind(), "ParseError");
  assert_contains(dh_error_message(), "is too large (max 2147483647)");
  assert_int_equal(id, -5); /* untouched on error */
  assert_int_equal(dh_device_spec_split("x:1:2", name, sizeof name, &id), -1);
  assert_contains(dh_error_message(), "more than one ':'");
  char small[4];
  assert_int_equal(dh_device_spec_split("abc:0", small, sizeof small, &id), 0);
  assert_string_equal(small, "abc");
  assert_int_equal(dh_device_spec_split("abcd:0", small, sizeof small, &id), -1);
  assert_contains(dh_error_message(), "backend name longer than 3 bytes");
  char longname[DH_DEVICE_NAME_MAX + 8];
  memset(longname, 'b', DH_DEVICE_NAME_MAX);
  memcpy(longname + DH_DEVICE_NAME_MAX, ":0", 3);
  assert_int_equal(dh_device_spec_split(longname, name, sizeof name, &id), -1);
  assert_contains(dh_error_message(), "backend name longer than 63 bytes");
  assert_int_equal(dh_device_spec_split(NULL, name, sizeof name, &id), -1);
  assert_string_equal(dh_error_kind(), "ParseError");
}

static void test_good_spec_and_format(void** state) {
  (void)state;
  DLDevice d;
  const dh_backend_t* b = NULL;
  assert_int_equal(dh_device_parse("rtgood:0", &d, &b), 0);
  assert_non_null(b);
  assert_string_equal(b->name, "rtgood");
  assert_int_equal(d.device_type, kDLVPI);
  assert_int_equal(d.device_id, 0);
  char buf[64];
  assert_string_equal(dh_device_format(d, buf, sizeof buf), "rtgood:0");
  assert_string_equal(dh_device_format((DLDevice){kDLCUDA, 3}, buf, sizeof buf), "cuda:3");
  assert_string_equal(dh_device_format((DLDevice){kDLExtDev, 0}, buf, sizeof buf), "ext_dev:0");
  assert_string_equal(dh_device_format((DLDevice){(DLDeviceType)42, 1}, buf, sizeof buf), "unknown:1");
  assert_string_equal(dh_device_format((DLDevice){kDLCUDA, 12345}, buf, 5), "cuda");
  assert_string_equal(dh_device_type_name(kDLOpenCL), "opencl");
  assert_string_equal(dh_device_type_name(kDLVulkan), "vulkan");
  assert_string_equal(dh_device_type_name(kDLCUDAManaged), "cuda_managed");
  assert_string_equal(dh_device_type_name(-1), "unknown");
}

/*---------------------------------------------------------------- tensors */

static void test_dtype(void** state) {
  (void)state;
  char buf[32];
  const struct {
    const char* text;
    DLDataType t;
    size_t bytes;
  } cases[] = {
      {"float32", {kDLFloat, 32, 1}, 4}, {"uint8", {kDLUInt, 8, 1}, 1},    {"int64x4", {kDLInt, 64, 4}, 32},
      /* DLPack 1.x / tvm-ffi: bool is (kDLBool, 8 bits), float8 variants have codes */
      {"bool", {kDLBool, 8, 1}, 1},      {"bfloat16", {kDLBfloat, 16, 1}, 2}, {"float16x2", {kDLFloat, 16, 2}, 4},
      {"float8_e4m3fn", {kDLFloat8_e4m3fn, 8, 1}, 1}, {"float8_e5m2", {kDLFloat8_e5m2, 8, 1}, 1},
      {"float8_e8m0fnu", {kDLFloat8_e8m0fnu, 8, 1}, 1}, {"float4_e2m1fn", {kDLFloat4_e2m1fn, 4, 1}, 1},
      {"handle", {kDLOpaqueHandle, 64, 1}, 8}, {"int4", {kDLInt, 4, 1}, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    DLDataType t = {0, 0, 0};
    if (dh_dtype_parse(cases[i].text, &t) != 0) fail_msg("%s: %s", cases[i].text, dh_error_message());
    assert_int_equal(t.code, cases[i].t.code);
    assert_int_equal(t.bits, cases[i].t.bits);
    assert_int_equal(t.lanes, cases[i].t.lanes);
    assert_string_equal(dh_dtype_format(t, buf, sizeof buf), cases[i].text);
    assert_int_equal(dh_dtype_bytes(t), cases[i].bytes);
  }
  DLDataType t;
  assert_int_equal(dh_dtype_parse("float", &t), 0); /* TVM: float means float32 */
  assert_int_equal(t.bits, 32);
  /* tvm-ffi 0.1.15's parser is the reference: it also takes "f32" (float32) and "int0"
   * (int32), and has no complex types */
  const char* bad[] = {"", "float32x", "float32x0", "int256", "float32 ", "uint8x70000", "boo", "complex128"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    if (dh_dtype_parse(bad[i], &t) != -1) fail_msg("dtype '%s' was accepted", bad[i]);
    char want[64];
    snprintf(want, sizeof want, "unknown dtype '%s'", bad[i]);
    assert_string_equal(dh_error_kind(), "ValueError");
    assert_string_equal(dh_error_message(), want);
  }
  assert_int_equal(dh_dtype_bytes((DLDataType){kDLFloat, 0, 1}), 0);
  assert_int_equal(dh_dtype_bytes((DLDataType){kDLFloat, 32, 0}), 0);
}

static void test_numel_nbytes(void** state) {
  (void)state;
  int64_t shape[3] = {2, 3, 4};
  DLTensor t = {NULL, kCPU, 3, {kDLFloat, 32, 1}, shape, NULL, 0};
  int64_t n;
  size_t nb;
  assert_int_equal(dh_tensor_numel(&t, &n), 0);
  assert_int_equal(n, 24);
  assert_int_equal(dh_tensor_nbytes(&t, &nb), 0);
  assert_int_equal(nb, 96);
  t.ndim = 0;
  assert_int_equal(dh_tensor_numel(&t, &n), 0);
  assert_int_equal(n, 1); /* scalar */
  t.ndim = 3;
  shape[1] = -3;
  assert_int_equal(dh_tensor_numel(&t, &n), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
  assert_string_equal(dh_error_message(), "tensor dimension 1 is negative (-3)");
  shape[1] = INT64_MAX / 2;
  assert_int_equal(dh_tensor_numel(&t, &n), -1);
  assert_contains(dh_error_message(), "overflows int64");
  shape[0] = 1, shape[1] = INT64_MAX / 2, shape[2] = 1;
  t.dtype.bits = 64;
  assert_int_equal(dh_tensor_nbytes(&t, &nb), -1); /* 8 bytes each overflows size_t */
  assert_contains(dh_error_message(), "overflows");
  t.shape = NULL;
  assert_int_equal(dh_tensor_numel(&t, &n), -1);
  assert_contains(dh_error_message(), "shape is NULL");
  assert_int_equal(dh_tensor_numel(NULL, &n), -1);
}

static void test_contiguity(void** state) {
  (void)state;
  int64_t shape[3] = {2, 3, 4};
  int64_t strides[3] = {12, 4, 1};
  DLTensor t = {NULL, kCPU, 3, {kDLFloat, 32, 1}, shape, NULL, 0};
  assert_true(dh_tensor_is_contiguous(&t)); /* NULL strides */
  t.strides = strides;
  assert_true(dh_tensor_is_contiguous(&t));
  strides[0] = 13;
  assert_false(dh_tensor_is_contiguous(&t));
  strides[0] = 12, strides[2] = 2;
  assert_false(dh_tensor_is_contiguous(&t));
  /* extent-1 dimensions may have any stride */
  int64_t s1[3] = {1, 3, 1}, st1[3] = {999, 1, 77};
  DLTensor u = {NULL, kCPU, 3, {kDLFloat, 32, 1}, s1, st1, 0};
  assert_true(dh_tensor_is_contiguous(&u));
  st1[1] = 2;
  assert_false(dh_tensor_is_contiguous(&u));
  /* column-major 4x4 is not row-major */
  int64_t s2[2] = {4, 4}, st2[2] = {1, 4};
  DLTensor v = {NULL, kCPU, 2, {kDLFloat, 32, 1}, s2, st2, 0};
  assert_false(dh_tensor_is_contiguous(&v));
  int64_t storage[1];
  DLTensor w;
  dh_tensor_init_bytes(&w, (void*)0x10, kGood, 5, 33, storage);
  assert_int_equal(w.ndim, 1);
  assert_ptr_equal(w.shape, storage);
  assert_int_equal(storage[0], 33);
  assert_int_equal(w.byte_offset, 5);
  assert_non_null(w.strides); /* DLPack >= 1.2: never NULL for ndim 1 */
  assert_int_equal(w.strides[0], 1);
  assert_int_equal(w.device.device_type, kDLVPI);
  assert_int_equal(w.dtype.bits, 8);
  assert_int_equal(w.dtype.code, kDLUInt);
  assert_int_equal(w.dtype.lanes, 1);
}

/*---------------------------------------------------------------- copies */

static void test_cpu_copy_checks_and_memcpy_fallback(void** state) {
  (void)state;
  assert_int_equal(dh_backend_count(), 0); /* no backend: memcpy fallback */
  unsigned char src[64], dst[64];
  for (int i = 0; i < 64; i++) src[i] = (unsigned char)i, dst[i] = 0xEE;
  int64_t s12 = 12, s16 = 16;
  DLTensor from, to;
  int64_t sh1[1], sh2[1];
  dh_tensor_init_bytes(&from, src, kCPU, 3, 12, sh1);
  dh_tensor_init_bytes(&to, dst, kCPU, 8, 12, sh2);
  assert_int_equal(dh_device_copy_data_from_to(&from, &to, NULL), 0);
  for (int i = 0; i < 64; i++) {
    int want = (i >= 8 && i < 20) ? i - 8 + 3 : 0xEE;
    if (dst[i] != want) fail_msg("dst[%d] = %d, expected %d", i, dst[i], want);
  }
  /* mismatched sizes */
  from.shape = &s12;
  to.shape = &s16;
  assert_int_equal(dh_device_copy_data_from_to(&from, &to, NULL), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
  assert_contains(dh_error_message(), "from has 12 bytes, to has 16 bytes");
  /* same byte size through different dtypes is fine (TVM compares bytes) */
  int64_t s4 = 4;
  DLTensor f32 = {src, kCPU, 1, {kDLFloat, 32, 1}, &s4, NULL, 0};
  to.shape = &s16;
  to.byte_offset = 0;
  assert_int_equal(dh_device_copy_data_from_to(&f32, &to, NULL), 0);
  assert_memory_equal(dst, src, 16);
  /* non-contiguous */
  int64_t shape[2] = {4, 4}, strides[2] = {1, 4};
  DLTensor nc = {dst, kCPU, 2, {kDLFloat, 32, 1}, shape, strides, 0};
  DLTensor c = {src, kCPU, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
  assert_int_equal(dh_device_copy_data_from_to(&c, &nc, NULL), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
  assert_contains(dh_error_message(), "to is not contiguous: strides [1, 4] for shape [4, 4]");
  assert_int_equal(dh_device_copy_data_from_to(&nc, &c, NULL), -1);
  assert_contains(dh_error_message(), "from is not contiguous: strides [1, 4] for shape [4, 4]");
  /* NULL tensors and data */
  assert_int_equal(dh_device_copy_data_from_to(NULL, &c, NULL), -1);
  assert_string_equal(dh_error_kind(), "TypeError");
  assert_contains(dh_error_message(), "from tensor is NULL");
  DLTensor nodata = c;
  nodata.data = NULL;
  assert_int_equal(dh_device_copy_data_from_to(&c, &nodata, NULL), -1);
  assert_string_equal(dh_error_kind(), "TypeError");
  assert_contains(dh_error_message(), "to->data is NULL");
  /* negative dimension */
  int64_t neg = -1;
  DLTensor bad = {src, kCPU, 1, kU8, &neg, NULL, 0};
  assert_int_equal(dh_device_copy_data_from_to(&bad, &c, NULL), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
  assert_contains(dh_error_message(), "from: tensor dimension 0 is negative (-1)");
  /* zero bytes: a no-op even with NULL data */
  int64_t zero = 0;
  DLTensor z1 = {NULL, kCPU, 1, kU8, &zero, NULL, 0}, z2 = z1;
  assert_int_equal(dh_device_copy_data_from_to(&z1, &z2, NULL), 0);
  /* a non-CPU side with no backend */
  DLTensor dev = c;
  dev.device = (DLDevice){kDLOpenCL, 0};
  assert_int_equal(dh_device_copy_data_from_to(&c, &dev, NULL), -1);
  assert_string_equal(dh_error_kind(), "KeyError");
  assert_contains(dh_error_message(), "opencl:0: copy_data_from_to: Device API opencl is not enabled");
  DLTensor dev2 = c;
  dev2.device = (DLDevice){kDLVulkan, 0};
  assert_int_equal(dh_device_copy_data_from_to(&dev2, &dev, NULL), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
  assert_contains(dh_error_message(), "cannot copy between vulkan:0 and opencl:0");
}

/* The copy path checks the common case inline (runtime/internal.h
 * dh__tensor_side_nbytes_fast) and leaves the rest to the full check: both must give
 * TVM's answers, including at the fast path's edges. */
static void test_copy_checks_fast_and_full_agree(void** state) {
  (void)state;
  unsigned char src[64], dst[64];
  for (int i = 0; i < 64; i++) src[i] = (unsigned char)(i + 1), dst[i] = 0;
  /* explicit compact strides, and extent-1 dimensions with any stride (TVM IsContiguous) */
  int64_t shape[3] = {2, 1, 8}, strides[3] = {8, 99, 1};
  DLTensor a = {src, kCPU, 3, kU8, shape, strides, 0};
  int64_t n16 = 16;
  DLTensor b = {dst, kCPU, 1, kU8, &n16, NULL, 0};
  assert_int_equal(dh_device_copy_data_from_to(&a, &b, NULL), 0);
  assert_memory_equal(dst, src, 16);
  /* the stride of an extent > 1 dimension must be the product of the later extents */
  int64_t bad_strides[3] = {9, 99, 1};
  a.strides = bad_strides;
  assert_int_equal(dh_device_copy_data_from_to(&a, &b, NULL), -1);
  assert_contains(dh_error_message(), "from is not contiguous: strides [9, 99, 1] for shape [2, 1, 8]");
  /* a 0-d tensor is one element */
  DLTensor scalar = {src + 5, kCPU, 0, {kDLFloat, 32, 1}, NULL, NULL, 0};
  int64_t n4 = 4;
  DLTensor four = {dst, kCPU, 1, kU8, &n4, NULL, 0};
  assert_int_equal(dh_device_copy_data_from_to(&scalar, &four, NULL), 0);
  assert_memory_equal(dst, src + 5, 4);
  /* element count overflow, found at the same dimension as dh_tensor_numel's */
  int64_t huge[2] = {INT64_MAX / 2 + 1, 2};
  DLTensor h = {src, kCPU, 2, kU8, huge, NULL, 0};
  assert_int_equal(dh_device_copy_data_from_to(&h, &b, NULL), -1);
  assert_contains(dh_error_message(), "from: tensor element count overflows int64 at dimension 1");
  /* a zero extent after an overflowing prefix: dh_tensor_numel walks forward and
   * refuses it; the inline check must not accept it as 0 bytes */
  int64_t zero_after[3] = {INT64_MAX, 2, 0};
  DLTensor z = {src, kCPU, 3, kU8, zero_after, NULL, 0};
  int64_t n0 = 0;
  DLTensor empty = {dst, kCPU, 1, kU8, &n0, NULL, 0};
  assert_int_equal(dh_device_copy_data_from_to(&z, &empty, NULL), -1);
  assert_contains(dh_error_message(), "overflows int64 at dimension 1");
  /* a zero extent is otherwise a 0-byte no-op */
  int64_t zero_first[2] = {0, INT64_MAX};
  z.shape = zero_first;
  z.ndim = 2;
  assert_int_equal(dh_device_copy_data_from_to(&z, &empty, NULL), 0);
  /* byte size overflowing size_t */
  int64_t big = INT64_MAX / 2;
  DLTensor f64 = {src, kCPU, 1, {kDLFloat, 64, 1}, &big, NULL, 0};
  assert_int_equal(dh_device_copy_data_from_to(&f64, &b, NULL), -1);
  assert_contains(dh_error_message(), "byte size overflows size_t");
  /* sub-byte dtypes are packed (tvm-ffi GetDataSize): int4[16] is 8 bytes on both
   * paths, int4[16] -> uint8[16] is a size mismatch, int4[2,8] with compact strides and
   * int4[3] (2 bytes, the last half-filled) copy as packed bytes */
  DLDataType i4 = {kDLInt, 4, 1};
  memset(dst, 0xEE, sizeof dst);
  DLTensor p16 = {src, kCPU, 1, i4, &n16, NULL, 0}, q16 = {dst, kCPU, 1, i4, &n16, NULL, 0};
  assert_int_equal(dh_device_copy_data_from_to(&p16, &q16, NULL), 0);
  assert_memory_equal(dst, src, 8);
  assert_int_equal(dst[8], 0xEE);
  assert_int_equal(dh_device_copy_data_from_to(&p16, &b, NULL), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
  assert_contains(dh_error_message(), "from has 8 bytes, to has 16 bytes");
  int64_t sh28[2] = {2, 8}, st28[2] = {8, 1}, n8 = 8;
  DLTensor p28 = {src, kCPU, 2, i4, sh28, st28, 0}, u8x8 = {dst, kCPU, 1, kU8, &n8, NULL, 0};
  assert_int_equal(dh_device_copy_data_from_to(&p28, &u8x8, NULL), 0);
  int64_t n3 = 3, n2 = 2;
  DLTensor p3 = {src, kCPU, 1, i4, &n3, NULL, 0}, u8x2 = {dst, kCPU, 1, kU8, &n2, NULL, 0};
  assert_int_equal(dh_device_copy_data_from_to(&p3, &u8x2, NULL), 0);
  size_t nb = 0;
  assert_int_equal(dh_tensor_nbytes(&p3, &nb), 0);
  assert_int_equal(nb, 2);
  assert_int_equal(dh_dtype_nbytes(16, i4, &nb), 0);
  assert_int_equal(nb, 8);
  assert_int_equal(dh_dtype_nbytes(UINT64_MAX / 4, i4, &nb), -1); /* bit count overflows */
  assert_contains(dh_error_message(), "overflows");
  /* negative ndim and a NULL shape */
  DLTensor negnd = {src, kCPU, -1, kU8, &n16, NULL, 0};
  assert_int_equal(dh_device_copy_data_from_to(&negnd, &b, NULL), -1);
  assert_contains(dh_error_message(), "from: tensor ndim is negative (-1)");
  DLTensor noshape = {dst, kCPU, 1, kU8, NULL, NULL, 0};
  assert_int_equal(dh_device_copy_data_from_to(&b, &noshape, NULL), -1);
  assert_contains(dh_error_message(), "to: tensor has ndim 1 but shape is NULL");
}

/*---------------------------------------------------------------- dispatch */

static void test_dispatch_through_plugin(void** state) {
  (void)state;
  void* buf = NULL;
  assert_int_equal(dh_device_alloc_data_space(kGood, 100, 0, kU8, &buf), 0);
  assert_non_null(buf);
  dh_any_t rv;
  assert_int_equal(dh_device_call(kGood, "last_alignment", NULL, 0, &rv), 0);
  assert_int_equal(rv.v_int64, DH_ALLOC_ALIGNMENT); /* alignment 0 -> 64 */
  /* H2D at offset 7, D2H back from offset 7 */
  unsigned char host[40], back[40];
  for (int i = 0; i < 40; i++) host[i] = (unsigned char)(i * 7 + 1), back[i] = 0;
  DLTensor h, d, b;
  int64_t s1[1], s2[1], s3[1];
  dh_tensor_init_bytes(&h, host, kCPU, 0, 40, s1);
  dh_tensor_init_bytes(&d, buf, kGood, 7, 40, s2);
  dh_tensor_init_bytes(&b, back, kCPU, 0, 40, s3);
  assert_int_equal(dh_device_copy_data_from_to(&h, &d, NULL), 0);
  assert_int_equal(dh_device_copy_data_from_to(&d, &b, NULL), 0);
  assert_int_equal(dh_device_stream_sync(kGood, NULL), 0);
  assert_memory_equal(back, host, 40);
  assert_int_equal(((unsigned char*)buf)[7], host[0]); /* offset honoured, not added twice */
  assert_int_equal(dh_device_free_data_space(kGood, buf), 0);
  /* bad alignment is refused before the backend */
  assert_int_equal(dh_device_alloc_data_space(kGood, 8, 3, kU8, &buf), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
  assert_contains(dh_error_message(), "alignment 3 is not a power of two");
  /* workspace falls back to data space with DH_TEMP_ALLOC_ALIGNMENT */
  assert_int_equal(dh_device_alloc_data_space(kGood, 8, 256, kU8, &buf), 0);
  assert_int_equal(dh_device_free_data_space(kGood, buf), 0);
  assert_int_equal(dh_device_alloc_workspace(kGood, 10, kU8, &buf), 0);
  assert_int_equal(dh_device_call(kGood, "last_alignment", NULL, 0, &rv), 0);
  assert_int_equal(rv.v_int64, DH_TEMP_ALLOC_ALIGNMENT);
  assert_int_equal(dh_device_free_workspace(kGood, buf), 0);
  /* errors are prefixed with device and operation */
  DLDevice bad = {kDLVPI, 5};
  assert_int_equal(dh_device_set_device(bad), -1);
  assert_string_equal(dh_error_kind(), "IndexError");
  assert_string_equal(dh_error_message(), "rtgood:5: set_device: no device 5");
  assert_int_equal(dh_device_get_attr(bad, DH_ATTR_DEVICE_NAME, &rv), -1);
  assert_string_equal(dh_error_message(), "rtgood:5: get_attr: no device 5");
  assert_int_equal(dh_device_get_attr(kGood, DH_ATTR_DEVICE_NAME, &rv), 0);
  assert_string_equal(rv.v_c_str, "rt test device");
  assert_int_equal(dh_device_get_attr(kGood, DH_ATTR_WARP_SIZE, &rv), 0);
  assert_int_equal(rv.type_index, DH_TYPE_NONE);
  assert_int_equal(dh_device_get_attr((DLDevice){kDLCUDA, 0}, DH_ATTR_EXIST, &rv), 0);
  assert_int_equal(rv.v_int64, 0); /* kExist without a backend: 0, not an error */
  assert_int_equal(dh_device_get_attr((DLDevice){kDLCUDA, 0}, DH_ATTR_DEVICE_NAME, &rv), -1);
  assert_string_equal(dh_error_kind(), "KeyError");
  assert_string_equal(dh_error_message(), "cuda:0: get_attr: Device API cuda is not enabled");
  dh_stream_t s = (dh_stream_t)1;
  assert_int_equal(dh_device_create_stream(kGood, &s), 0);
  assert_null(s);
  assert_int_equal(dh_device_set_stream(kGood, s), 0);
  assert_int_equal(dh_device_get_current_stream(kGood, &s), 0);
  assert_int_equal(dh_device_sync_stream_from_to(kGood, NULL, NULL), 0);
  assert_int_equal(dh_device_free_stream(kGood, s), 0);
  /* module functions */
  dh_any_t args[3] = {dh_any_int(1), dh_any_float(1.5), dh_any_device(kGood)};
  assert_int_equal(dh_device_call(kGood, DH_FUNC_ECHO, args, 3, &rv), 0);
  assert_true(dh_any_equal(&rv, &args[2]));
  dh_any_t err[2] = {dh_any_str("MyError"), dh_any_str("from the backend")};
  assert_int_equal(dh_device_call(kGood, DH_FUNC_RAISE, err, 2, &rv), -1);
  assert_string_equal(dh_error_kind(), "MyError");
  assert_string_equal(dh_error_message(), "from the backend");
  dh_error_clear(); /* "bad" fails without raising: nothing stale may hide that */
  assert_int_equal(dh_device_call(kGood, "bad", NULL, 0, &rv), -1);
  assert_string_equal(dh_error_kind(), "InternalError");
  assert_int_equal(dh_device_call(kGood, "nosuch", NULL, 0, &rv), -1);
  assert_string_equal(dh_error_kind(), "KeyError");
  assert_string_equal(dh_error_message(), "rtgood:0: backend rtgood has no function 'nosuch'");
  /* functions registered later under rtgood.<name> are found too */
  assert_int_equal(dh_func_register("rtgood.echo2", dh_backend_func_echo, NULL, 0), 0);
  assert_int_equal(dh_device_call(kGood, "echo2", args, 3, &rv), 0);
  assert_true(dh_any_equal(&rv, &args[2]));
  dh_func_remove("rtgood.echo2");
}

/* The optional entries through the dispatch API: a backend without them answers
 * NotImplementedError naming the entry (target properties: None, as TVM's default
 * GetTargetProperty); a zeroed raw context tears down as a no-op. */
static void test_dispatch_optional_entries(void** state) {
  (void)state;
  void* p = (void*)1;
  assert_int_equal(dh_device_alloc_host(kGood, 64, &p), -1);
  assert_null(p);
  assert_string_equal(dh_error_kind(), "NotImplementedError");
  assert_string_equal(dh_error_message(), "rtgood:0: alloc_host: backend rtgood has no alloc_host entry");
  assert_int_equal(dh_device_free_host(kGood, NULL), -1);
  assert_string_equal(dh_error_kind(), "NotImplementedError");
  dh_event_t e = (dh_event_t)1;
  assert_int_equal(dh_device_event_create(kGood, &e), -1);
  assert_null(e);
  assert_string_equal(dh_error_message(), "rtgood:0: event_create: backend rtgood has no event_create entry");
  assert_int_equal(dh_device_event_record(kGood, NULL, NULL), -1);
  double ms = 0;
  assert_int_equal(dh_device_event_elapsed_ms(kGood, NULL, NULL, &ms), -1);
  assert_int_equal(dh_device_event_free(kGood, NULL), -1);
  assert_string_equal(dh_error_kind(), "NotImplementedError");
  dh_any_t v = dh_any_int(5);
  assert_int_equal(dh_device_get_target_property(kGood, "arch", &v), 0);
  assert_int_equal(v.type_index, DH_TYPE_NONE);
  assert_int_equal(dh_device_get_target_property((DLDevice){kDLCUDA, 0}, "arch", &v), -1);
  assert_string_equal(dh_error_kind(), "KeyError");
  dh_raw_context_t raw = {(const dh_raw_twin_t*)1, (void*)1};
  assert_int_equal(dh_device_raw_setup(kGood, DH_RAW_COPY_H2D, 64, 0, &raw), -1);
  assert_null(raw.twin);
  assert_string_equal(dh_error_kind(), "NotImplementedError");
  assert_string_equal(dh_error_message(), "rtgood:0: raw_setup: backend rtgood has no raw twin");
  dh_device_raw_teardown(&raw); /* zeroed: a no-op */
  dh_device_raw_teardown(NULL);
}

/* The optional entries on a backend that has them: the sim's pinned host memory,
 * events that time queued work, and its raw twin set up, run and torn down. */
static void test_dispatch_optional_entries_sim(void** state) {
  (void)state;
  char path[PATH_MAX];
  assert_int_equal(dh_plugin_load(rt_path(path, sizeof path, "../lib/devharness/libdevharness_sim.so"), NULL), 0);
  const dh_backend_t* b = NULL;
  assert_int_equal(dh_device_api_get("sim", &b), 0);
  DLDevice sim = {(DLDeviceType)b->device_type, 0};
  void* p = NULL;
  assert_int_equal(dh_device_alloc_host(sim, 4096, &p), 0);
  assert_non_null(p);
  memset(p, 0x5a, 4096); /* host-addressable */
  assert_int_equal(dh_device_free_host(sim, p), 0);
  dh_event_t e0 = NULL, e1 = NULL;
  double ms = -1;
  assert_int_equal(dh_device_event_create(sim, &e0), 0);
  assert_int_equal(dh_device_event_create(sim, &e1), 0);
  assert_int_equal(dh_device_event_record(sim, e0, NULL), 0);
  assert_int_equal(dh_device_event_record(sim, e1, NULL), 0);
  assert_int_equal(dh_device_event_elapsed_ms(sim, e0, e1, &ms), 0);
  assert_true(ms >= 0);
  assert_int_equal(dh_device_event_free(sim, e0), 0);
  assert_int_equal(dh_device_event_free(sim, e1), 0);
  dh_raw_context_t raw = {0};
  assert_int_equal(dh_device_raw_setup(sim, DH_RAW_COPY_H2D, 1 << 16, 0, &raw), 0);
  assert_ptr_equal(raw.twin, b->raw);
  double dev_ms = 0;
  assert_int_equal(dh_device_raw_run(&raw, 3, &dev_ms), 0);
  dh_device_raw_teardown(&raw);
  assert_null(raw.twin);
  assert_null(raw.ctx);
}

/* dh_device_select: every device of the loaded backends, or the one a spec names,
 * with the same answer counted here or in a probe child; a backend whose init fails
 * is one no-device entry with init's message. */
static void test_select(void** state) {
  (void)state;
  for (int child = 0; child < 2; child++) {
    dh_device_select_params_t p = {.flags = DH_SELECT_LOADED_ONLY | (child ? DH_SELECT_PROBE_IN_CHILD : 0u)};
    dh_device_list_t l = {0};
    assert_int_equal(dh_device_select(&p, &l), 0);
    assert_int_equal(l.count, 1);
    assert_string_equal(l.entries[0].name, "rtgood:0");
    assert_int_equal(l.entries[0].device.device_type, kDLVPI);
    assert_int_equal(l.entries[0].device.device_id, 0);
    assert_int_equal(l.entries[0].device_count, 1);
    assert_int_equal(l.entries[0].probe_failed, 0);
    assert_string_equal(l.entries[0].reason, "");
    dh_device_list_free(&l);
    assert_null(l.entries);
    p.spec = "rtgood:0";
    assert_int_equal(dh_device_select(&p, &l), 0);
    assert_int_equal(l.count, 1);
    assert_string_equal(l.entries[0].name, "rtgood:0");
    dh_device_list_free(&l);
    p.spec = "rtgood:1";
    assert_int_equal(dh_device_select(&p, &l), -1);
    assert_int_equal(l.count, 0);
    assert_string_equal(dh_error_kind(), "IndexError");
    assert_string_equal(dh_error_message(), "device spec 'rtgood:1': backend rtgood has no device 1 (1 device)");
    p.spec = "nosuch:0";
    assert_int_equal(dh_device_select(&p, &l), -1);
    assert_string_equal(dh_error_kind(), "KeyError");
    assert_contains(dh_error_message(), "device spec 'nosuch:0': Device API nosuch is not enabled");
    p.spec = "rtgood";
    assert_int_equal(dh_device_select(&p, &l), -1);
    assert_string_equal(dh_error_kind(), "ParseError");
  }
  char path[PATH_MAX];
  assert_int_equal(dh_plugin_load(rt_path(path, sizeof path, "runtime_plugins/libdevharness_rtinitfail.so"), NULL), 0);
  dh_device_select_params_t p = {.flags = DH_SELECT_LOADED_ONLY | DH_SELECT_PROBE_IN_CHILD, .probe_timeout_s = 20};
  dh_device_list_t l = {0};
  assert_int_equal(dh_device_select(&p, &l), 0);
  assert_int_equal(l.count, 2);
  assert_string_equal(l.entries[1].name, "rtinitfail (no device)");
  assert_int_equal(l.entries[1].device.device_id, -1);
  assert_int_equal(l.entries[1].probe_failed, 0);
  assert_contains(l.entries[1].reason, "no rtinitfail hardware");
  dh_device_list_free(&l);
  assert_int_equal(dh_device_select(NULL, NULL), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dtype),
      cmocka_unit_test(test_numel_nbytes),
      cmocka_unit_test(test_contiguity),
      cmocka_unit_test(test_cpu_copy_checks_and_memcpy_fallback),
      cmocka_unit_test(test_spec_split),
      cmocka_unit_test(test_copy_checks_fast_and_full_agree),
      cmocka_unit_test_setup_teardown(test_bad_specs, load_good, unload),
      cmocka_unit_test_setup_teardown(test_good_spec_and_format, load_good, unload),
      cmocka_unit_test_setup_teardown(test_dispatch_through_plugin, load_good, unload),
      cmocka_unit_test_setup_teardown(test_dispatch_optional_entries, load_good, unload),
      cmocka_unit_test_setup_teardown(test_dispatch_optional_entries_sim, load_good, unload),
      cmocka_unit_test_setup_teardown(test_select, load_good, unload),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
