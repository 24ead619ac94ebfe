/*
 * tests/backends/sim/test_sim.c — the sim plugin, loaded with dh_plugin_load from
 * <dir of this executable>/../lib/devharness/libdevharness_sim.so (or
 * $DEVHARNESS_SIM_PLUGIN), exercised through its vtable and packed functions.
 * Configuration: 2 devices of 64 MiB, default latency model.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/dh_assert.h"

#include <limits.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devharness/devharness.h"
#include "tests/backends/plugin_fixture.h"

#define MEM_BYTES (64u << 20)
#define MIB (1u << 20)

static const dh_backend_t* B;
static const DLDevice D0 = {kDLExtDev, 0};
static const DLDevice D1 = {kDLExtDev, 1};
static const DLDevice HOST = {kDLCPU, 0};
static const DLDataType U8 = {kDLUInt, 8, 1};


static int load_plugin(void** state) {
  (void)state;
  char path[PATH_MAX + 64];
  if (dh_test_plugin_path("sim", path, sizeof path) != 0) return -1;
  setenv("DEVHARNESS_SIM_DEVICES", "2", 1);
  setenv("DEVHARNESS_SIM_MEMORY_BYTES", "64M", 1);
  unsetenv("DEVHARNESS_SIM_LATENCY_NS");
  unsetenv("DEVHARNESS_SIM_DELAY_NS_PER_KIB");
  if (dh_plugin_load(path, &B) != 0) {
    fprintf(stderr, "# cannot load %s: %s\n", path, dh_error_message());
    return -1;
  }
  return dh_backend_init(B);
}

static int unload_plugin(void** state) {
  (void)state;
  dh_plugins_unload_all();
  return 0;
}

static void* dalloc(DLDevice dev, size_t n) {
  void* h = NULL;
  assert_int_equal(B->alloc_data_space(dev, n, 64, U8, &h), 0);
  assert_non_null(h);
  return h;
}

static void h2d(const void* src, void* h, size_t off, size_t n, dh_stream_t s) {
  assert_int_equal(B->copy_data_from_to(src, 0, h, off, n, HOST, D0, U8, s), 0);
}

static void d2h(void* h, size_t off, void* dst, size_t n, dh_stream_t s) {
  assert_int_equal(B->copy_data_from_to(h, off, dst, 0, n, D0, HOST, U8, s), 0);
}

static int64_t attr_int(DLDevice dev, int kind) {
  dh_any_t v;
  assert_int_equal(B->get_attr(dev, kind, &v), 0);
  assert_int_equal(v.type_index, DH_TYPE_INT);
  return v.v_int64;
}

/*------------------------------------------------------------------ attributes */

static void test_attributes(void** state) {
  (void)state;
  dh_any_t v;
  assert_int_equal(B->device_type, 12);
  assert_null(B->unavailable_reason());
  assert_int_equal(attr_int(D0, DH_ATTR_EXIST), 1);
  assert_int_equal(attr_int(D1, DH_ATTR_EXIST), 1);
  assert_int_equal(attr_int((DLDevice){kDLExtDev, 2}, DH_ATTR_EXIST), 0);
  assert_int_equal(attr_int((DLDevice){kDLExtDev, -1}, DH_ATTR_EXIST), 0);
  assert_int_equal(attr_int(D0, DH_ATTR_MAX_THREADS_PER_BLOCK), 1024);
  assert_int_equal(attr_int(D0, DH_ATTR_WARP_SIZE), 32);
  assert_int_equal(attr_int(D0, DH_ATTR_MAX_SHARED_MEMORY_PER_BLOCK), 49152);
  assert_int_equal(attr_int(D0, DH_ATTR_MULTI_PROCESSOR_COUNT), 8);
  assert_int_equal(attr_int(D0, DH_ATTR_MAX_REGISTERS_PER_BLOCK), 65536);
  assert_int_equal(attr_int(D0, DH_ATTR_API_VERSION), 1);
  assert_int_equal(attr_int(D0, DH_ATTR_MAX_CLOCK_RATE), 1000000);
  assert_int_equal(attr_int(D1, DH_ATTR_TOTAL_GLOBAL_MEMORY), MEM_BYTES);
  assert_true(attr_int(D1, DH_ATTR_L2_CACHE_SIZE_BYTES) > 0);
  assert_int_equal(B->get_attr(D0, DH_ATTR_DEVICE_NAME, &v), 0);
  assert_int_equal(v.type_index, DH_TYPE_RAW_STR);
  assert_string_equal(v.v_c_str, "devharness sim");
  assert_int_equal(B->get_attr(D0, DH_ATTR_MAX_THREAD_DIMENSIONS, &v), 0);
  assert_string_equal(v.v_c_str, "[1024, 1024, 64]");
  assert_int_equal(B->get_attr(D0, DH_ATTR_COMPUTE_VERSION, &v), 0);
  assert_string_equal(v.v_c_str, "1.0");
  assert_int_equal(B->get_attr(D0, DH_ATTR_DRIVER_VERSION, &v), 0);
  assert_string_equal(v.v_c_str, "devharness-sim 0.1");
  assert_int_equal(B->get_attr(D0, DH_ATTR_GCN_ARCH, &v), 0);
  assert_int_equal(v.type_index, DH_TYPE_NONE);
  /* errors */
  assert_dh_error(B->get_attr((DLDevice){kDLExtDev, 2}, DH_ATTR_DEVICE_NAME, &v), "IndexError");
  assert_dh_error(B->get_attr((DLDevice){kDLExtDev, -5}, DH_ATTR_WARP_SIZE, &v), "IndexError");
  assert_dh_error(B->get_attr(D0, DH_ATTR_KIND_COUNT, &v), "ValueError");
  assert_dh_error(B->get_attr(D0, -1, &v), "ValueError");
  assert_dh_error(B->set_device((DLDevice){kDLExtDev, 7}), "IndexError");
  assert_int_equal(B->set_device(D1), 0);
  /* target properties of the sim kind */
  assert_int_equal(B->get_target_property(D0, "num_devices", &v), 0);
  assert_int_equal(v.v_int64, 2);
  assert_int_equal(B->get_target_property(D0, "memory_bytes", &v), 0);
  assert_int_equal(v.v_int64, MEM_BYTES);
  assert_int_equal(B->get_target_property(D0, "thread_warp_size", &v), 0);
  assert_int_equal(v.v_int64, 32);
  assert_int_equal(B->get_target_property(D0, "max_num_threads", &v), 0);
  assert_int_equal(v.v_int64, 1024);
  assert_int_equal(B->get_target_property(D0, "device_name", &v), 0);
  assert_string_equal(v.v_c_str, "devharness sim");
  assert_int_equal(B->get_target_property(D0, "keys", &v), 0);
  assert_int_equal(v.type_index, DH_TYPE_NONE);
  /* init twice is harmless */
  assert_int_equal(B->init(), 0);
  assert_int_equal(attr_int(D0, DH_ATTR_EXIST), 1);
}

/*------------------------------------------------------------------ memory */

static void test_memory_accounting(void** state) {
  (void)state;
  int64_t avail0 = attr_int(D0, DH_ATTR_AVAILABLE_GLOBAL_MEMORY);
  int64_t avail1 = attr_int(D1, DH_ATTR_AVAILABLE_GLOBAL_MEMORY);
  assert_true(avail0 <= MEM_BYTES);
  void* h = dalloc(D0, 3 * MIB + 1);
  int64_t after = attr_int(D0, DH_ATTR_AVAILABLE_GLOBAL_MEMORY);
  assert_true(avail0 - after >= (int64_t)(3 * MIB + 1));
  assert_int_equal(attr_int(D1, DH_ATTR_AVAILABLE_GLOBAL_MEMORY), avail1); /* per device */
  assert_int_equal(B->free_data_space(D0, h), 0);
  assert_int_equal(attr_int(D0, DH_ATTR_AVAILABLE_GLOBAL_MEMORY), avail0);

  /* beyond the device: OutOfMemoryError, and the device keeps working */
  void* big = NULL;
  assert_dh_error(B->alloc_data_space(D0, MEM_BYTES + 1, 64, U8, &big), "OutOfMemoryError");
  assert_null(big);
  assert_dh_error(B->alloc_data_space(D0, SIZE_MAX, 64, U8, &big), "OutOfMemoryError");
  void* a = dalloc(D0, MEM_BYTES / 2);
  assert_dh_error(B->alloc_data_space(D0, MEM_BYTES / 2 + 4096, 64, U8, &big), "OutOfMemoryError");
  assert_int_equal(B->free_data_space(D0, a), 0);
  assert_int_equal(attr_int(D0, DH_ATTR_AVAILABLE_GLOBAL_MEMORY), avail0);

  /* zero bytes: a valid, freeable handle; NULL free is a no-op */
  void* z = dalloc(D0, 0);
  assert_int_equal(B->copy_data_from_to(NULL, 0, z, 0, 0, HOST, D0, U8, NULL), 0);
  assert_int_equal(B->free_data_space(D0, z), 0);
  assert_int_equal(B->free_data_space(D0, NULL), 0);
  /* bad alignment */
  assert_dh_error(B->alloc_data_space(D0, 16, 48, U8, &big), "ValueError");
  assert_dh_error(B->alloc_data_space((DLDevice){kDLExtDev, 9}, 16, 64, U8, &big), "IndexError");
}

static void test_opaque_handles(void** state) {
  (void)state;
  uint8_t host[64] = {0};
  void* h = dalloc(D0, 64);
  /* not a host address: the top byte is a tag, non-canonical on x86-64 */
  assert_true(((uintptr_t)h >> 56) != 0);
  assert_true((uintptr_t)h != (uintptr_t)host);

  /* bogus handles */
  void* bogus[] = {(void*)host, (void*)(uintptr_t)0xdeadbeef, (void*)((uintptr_t)h + 1),
                   (void*)((uintptr_t)h ^ ((uintptr_t)1 << 30))};
  for (size_t i = 0; i < sizeof bogus / sizeof bogus[0]; i++) {
    assert_dh_error(B->copy_data_from_to(host, 0, bogus[i], 0, 8, HOST, D0, U8, NULL), "ValueError");
    assert_dh_error(B->copy_data_from_to(bogus[i], 0, host, 0, 8, D0, HOST, U8, NULL), "ValueError");
    assert_dh_error(B->free_data_space(D0, bogus[i]), "ValueError");
  }
  /* a handle of device 0 is not a handle of device 1 */
  assert_dh_error(B->copy_data_from_to(host, 0, h, 0, 8, HOST, D1, U8, NULL), "ValueError");
  assert_dh_error(B->free_data_space(D1, h), "ValueError");
  /* offsets bounds-checked */
  assert_dh_error(B->copy_data_from_to(host, 0, h, 60, 8, HOST, D0, U8, NULL), "ValueError");
  assert_dh_error(B->copy_data_from_to(h, 65, host, 0, 0, D0, HOST, U8, NULL), "ValueError");
  assert_dh_error(B->copy_data_from_to(host, 0, h, SIZE_MAX, 2, HOST, D0, U8, NULL), "ValueError");
  assert_int_equal(B->copy_data_from_to(host, 0, h, 56, 8, HOST, D0, U8, NULL), 0);
  /* freed handles */
  assert_int_equal(B->stream_sync(D0, NULL), 0);
  assert_int_equal(B->free_data_space(D0, h), 0);
  assert_dh_error(B->free_data_space(D0, h), "ValueError");
  assert_dh_error(B->copy_data_from_to(h, 0, host, 0, 8, D0, HOST, U8, NULL), "ValueError");
  /* a new allocation in the same slot gets a different handle */
  void* h2 = dalloc(D0, 64);
  assert_true(h2 != h);
  assert_dh_error(B->copy_data_from_to(h, 0, host, 0, 8, D0, HOST, U8, NULL), "ValueError");
  assert_int_equal(B->free_data_space(D0, h2), 0);
  /* bogus streams and events */
  dh_stream_t bs = (dh_stream_t)(uintptr_t)0x1234;
  assert_dh_error(B->stream_sync(D0, bs), "ValueError");
  assert_dh_error(B->set_stream(D0, bs), "ValueError");
  assert_dh_error(B->free_stream(D0, bs), "ValueError");
  assert_dh_error(B->event_record(D0, bs, NULL), "ValueError");
}

/*------------------------------------------------------------------ copies */

static void test_round_trips_with_offsets(void** state) {
  (void)state;
  static const size_t sizes[] = {1, 3, 4, 31, 33, 4096, 65537};
  static const size_t offs[] = {0, 1, 4, 4095};
  const size_t pad = 8192;
  uint8_t* src = malloc(65537 + pad);
  uint8_t* dst = malloc(65537 + pad);
  assert_non_null(src);
  assert_non_null(dst);
  for (size_t i = 0; i < 65537 + pad; i++) src[i] = (uint8_t)(i * 131 + 7);
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
    for (size_t oi = 0; oi < sizeof offs / sizeof offs[0]; oi++) {
      size_t n = sizes[si], off = offs[oi];
      void* a = dalloc(D0, n + pad);
      void* b = dalloc(D0, n + pad);
      uint8_t* sentinel = malloc(n + pad);
      memset(sentinel, 0xEE, n + pad);
      /* both device buffers start as sentinel */
      h2d(sentinel, a, 0, n + pad, NULL);
      h2d(sentinel, b, 0, n + pad, NULL);
      h2d(src + off, a, off, n, NULL);                     /* H2D at offset */
      assert_int_equal(B->copy_data_from_to(a, off, b, pad - off, n, D0, D0, U8, NULL), 0);
      memset(dst, 0xEE, n + pad);
      d2h(b, 0, dst, n + pad, NULL);                       /* whole b back */
      assert_int_equal(B->stream_sync(D0, NULL), 0);
      assert_memory_equal(dst + pad - off, src + off, n);  /* range landed */
      for (size_t k = 0; k < pad - off; k++) assert_int_equal(dst[k], 0xEE);
      for (size_t k = pad - off + n; k < n + pad; k++) assert_int_equal(dst[k], 0xEE);
      /* D2H at a source offset */
      memset(dst, 0x11, n + 2);
      assert_int_equal(B->copy_data_from_to(a, off, dst, 1, n, D0, HOST, U8, NULL), 0);
      assert_int_equal(B->stream_sync(D0, NULL), 0);
      assert_int_equal(dst[0], 0x11);
      assert_memory_equal(dst + 1, src + off, n);
      assert_int_equal(dst[n + 1], 0x11);
      free(sentinel);
      assert_int_equal(B->free_data_space(D0, a), 0);
      assert_int_equal(B->free_data_space(D0, b), 0);
    }
  }
  /* across devices (queued on the source device's stream) */
  void* a = dalloc(D0, 4096);
  void* c = NULL;
  assert_int_equal(B->alloc_data_space(D1, 4096, 64, U8, &c), 0);
  h2d(src, a, 0, 4096, NULL);
  assert_int_equal(B->copy_data_from_to(a, 0, c, 0, 4096, D0, D1, U8, NULL), 0);
  assert_int_equal(B->stream_sync(D0, NULL), 0);
  memset(dst, 0, 4096);
  assert_int_equal(B->copy_data_from_to(c, 0, dst, 0, 4096, D1, HOST, U8, NULL), 0);
  assert_int_equal(B->stream_sync(D1, NULL), 0);
  assert_memory_equal(dst, src, 4096);
  assert_int_equal(B->free_data_space(D0, a), 0);
  assert_int_equal(B->free_data_space(D1, c), 0);
  free(src);
  free(dst);
}

static void test_host_source_not_read_after_return(void** state) {
  (void)state;
  const size_t n = 16 * MIB;
  uint8_t* host = malloc(n);
  uint8_t* back = malloc(n);
  memset(host, 0xA1, n);
  void* h = dalloc(D0, n);
  h2d(host, h, 0, n, NULL);
  memset(host, 0x5C, n); /* overwrite before syncing */
  d2h(h, 0, back, n, NULL);
  assert_int_equal(B->stream_sync(D0, NULL), 0);
  assert_int_equal(back[0], 0xA1);
  assert_int_equal(back[n - 1], 0xA1);
  for (size_t i = 0; i < n; i += 4093) assert_int_equal(back[i], 0xA1);
  assert_int_equal(B->free_data_space(D0, h), 0);
  free(host);
  free(back);
}

/*------------------------------------------------------------------ streams */

static void test_stream_sync_waits(void** state) {
  (void)state;
  const size_t n = 16 * MIB;
  uint8_t* host = malloc(n);
  memset(host, 0x3C, n);
  void* h = dalloc(D0, n);
  dh_stream_t s;
  assert_int_equal(B->create_stream(D0, &s), 0);
  assert_non_null(s);
  h2d(host, h, 0, n, s);
  memset(host, 0, n);
  d2h(h, 0, host, n, s); /* the worker writes host later */
  assert_int_equal(B->stream_sync(D0, s), 0);
  /* all prior work done: every byte arrived */
  for (size_t i = 0; i < n; i += 4096) assert_int_equal(host[i], 0x3C);
  assert_int_equal(host[n - 1], 0x3C);
  assert_int_equal(B->free_stream(D0, s), 0);
  assert_int_equal(B->free_data_space(D0, h), 0);
  free(host);
}

static void test_stream_ordering(void** state) {
  (void)state;
  dh_stream_t s;
  assert_int_equal(B->create_stream(D0, &s), 0);
  void* h = dalloc(D0, 4096);
  uint8_t vals[64][4096];
  for (int i = 0; i < 64; i++) {
    memset(vals[i], i + 1, sizeof vals[i]);
    /* alternate sizes so later commands are cheaper than earlier ones */
    h2d(vals[i], h, 0, (i % 2) ? 4096 : 2048, s);
  }
  uint8_t back[4096];
  d2h(h, 0, back, 4096, s);
  assert_int_equal(B->stream_sync(D0, s), 0);
  assert_int_equal(back[0], 64);
  assert_int_equal(back[4095], 64);
  /* 64 disjoint copies then one sync all land */
  uint8_t big[64 * 64];
  for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)(i / 64 + 100);
  for (int i = 0; i < 64; i++)
    assert_int_equal(B->copy_data_from_to(big, (size_t)i * 64, h, (size_t)i * 64, 64, HOST, D0,
                                          U8, s), 0);
  memset(back, 0, sizeof back);
  d2h(h, 0, back, sizeof big, s);
  assert_int_equal(B->stream_sync(D0, s), 0);
  assert_memory_equal(back, big, sizeof big);
  assert_int_equal(B->free_stream(D0, s), 0);
  assert_int_equal(B->free_data_space(D0, h), 0);
}

static void test_sync_stream_from_to_waits(void** state) {
  (void)state;
  const size_t n = 16 * MIB;
  uint8_t* oldv = malloc(n);
  uint8_t* newv = malloc(n);
  uint8_t* back = malloc(n);
  memset(oldv, 0x01, n);
  memset(newv, 0x02, n);
  void* a = dalloc(D0, n);
  h2d(oldv, a, 0, n, NULL);
  assert_int_equal(B->stream_sync(D0, NULL), 0);
  for (int round = 0; round < 3; round++) {
    dh_stream_t src, dst;
    assert_int_equal(B->create_stream(D0, &src), 0);
    assert_int_equal(B->create_stream(D0, &dst), 0);
    uint8_t* val = (round % 2) ? oldv : newv;
    h2d(val, a, 0, n, src);                          /* long copy into A on src */
    assert_int_equal(B->sync_stream_from_to(D0, src, dst), 0);
    d2h(a, 0, back, n, dst);                         /* A -> host on dst */
    assert_int_equal(B->stream_sync(D0, dst), 0);
    assert_int_equal(back[0], val[0]);
    assert_int_equal(back[n / 2], val[0]);
    assert_int_equal(back[n - 1], val[0]);
    assert_int_equal(B->free_stream(D0, src), 0);
    assert_int_equal(B->free_stream(D0, dst), 0);
  }
  /* src == dst and the default stream */
  assert_int_equal(B->sync_stream_from_to(D0, NULL, NULL), 0);
  assert_dh_error(B->sync_stream_from_to((DLDevice){kDLExtDev, 5}, NULL, NULL), "IndexError");
  assert_int_equal(B->free_data_space(D0, a), 0);
  free(oldv);
  free(newv);
  free(back);
}

static void test_free_stream_with_pending_work(void** state) {
  (void)state;
  const size_t n = MIB;
  uint8_t* host = malloc(16 * n);
  uint8_t* src = malloc(n);
  memset(src, 0x77, n);
  memset(host, 0, 16 * n);
  void* h = dalloc(D0, n);
  dh_stream_t s;
  assert_int_equal(B->create_stream(D0, &s), 0);
  h2d(src, h, 0, n, s);
  for (int i = 0; i < 16; i++) d2h(h, 0, host + (size_t)i * n, n, s);
  /* buffer freed while queued work still uses it, then the stream: nothing lost */
  assert_int_equal(B->free_data_space(D0, h), 0);
  assert_int_equal(B->free_stream(D0, s), 0);
  for (size_t i = 0; i < 16 * n; i += 1021) assert_int_equal(host[i], 0x77);
  assert_int_equal(host[16 * n - 1], 0x77);
  /* the freed stream is gone */
  assert_dh_error(B->stream_sync(D0, s), "ValueError");
  assert_dh_error(B->free_stream(D0, s), "ValueError");
  /* many streams */
  dh_stream_t many[32];
  for (int i = 0; i < 32; i++) assert_int_equal(B->create_stream(D1, &many[i]), 0);
  for (int i = 0; i < 32; i++) assert_int_equal(B->free_stream(D1, many[i]), 0);
  /* a stream of device 1 is not a stream of device 0 */
  assert_int_equal(B->create_stream(D1, &s), 0);
  assert_dh_error(B->stream_sync(D0, s), "ValueError");
  assert_int_equal(B->free_stream(D1, s), 0);
  assert_int_equal(B->free_stream(D0, NULL), 0);
  free(host);
  free(src);
}

static void* other_thread_stream(void* arg) {
  dh_stream_t* out = arg;
  B->get_current_stream(D0, out);
  return NULL;
}

static void test_current_stream_per_thread(void** state) {
  (void)state;
  dh_stream_t s, got = (dh_stream_t)1, other = (dh_stream_t)1;
  assert_int_equal(B->get_current_stream(D0, &got), 0);
  assert_null(got);
  assert_int_equal(B->create_stream(D0, &s), 0);
  assert_int_equal(B->set_stream(D0, s), 0);
  assert_int_equal(B->get_current_stream(D0, &got), 0);
  assert_ptr_equal(got, s);
  assert_int_equal(B->get_current_stream(D1, &got), 0);
  assert_null(got); /* per device */
  pthread_t t;
  pthread_create(&t, NULL, other_thread_stream, &other);
  pthread_join(t, NULL);
  assert_null(other); /* per thread */
  assert_int_equal(B->set_stream(D0, NULL), 0);
  assert_int_equal(B->free_stream(D0, s), 0);
}

/*------------------------------------------------------------------ events */

static void test_event_timing(void** state) {
  (void)state;
  const size_t n = 4 * MIB;
  uint8_t* host = malloc(n);
  memset(host, 9, n);
  void* h = dalloc(D0, n);
  dh_event_t e0, e1, never;
  assert_int_equal(B->event_create(D0, &e0), 0);
  assert_int_equal(B->event_create(D0, &e1), 0);
  assert_int_equal(B->event_create(D0, &never), 0);
  assert_int_equal(B->event_record(D0, e0, NULL), 0);
  h2d(host, h, 0, n, NULL);
  assert_int_equal(B->event_record(D0, e1, NULL), 0);
  double ms = -1;
  assert_int_equal(B->event_elapsed_ms(D0, e0, e1, &ms), 0);
  assert_true(ms > 0.0);
  assert_true(ms < 5000.0);
  assert_dh_error(B->event_elapsed_ms(D0, e0, never, &ms), "ValueError");
  assert_int_equal(B->event_free(D0, e0), 0);
  assert_int_equal(B->event_free(D0, e1), 0);
  assert_int_equal(B->event_free(D0, never), 0);
  assert_dh_error(B->event_free(D0, e0), "ValueError");
  assert_int_equal(B->stream_sync(D0, NULL), 0);
  assert_int_equal(B->free_data_space(D0, h), 0);
  free(host);
}

/*------------------------------------------------------------------ threads */

static void* alloc_worker(void* arg) {
  intptr_t id = (intptr_t)arg;
  uint8_t buf[256], back[256];
  for (int i = 0; i < 200; i++) {
    size_t n = 1 + (size_t)((i * 37 + id * 11) % 256);
    void* h = NULL;
    if (B->alloc_data_space(D0, n, 64, U8, &h) != 0) return (void*)1;
    memset(buf, (int)(id * 50 + i), n);
    if (B->copy_data_from_to(buf, 0, h, 0, n, HOST, D0, U8, NULL) != 0) return (void*)2;
    if (i % 20 == 0) {
      if (B->copy_data_from_to(h, 0, back, 0, n, D0, HOST, U8, NULL) != 0) return (void*)3;
      if (B->stream_sync(D0, NULL) != 0) return (void*)4;
      if (memcmp(buf, back, n) != 0) return (void*)5;
    }
    if (B->free_data_space(D0, h) != 0) return (void*)6;
  }
  return NULL;
}

static void test_concurrent_alloc_free(void** state) {
  (void)state;
  assert_int_equal(B->stream_sync(D0, NULL), 0);
  int64_t avail = attr_int(D0, DH_ATTR_AVAILABLE_GLOBAL_MEMORY);
  pthread_t t[4];
  for (intptr_t i = 0; i < 4; i++) pthread_create(&t[i], NULL, alloc_worker, (void*)i);
  for (int i = 0; i < 4; i++) {
    void* rv;
    pthread_join(t[i], &rv);
    assert_null(rv);
  }
  assert_int_equal(B->stream_sync(D0, NULL), 0);
  assert_int_equal(attr_int(D0, DH_ATTR_AVAILABLE_GLOBAL_MEMORY), avail);
}

/*------------------------------------------------------------------ packed */

/* trap (backend.h DH_FUNC_TRAP): the failure surfaces at the next stream_sync of the
 * stream it was queued on, once; another stream's sync does not see it. */
static void test_trap(void** state) {
  (void)state;
  dh_function_t trap;
  assert_int_equal(dh_func_get("sim.trap", &trap), 0);
  dh_stream_t s = NULL;
  assert_int_equal(B->create_stream(D0, &s), 0);
  assert_int_equal(B->set_stream(D0, s), 0);
  dh_any_t arg = dh_any_device(D0), rv;
  assert_int_equal(dh_func_call(&trap, &arg, 1, &rv), 0);
  assert_int_equal(B->set_stream(D0, NULL), 0);
  assert_int_equal(B->stream_sync(D0, NULL), 0);
  assert_dh_error(B->stream_sync(D0, s), "RuntimeError");
  assert_non_null(strstr(dh_error_message(), "kernel 'trap' failed on the device"));
  assert_int_equal(B->stream_sync(D0, s), 0);
  /* on the default stream too */
  assert_int_equal(dh_func_call(&trap, &arg, 1, &rv), 0);
  assert_dh_error(B->stream_sync(D0, NULL), "RuntimeError");
  assert_int_equal(B->stream_sync(D0, NULL), 0);
  arg = dh_any_int(0);
  assert_dh_error(dh_func_call(&trap, &arg, 1, &rv), "TypeError");
  assert_int_equal(B->free_stream(D0, s), 0);
  dh_func_release(&trap);
}

/* peer_access (backend.h DH_FUNC_PEER_ACCESS): every sim device reaches every other;
 * a peer id out of range is an error. */
static void test_peer_access(void** state) {
  (void)state;
  dh_function_t pa;
  assert_int_equal(dh_func_get("sim.peer_access", &pa), 0);
  dh_any_t args[2] = {dh_any_device(D0), dh_any_int(1)}, rv = dh_any_none();
  dh_byte_array_t text = {NULL, 0};
  assert_int_equal(dh_func_call(&pa, args, 2, &rv), 0);
  assert_int_equal(dh_any_as_str(&rv, &text), 0);
  assert_true(text.size > 4 && strncmp(text.data, "yes (", 5) == 0);
  dh_any_release(&rv);
  args[1] = dh_any_int(0);
  assert_int_equal(dh_func_call(&pa, args, 2, &rv), 0);
  assert_int_equal(dh_any_as_str(&rv, &text), 0);
  assert_true(text.size == 11 && strncmp(text.data, "same device", 11) == 0);
  dh_any_release(&rv);
  args[1] = dh_any_int(999);
  assert_int_equal(dh_func_call(&pa, args, 2, &rv), -1);
  args[1] = dh_any_float(1);
  assert_dh_error(dh_func_call(&pa, args, 2, &rv), "TypeError");
  dh_func_release(&pa);
}

static void test_module_functions(void** state) {
  (void)state;
  dh_function_t echo, raise, noop, fill;
  assert_int_equal(dh_func_get("sim.echo", &echo), 0);
  assert_int_equal(dh_func_get("sim.raise", &raise), 0);
  assert_int_equal(dh_func_get("sim.noop", &noop), 0);
  assert_int_equal(dh_func_get("sim.fill", &fill), 0);
  dh_any_t args[4], rv;
  args[0] = dh_any_int(2);
  args[1] = dh_any_float(1.5);
  args[2] = dh_any_str("x");
  args[3] = dh_any_device(D1);
  assert_int_equal(dh_func_call(&echo, args, 4, &rv), 0);
  assert_int_equal(rv.type_index, DH_TYPE_DEVICE);
  assert_int_equal(rv.v_device.device_id, 1);
  args[0] = dh_any_int(3);
  assert_dh_error(dh_func_call(&echo, args, 4, &rv), "IndexError");
  args[0] = dh_any_float(0);
  assert_dh_error(dh_func_call(&echo, args, 4, &rv), "TypeError");
  args[0] = dh_any_str("KeyError");
  args[1] = dh_any_str("no such thing");
  assert_dh_error(dh_func_call(&raise, args, 2, &rv), "KeyError");
  assert_string_equal(dh_error_message(), "no such thing");
  args[0] = dh_any_device(D0);
  assert_int_equal(dh_func_call(&noop, args, 1, &rv), 0);
  args[0] = dh_any_int(0);
  assert_dh_error(dh_func_call(&noop, args, 1, &rv), "TypeError");

  /* fill lands in order on the current stream */
  dh_stream_t s;
  assert_int_equal(B->create_stream(D0, &s), 0);
  assert_int_equal(B->set_stream(D0, s), 0);
  void* h = dalloc(D0, 64);
  uint8_t zeros[64] = {0};
  h2d(zeros, h, 0, 64, s);
  int64_t shape[1] = {8};
  DLTensor t = {h, D0, 1, {kDLUInt, 32, 1}, shape, NULL, 16};
  args[0] = dh_any_tensor(&t);
  args[1] = dh_any_int(0xCAFEF00D);
  assert_int_equal(dh_func_call(&fill, args, 2, &rv), 0);
  uint32_t back[16];
  d2h(h, 0, back, 64, s);
  assert_int_equal(B->stream_sync(D0, s), 0);
  for (int i = 0; i < 16; i++) assert_int_equal(back[i], (i >= 4 && i < 12) ? 0xCAFEF00Du : 0u);
  t.byte_offset = 2;
  assert_dh_error(dh_func_call(&fill, args, 2, &rv), "ValueError");
  t.byte_offset = 40; /* 40 + 32 > 64 */
  assert_dh_error(dh_func_call(&fill, args, 2, &rv), "ValueError");
  assert_int_equal(B->set_stream(D0, NULL), 0);
  assert_int_equal(B->free_stream(D0, s), 0);
  assert_int_equal(B->free_data_space(D0, h), 0);  dh_func_release(&echo);
  dh_func_release(&raise);
  dh_func_release(&noop);
  dh_func_release(&fill);
}

static void test_raw_twin(void** state) {
  (void)state;
  assert_non_null(B->raw);
  assert_string_equal(B->raw->api_name, "sim internal");
  for (int op = DH_RAW_COPY_H2D; op <= DH_RAW_LAUNCH; op++) {
    void* ctx = NULL;
    assert_int_equal(B->raw->setup(D0, (dh_raw_op_t)op, 65536, 0, &ctx), 0);
    double ms = -2;
    assert_int_equal(B->raw->run(ctx, 10, &ms), 0);
    assert_true(ms >= 0.0);
    B->raw->teardown(ctx);
  }
  void* ctx = NULL;
  assert_dh_error(B->raw->setup(D0, (dh_raw_op_t)99, 16, 0, &ctx), "NotImplementedError");
  B->raw->teardown(NULL);
}

/* "Pinned" host memory is page-aligned, as real pinned memory is page-granular
 * (backends/sim/sim_memory.c dh_sim_alloc_host): the bench's twins copy between
 * page-aligned buffers, and a 64-byte-aligned harness buffer ran at another relative
 * alignment. */
static void test_alloc_host_page_aligned(void** state) {
  (void)state;
  assert_non_null(B->alloc_host);
  static const size_t kSizes[] = {0, 1, 100, 65536, (size_t)64 << 20};
  for (size_t i = 0; i < sizeof kSizes / sizeof kSizes[0]; i++) {
    void* p = NULL;
    assert_int_equal(B->alloc_host(D0, kSizes[i], &p), 0);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 4096, 0);
    assert_int_equal(B->free_host(D0, p), 0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_attributes),
      cmocka_unit_test(test_memory_accounting),
      cmocka_unit_test(test_opaque_handles),
      cmocka_unit_test(test_round_trips_with_offsets),
      cmocka_unit_test(test_host_source_not_read_after_return),
      cmocka_unit_test(test_stream_sync_waits),
      cmocka_unit_test(test_stream_ordering),
      cmocka_unit_test(test_sync_stream_from_to_waits),
      cmocka_unit_test(test_free_stream_with_pending_work),
      cmocka_unit_test(test_current_stream_per_thread),
      cmocka_unit_test(test_event_timing),
      cmocka_unit_test(test_concurrent_alloc_free),
      cmocka_unit_test(test_module_functions),
      cmocka_unit_test(test_trap),
      cmocka_unit_test(test_peer_access),
      cmocka_unit_test(test_raw_twin),
      cmocka_unit_test(test_alloc_host_page_aligned),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests(tests, load_plugin, unload_plugin);
}
