/*
 * tests/runtime/test_ffi_interop.c — devharness and tvm-ffi in one process (TAP).
 *
 * 1. A library written with tvm-ffi's C++ API (runtime_ffi_cxx_module.so, built from
 *    tests/runtime/ffi_cxx_module.cc with TVM_FFI_DLL_EXPORT_TYPED_FUNC), loaded with
 *    dh_module_load and called with dh_func_call: int64, float64, bool, DLDevice,
 *    DLTensor*, short and long strings, bytes, and a function raising ValueError; every
 *    value and the error's kind and message come through; byte sizes of tensors
 *    (dh_dtype_nbytes, dh_tensor_nbytes) equal the module's tvm-ffi GetDataSize; a
 *    tensor from dh_tensor_init_bytes has the strides tvm-ffi's TensorView reads.
 * 4. The environment stream, per device (cpu:0, sim:0, opencl:0, vulkan:0; a device
 *    that is absent is "# SKIP <reason>"): a stream set with TVMFFIEnvSetStream is what
 *    dh_device_get_current_stream returns and what "fill" runs on (a handle the backend
 *    does not know, set the same way, makes fill fail naming it; a real stream gets the
 *    fill, visible after stream_sync of that stream); one set with dh_device_set_stream
 *    is what TVMFFIEnvGetStream returns; another thread still sees the default (NULL).
 * Each check prints its own TAP line (plan at the end).
 */
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <unistd.h>
#include <libgen.h>

#include "devharness/devharness.h"

static int g_n, g_failed;

static void tap(int ok, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void tap(int ok, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("%s %d - ", ok ? "ok" : "not ok", ++g_n);
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  if (!ok) {
    g_failed++;
    const char* k = dh_error_kind();
    if (k) printf("# last error: %s: %s\n", k, dh_error_message());
  }
  fflush(stdout);
}

static void skip(const char* what, const char* why) {
  printf("ok %d - %s # SKIP %s\n", ++g_n, what, why);
}

static const char* exe_rel(char* buf, size_t size, const char* rel) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n < 0) n = 0;
  exe[n] = '\0';
  snprintf(buf, size, "%s/%s", dirname(exe), rel);
  return buf;
}

/* Calls module function `name`; result in *rv (owned). */
static int call(dh_module_t* m, const char* name, const dh_any_t* args, int n, dh_any_t* rv) {
  dh_function_t f;
  if (dh_module_get_function(m, name, &f) != 0) return -1;
  int rc = dh_func_call(&f, args, n, rv);
  dh_func_release(&f);
  return rc;
}

static int str_is(const dh_any_t* v, const char* want, size_t n) {
  dh_byte_array_t b;
  return dh_any_as_str(v, &b) == 0 && b.size == n && memcmp(b.data, want, n) == 0;
}

/* dh_dtype_nbytes and dh_tensor_nbytes against tvm-ffi's GetDataSize (the module's
 * data_size) for whole-byte, sub-byte, float8/float6/float4, bool and vector dtypes and
 * element counts around byte boundaries: the reference numbers come from tvm-ffi. */
static void data_sizes(dh_module_t* m) {
  static const char* names[] = {"int4", "uint4", "int1", "uint1", "uint2", "int8", "uint8", "bool",
                                "int16", "float16", "bfloat16", "int32", "float32", "int64",
                                "float64", "float4_e2m1fn", "float4_e2m1fnx2", "float6_e2m3fn",
                                "float6_e3m2fn", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz",
                                "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
                                "float8_e8m0fnu", "int4x4", "uint1x3", "float32x4", "float16x3"};
  static const int64_t numels[] = {0, 1, 2, 3, 7, 15, 16, 17, 37, 1000001};
  int bad = 0, total = 0, int4_16 = -1;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    DLDataType dt;
    if (dh_dtype_parse(names[i], &dt) != 0) {
      printf("# tvm-ffi does not parse dtype '%s'\n", names[i]);
      bad++;
      continue;
    }
    for (size_t j = 0; j < sizeof numels / sizeof numels[0]; j++) {
      dh_any_t a[2] = {dh_any_int(numels[j]), dh_any_dtype(dt)}, rv;
      size_t ours = 0, tensor_ours = 0;
      int64_t shape[1] = {numels[j]};
      DLTensor t = {NULL, {kDLCPU, 0}, 1, dt, shape, NULL, 0};
      total++;
      if (call(m, "data_size", a, 2, &rv) != 0 || rv.type_index != DH_TYPE_INT ||
          dh_dtype_nbytes((uint64_t)numels[j], dt, &ours) != 0 || dh_tensor_nbytes(&t, &tensor_ours) != 0 ||
          (int64_t)ours != rv.v_int64 || (int64_t)tensor_ours != rv.v_int64) {
        printf("# %s[%" PRId64 "]: tvm-ffi GetDataSize %" PRId64 ", dh_dtype_nbytes %zu, dh_tensor_nbytes %zu\n",
               names[i], numels[j], rv.v_int64, ours, tensor_ours);
        bad++;
      }
      if (strcmp(names[i], "int4") == 0 && numels[j] == 16) int4_16 = (int)ours;
    }
  }
  tap(bad == 0, "sizes: dh_dtype_nbytes and dh_tensor_nbytes equal tvm-ffi's GetDataSize on %d "
      "(dtype, numel) pairs (sub-byte packed, bool 8-bit)", total);
  tap(int4_16 == 8, "sizes: int4[16] is 8 bytes (got %d)", int4_16);
}

static void cxx_module(void) {
  char path[PATH_MAX];
  dh_module_t* m = NULL;
  exe_rel(path, sizeof path, "runtime_ffi_cxx_module.so");
  if (dh_module_load(path, &m) != 0) {
    tap(0, "cxx: dh_module_load(%s)", path);
    return;
  }
  dh_any_t a, rv;
  a = dh_any_int(INT64_MAX - 1);
  tap(call(m, "add_one", &a, 1, &rv) == 0 && rv.type_index == DH_TYPE_INT && rv.v_int64 == INT64_MAX,
      "cxx: int64 INT64_MAX-1 -> add_one -> INT64_MAX");
  a = dh_any_float(-3.0e300);
  tap(call(m, "half", &a, 1, &rv) == 0 && rv.type_index == DH_TYPE_FLOAT && rv.v_float64 == -1.5e300,
      "cxx: float64 -3e300 -> half -> -1.5e300");
  a = dh_any_bool(1);
  tap(call(m, "negate", &a, 1, &rv) == 0 && rv.type_index == DH_TYPE_BOOL && rv.v_int64 == 0,
      "cxx: bool true -> negate -> false (Bool)");
  a = dh_any_device((DLDevice){kDLExtDev, 6});
  tap(call(m, "next_device", &a, 1, &rv) == 0 && rv.type_index == DH_TYPE_DEVICE &&
          rv.v_device.device_type == kDLExtDev && rv.v_device.device_id == 7,
      "cxx: DLDevice (ext_dev, 6) -> next_device -> (ext_dev, 7)");
  int32_t data[2][3] = {{1, 2, 3}, {4, 5, 6}};
  int64_t shape[2] = {2, 3};
  DLTensor t = {.data = data, .device = {kDLCPU, 0}, .ndim = 2, .dtype = {kDLInt, 32, 1},
                .shape = shape, .strides = NULL, .byte_offset = 0};
  a = dh_any_tensor(&t);
  tap(call(m, "tensor_sum", &a, 1, &rv) == 0 && rv.type_index == DH_TYPE_INT && rv.v_int64 == 2021,
      "cxx: DLTensor* int32[2,3] -> tensor_sum -> 21 + 1000*ndim");
  a = dh_any_str("hey");
  int ok = call(m, "shout", &a, 1, &rv) == 0 && str_is(&rv, "hey!", 4);
  tap(ok, "cxx: short string 'hey' (RawStr) -> shout -> 'hey!' (%s)", dh_type_index_name(rv.type_index));
  dh_any_release(&rv);
  dh_any_release(&rv);
  static const char long_s[] = "a string well over seven bytes, with UTF-8 \xc3\xa9";
  a = dh_any_str(long_s);
  ok = call(m, "shout", &a, 1, &rv) == 0 && rv.type_index == DH_TYPE_STR;
  char want[128];
  snprintf(want, sizeof want, "%s!", long_s);
  tap(ok && str_is(&rv, want, strlen(want)), "cxx: long string (RawStr) -> shout -> Str object, bytes intact");
  /* a Str object as argument, owned by us */
  dh_any_t owned = rv;
  tap(call(m, "string_length", &owned, 1, &rv) == 0 && rv.v_int64 == (int64_t)strlen(want),
      "cxx: Str object argument -> string_length");
  dh_any_release(&owned);
  dh_byte_array_t bytes = {"\x00\x01\x02\x03\x04\x05\x06\x07\x08\xff", 10};
  a = dh_any_bytes(&bytes);
  ok = call(m, "reverse_bytes", &a, 1, &rv) == 0 && rv.type_index == DH_TYPE_BYTES;
  tap(ok && str_is(&rv, "\xff\x08\x07\x06\x05\x04\x03\x02\x01\x00", 10),
      "cxx: 10 bytes with NULs (ByteArrayPtr) -> reverse_bytes -> Bytes object, reversed");
  dh_any_release(&rv);
  dh_byte_array_t small = {"\x00\x7f", 2};
  a = dh_any_bytes(&small);
  ok = call(m, "reverse_bytes", &a, 1, &rv) == 0 && str_is(&rv, "\x7f\x00", 2) &&
       (rv.type_index == DH_TYPE_BYTES || rv.type_index == DH_TYPE_SMALL_BYTES);
  tap(ok, "cxx: 2 bytes -> reverse_bytes -> the 2 bytes reversed (%s)", dh_type_index_name(rv.type_index));
  dh_any_release(&rv);
  dh_error_clear();
  a = dh_any_str("the value is wrong: 42");
  int rc = call(m, "raise_value_error", &a, 1, &rv);
  const char* kind = dh_error_kind();
  tap(rc == -1 && kind != NULL && strcmp(kind, "ValueError") == 0 &&
          strcmp(dh_error_message(), "the value is wrong: 42") == 0 && rv.type_index == DH_TYPE_NONE,
      "cxx: TVM_FFI_THROW(ValueError) -> -1, kind ValueError, message intact (got %s: %s)",
      kind ? kind : "(none)", dh_error_message());
  a = dh_any_str("not an int");
  rc = call(m, "add_one", &a, 1, &rv);
  kind = dh_error_kind();
  tap(rc == -1 && kind != NULL && strcmp(kind, "TypeError") == 0,
      "cxx: wrong argument type -> tvm-ffi's TypeError (got %s)", kind ? kind : "(none)");
  dh_error_clear();
  data_sizes(m);
  /* DLPack >= 1.2: a tensor devharness builds has real strides, which a tvm-ffi kernel
   * reads through TensorView::strides() and stride(i) */
  DLTensor bt;
  int64_t bshape[1];
  uint8_t bytes_buf[40];
  dh_tensor_init_bytes(&bt, bytes_buf, (DLDevice){kDLCPU, 0}, 3, 37, bshape);
  a = dh_any_tensor(&bt);
  rc = call(m, "tensor_strides", &a, 1, &rv);
  tap(rc == 0 && str_is(&rv, "1", 1), "strides: dh_tensor_init_bytes tensor -> TensorView strides() and "
      "stride(0) -> [1] (rc %d, %s)", rc, rc ? dh_error_message() : "");
  dh_any_release(&rv);
  /* the check above can fail: a NULL-strides tensor gives tvm-ffi's InternalError */
  t.strides = NULL;
  a = dh_any_tensor(&t);
  rc = call(m, "tensor_strides", &a, 1, &rv);
  kind = dh_error_kind();
  tap(rc == -1 && kind != NULL && strcmp(kind, "InternalError") == 0,
      "strides: a strides-NULL int32[2,3] -> strides() -> InternalError (got %s)", kind ? kind : "(none)");
  dh_error_clear();
  int64_t st23[2] = {3, 1};
  t.strides = st23;
  rc = call(m, "tensor_strides", &a, 1, &rv);
  tap(rc == 0 && str_is(&rv, "3,1", 3), "strides: int32[2,3] with strides [3,1] -> \"3,1\"");
  dh_any_release(&rv);
  dh_module_free(m);
}

/*------------------------------------------------------------------ env stream */

static void* other_thread(void* p) {
  DLDevice* d = p;
  dh_stream_t s = (dh_stream_t)1;
  if (dh_device_get_current_stream(*d, &s) != 0) s = (dh_stream_t)2;
  return s;
}

static int fill_and_read(DLDevice dev, void* buf, uint32_t value, dh_stream_t sync_on, uint32_t* out) {
  DLTensor t, h;
  int64_t sh1[1], sh2[1];
  dh_tensor_init_bytes(&t, buf, dev, 0, 1024, sh1);
  dh_any_t args[2] = {dh_any_tensor(&t), dh_any_int(value)}, rv;
  if (dh_device_call(dev, "fill", args, 2, &rv) != 0) return -1;
  if (dh_device_stream_sync(dev, sync_on) != 0) return -1;
  dh_tensor_init_bytes(&h, out, (DLDevice){kDLCPU, 0}, 0, 1024, sh2);
  if (dh_device_copy_data_from_to(&t, &h, NULL) != 0) return -1;
  return dh_device_stream_sync(dev, NULL);
}

static int all_words(const uint32_t* w, uint32_t v) {
  for (int i = 0; i < 256; i++)
    if (w[i] != v) return 0;
  return 1;
}

static void env_stream(const char* spec) {
  char what[128];
  DLDevice dev;
  const dh_backend_t* b;
  snprintf(what, sizeof what, "env stream: %s", spec);
  if (dh_device_parse(spec, &dev, &b) != 0) {
    char why[256];
    snprintf(why, sizeof why, "%s", dh_error_message());
    skip(what, why);
    return;
  }
  const char* why = dh_backend_unavailable_reason(b);
  if (why != NULL) {
    skip(what, why);
    return;
  }
  int single = (b->caps & DH_CAP_SINGLE_QUEUE) != 0;
  static uint32_t words[256];
  void* buf = NULL;
  if (dh_device_alloc_data_space(dev, 1024, 64, (DLDataType){kDLUInt, 8, 1}, &buf) != 0) {
    tap(0, "%s: alloc_data_space", spec);
    return;
  }
  dh_stream_t s = NULL, s2 = NULL, got = (dh_stream_t)1;
  if (!single && (dh_device_create_stream(dev, &s) != 0 || dh_device_create_stream(dev, &s2) != 0)) {
    tap(0, "%s: create_stream", spec);
    return;
  }
  if (single) {
    /* one queue: the only valid stream is NULL; the env still carries what was set */
    s = (dh_stream_t)(uintptr_t)0x5eed0;
  }
  TVMFFIEnvSetStream(dev.device_type, dev.device_id, s, NULL);
  int ok = dh_device_get_current_stream(dev, &got) == 0 && got == s;
  tap(ok, "%s: TVMFFIEnvSetStream(%p) -> dh_device_get_current_stream %p", spec, s, got);
  if (!single) {
    ok = dh_device_set_stream(dev, s2) == 0;
    got = TVMFFIEnvGetStream(dev.device_type, dev.device_id);
    tap(ok && got == s2, "%s: dh_device_set_stream(%p) -> TVMFFIEnvGetStream %p", spec, s2, got);
    /* fill runs on the env stream: a stranger's handle set through tvm-ffi is refused... */
    static uint64_t stranger[64]; /* zeroed memory: no backend's stream */
    TVMFFIEnvSetStream(dev.device_type, dev.device_id, stranger, NULL);
    DLTensor t;
    int64_t sh[1];
    dh_tensor_init_bytes(&t, buf, dev, 0, 1024, sh);
    dh_any_t args[2] = {dh_any_tensor(&t), dh_any_int(1)}, rv;
    dh_error_clear();
    int rc = dh_device_call(dev, "fill", args, 2, &rv);
    tap(rc == -1 && dh_error_kind() != NULL,
        "%s: fill with a foreign env stream fails (%s: %s)", spec, dh_error_kind() ? dh_error_kind() : "none",
        dh_error_message());
    /* ...and a real one gets the work: visible after syncing that stream */
    TVMFFIEnvSetStream(dev.device_type, dev.device_id, s, NULL);
    tap(fill_and_read(dev, buf, 0xc0ffee11u, s, words) == 0 && all_words(words, 0xc0ffee11u),
        "%s: fill on the env stream set through tvm-ffi, synced on that stream", spec);
  } else {
    TVMFFIEnvSetStream(dev.device_type, dev.device_id, NULL, NULL);
    tap(dh_device_set_stream(dev, NULL) == 0 && TVMFFIEnvGetStream(dev.device_type, dev.device_id) == NULL,
        "%s: dh_device_set_stream(NULL) -> TVMFFIEnvGetStream NULL (single queue)", spec);
    tap(fill_and_read(dev, buf, 0xc0ffee11u, NULL, words) == 0 && all_words(words, 0xc0ffee11u),
        "%s: fill on the (single) env stream", spec);
  }
  pthread_t th;
  void* seen = (void*)1;
  pthread_create(&th, NULL, other_thread, &dev);
  pthread_join(th, &seen);
  tap(seen == NULL, "%s: another thread's current stream is still NULL (got %p)", spec, seen);
  dh_device_set_stream(dev, NULL);
  TVMFFIEnvSetStream(dev.device_type, dev.device_id, NULL, NULL);
  dh_device_free_data_space(dev, buf);
  if (!single) {
    dh_device_free_stream(dev, s);
    dh_device_free_stream(dev, s2);
  }
  dh_error_clear();
}

int main(void) {
  printf("TAP version 13\n");
  cxx_module();
  dh_plugins_load_default();
  const char* devs[] = {"cpu:0", "sim:0", "opencl:0", "vulkan:0"};
  for (size_t i = 0; i < sizeof devs / sizeof devs[0]; i++) env_stream(devs[i]);
  printf("1..%d\n", g_n);
  fflush(stdout); /* before any exit-time sanitizer report */
  dh_plugins_unload_all();
  return g_failed ? 1 : 0;
}
