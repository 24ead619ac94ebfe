/*
 * tests/backends/opencl/test_opencl.c — cmocka tests of the OpenCL backend plugin.
 *
 * Loads <dir of this program>/../lib/devharness/libdevharness_opencl.so directly
 * (dlopen + dh_backend_entry) and exercises the vtable: attributes, memory, round
 * trips with offsets, stream ordering, sync_stream_from_to, fill/noop, events, the
 * raw twin, several threads with their own current streams, the unavailable reason with
 * an empty OCL_ICD_VENDORS folder, and use after fork(). Queues are counted by their
 * profiling flag through an interposed clCreateCommandQueue (this program exports it,
 * -rdynamic): plain until the first event_record, then switched once, in order.
 * Prints TAP. With no OpenCL device the program prints "1..0 # SKIP <reason>".
 *
 * Helper modes (used by opencl_clinfo.py and by the unavailable test):
 *   test_opencl --dump-attrs   JSON of every device's attributes on stdout
 *   test_opencl --reason       prints the unavailable reason, or "available"
 *   test_opencl --fork-check   init, fork, use the device in the child (see fork_check)
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include "devharness/backend.h"
#include "devharness/error.h"
#include "devharness/tensor.h"
#include "tests/backends/plugin_fixture.h"

static const dh_backend_t* B;
static int g_ndev;
static char g_skip_reason[PATH_MAX + 600];
static const DLDevice CPU = {kDLCPU, 0};
static const DLDevice CL0 = {kDLOpenCL, 0};
static const DLDataType U8 = {kDLUInt, 8, 1};

static int load_plugin(void) {
  return dh_test_load_backend("opencl", &B, &g_ndev, g_skip_reason, sizeof g_skip_reason);
}

#define NEED_DEVICE()                                            \
  do {                                                           \
    if (!B || g_ndev == 0) {                                     \
      printf("# SKIP no OpenCL device: %s\n", g_skip_reason);   \
      skip();                                                    \
    }                                                            \
  } while (0)

static int fn_call(const char* name, const dh_any_t* args, int n, dh_any_t* rv) {
  for (size_t i = 0; i < B->num_functions; ++i)
    if (!strcmp(B->functions[i].name, name)) return B->functions[i].call(NULL, args, n, rv);
  return dh_error_set("KeyError", "no function %s", name);
}

static void* dalloc(size_t n) {
  void* p = NULL;
  assert_int_equal(B->alloc_data_space(CL0, n, 64, U8, &p), 0);
  assert_non_null(p);
  return p;
}
static void h2d(const void* src, size_t so, void* dst, size_t dof, size_t n, dh_stream_t s) {
  assert_int_equal(B->copy_data_from_to(src, so, dst, dof, n, CPU, CL0, U8, s), 0);
}
static void d2h(const void* src, size_t so, void* dst, size_t dof, size_t n, dh_stream_t s) {
  assert_int_equal(B->copy_data_from_to(src, so, dst, dof, n, CL0, CPU, U8, s), 0);
}
static void d2d(const void* src, size_t so, void* dst, size_t dof, size_t n, dh_stream_t s) {
  assert_int_equal(B->copy_data_from_to(src, so, dst, dof, n, CL0, CL0, U8, s), 0);
}
static void fill(void* buf, size_t off, size_t n, uint32_t value) {
  DLTensor t;
  int64_t shape;
  dh_tensor_init_bytes(&t, buf, CL0, off, n, &shape);
  dh_any_t args[2] = {dh_any_tensor(&t), dh_any_int(value)}, rv;
  int rc = fn_call(DH_FUNC_FILL, args, 2, &rv);
  if (rc != 0) print_error("fill: %s: %s\n", dh_error_kind(), dh_error_message());
  assert_int_equal(rc, 0);
}

/*---------------------------------------------------------------- queue profiling */
/* clCreateCommandQueue as the plugin sees it: this program exports its own (-rdynamic),
 * which the dynamic linker binds the plugin's calls to; it counts each queue by its
 * profiling flag and forwards to the ICD loader's. */
static int g_queues_plain, g_queues_profiled;
typedef cl_command_queue (*create_queue_fn)(cl_context, cl_device_id,
                                            cl_command_queue_properties, cl_int*);

cl_command_queue clCreateCommandQueue(cl_context ctx, cl_device_id dev,
                                      cl_command_queue_properties props, cl_int* err) {
  static create_queue_fn real;
  if (!real) {
    void* lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib) *(void**)&real = dlsym(lib, "clCreateCommandQueue");
    if (!real) {
      if (err) *err = CL_OUT_OF_RESOURCES;
      return NULL;
    }
  }
  __atomic_add_fetch((props & CL_QUEUE_PROFILING_ENABLE) ? &g_queues_profiled : &g_queues_plain,
                     1, __ATOMIC_RELAXED);
  return real(ctx, dev, props, err);
}

static int queues(int profiled) {
  return __atomic_load_n(profiled ? &g_queues_profiled : &g_queues_plain, __ATOMIC_RELAXED);
}

typedef struct default_user {
  int started, stop, failures, rounds;
} default_user_t;

/* Round trips on the default stream until told to stop: H2D, D2D, D2H, sync, compare. */
static void* default_stream_user(void* p) {
  default_user_t* u = p;
  enum { N = 1 << 16 };
  uint8_t* in = malloc(N);
  uint8_t* out = malloc(N);
  void *a = NULL, *b = NULL;
  if (!in || !out || B->alloc_data_space(CL0, N, 64, U8, &a) != 0 ||
      B->alloc_data_space(CL0, N, 64, U8, &b) != 0) {
    u->failures++;
    __atomic_store_n(&u->started, 1, __ATOMIC_RELEASE);
    free(in);
    free(out);
    return NULL;
  }
  for (int r = 0; !__atomic_load_n(&u->stop, __ATOMIC_ACQUIRE) || r < 20; ++r) {
    for (int i = 0; i < N; ++i) in[i] = (uint8_t)(i * 13 + r);
    memset(out, 0, N);
    if (B->copy_data_from_to(in, 0, a, 0, N, CPU, CL0, U8, NULL) != 0 ||
        B->copy_data_from_to(a, 0, b, 0, N, CL0, CL0, U8, NULL) != 0 ||
        B->copy_data_from_to(b, 0, out, 0, N, CL0, CPU, U8, NULL) != 0 ||
        B->stream_sync(CL0, NULL) != 0 || memcmp(in, out, N) != 0)
      u->failures++;
    u->rounds = r + 1;
    __atomic_store_n(&u->started, 1, __ATOMIC_RELEASE);
  }
  B->free_data_space(CL0, a);
  B->free_data_space(CL0, b);
  free(in);
  free(out);
  return NULL;
}

/* First test of the program: the default queue is fresh. */
static void test_queue_profiling_on_demand(void** state) {
  (void)state;
  NEED_DEVICE();
  const int plain0 = queues(0), prof0 = queues(1);
  void* probe = dalloc(64); /* opens the device: its default queue, plain */
  assert_int_equal(queues(0), plain0 + 1);
  assert_int_equal(queues(1), prof0);

  /* The default stream switches on its first event_record while another thread copies
   * on it: that thread's round trips stay in order and correct. */
  default_user_t u = {0};
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, default_stream_user, &u), 0);
  while (!__atomic_load_n(&u.started, __ATOMIC_ACQUIRE)) sched_yield();
  dh_event_t e0 = NULL, e1 = NULL;
  assert_int_equal(B->event_create(CL0, &e0), 0);
  assert_int_equal(B->event_create(CL0, &e1), 0);
  assert_int_equal(queues(1), prof0); /* creating events switches nothing */
  assert_int_equal(B->event_record(CL0, e0, NULL), 0);
  assert_int_equal(queues(1), prof0 + 1);
  assert_int_equal(B->event_record(CL0, e1, NULL), 0);
  assert_int_equal(queues(1), prof0 + 1); /* once */
  __atomic_store_n(&u.stop, 1, __ATOMIC_RELEASE);
  assert_int_equal(pthread_join(th, NULL), 0);
  print_message("# default stream: %d round trips across the switch\n", u.rounds);
  assert_int_equal(u.failures, 0);
  double ms = -1;
  assert_int_equal(B->event_elapsed_ms(CL0, e0, e1, &ms), 0);
  assert_true(ms >= 0.0);

  /* A stream: plain when created; work queued on the plain queue before the switch
   * runs before work queued on the profiling queue after it. */
  const size_t n = 16u << 20;
  uint8_t* in = malloc(n);
  uint8_t* out = malloc(n);
  assert_non_null(in);
  assert_non_null(out);
  for (size_t i = 0; i < n; ++i) in[i] = (uint8_t)(i * 7 + 1);
  memset(out, 0, n);
  void *a = dalloc(n), *b = dalloc(n), *c = dalloc(n);
  fill(b, 0, n, 0);
  fill(c, 0, n, 0);
  assert_int_equal(B->stream_sync(CL0, NULL), 0);
  dh_stream_t s = NULL;
  assert_int_equal(B->create_stream(CL0, &s), 0);
  assert_int_equal(queues(0), plain0 + 2);
  assert_int_equal(queues(1), prof0 + 1);
  h2d(in, 0, a, 0, n, s);
  d2d(a, 0, b, 0, n, s); /* queued on the plain queue */
  assert_int_equal(B->event_record(CL0, e0, s), 0);
  assert_int_equal(queues(1), prof0 + 2);
  d2d(b, 0, c, 0, n, s); /* on the profiling queue: must see b written */
  assert_int_equal(B->event_record(CL0, e1, s), 0);
  assert_int_equal(queues(1), prof0 + 2);
  d2h(c, 0, out, 0, n, s);
  assert_int_equal(B->stream_sync(CL0, s), 0);
  assert_memory_equal(in, out, n);
  ms = -1;
  assert_int_equal(B->event_elapsed_ms(CL0, e0, e1, &ms), 0);
  print_message("# stream: a 16 MiB D2D after the switch took %.3f ms device time\n", ms);
  assert_true(ms > 0.0);
  assert_int_equal(B->free_stream(CL0, s), 0);

  /* The raw twin profiles only once device time is asked for. */
  void* ctx = NULL;
  assert_int_equal(B->raw->setup(CL0, DH_RAW_COPY_D2D, 4096, 0, &ctx), 0);
  assert_int_equal(queues(1), prof0 + 2);
  assert_int_equal(B->raw->run(ctx, 3, NULL), 0);
  assert_int_equal(queues(1), prof0 + 2);
  ms = -1;
  assert_int_equal(B->raw->run(ctx, 3, &ms), 0);
  assert_int_equal(queues(1), prof0 + 3);
  assert_true(ms >= 0.0);
  assert_int_equal(B->raw->run(ctx, 3, &ms), 0);
  assert_int_equal(queues(1), prof0 + 3);
  B->raw->teardown(ctx);

  assert_int_equal(B->event_free(CL0, e0), 0);
  assert_int_equal(B->event_free(CL0, e1), 0);
  assert_int_equal(B->free_data_space(CL0, a), 0);
  assert_int_equal(B->free_data_space(CL0, b), 0);
  assert_int_equal(B->free_data_space(CL0, c), 0);
  assert_int_equal(B->free_data_space(CL0, probe), 0);
  free(in);
  free(out);
}

/*---------------------------------------------------------------- attributes */
static void test_attributes(void** state) {
  (void)state;
  NEED_DEVICE();
  dh_any_t v;
  DLDevice past = {kDLOpenCL, g_ndev};
  assert_int_equal(B->get_attr(past, DH_ATTR_EXIST, &v), 0);
  assert_int_equal(v.type_index, DH_TYPE_INT);
  assert_int_equal(v.v_int64, 0);
  DLDevice neg = {kDLOpenCL, -1};
  assert_int_equal(B->get_attr(neg, DH_ATTR_EXIST, &v), 0);
  assert_int_equal(v.v_int64, 0);
  assert_int_equal(B->get_attr(past, DH_ATTR_DEVICE_NAME, &v), -1);
  assert_string_equal(dh_error_kind(), "IndexError");
  assert_int_equal(B->get_attr(CL0, DH_ATTR_KIND_COUNT, &v), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
  assert_int_equal(B->get_attr(CL0, -3, &v), -1);

  assert_int_equal(B->get_attr(CL0, DH_ATTR_DEVICE_NAME, &v), 0);
  assert_int_equal(v.type_index, DH_TYPE_RAW_STR);
  assert_true(strlen(v.v_c_str) > 0);
  assert_int_equal(B->get_attr(CL0, DH_ATTR_WARP_SIZE, &v), 0);
  assert_int_equal(v.v_int64, 1);
  assert_int_equal(B->get_attr(CL0, DH_ATTR_API_VERSION, &v), 0);
  assert_int_equal(v.v_int64, 120);
  assert_int_equal(B->get_attr(CL0, DH_ATTR_COMPUTE_VERSION, &v), 0);
  assert_int_equal(v.type_index, DH_TYPE_RAW_STR);
  int maj = -1, min = -1;
  assert_int_equal(sscanf(v.v_c_str, "%d.%d", &maj, &min), 2);
  assert_true(maj >= 1);
  assert_int_equal(B->get_attr(CL0, DH_ATTR_MAX_THREAD_DIMENSIONS, &v), 0);
  long x = 0, y = 0, z = 0;
  assert_int_equal(sscanf(v.v_c_str, "[%ld, %ld, %ld]", &x, &y, &z), 3);
  assert_true(x > 0 && y > 0 && z > 0);
  assert_int_equal(B->get_attr(CL0, DH_ATTR_TOTAL_GLOBAL_MEMORY, &v), 0);
  assert_int_equal(v.type_index, DH_TYPE_INT);
  assert_true(v.v_int64 > 0);
  assert_int_equal(B->get_attr(CL0, DH_ATTR_MAX_REGISTERS_PER_BLOCK, &v), 0);
  assert_int_equal(v.type_index, DH_TYPE_NONE);
  for (int k = 0; k < DH_ATTR_KIND_COUNT; ++k) {
    assert_int_equal(B->get_attr(CL0, k, &v), 0);
    assert_true(v.type_index == DH_TYPE_NONE || v.type_index == DH_TYPE_INT ||
                v.type_index == DH_TYPE_RAW_STR);
  }
  /* target properties */
  assert_int_equal(B->get_target_property(CL0, "max_num_threads", &v), 0);
  dh_any_t w;
  assert_int_equal(B->get_attr(CL0, DH_ATTR_MAX_THREADS_PER_BLOCK, &w), 0);
  assert_int_equal(v.v_int64, w.v_int64);
  assert_int_equal(B->get_target_property(CL0, "thread_warp_size", &v), 0);
  assert_int_equal(v.v_int64, 1);
  assert_int_equal(B->get_target_property(CL0, "no_such_option", &v), 0);
  assert_int_equal(v.type_index, DH_TYPE_NONE);
  /* set_device */
  assert_int_equal(B->set_device(CL0), 0);
  assert_int_equal(B->set_device(past), -1);
  assert_string_equal(dh_error_kind(), "IndexError");
}

/*---------------------------------------------------------------- memory */
static void test_memory(void** state) {
  (void)state;
  NEED_DEVICE();
  void* p = (void*)1;
  assert_int_equal(B->alloc_data_space(CL0, 0, 64, U8, &p), 0);
  assert_null(p); /* documented: zero bytes -> NULL */
  assert_int_equal(B->free_data_space(CL0, NULL), 0);
  assert_int_equal(B->alloc_data_space(CL0, 16, 3, U8, &p), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
  int stack_var = 0;
  assert_int_equal(B->free_data_space(CL0, &stack_var), -1);
  assert_string_equal(dh_error_kind(), "ValueError");

  dh_any_t total;
  assert_int_equal(B->get_attr(CL0, DH_ATTR_TOTAL_GLOBAL_MEMORY, &total), 0);
  assert_int_equal(B->alloc_data_space(CL0, (size_t)total.v_int64 + 4096, 64, U8, &p), -1);
  assert_string_equal(dh_error_kind(), "OutOfMemoryError");
  assert_int_equal(B->alloc_data_space(CL0, SIZE_MAX / 2, 64, U8, &p), -1);
  assert_string_equal(dh_error_kind(), "OutOfMemoryError");
  /* the device still works */
  void* a = dalloc(4096);
  uint8_t in[4096], out[4096];
  for (int i = 0; i < 4096; ++i) in[i] = (uint8_t)(i * 7 + 1);
  h2d(in, 0, a, 0, 4096, NULL);
  d2h(a, 0, out, 0, 4096, NULL);
  assert_int_equal(B->stream_sync(CL0, NULL), 0);
  assert_memory_equal(in, out, 4096);
  assert_int_equal(B->free_data_space(CL0, a), 0);
  assert_int_equal(B->free_data_space(CL0, a), -1); /* double free is an error, no crash */
  assert_string_equal(dh_error_kind(), "ValueError");

  /* workspaces */
  for (int i = 0; i < 200; ++i) {
    void* w = NULL;
    assert_int_equal(B->alloc_workspace(CL0, 1024, U8, &w), 0);
    assert_non_null(w);
    assert_int_equal(B->free_workspace(CL0, w), 0);
  }
  /* pinned host memory */
  void* h = NULL;
  assert_int_equal(B->alloc_host(CL0, 1 << 20, &h), 0);
  assert_non_null(h);
  memset(h, 0xab, 1 << 20);
  void* b = dalloc(1 << 20);
  h2d(h, 0, b, 0, 1 << 20, NULL);
  uint8_t* back = malloc(1 << 20);
  d2h(b, 0, back, 0, 1 << 20, NULL);
  assert_int_equal(B->stream_sync(CL0, NULL), 0);
  assert_memory_equal(h, back, 1 << 20);
  free(back);
  assert_int_equal(B->free_host(CL0, h), 0);
  assert_int_equal(B->free_host(CL0, h), -1);
  assert_int_equal(B->free_data_space(CL0, b), 0);
}

/*---------------------------------------------------------------- copies */
static void test_round_trips_with_offsets(void** state) {
  (void)state;
  NEED_DEVICE();
  static const size_t sizes[] = {1, 3, 4, 31, 33, 4096, 65537};
  static const size_t offs[] = {0, 1, 4, 8, 16, 4095};
  const size_t cap = 65537 + 4095 + 64;
  uint8_t* src = malloc(cap);
  uint8_t* out = malloc(cap);
  uint8_t* sentinel = malloc(cap);
  memset(sentinel, 0xef, cap);
  void* a = dalloc(cap);
  void* b = dalloc(cap);
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; ++si)
    for (size_t oi = 0; oi < sizeof offs / sizeof *offs; ++oi) {
      size_t n = sizes[si], so = offs[oi], dof = offs[(oi + 2) % 6];
      for (size_t i = 0; i < cap; ++i) src[i] = (uint8_t)(i * 31 + n + so);
      h2d(sentinel, 0, a, 0, cap, NULL);
      h2d(sentinel, 0, b, 0, cap, NULL);
      h2d(src, so, a, dof, n, NULL);      /* H2D with both offsets */
      d2d(a, dof, b, so, n, NULL);        /* D2D with swapped offsets */
      memset(out, 0, cap);
      d2h(b, 0, out, 0, cap, NULL);       /* D2H whole */
      assert_int_equal(B->stream_sync(CL0, NULL), 0);
      assert_memory_equal(out + so, src + so, n);
      if (so) assert_memory_equal(out, sentinel, so);
      assert_memory_equal(out + so + n, sentinel, cap - so - n);
      /* D2H with offsets into a sentinel-filled host buffer */
      memset(out, 0xcd, cap);
      d2h(a, dof, out, 7, n, NULL);
      assert_int_equal(B->stream_sync(CL0, NULL), 0);
      assert_memory_equal(out + 7, src + so, n);
      assert_int_equal(out[6], 0xcd);
      assert_int_equal(out[7 + n], 0xcd);
    }
  /* zero-length copy is a no-op; out-of-range copy is a ValueError */
  assert_int_equal(B->copy_data_from_to(src, 0, a, 0, 0, CPU, CL0, U8, NULL), 0);
  assert_int_equal(B->copy_data_from_to(NULL, 0, a, 0, 0, CPU, CL0, U8, NULL), 0);
  assert_int_equal(B->copy_data_from_to(NULL, 0, out, 0, 0, CL0, CPU, U8, NULL), 0);
  assert_int_equal(B->copy_data_from_to(src, 0, a, cap - 2, 4, CPU, CL0, U8, NULL), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
  /* overlapping D2D inside one buffer */
  for (size_t i = 0; i < 256; ++i) src[i] = (uint8_t)i;
  h2d(src, 0, a, 0, 256, NULL);
  d2d(a, 0, a, 16, 128, NULL);
  d2h(a, 0, out, 0, 256, NULL);
  assert_int_equal(B->stream_sync(CL0, NULL), 0);
  assert_memory_equal(out + 16, src, 128);
  assert_memory_equal(out, src, 16);
  /* host source not read after the call returns */
  memset(src, 0x11, 4096);
  h2d(src, 0, b, 0, 4096, NULL);
  memset(src, 0x22, 4096);
  d2h(b, 0, out, 0, 4096, NULL);
  assert_int_equal(B->stream_sync(CL0, NULL), 0);
  for (int i = 0; i < 4096; ++i) assert_int_equal(out[i], 0x11);
  assert_int_equal(B->free_data_space(CL0, a), 0);
  assert_int_equal(B->free_data_space(CL0, b), 0);
  free(src); free(out); free(sentinel);
}

/*---------------------------------------------------------------- streams */
static void test_stream_ordering(void** state) {
  (void)state;
  NEED_DEVICE();
  dh_stream_t s = NULL;
  assert_int_equal(B->create_stream(CL0, &s), 0);
  assert_non_null(s);
  const size_t n = 1 << 20;
  void* a = dalloc(n);
  void* b = dalloc(n);
  uint32_t* out = malloc(n);
  /* fill a with 1, 2, ..., 8 in order, copy a->b, read b: must see 8 */
  dh_stream_t prev = (void*)1;
  assert_int_equal(B->set_stream(CL0, s), 0);
  assert_int_equal(B->get_current_stream(CL0, &prev), 0);
  assert_ptr_equal(prev, s);
  for (uint32_t v = 1; v <= 8; ++v) fill(a, 0, n, v);
  d2d(a, 0, b, 0, n, s);
  d2h(b, 0, out, 0, n, s);
  assert_int_equal(B->stream_sync(CL0, s), 0);
  for (size_t i = 0; i < n / 4; ++i) assert_int_equal(out[i], 8);
  /* fill with an offset: only words [4, 8) change */
  fill(a, 16, 16, 0x1234);
  d2h(a, 0, out, 0, 64, s);
  assert_int_equal(B->stream_sync(CL0, s), 0);
  for (int i = 0; i < 16; ++i) assert_int_equal(out[i], (i >= 4 && i < 8) ? 0x1234u : 8u);
  /* fill rejects misaligned ranges */
  {
    DLTensor t;
    int64_t shape;
    dh_tensor_init_bytes(&t, a, CL0, 2, 8, &shape);
    dh_any_t args[2] = {dh_any_tensor(&t), dh_any_int(1)}, rv;
    assert_int_equal(fn_call(DH_FUNC_FILL, args, 2, &rv), -1);
    assert_string_equal(dh_error_kind(), "ValueError");
  }
  /* freeing a stream with pending work loses nothing */
  fill(a, 0, n, 0x77);
  d2h(a, 0, out, 0, n, s);
  assert_int_equal(B->set_stream(CL0, NULL), 0);
  assert_int_equal(B->free_stream(CL0, s), 0);
  for (size_t i = 0; i < n / 4; ++i) assert_int_equal(out[i], 0x77);
  /* a freed stream is an error, not a crash */
  assert_int_equal(B->stream_sync(CL0, s), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
  assert_int_equal(B->free_stream(CL0, NULL), 0);
  assert_int_equal(B->free_data_space(CL0, a), 0);
  assert_int_equal(B->free_data_space(CL0, b), 0);
  free(out);
}

static void* other_thread_stream(void* arg) {
  dh_stream_t s = (void*)1;
  B->get_current_stream(CL0, &s);
  *(dh_stream_t*)arg = s;
  return NULL;
}

static void test_sync_stream_from_to(void** state) {
  (void)state;
  NEED_DEVICE();
  dh_stream_t s1 = NULL, s2 = NULL;
  assert_int_equal(B->create_stream(CL0, &s1), 0);
  assert_int_equal(B->create_stream(CL0, &s2), 0);
  /* current stream is per thread */
  assert_int_equal(B->set_stream(CL0, s1), 0);
  dh_stream_t seen = (void*)1;
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, other_thread_stream, &seen), 0);
  pthread_join(th, NULL);
  assert_null(seen);
  const size_t n = 16u << 20;
  void* a = dalloc(n);
  void* b = dalloc(n);
  uint32_t* out = malloc(n);
  memset(out, 0, n);
  h2d(out, 0, a, 0, n, s1);
  /* long work on s1 then the final value; s2 waits and copies */
  for (uint32_t v = 1; v <= 6; ++v) fill(a, 0, n, v); /* current stream = s1 */
  d2d(a, 0, b, 0, n, s1);
  assert_int_equal(B->sync_stream_from_to(CL0, s1, s2), 0);
  d2h(b, 0, out, 0, n, s2);
  assert_int_equal(B->stream_sync(CL0, s2), 0);
  for (size_t i = 0; i < n / 4; i += 4093) assert_int_equal(out[i], 6);
  assert_int_equal(out[n / 4 - 1], 6);
  assert_int_equal(B->sync_stream_from_to(CL0, s1, s1), 0);
  assert_int_equal(B->sync_stream_from_to(CL0, NULL, s2), 0);
  assert_int_equal(B->set_stream(CL0, NULL), 0);
  assert_int_equal(B->free_stream(CL0, s1), 0);
  assert_int_equal(B->free_stream(CL0, s2), 0);
  assert_int_equal(B->free_data_space(CL0, a), 0);
  assert_int_equal(B->free_data_space(CL0, b), 0);
  free(out);
}

/*---------------------------------------------------------------- packed / events */
static void test_packed_and_events(void** state) {
  (void)state;
  NEED_DEVICE();
  dh_any_t rv;
  dh_any_t a1[1] = {dh_any_device(CL0)};
  assert_int_equal(fn_call(DH_FUNC_NOOP, a1, 1, &rv), 0);
  dh_any_t bad[1] = {dh_any_int(3)};
  assert_int_equal(fn_call(DH_FUNC_NOOP, bad, 1, &rv), -1);
  assert_string_equal(dh_error_kind(), "TypeError");
  dh_any_t e3[3] = {dh_any_int(1), dh_any_float(2.5), dh_any_str("hello")};
  assert_int_equal(fn_call(DH_FUNC_ECHO, e3, 3, &rv), 0);
  /* a RawStr comes back as an owned string of the same bytes (backend.h echo) */
  assert_int_equal(rv.type_index, DH_TYPE_SMALL_STR);
  assert_true(dh_any_equal(&rv, &e3[2]));
  dh_any_t e4[2] = {dh_any_int(5), dh_any_int(0)};
  assert_int_equal(fn_call(DH_FUNC_ECHO, e4, 2, &rv), -1);
  assert_string_equal(dh_error_kind(), "IndexError");
  dh_any_t r2[2] = {dh_any_str("MyError"), dh_any_str("custom message")};
  assert_int_equal(fn_call(DH_FUNC_RAISE, r2, 2, &rv), -1);
  assert_string_equal(dh_error_kind(), "MyError");
  assert_string_equal(dh_error_message(), "custom message");

  dh_event_t t0 = NULL, t1 = NULL;
  assert_int_equal(B->event_create(CL0, &t0), 0);
  assert_int_equal(B->event_create(CL0, &t1), 0);
  void* buf = dalloc(8u << 20);
  assert_int_equal(B->event_record(CL0, t0, NULL), 0);
  for (int i = 0; i < 4; ++i) fill(buf, 0, 8u << 20, (uint32_t)i);
  assert_int_equal(B->event_record(CL0, t1, NULL), 0);
  double ms = -1;
  assert_int_equal(B->event_elapsed_ms(CL0, t0, t1, &ms), 0);
  print_message("# events: 4 fills of 8 MiB took %.3f ms device time\n", ms);
  assert_true(ms > 0.0 && ms < 10000.0);
  assert_int_equal(B->event_free(CL0, t0), 0);
  assert_int_equal(B->event_free(CL0, t1), 0);
  assert_int_equal(B->event_free(CL0, t1), -1);
  assert_int_equal(B->free_data_space(CL0, buf), 0);
}

static void test_raw_twin(void** state) {
  (void)state;
  NEED_DEVICE();
  assert_non_null(B->raw);
  assert_string_equal(B->raw->api_name, "OpenCL");
  static const dh_raw_op_t ops[] = {DH_RAW_COPY_H2D, DH_RAW_COPY_D2H, DH_RAW_COPY_D2D,
                                    DH_RAW_STREAM_SYNC, DH_RAW_LAUNCH};
  for (size_t i = 0; i < 5; ++i)
    for (uint32_t fl = 0; fl <= DH_RAW_PINNED; ++fl) {
      void* ctx = NULL;
      assert_int_equal(B->raw->setup(CL0, ops[i], 65536, fl, &ctx), 0);
      double ms = 0;
      assert_int_equal(B->raw->run(ctx, 10, &ms), 0);
      if (ops[i] == DH_RAW_STREAM_SYNC) assert_true(ms == -1);
      else assert_true(ms >= 0);
      B->raw->teardown(ctx);
    }
  B->raw->teardown(NULL);
}


/*---------------------------------------------------------------- threads */
typedef struct worker_arg {
  uint32_t id;
  int failures;
} worker_arg_t;

/* Each thread: own stream as current, alloc, fill with its id, read back, free. */
static void* worker(void* p) {
  worker_arg_t* w = p;
  dh_stream_t s = NULL;
  if (B->create_stream(CL0, &s) != 0 || B->set_stream(CL0, s) != 0) { w->failures++; return NULL; }
  uint32_t out[256];
  for (int it = 0; it < 20; ++it) {
    void* buf = NULL;
    if (B->alloc_data_space(CL0, sizeof out, 64, U8, &buf) != 0) { w->failures++; break; }
    DLTensor t;
    int64_t shape;
    dh_tensor_init_bytes(&t, buf, CL0, 0, sizeof out, &shape);
    dh_any_t args[2] = {dh_any_tensor(&t), dh_any_int(w->id * 1000 + (uint32_t)it)}, rv;
    memset(out, 0, sizeof out);
    if (fn_call(DH_FUNC_FILL, args, 2, &rv) != 0 ||
        B->copy_data_from_to(buf, 0, out, 0, sizeof out, CL0, CPU, U8, s) != 0 ||
        B->stream_sync(CL0, s) != 0)
      w->failures++;
    for (int i = 0; i < 256; ++i)
      if (out[i] != w->id * 1000 + (uint32_t)it) { w->failures++; break; }
    dh_stream_t cur = NULL;
    if (B->get_current_stream(CL0, &cur) != 0 || cur != s) w->failures++;
    if (B->free_data_space(CL0, buf) != 0) w->failures++;
  }
  B->set_stream(CL0, NULL);
  if (B->free_stream(CL0, s) != 0) w->failures++;
  return NULL;
}

static void test_threads(void** state) {
  (void)state;
  NEED_DEVICE();
  enum { N = 4 };
  pthread_t th[N];
  worker_arg_t args[N];
  for (uint32_t i = 0; i < N; ++i) {
    args[i].id = i + 1;
    args[i].failures = 0;
    assert_int_equal(pthread_create(&th[i], NULL, worker, &args[i]), 0);
  }
  for (int i = 0; i < N; ++i) pthread_join(th[i], NULL);
  for (int i = 0; i < N; ++i) assert_int_equal(args[i].failures, 0);
}

/*---------------------------------------------------------------- unavailable */
static void test_unavailable_reason(void** state) {
  (void)state;
  if (!B) {
    printf("# SKIP plugin not loadable: %s\n", g_skip_reason);
    skip();
  }
  char exe[PATH_MAX] = "";
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  assert_true(len > 0);
  exe[len] = '\0';
  char dir[] = "/tmp/dh_ocl_empty_XXXXXX";
  assert_non_null(mkdtemp(dir));
  int pfd[2];
  assert_int_equal(pipe(pfd), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(pfd[1], 1);
    close(pfd[0]);
    setenv("OCL_ICD_VENDORS", dir, 1);
    unsetenv("OPENCL_VENDOR_PATH");
    execl(exe, "test_opencl", "--reason", (char*)NULL);
    _exit(127);
  }
  close(pfd[1]);
  char buf[512] = "";
  size_t got = 0;
  ssize_t r;
  while (got < sizeof buf - 1 && (r = read(pfd[0], buf + got, sizeof buf - 1 - got)) > 0)
    got += (size_t)r;
  buf[got] = '\0';
  close(pfd[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  rmdir(dir);
  print_message("# reason with an empty OCL_ICD_VENDORS: %s", buf);
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  assert_non_null(strstr(buf, "no OpenCL platform"));
  assert_non_null(strstr(buf, "clGetPlatformIDs"));
}


/*---------------------------------------------------------------- fork safety */
/* Child body: a full round trip with a fill; exit status 0 when the data is right. */
static int child_round_trip(void) {
  alarm(20); /* a hang becomes SIGALRM, not a stuck test */
  void* p = NULL;
  if (B->alloc_data_space(CL0, 4096, 64, U8, &p) != 0) {
    fprintf(stderr, "child alloc: %s: %s\n", dh_error_kind(), dh_error_message());
    return 2;
  }
  uint32_t in[1024], out[1024];
  for (int i = 0; i < 1024; ++i) in[i] = (uint32_t)i;
  if (B->copy_data_from_to(in, 0, p, 0, 4096, CPU, CL0, U8, NULL) != 0) return 3;
  DLTensor t;
  int64_t shape;
  dh_tensor_init_bytes(&t, p, CL0, 64, 64, &shape);
  dh_any_t args[2] = {dh_any_tensor(&t), dh_any_int(0xabcd)}, rv;
  if (fn_call(DH_FUNC_FILL, args, 2, &rv) != 0) return 4;
  if (B->copy_data_from_to(p, 0, out, 0, 4096, CL0, CPU, U8, NULL) != 0) return 5;
  if (B->stream_sync(CL0, NULL) != 0) return 6;
  for (int i = 0; i < 1024; ++i)
    if (out[i] != ((i >= 16 && i < 32) ? 0xabcdu : (uint32_t)i)) return 7;
  B->free_data_space(CL0, p);
  return 0;
}

static int wait_child(pid_t pid) {
  int st = 0;
  while (waitpid(pid, &st, 0) < 0) {
  }
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* --fork-check: init (attributes only) in this process, then fork: the child must be
 * able to use the device; then this process opens the device, and a second child must
 * get a clear RuntimeError instead of hanging. Prints one line per step. */
static int fork_check(void) {
  if (!B || g_ndev == 0) { printf("no device\n"); return 1; }
  dh_any_t v;
  if (B->get_attr(CL0, DH_ATTR_DEVICE_NAME, &v) != 0) return 1;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) _exit(child_round_trip());
  int rc = wait_child(pid);
  printf("child-after-init %d\n", rc);
  int rc2 = child_round_trip();
  alarm(0);
  printf("parent %d\n", rc2);
  fflush(stdout);
  pid = fork();
  if (pid == 0) {
    alarm(20);
    void* p = NULL;
    int r = B->alloc_data_space(CL0, 64, 64, U8, &p);
    _exit(r == -1 && !strcmp(dh_error_kind(), "RuntimeError") &&
                  strstr(dh_error_message(), "fork") ? 0 : 1);
  }
  int rc3 = wait_child(pid);
  printf("child-after-open %d\n", rc3);
  return rc || rc2 || rc3;
}

static void test_fork_safety(void** state) {
  (void)state;
  NEED_DEVICE();
  char out[512] = "", exe[PATH_MAX] = "", cmd[PATH_MAX + 32];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  assert_true(len > 0);
  exe[len] = '\0';
  snprintf(cmd, sizeof cmd, "'%s' --fork-check 2>&1", exe);
  FILE* f = popen(cmd, "r");
  assert_non_null(f);
  size_t n = fread(out, 1, sizeof out - 1, f);
  out[n] = '\0';
  int st = pclose(f);
  print_message("# fork check: %s", out);
  assert_non_null(strstr(out, "child-after-init 0"));
  assert_non_null(strstr(out, "parent 0"));
  assert_non_null(strstr(out, "child-after-open 0"));
  assert_int_equal(st, 0);
}

/*---------------------------------------------------------------- helper modes */
static void json_str(const char* s) {
  putchar('"');
  for (; *s; ++s) {
    if (*s == '"' || *s == '\\') printf("\\%c", *s);
    else if ((unsigned char)*s < 0x20) printf("\\u%04x", *s);
    else putchar(*s);
  }
  putchar('"');
}

static int dump_attrs(void) {
  static const char* names[DH_ATTR_KIND_COUNT] = {
      "exist", "max_threads_per_block", "warp_size", "max_shared_memory_per_block",
      "compute_version", "device_name", "max_clock_rate", "multi_processor_count",
      "max_thread_dimensions", "max_registers_per_block", "gcn_arch", "api_version",
      "driver_version", "l2_cache_size_bytes", "total_global_memory",
      "available_global_memory", "image_pitch_alignment"};
  printf("{\"unavailable_reason\": ");
  if (!B) json_str(g_skip_reason[0] ? g_skip_reason : "not loaded");
  else if (B->unavailable_reason()) json_str(B->unavailable_reason());
  else printf("null");
  printf(", \"devices\": [");
  for (int d = 0; B && d < g_ndev; ++d) {
    DLDevice dev = {kDLOpenCL, d};
    printf("%s{\"id\": %d", d ? ", " : "", d);
    for (int k = 0; k < DH_ATTR_KIND_COUNT; ++k) {
      dh_any_t v;
      if (B->get_attr(dev, k, &v) != 0) return 1;
      printf(", \"%s\": ", names[k]);
      if (v.type_index == DH_TYPE_INT) printf("%lld", (long long)v.v_int64);
      else if (v.type_index == DH_TYPE_RAW_STR) json_str(v.v_c_str);
      else printf("null");
    }
    printf("}");
  }
  printf("]}\n");
  return 0;
}

int main(int argc, char** argv) {
  int loaded = load_plugin();
  if (argc > 1 && !strcmp(argv[1], "--reason")) {
    if (loaded != 0) { printf("load failed: %s\n", g_skip_reason); return 1; }
    const char* why = B->unavailable_reason();
    printf("%s\n", why ? why : "available");
    return 0;
  }
  if (argc > 1 && !strcmp(argv[1], "--dump-attrs")) return dump_attrs();
  if (argc > 1 && !strcmp(argv[1], "--fork-check")) return fork_check();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_queue_profiling_on_demand), /* first: a fresh default queue */
      cmocka_unit_test(test_attributes),
      cmocka_unit_test(test_memory),
      cmocka_unit_test(test_round_trips_with_offsets),
      cmocka_unit_test(test_stream_ordering),
      cmocka_unit_test(test_sync_stream_from_to),
      cmocka_unit_test(test_packed_and_events),
      cmocka_unit_test(test_raw_twin),
      cmocka_unit_test(test_threads),
      cmocka_unit_test(test_unavailable_reason),
      cmocka_unit_test(test_fork_safety),
  };
  if (loaded != 0) { /* the plugin is part of this build: failing to load it is a failure */
    printf("1..1\nnot ok 1 - load the opencl plugin: %s\n", g_skip_reason);
    return 1;
  }
  if (g_ndev == 0) {
    /* cmocka 1.1.5 prints a skipped test as "not ok N # SKIP", which prove counts as a
     * failure; so a missing device skips the whole program with a TAP skip plan. */
    printf("1..0 # SKIP no OpenCL device: %s\n", g_skip_reason);
    return 0;
  }
  cmocka_set_message_output(CM_OUTPUT_TAP);
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  dh_plugins_unload_all();
  return rc;
}
