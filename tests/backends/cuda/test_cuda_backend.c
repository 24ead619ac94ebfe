/*
 * tests/backends/cuda/test_cuda_backend.c — tests of the cuda backend plugin
 * (libdevharness_cuda.so). cmocka, TAP output. Two programs from this file:
 *
 * cuda_backend (runs everywhere, no GPU needed):
 *  1. init_reports_reason — in this process: the plugin loads, init succeeds (twice),
 *                        and without a driver unavailable_reason names libcuda.so.1,
 *                        kExist is 0 and never errors, every other entry fails cleanly
 *                        (-1, IndexError naming the reason), NULL frees are no-ops,
 *                        echo/raise still work. On a machine with a driver: the
 *                        reason is NULL or names the failing step, kExist agrees.
 *  2. fake_cuinit_fails — a child process with LD_LIBRARY_PATH at a FAKE libcuda.so.1
 *                        whose cuInit returns CUDA_ERROR_NO_DEVICE: the same checks,
 *                        reason "cuInit failed: CUDA_ERROR_NO_DEVICE (100): ...".
 *  3. fake_device      — a child with a FAKE driver simulating two H100-like devices
 *                        on the host (fake_libcuda.c): attributes, target properties,
 *                        memory, copies with offsets and sentinels, the host-source
 *                        rule, fill/noop kernels through packed calls, streams,
 *                        events, raw twins, error messages, no leaks, and that
 *                        shutdown releases every primary context.
 * cuda_backend_gpu (test_cuda_gpu.c, -DDH_CUDA_TEST_GPU): the generic device checks
 *    of (3) against the real driver; "1..0 # SKIP <reason>" without an NVIDIA GPU.
 *
 * Paths: the plugin is <exe dir>/../lib/devharness/libdevharness_cuda.so, the fakes
 * <exe dir>/cuda-fake/{nodev,dev}/libcuda.so.1 (tests/backends/cuda/tests.mk).
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "devharness/backend.h"
#include "devharness/device_api.h"
#include "devharness/error.h"
#include "devharness/target.h"
#include "devharness/tensor.h"

/* Staging slots per device: backends/cuda/cuda_internal.h DH_CUDA_STAGE_SLOTS (the test
 * fails if the two disagree: it counts the pinned buffers and events they hold). */
#define DH_CUDA_STAGE_SLOTS 8
/* The pinned staging threshold the child runs with: DH_CUDA_STAGE_PINNED_MAX (16 KiB),
 * or DEVHARNESS_CUDA_STAGE_PINNED_MAX when the test sets it (set in child_main). */
static size_t k_pinned_max = (size_t)16 << 10;

/*---------------------------------------------------------------- helpers */

static int g_fail;
#define CHECK(cond, ...)                                                                  \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      g_fail++;                                                                           \
      fprintf(stderr, "# FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                   \
      fprintf(stderr, __VA_ARGS__);                                                       \
      fprintf(stderr, " [last error: %s: %s]\n", dh_error_kind() ? dh_error_kind() : "-", \
              dh_error_message());                                                        \
    }                                                                                     \
  } while (0)

/* rc == -1 with error kind `kind` and message containing `needle` (NULL: any). */
#define CHECK_ERR(rc, kind, needle, what)                                                  \
  do {                                                                                     \
    int rc_ = (rc);                                                                        \
    CHECK(rc_ == -1, "%s returned %d, expected -1", what, rc_);                            \
    CHECK(dh_error_kind() && strcmp(dh_error_kind(), kind) == 0, "%s: kind %s, expected %s", \
          what, dh_error_kind() ? dh_error_kind() : "(none)", kind);                       \
    if (needle)                                                                            \
      CHECK(strstr(dh_error_message(), (const char*)(needle)) != NULL,                     \
            "%s: message lacks '%s'", what, (const char*)(needle));                        \
  } while (0)

#define CHECK_OK(rc, what)                                                                 \
  do {                                                                                     \
    int rc_ = (rc);                                                                        \
    CHECK(rc_ == 0, "%s returned %d", what, rc_);                                          \
  } while (0)

static char g_exe_dir[PATH_MAX];
/* This program's path as readlink reports it (valgrind answers the client's path
 * there, while exec of /proc/self/exe would start valgrind's own tool binary). */
static char g_exe_path[PATH_MAX] = "/proc/self/exe";

static void find_exe_dir(void) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) {
    snprintf(g_exe_dir, sizeof g_exe_dir, ".");
    return;
  }
  buf[n] = '\0';
  snprintf(g_exe_path, sizeof g_exe_path, "%s", buf);
  char* slash = strrchr(buf, '/');
  if (slash) *slash = '\0';
  snprintf(g_exe_dir, sizeof g_exe_dir, "%s", buf);
}

static const dh_backend_t* load_plugin(void) {
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/../lib/devharness/libdevharness_cuda.so", g_exe_dir);
  const dh_backend_t* b = NULL;
  int rc = dh_plugin_load(path, &b);
  CHECK(rc == 0 && b != NULL, "dh_plugin_load(%s)", path);
  if (rc != 0 || !b) return NULL;
  CHECK(strcmp(b->name, "cuda") == 0, "name '%s'", b->name);
  CHECK(b->device_type == kDLCUDA, "device_type %d", (int)b->device_type);
  CHECK(b->caps == (DH_CAP_ASYNC_COPY | DH_CAP_EVENT_TIMING | DH_CAP_PINNED_HOST), "caps 0x%x",
        b->caps);
  CHECK(!(b->caps & DH_CAP_HOST_POINTER_ARITHMETIC), "no host pointer arithmetic");
  CHECK(b->raw && strcmp(b->raw->api_name, "CUDA driver") == 0, "raw twin api_name");
  CHECK(b->target_kind && strcmp(b->target_kind, "cuda") == 0, "target_kind");
  CHECK(dh_backend_init(b) == 0, "init returns 0");
  CHECK(dh_backend_init(b) == 0, "init twice is harmless");
  return b;
}

static DLDevice cuda_dev(int id) {
  DLDevice d = {kDLCUDA, id};
  return d;
}
static const DLDataType k_u8 = {kDLUInt, 8, 1};

/*---------------------------------------------------------------- no device */

/* Every entry of an unavailable backend: clean errors naming `reason_needle`. */
static void check_unavailable(const dh_backend_t* b, const char* reason_needle) {
  const char* reason = b->unavailable_reason();
  CHECK(reason != NULL, "unavailable_reason is NULL without devices");
  if (!reason) return;
  fprintf(stderr, "# unavailable_reason: %s\n", reason);
  CHECK(strstr(reason, reason_needle) != NULL, "reason '%s' lacks '%s'", reason, reason_needle);
  CHECK(strcmp(dh_backend_unavailable_reason(b), reason) == 0, "manager reason");
  int count = -1;
  CHECK(dh_backend_device_count(b, &count) == 0 && count == 0, "device count %d", count);

  int ids[] = {0, 1, 63, 64, -1, INT32_MAX};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    dh_any_t v = dh_any_int(77);
    CHECK(b->get_attr(cuda_dev(ids[i]), DH_ATTR_EXIST, &v) == 0, "kExist(%d) never errors", ids[i]);
    CHECK(v.type_index == DH_TYPE_INT && v.v_int64 == 0, "kExist(%d) is 0", ids[i]);
  }
  dh_any_t v;
  CHECK(dh_device_get_attr(cuda_dev(0), DH_ATTR_EXIST, &v) == 0 && v.v_int64 == 0,
        "dispatch kExist is 0");
  for (int k = 1; k < DH_ATTR_KIND_COUNT; k++)
    CHECK_ERR(b->get_attr(cuda_dev(0), k, &v), "IndexError", reason, "get_attr(other kinds)");
  CHECK_ERR(b->get_attr(cuda_dev(0), DH_ATTR_KIND_COUNT, &v), "ValueError", "unknown attribute kind",
            "get_attr(bad kind)");
  CHECK_ERR(b->get_target_property(cuda_dev(0), "arch", &v), "IndexError", reason, "get_target_property");
  CHECK_ERR(b->set_device(cuda_dev(0)), "IndexError", reason, "set_device");
  void* p = (void*)1;
  CHECK_ERR(b->alloc_data_space(cuda_dev(0), 64, 64, k_u8, &p), "IndexError", reason, "alloc_data_space");
  CHECK(p == NULL, "out_ptr cleared on error");
  CHECK_ERR(b->alloc_workspace(cuda_dev(0), 64, k_u8, &p), "IndexError", reason, "alloc_workspace");
  CHECK_ERR(b->alloc_host(cuda_dev(0), 64, &p), "IndexError", reason, "alloc_host");
  CHECK_ERR(b->free_data_space(cuda_dev(0), (void*)0x1000), "IndexError", reason, "free_data_space");
  CHECK_OK(b->free_data_space(cuda_dev(0), NULL), "free_data_space(NULL)");
  CHECK_OK(b->free_host(cuda_dev(0), NULL), "free_host(NULL)");
  CHECK_OK(b->free_stream(cuda_dev(0), NULL), "free_stream(NULL)");
  char host[16] = {0};
  DLDevice cpu = {kDLCPU, 0};
  CHECK_ERR(b->copy_data_from_to(host, 0, (void*)0x1000, 0, 16, cpu, cuda_dev(0), k_u8, NULL),
            "IndexError", reason, "copy H2D");
  CHECK_ERR(b->copy_data_from_to((void*)0x1000, 0, host, 0, 16, cuda_dev(0), cpu, k_u8, NULL),
            "IndexError", reason, "copy D2H");
  dh_stream_t s = (dh_stream_t)1;
  CHECK_ERR(b->create_stream(cuda_dev(0), &s), "IndexError", reason, "create_stream");
  CHECK(s == NULL, "out_stream cleared");
  CHECK_ERR(b->set_stream(cuda_dev(0), NULL), "IndexError", reason, "set_stream");
  CHECK_ERR(b->get_current_stream(cuda_dev(0), &s), "IndexError", reason, "get_current_stream");
  CHECK_ERR(b->stream_sync(cuda_dev(0), NULL), "IndexError", reason, "stream_sync");
  CHECK_ERR(b->sync_stream_from_to(cuda_dev(0), NULL, NULL), "IndexError", reason, "sync_stream_from_to");
  dh_event_t e = NULL;
  CHECK_ERR(b->event_create(cuda_dev(0), &e), "IndexError", reason, "event_create");
  void* raw = NULL;
  CHECK_ERR(b->raw->setup(cuda_dev(0), DH_RAW_COPY_H2D, 64, DH_RAW_PINNED, &raw), "IndexError",
            reason, "raw setup");
  b->raw->teardown(NULL);

  /* Module functions through the manager. */
  dh_any_t args[2] = {dh_any_device(cuda_dev(0))};
  dh_any_t rv;
  CHECK_ERR(dh_device_call(cuda_dev(0), DH_FUNC_NOOP, args, 1, &rv), "IndexError", reason, "noop");
  int64_t shape[1];
  DLTensor t;
  dh_tensor_init_bytes(&t, (void*)0x1000, cuda_dev(0), 0, 16, shape);
  args[0] = dh_any_tensor(&t);
  args[1] = dh_any_int(7);
  CHECK_ERR(dh_device_call(cuda_dev(0), DH_FUNC_FILL, args, 2, &rv), "IndexError", reason, "fill");
  /* echo/raise need no device. */
  args[0] = dh_any_int(0);
  args[1] = dh_any_int(42);
  CHECK(dh_device_call(cuda_dev(0), DH_FUNC_ECHO, args, 2, &rv) == 0 && rv.v_int64 == 42, "echo");
  args[0] = dh_any_str("KeyError");
  args[1] = dh_any_str("boom 1");
  CHECK_ERR(dh_device_call(cuda_dev(0), DH_FUNC_RAISE, args, 2, &rv), "KeyError", "boom 1", "raise");
}

/*---------------------------------------------------------------- with devices */

static void on_mismatch(const char* option, const char* expected, const char* got, void* user) {
  (void)user;
  fprintf(stderr, "# target mismatch: %s: expected %s, got %s\n", option, expected, got);
}
static void on_unchecked(const char* option, void* user) {
  ++*(int*)user;
  fprintf(stderr, "# target option not reported by the device: %s\n", option);
}

/* Mismatches of cuda:0 against tag (-1 on error); *unchecked counts None options. */
static int tag_mismatches(const char* tag, int* unchecked) {
  dh_target_t* t = NULL;
  *unchecked = 0;
  if (dh_target_from_tag(tag, &t) != 0) return -1;
  int n = dh_target_check_device(t, cuda_dev(0), on_mismatch, on_unchecked, unchecked);
  dh_target_free(t);
  return n;
}

typedef struct fake_stats {
  long stream_sync, launches, module_loads, retains, live_allocs, live_host, live_streams,
      live_events, wait_events, set_current, event_syncs, htod_pinned, htod_pageable;
} fake_stats_t;

/* H2D staging on the fake driver (cuda_memory.c staging; the fake defers every copy
 * to the next synchronisation point, so a source read after the call returns would
 * give the device the overwritten bytes). */
static void check_h2d_staging(const dh_backend_t* b, DLDevice d, const fake_stats_t* st) {
  DLDevice cpu = {kDLCPU, 0};
  const size_t big = ((size_t)3 << 20) + 5; /* 4 chunks, the last one short */
  unsigned char* src = malloc(big);
  unsigned char* back = malloc(big);
  void* dbuf = NULL;
  unsigned char* pin = NULL;
  CHECK(src && back, "host buffers");
  if (!src || !back) goto out;
  CHECK_OK(b->alloc_data_space(d, big, 64, k_u8, &dbuf), "alloc 3 MiB + 5");
  for (size_t i = 0; i < big; i++) src[i] = (unsigned char)(i * 13 + 1);

  /* small pageable: no stream sync, staged, source free on return */
  fake_stats_t s0 = *st;
  CHECK_OK(b->copy_data_from_to(src, 0, dbuf, 0, 4096, cpu, d, k_u8, NULL), "H2D 4 KiB");
  CHECK(st->stream_sync == s0.stream_sync, "small H2D returns without cuStreamSynchronize");
  CHECK(st->htod_pageable == s0.htod_pageable && st->htod_pinned == s0.htod_pinned + 1,
        "small H2D is enqueued from a pinned staging slot");
  CHECK(st->set_current == s0.set_current, "no cuCtxSetCurrent when the context is current (%ld)",
        st->set_current - s0.set_current);
  memset(src, 0xee, 4096);
  CHECK_OK(b->copy_data_from_to(dbuf, 0, back, 0, 4096, d, cpu, k_u8, NULL), "D2H 4 KiB");
  CHECK_OK(b->stream_sync(d, NULL), "sync");
  int bad = 0;
  for (size_t i = 0; i < 4096; i++) bad += back[i] != (unsigned char)(i * 13 + 1);
  CHECK(bad == 0, "small H2D: device has the original bytes (%d wrong)", bad);

  /* many small copies: the ring wraps (slot reuse waits on the slot's event) */
  for (int k = 0; k < 3 * DH_CUDA_STAGE_SLOTS; k++) {
    memset(src, k, 64);
    CHECK_OK(b->copy_data_from_to(src, 0, dbuf, (size_t)k * 64, 64, cpu, d, k_u8, NULL), "ring");
  }
  memset(src, 0xee, 64);
  CHECK_OK(b->copy_data_from_to(dbuf, 0, back, 0, 64 * 3 * DH_CUDA_STAGE_SLOTS, d, cpu, k_u8, NULL),
           "D2H ring");
  CHECK_OK(b->stream_sync(d, NULL), "sync");
  bad = 0;
  for (int k = 0; k < 3 * DH_CUDA_STAGE_SLOTS; k++)
    for (int i = 0; i < 64; i++) bad += back[k * 64 + i] != (unsigned char)k;
  CHECK(bad == 0, "%d bytes wrong after %d staged copies through %d slots", bad,
        3 * DH_CUDA_STAGE_SLOTS, DH_CUDA_STAGE_SLOTS);

  /* large pageable: pipelined through the slots in chunks, no stream sync */
  for (size_t i = 0; i < big; i++) src[i] = (unsigned char)(i * 13 + 1);
  s0 = *st;
  CHECK_OK(b->copy_data_from_to(src, 0, dbuf, 0, big, cpu, d, k_u8, NULL), "H2D 3 MiB + 5");
  CHECK(st->stream_sync == s0.stream_sync, "large pageable H2D: no cuStreamSynchronize");
  CHECK(st->htod_pinned == s0.htod_pinned + 4 && st->htod_pageable == s0.htod_pageable,
        "large pageable H2D: 4 chunks from staging slots (%ld)", st->htod_pinned - s0.htod_pinned);
  memset(src, 0xee, big);
  CHECK_OK(b->copy_data_from_to(dbuf, 0, back, 0, big, d, cpu, k_u8, NULL), "D2H big");
  CHECK_OK(b->stream_sync(d, NULL), "sync");
  bad = 0;
  for (size_t i = 0; i < big; i++) bad += back[i] != (unsigned char)(i * 13 + 1);
  CHECK(bad == 0, "large pageable H2D: device has the original bytes (%d wrong)", bad);

  /* pinned up to the threshold (cuda_internal.h DH_CUDA_STAGE_PINNED_MAX, 16 KiB, or
   * DEVHARNESS_CUDA_STAGE_PINNED_MAX): staged, no wait; one byte more: direct, waited */
  CHECK_OK(b->alloc_host(d, k_pinned_max + 1, (void**)&pin), "alloc_host threshold + 1");
  if (pin) {
    for (int pass = 0; pass < 2; pass++) {
      size_t n = k_pinned_max + (size_t)pass;
      if (n == 0) continue;
      for (size_t i = 0; i < n; i++) pin[i] = (unsigned char)(i * 7 + pass);
      s0 = *st;
      CHECK_OK(b->copy_data_from_to(pin, 0, dbuf, 0, n, cpu, d, k_u8, NULL), "H2D pinned at the threshold");
      CHECK(st->htod_pinned == s0.htod_pinned + 1 && st->stream_sync == s0.stream_sync,
            "pinned H2D of %zu bytes: one copy, no stream sync", n);
      CHECK((st->event_syncs > s0.event_syncs) == (pass == 1),
            "pinned H2D of %zu bytes (threshold %zu): %s", n, k_pinned_max,
            pass ? "direct, waited for by event" : "staged, no wait");
      memset(pin, 0xee, n);
      CHECK_OK(b->copy_data_from_to(dbuf, 0, back, 0, n, d, cpu, k_u8, NULL), "D2H");
      CHECK_OK(b->stream_sync(d, NULL), "sync");
      bad = 0;
      for (size_t i = 0; i < n; i++) bad += back[i] != (unsigned char)(i * 7 + pass);
      CHECK(bad == 0, "pinned H2D of %zu bytes: device has the original bytes (%d wrong)", n, bad);
    }
    CHECK_OK(b->free_host(d, pin), "free_host");
    pin = NULL;
  }

  /* large pinned: copied directly, the call waits for that copy (an event), not the stream */
  CHECK_OK(b->alloc_host(d, big, (void**)&pin), "alloc_host 3 MiB + 5");
  if (pin) {
    for (size_t i = 0; i < big; i++) pin[i] = (unsigned char)(i * 5 + 2);
    s0 = *st;
    CHECK_OK(b->copy_data_from_to(pin, 0, dbuf, 0, big, cpu, d, k_u8, NULL), "H2D pinned");
    CHECK(st->htod_pinned == s0.htod_pinned + 1 && st->stream_sync == s0.stream_sync &&
              st->event_syncs > s0.event_syncs,
          "large pinned H2D: one direct copy, waited for by event, no stream sync");
    memset(pin, 0xee, big);
    CHECK_OK(b->copy_data_from_to(dbuf, 0, back, 0, big, d, cpu, k_u8, NULL), "D2H pinned");
    CHECK_OK(b->stream_sync(d, NULL), "sync");
    bad = 0;
    for (size_t i = 0; i < big; i++) bad += back[i] != (unsigned char)(i * 5 + 2);
    CHECK(bad == 0, "large pinned H2D: device has the original bytes (%d wrong)", bad);
    CHECK_OK(b->free_host(d, pin), "free_host");
  }
  CHECK_OK(b->free_data_space(d, dbuf), "free");
out:
  free(src);
  free(back);
}

static void* thread_get_stream(void* arg) {
  dh_stream_t* out = (dh_stream_t*)arg;
  DLDevice d = cuda_dev(0);
  const dh_backend_t* b = NULL;
  dh_device_api_get("cuda", &b);
  if (!b || b->get_current_stream(d, out) != 0) *out = (dh_stream_t)1;
  return NULL;
}

static int fill_call(DLDevice dev, void* data, size_t byte_offset, size_t nbytes, uint32_t value) {
  int64_t shape[1];
  DLTensor t;
  dh_tensor_init_bytes(&t, data, dev, byte_offset, nbytes, shape);
  dh_any_t args[2] = {dh_any_tensor(&t), dh_any_int(value)};
  dh_any_t rv;
  return dh_device_call(dev, DH_FUNC_FILL, args, 2, &rv);
}

/* Checks that hold on any CUDA device; `fake` adds the fake driver's exact values. */
static void check_device(const dh_backend_t* b, int fake) {
  CHECK(b->unavailable_reason() == NULL, "unavailable: %s",
        b->unavailable_reason() ? b->unavailable_reason() : "");
  if (b->unavailable_reason()) return;
  int count = 0;
  CHECK(dh_backend_device_count(b, &count) == 0 && count >= 1, "device count %d", count);
  if (fake) CHECK(count == 2, "fake has 2 devices, got %d", count);
  DLDevice d = cuda_dev(0), cpu = {kDLCPU, 0};
  dh_any_t v;

  /* attributes */
  CHECK(b->get_attr(d, DH_ATTR_EXIST, &v) == 0 && v.v_int64 == 1, "kExist(0) == 1");
  CHECK(b->get_attr(cuda_dev(count), DH_ATTR_EXIST, &v) == 0 && v.v_int64 == 0, "kExist(count) == 0");
  CHECK_ERR(b->get_attr(cuda_dev(count), DH_ATTR_WARP_SIZE, &v), "IndexError", "out of range",
            "get_attr past the last device");
  CHECK_ERR(b->get_attr(d, 99, &v), "ValueError", "99", "get_attr(99)");
  CHECK(b->get_attr(d, DH_ATTR_WARP_SIZE, &v) == 0 && v.type_index == DH_TYPE_INT && v.v_int64 == 32,
        "warp 32");
  CHECK(b->get_attr(d, DH_ATTR_MAX_THREADS_PER_BLOCK, &v) == 0 && v.v_int64 >= 512, "max threads");
  int major = -1, minor = -1;
  CHECK(b->get_attr(d, DH_ATTR_COMPUTE_VERSION, &v) == 0 && v.type_index == DH_TYPE_RAW_STR &&
            sscanf(v.v_c_str, "%d.%d", &major, &minor) == 2 && major >= 5,
        "compute version");
  const char* name = NULL;
  CHECK(b->get_attr(d, DH_ATTR_DEVICE_NAME, &v) == 0 && v.type_index == DH_TYPE_RAW_STR &&
            (name = v.v_c_str) != NULL && name[0] != '\0', "device name");
  int x = 0, y = 0, z = 0;
  CHECK(b->get_attr(d, DH_ATTR_MAX_THREAD_DIMENSIONS, &v) == 0 && v.type_index == DH_TYPE_RAW_STR &&
            sscanf(v.v_c_str, "[%d, %d, %d]", &x, &y, &z) == 3 && x > 0 && y > 0 && z > 0,
        "thread dims");
  CHECK(b->get_attr(d, DH_ATTR_API_VERSION, &v) == 0 && v.v_int64 >= 12000, "api version");
  int dv_major = 0, dv_minor = -1;
  CHECK(b->get_attr(d, DH_ATTR_DRIVER_VERSION, &v) == 0 && v.type_index == DH_TYPE_RAW_STR &&
            sscanf(v.v_c_str, "%d.%d", &dv_major, &dv_minor) == 2 && dv_major >= 11, "driver version");
  CHECK(b->get_attr(d, DH_ATTR_GCN_ARCH, &v) == 0 && v.type_index == DH_TYPE_NONE, "gcn arch None");
  int64_t total = 0, avail = 0, avail2 = 0;
  CHECK(b->get_attr(d, DH_ATTR_TOTAL_GLOBAL_MEMORY, &v) == 0 && (total = v.v_int64) > 0, "total");
  CHECK(b->get_attr(d, DH_ATTR_AVAILABLE_GLOBAL_MEMORY, &v) == 0 && (avail = v.v_int64) > 0 &&
            avail <= total, "available %" PRId64 " <= total %" PRId64, avail, total);
  if (fake) {
    CHECK(strstr(name, "Fake NVIDIA H100") != NULL, "fake name '%s'", name);
    CHECK(major == 9 && minor == 0, "fake 9.0");
    CHECK(x == 1024 && y == 1024 && z == 64, "fake dims");
    CHECK(dv_major == 13 && dv_minor == 0, "fake driver 13.0");
    CHECK(b->get_attr(d, DH_ATTR_MULTI_PROCESSOR_COUNT, &v) == 0 && v.v_int64 == 132, "132 SMs");
    CHECK(b->get_attr(d, DH_ATTR_MAX_CLOCK_RATE, &v) == 0 && v.v_int64 == 1980000, "clock kHz");
    CHECK(b->get_attr(d, DH_ATTR_L2_CACHE_SIZE_BYTES, &v) == 0 && v.v_int64 == 52428800, "L2");
    CHECK(b->get_attr(d, DH_ATTR_MAX_REGISTERS_PER_BLOCK, &v) == 0 && v.v_int64 == 65536, "regs");
    CHECK(b->get_attr(d, DH_ATTR_MAX_SHARED_MEMORY_PER_BLOCK, &v) == 0 && v.v_int64 == 49152, "smem");
    CHECK(total == ((int64_t)1 << 30), "fake total 1 GiB");
  }

  /* target properties */
  CHECK(b->get_target_property(d, "arch", &v) == 0 && v.type_index == DH_TYPE_RAW_STR &&
            strncmp(v.v_c_str, "sm_", 3) == 0, "arch");
  if (v.type_index == DH_TYPE_RAW_STR) {
    char want[16];
    snprintf(want, sizeof want, "sm_%d%d%s", major, minor, major >= 9 ? "a" : "");
    CHECK(strcmp(v.v_c_str, want) == 0, "arch '%s', expected '%s'", v.v_c_str, want);
  }
  CHECK(b->get_target_property(d, "thread_warp_size", &v) == 0 && v.v_int64 == 32, "warp prop");
  CHECK(b->get_target_property(d, "device_name", &v) == 0 && v.type_index == DH_TYPE_RAW_STR &&
            strcmp(v.v_c_str, name) == 0, "device_name prop");
  CHECK(b->get_target_property(d, "keys", &v) == 0 && v.type_index == DH_TYPE_NONE, "keys None");
  if (fake) {
    CHECK(b->get_target_property(d, "max_num_threads", &v) == 0 && v.v_int64 == 1024, "max_num_threads");
    CHECK(b->get_target_property(d, "registers_per_block", &v) == 0 && v.v_int64 == 65536, "regs prop");
    CHECK(b->get_target_property(d, "l2_cache_size_bytes", &v) == 0 && v.v_int64 == 52428800, "L2 prop");
    CHECK(b->get_target_property(d, "multi_processor_count", &v) == 0 && v.v_int64 == 132, "SM prop");
  }

  /* targets: detect, and agreement with the tags (the fake is an H100 SXM) */
  dh_target_t* det = NULL;
  CHECK(dh_target_detect(d, &det) == 0 && det != NULL, "dh_target_detect(cuda:0)");
  if (det) {
    CHECK(strcmp(dh_target_kind_name(det), "cuda") == 0, "detected kind");
    CHECK(dh_target_get(det, "arch", &v) == 0 && v.type_index == DH_TYPE_RAW_STR &&
              strncmp(v.v_c_str, "sm_", 3) == 0, "detected arch");
    char* json = dh_target_to_json(det, 0);
    if (json) fprintf(stderr, "# detected: %s\n", json);
    free(json);
    dh_target_free(det);
  }
  int unchecked = 0;
  if (fake) {
    CHECK(tag_mismatches("nvidia/h100", &unchecked) == 0 && unchecked == 0,
          "fake H100 agrees with nvidia/h100 (%d unchecked)", unchecked);
    CHECK(tag_mismatches("nvidia/a100", &unchecked) >= 3, "fake H100 differs from nvidia/a100");
  } else if (strstr(name, "H100") || strstr(name, "H200")) {
    int n = tag_mismatches(strstr(name, "H100") ? "nvidia/h100" : "nvidia/h200", &unchecked);
    CHECK(n >= 0, "tag check runs");
    fprintf(stderr, "# %s vs its nvidia tag: %d mismatches (H100 PCIe has 114 SMs, not 132)\n", name, n);
  }

  /* device */
  CHECK_OK(b->set_device(d), "set_device(0)");
  CHECK_ERR(b->set_device(cuda_dev(count)), "IndexError", "out of range", "set_device(count)");
  DLDevice wrong = {kDLOpenCL, 0};
  CHECK_ERR(b->set_device(wrong), "ValueError", "kDLCUDA", "set_device(opencl:0)");

  /* memory */
  void* p = (void*)1;
  CHECK(b->alloc_data_space(d, 0, 64, k_u8, &p) == 0 && p == NULL, "zero-byte alloc gives NULL");
  CHECK_OK(b->free_data_space(d, NULL), "free NULL");
  const size_t big = (size_t)64 << 20;
  void* pb = NULL;
  CHECK_OK(b->alloc_data_space(d, big, 64, k_u8, &pb), "alloc 64 MiB");
  CHECK(b->get_attr(d, DH_ATTR_AVAILABLE_GLOBAL_MEMORY, &v) == 0 && (avail2 = v.v_int64) <= avail - (int64_t)big,
        "available drops by >= 64 MiB (%" PRId64 " -> %" PRId64 ")", avail, avail2);
  CHECK_OK(b->free_data_space(d, pb), "free 64 MiB");
  if (fake)
    CHECK(b->get_attr(d, DH_ATTR_AVAILABLE_GLOBAL_MEMORY, &v) == 0 && v.v_int64 == avail,
          "available comes back");
  void* pa = NULL;
  CHECK(b->alloc_data_space(d, 100, 4096, k_u8, &pa) == 0 && pa && ((uintptr_t)pa % 4096) == 0,
        "alignment 4096 honoured (%p)", pa);
  CHECK_OK(b->free_data_space(d, pa), "free over-aligned");
  CHECK_ERR(b->alloc_data_space(d, 100, 48, k_u8, &pa), "ValueError", "power of two", "alignment 48");
  CHECK_ERR(b->alloc_data_space(d, (size_t)1 << 50, 64, k_u8, &pa), "OutOfMemoryError",
            "cuMemAlloc_v2(1125899906842624): CUDA_ERROR_OUT_OF_MEMORY", "alloc 1 PiB");
  void* ws = NULL;
  CHECK(b->alloc_workspace(d, 1000, k_u8, &ws) == 0 && ws != NULL, "workspace");
  CHECK_OK(b->free_workspace(d, ws), "free workspace");
  unsigned char* hp = NULL;
  CHECK(b->alloc_host(d, 4096, (void**)&hp) == 0 && hp != NULL, "pinned host");
  if (hp) {
    memset(hp, 0xab, 4096);
    CHECK(hp[4095] == 0xab, "pinned host is host memory");
  }

  /* copies with offsets, sentinel, host source rule */
  enum { N = 8192 };
  unsigned char* src = malloc(N);
  unsigned char* back = malloc(N);
  void* dbuf = NULL;
  void* dbuf2 = NULL;
  CHECK_OK(b->alloc_data_space(d, N, 64, k_u8, &dbuf), "alloc N");
  CHECK_OK(b->alloc_data_space(d, N, 64, k_u8, &dbuf2), "alloc N (2)");
  for (int i = 0; i < N; i++) src[i] = (unsigned char)(i * 7 + 3);
  CHECK_OK(fill_call(d, dbuf, 0, N, 0xdeadbeefu), "fill sentinel");
  CHECK_OK(b->copy_data_from_to(src, 3, dbuf, 4095, 33, cpu, d, k_u8, NULL), "H2D 33 @ 3 -> 4095");
  memset(back, 0, N);
  CHECK_OK(b->copy_data_from_to(dbuf, 0, back, 0, N, d, cpu, k_u8, NULL), "D2H all");
  CHECK_OK(b->stream_sync(d, NULL), "sync NULL stream");
  int bad = 0;
  for (int i = 0; i < N; i++) {
    unsigned char want = (i >= 4095 && i < 4095 + 33) ? src[3 + i - 4095]
                                                      : (unsigned char)(0xdeadbeefu >> (8 * (i % 4)));
    if (back[i] != want) bad++;
  }
  CHECK(bad == 0, "%d bytes wrong after H2D with offsets (sentinel 0xdeadbeef around)", bad);
  /* D2D with offsets on a created stream; host source overwritten right after H2D. */
  dh_stream_t s1 = NULL, s2 = NULL;
  CHECK_OK(b->create_stream(d, &s1), "create_stream");
  CHECK_OK(b->create_stream(d, &s2), "create_stream 2");
  CHECK(s1 != NULL && s2 != NULL && s1 != s2, "two distinct streams");
  CHECK_OK(b->copy_data_from_to(src, 0, dbuf, 0, N, cpu, d, k_u8, s1), "H2D on s1");
  memset(src, 0x11, N); /* the device must still get the original */
  CHECK_OK(b->copy_data_from_to(dbuf, 16, dbuf2, 8, 4000, d, d, k_u8, s1), "D2D 16 -> 8");
  CHECK_OK(b->sync_stream_from_to(d, s1, s2), "sync_stream_from_to");
  CHECK_OK(b->sync_stream_from_to(d, s1, s1), "sync_stream_from_to same");
  memset(back, 0, N);
  CHECK_OK(b->copy_data_from_to(dbuf2, 8, back, 0, 4000, d, cpu, k_u8, s2), "D2H on s2");
  CHECK_OK(b->stream_sync(d, s2), "stream_sync s2");
  bad = 0;
  for (int i = 0; i < 4000; i++)
    if (back[i] != (unsigned char)((i + 16) * 7 + 3)) bad++;
  CHECK(bad == 0, "%d bytes wrong after H2D/D2D/D2H round trip (host source rule)", bad);
  CHECK_OK(b->copy_data_from_to(src, 0, dbuf, 0, 0, cpu, d, k_u8, NULL), "zero-length copy");
  CHECK_ERR(b->copy_data_from_to(src, 0, back, 0, 4, cpu, cpu, k_u8, NULL), "ValueError",
            "neither side", "cpu->cpu");
  if (fake) {
    /* peer copy between the two fake devices */
    void* d1buf = NULL;
    CHECK_OK(b->alloc_data_space(cuda_dev(1), 64, 64, k_u8, &d1buf), "alloc on cuda:1");
    CHECK_OK(b->copy_data_from_to(dbuf, 0, d1buf, 0, 64, d, cuda_dev(1), k_u8, NULL), "peer copy");
    CHECK_OK(b->free_data_space(cuda_dev(1), d1buf), "free on cuda:1");
    /* a copy past the end is the driver's error, reported cleanly */
    CHECK_ERR(b->copy_data_from_to(src, 0, dbuf, N - 4, 8, cpu, d, k_u8, NULL), "RuntimeError",
              "cuMemcpyHtoDAsync_v2(8 bytes, to_offset 8188): CUDA_ERROR_INVALID_VALUE", "H2D past end");
  }

  /* current stream: per thread, per device; fill lands on it in order */
  dh_stream_t cur = (dh_stream_t)1;
  CHECK(b->get_current_stream(d, &cur) == 0 && cur == NULL, "default current stream is NULL");
  CHECK_OK(b->set_stream(d, s1), "set_stream s1");
  CHECK(b->get_current_stream(d, &cur) == 0 && cur == s1, "current stream is s1");
  if (count > 1) CHECK(b->get_current_stream(cuda_dev(1), &cur) == 0 && cur == NULL, "per device");
  pthread_t th;
  dh_stream_t other = (dh_stream_t)2;
  if (pthread_create(&th, NULL, thread_get_stream, &other) == 0) {
    pthread_join(th, NULL);
    CHECK(other == NULL, "another thread sees NULL, got %p", other);
  }
  CHECK_OK(fill_call(d, dbuf, 8, 16, 0x01020304u), "fill @8 16 bytes on s1");
  CHECK_OK(b->copy_data_from_to(dbuf, 0, back, 0, 32, d, cpu, k_u8, s1), "D2H after fill");
  CHECK_OK(b->stream_sync(d, s1), "sync s1");
  uint32_t words[8];
  memcpy(words, back, 32);
  CHECK(words[1] != 0x01020304u && words[2] == 0x01020304u && words[5] == 0x01020304u &&
            words[6] != 0x01020304u, "fill respects byte_offset: %08x %08x %08x %08x", words[1],
        words[2], words[5], words[6]);
  CHECK_ERR(fill_call(d, dbuf, 2, 16, 1), "ValueError", "multiples of 4", "fill @2");
  CHECK_ERR(fill_call(d, dbuf, 0, 6, 1), "ValueError", "multiples of 4", "fill 6 bytes");
  dh_any_t args[2] = {dh_any_int(1), dh_any_int(2)};
  dh_any_t rv;
  CHECK_ERR(dh_device_call(d, DH_FUNC_FILL, args, 2, &rv), "TypeError", "DLTensorPtr", "fill(Int)");
  args[0] = dh_any_device(d);
  CHECK_OK(dh_device_call(d, DH_FUNC_NOOP, args, 1, &rv), "noop");
  rv = dh_any_none();
  CHECK(dh_device_call(d, DH_FUNC_MEMORY_PEAK_BANDWIDTH, args, 1, &rv) == 0 &&
            rv.type_index == DH_TYPE_FLOAT &&
            (fake ? rv.v_float64 == 2.0 * 2619000e3 * 5120 / 8 : rv.v_float64 > 1e10),
        "memory_peak_bandwidth = 2 x clock x bus width / 8 (%g B/s)", rv.v_float64);
  rv = dh_any_none();
  {
    dh_byte_array_t id = {NULL, 0};
    int got = dh_device_call(d, DH_FUNC_PCI_BUS_ID, args, 1, &rv) == 0 && dh_any_as_str(&rv, &id) == 0;
    unsigned dom, bus, dv, fn;
    CHECK(got && id.size == 12 && sscanf(id.data, "%4x:%2x:%2x.%1x", &dom, &bus, &dv, &fn) == 4 &&
              (!fake || memcmp(id.data, "0000:3b:00.0", 12) == 0) && strpbrk(id.data, "ABCDEF") == NULL,
          "pci_bus_id: dddd:bb:dd.f in lower case from cuDeviceGetPCIBusId (%.*s)", (int)id.size,
          id.data ? id.data : "");
  }
  if (fake) { /* the fake has two devices that reach each other */
    dh_any_t pargs[2] = {dh_any_device(d), dh_any_int(d.device_id == 0 ? 1 : 0)};
    dh_byte_array_t pa = {NULL, 0};
    rv = dh_any_none();
    CHECK(dh_device_call(d, DH_FUNC_PEER_ACCESS, pargs, 2, &rv) == 0 && dh_any_as_str(&rv, &pa) == 0 &&
              pa.size > 30 && strncmp(pa.data, "yes (cuDeviceCanAccessPeer = 1;", 31) == 0,
          "peer_access to the other device: %.*s", (int)pa.size, pa.data ? pa.data : "");
    dh_any_release(&rv);
    pargs[1] = dh_any_int(99);
    CHECK_ERR(dh_device_call(d, DH_FUNC_PEER_ACCESS, pargs, 2, &rv), "IndexError", "99", "peer_access(99)");
  }
  CHECK_ERR(dh_device_call(d, DH_FUNC_NOOP, args, 0, &rv), "TypeError", "Device", "noop()");
  CHECK_OK(b->stream_sync(d, s1), "sync after noop");
  CHECK_OK(b->set_stream(d, NULL), "set_stream NULL");

  /* events */
  dh_event_t e0 = NULL, e1 = NULL;
  CHECK_OK(b->event_create(d, &e0), "event_create");
  CHECK_OK(b->event_create(d, &e1), "event_create 2");
  CHECK_OK(b->event_record(d, e0, s2), "record e0");
  CHECK_OK(fill_call(d, dbuf, 0, N, 5), "fill between events");
  CHECK_OK(b->event_record(d, e1, s2), "record e1");
  double ms = -1;
  CHECK(b->event_elapsed_ms(d, e0, e1, &ms) == 0 && ms >= 0, "elapsed %g ms", ms);
  CHECK_OK(b->event_free(d, e0), "event_free");
  CHECK_OK(b->event_free(d, e1), "event_free 2");

  /* free a stream with pending work */
  CHECK_OK(fill_call(d, dbuf, 0, N, 9), "fill on NULL stream");
  CHECK_OK(b->copy_data_from_to(dbuf, 0, dbuf2, 0, N, d, d, k_u8, s1), "D2D on s1");
  CHECK_OK(b->free_stream(d, s1), "free_stream with pending work");
  CHECK_OK(b->free_stream(d, s2), "free_stream s2");
  CHECK_OK(b->free_data_space(d, dbuf), "free dbuf");
  CHECK_OK(b->free_data_space(d, dbuf2), "free dbuf2");
  CHECK_OK(b->free_host(d, hp), "free_host");

  /* raw twins */
  static const struct {
    dh_raw_op_t op;
    uint32_t flags;
    const char* what;
  } ops[] = {{DH_RAW_COPY_H2D, DH_RAW_PINNED, "H2D pinned"}, {DH_RAW_COPY_H2D, 0, "H2D pageable"},
             {DH_RAW_COPY_D2H, DH_RAW_PINNED, "D2H pinned"}, {DH_RAW_COPY_D2H, 0, "D2H pageable"},
             {DH_RAW_COPY_D2D, 0, "D2D"}, {DH_RAW_STREAM_SYNC, 0, "STREAM_SYNC"},
             {DH_RAW_LAUNCH, 0, "LAUNCH"},
             {DH_RAW_COPY_H2D, DH_RAW_HOST_SOURCE_RELEASED, "H2D pageable released"},
             {DH_RAW_COPY_H2D, DH_RAW_PINNED | DH_RAW_HOST_SOURCE_RELEASED, "H2D pinned released"},
             {DH_RAW_COPY_BIDIR, 0, "BIDIR pageable"}, {DH_RAW_COPY_BIDIR, DH_RAW_PINNED, "BIDIR pinned"},
             {DH_RAW_COPY_BIDIR, DH_RAW_HOST_SOURCE_RELEASED, "BIDIR pageable released"},
             {DH_RAW_COPY_BIDIR, DH_RAW_PINNED | DH_RAW_HOST_SOURCE_RELEASED, "BIDIR pinned released"}};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    void* ctx = NULL;
    double dms = 0;
    CHECK(b->raw->setup(d, ops[i].op, 1 << 20, ops[i].flags, &ctx) == 0 && ctx, "raw setup %s", ops[i].what);
    if (!ctx) continue;
    CHECK(b->raw->run(ctx, 10, &dms) == 0, "raw run %s", ops[i].what);
    if (ops[i].op == DH_RAW_STREAM_SYNC || ops[i].op == DH_RAW_COPY_BIDIR)
      CHECK(dms == -1, "no device time for %s", ops[i].what);
    else
      CHECK(dms >= 0, "raw %s device time %g ms", ops[i].what, dms);
    CHECK(b->raw->run(ctx, 3, NULL) == 0, "raw run without timing %s", ops[i].what);
    b->raw->teardown(ctx);
  }
  void* ctx = NULL;
  CHECK_ERR(b->raw->setup(d, (dh_raw_op_t)42, 1, 0, &ctx), "NotImplementedError", "42", "raw op 42");
  free(src);
  free(back);
}

/*---------------------------------------------------------------- child modes */

static __attribute__((unused)) int child_main(const char* mode) {
  alarm(30);
  void* drv = NULL;
  const char* env_max = getenv("DEVHARNESS_CUDA_STAGE_PINNED_MAX");
  if (env_max) k_pinned_max = (size_t)strtoull(env_max, NULL, 10);
  if (strcmp(mode, "fakedev") == 0) drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  const dh_backend_t* b = load_plugin();
  if (!b) return 1;
  if (strcmp(mode, "nodev") == 0) {
    check_unavailable(b, "cuInit failed: CUDA_ERROR_NO_DEVICE (100)");
  } else if (strcmp(mode, "badenv") == 0) {
    /* a bad threshold: no device, the reason names the variable and its value */
    check_unavailable(b, "DEVHARNESS_CUDA_STAGE_PINNED_MAX='12k\\x?': not a byte count");
  } else if (strcmp(mode, "fakedev") == 0) {
    check_device(b, 1);
    /* a child forked after init gets a clear error, not a driver failure */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
      int rc = b->set_device(cuda_dev(0));
      int ok = rc == -1 && dh_error_kind() && strcmp(dh_error_kind(), "RuntimeError") == 0 &&
               strstr(dh_error_message(), "forked after the cuda backend was initialised");
      if (!ok) fprintf(stderr, "# FAIL forked child: rc %d, %s\n", rc, dh_error_message());
      _exit(ok ? 0 : 1);
    }
    int st = -1;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
          "set_device in a child forked after init fails with a clear RuntimeError");
    const fake_stats_t* (*stats)(void) = NULL;
    if (drv) *(void**)&stats = dlsym(drv, "fake_cuda_stats");
    CHECK(stats != NULL, "fake_cuda_stats found");
    if (stats) {
      const fake_stats_t* st = stats();
      check_h2d_staging(b, cuda_dev(0), st);
      CHECK(st->module_loads == 1, "module loaded once per device used (%ld)", st->module_loads);
      CHECK(st->launches >= 8, "kernels launched (%ld)", st->launches);
      CHECK(st->wait_events == 1, "one cuStreamWaitEvent (%ld)", st->wait_events);
      CHECK(st->live_allocs == 0, "no leaked device allocations (%ld)", st->live_allocs);
      /* the staging slots (pinned buffer + event each) live until shutdown */
      CHECK(st->live_host == DH_CUDA_STAGE_SLOTS, "only the staging slots hold pinned memory (%ld)",
            st->live_host);
      CHECK(st->live_streams == 0, "no leaked streams (%ld)", st->live_streams);
      CHECK(st->live_events == DH_CUDA_STAGE_SLOTS, "only the staging slots hold events (%ld)",
            st->live_events);
      dh_plugins_unload_all();
      CHECK(st->live_host == 0, "shutdown freed the staging slots (%ld pinned left)", st->live_host);
      CHECK(st->live_events == 0, "shutdown destroyed the slot events (%ld left)", st->live_events);
      CHECK(st->retains == 0, "shutdown released every primary context (%ld)", st->retains);
    }
  } else {
    fprintf(stderr, "# unknown DH_CUDA_TEST_MODE '%s'\n", mode);
    return 2;
  }
  dh_plugins_unload_all();
  if (drv) dlclose(drv);
  return g_fail ? 1 : 0;
}

/* Runs this program in `mode` with LD_LIBRARY_PATH=<exe dir>/cuda-fake/<fake_dir>.
 * The child's stdout goes to stderr (keeps TAP clean). Returns the exit status, or
 * -1 if it could not run or died. */
static __attribute__((unused)) int run_child_env(const char* mode, const char* fake_dir,
                                                 const char* pinned_max) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    /* The fake first; the rest of the path kept (libcmocka may live there). */
    char lib[2 * PATH_MAX + 64];
    const char* old = getenv("LD_LIBRARY_PATH");
    snprintf(lib, sizeof lib, "%s/cuda-fake/%s%s%s", g_exe_dir, fake_dir, old && *old ? ":" : "",
             old && *old ? old : "");
    setenv("LD_LIBRARY_PATH", lib, 1);
    if (pinned_max)
      setenv("DEVHARNESS_CUDA_STAGE_PINNED_MAX", pinned_max, 1);
    else
      unsetenv("DEVHARNESS_CUDA_STAGE_PINNED_MAX");
    setenv("DH_CUDA_TEST_MODE", mode, 1);
    dup2(2, 1);
    execl(g_exe_path, "test_cuda_backend", (char*)NULL);
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  if (!WIFEXITED(status)) {
    fprintf(stderr, "# child %s died with signal %d\n", mode, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return -1;
  }
  return WEXITSTATUS(status);
}

/* run_child_env without DEVHARNESS_CUDA_STAGE_PINNED_MAX. */
static __attribute__((unused)) int run_child(const char* mode, const char* fake_dir) {
  return run_child_env(mode, fake_dir, NULL);
}

/*---------------------------------------------------------------- cmocka tests */

static int driver_installed(void) {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) return 0;
  dlclose(h);
  return 1;
}

/* Without a driver: the full unavailable checks. With one installed (a GPU machine):
 * the plugin either has devices (reason NULL) or names why not (cuInit / no device);
 * kExist agrees. No skip either way (cmocka 1.1.5 prints skips as "not ok"). */
static __attribute__((unused)) void test_init_reports_reason(void** state) {
  (void)state;
  g_fail = 0;
  const dh_backend_t* b = load_plugin();
  assert_non_null(b);
  if (!driver_installed()) {
    check_unavailable(b, "libcuda.so.1 not found: ");
  } else {
    const char* r = b->unavailable_reason();
    dh_any_t v;
    CHECK(b->get_attr(cuda_dev(0), DH_ATTR_EXIST, &v) == 0 && v.v_int64 == (r == NULL),
          "kExist(0) %d agrees with reason '%s'", (int)v.v_int64, r ? r : "(none)");
    if (r)
      CHECK(strstr(r, "cuInit failed: ") || strstr(r, "no CUDA device") || strstr(r, "lacks "),
            "reason '%s' names the failing step", r);
  }
  dh_plugins_unload_all();
  assert_int_equal(g_fail, 0);
}

static __attribute__((unused)) void test_fake_cuinit_fails(void** state) {
  (void)state;
  int rc = run_child("nodev", "nodev");
  assert_int_equal(rc, 0);
}

static __attribute__((unused)) void test_fake_device(void** state) {
  (void)state;
  int rc = run_child("fakedev", "dev");
  assert_int_equal(rc, 0);
}

/* DEVHARNESS_CUDA_STAGE_PINNED_MAX: 0 (a 1-byte pinned source is waited for, none is
 * staged), 65536 (64 KiB staged, 64 KiB + 1 waited for), and a bad value (no device,
 * the reason quotes it with its control byte shown as '?'). */
static __attribute__((unused)) void test_fake_stage_threshold(void** state) {
  (void)state;
  assert_int_equal(run_child_env("fakedev", "dev", "0"), 0);
  assert_int_equal(run_child_env("fakedev", "dev", "65536"), 0);
  assert_int_equal(run_child_env("badenv", "dev", "12k\\x\x01"), 0);
}

#ifndef DH_CUDA_TEST_GPU
/* cuda_backend: runs everywhere (no GPU needed). */
int main(void) {
  find_exe_dir();
  const char* mode = getenv("DH_CUDA_TEST_MODE");
  if (mode && *mode) return child_main(mode);
  cmocka_set_message_output(CM_OUTPUT_TAP);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_init_reports_reason),
      cmocka_unit_test(test_fake_cuinit_fails),
      cmocka_unit_test(test_fake_device),
      cmocka_unit_test(test_fake_stage_threshold),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
/* cuda_backend_gpu: the device checks on a real NVIDIA GPU; "1..0 # SKIP <reason>"
 * (the whole program) where there is none. */
static const dh_backend_t* g_gpu_backend;

static void test_real_gpu(void** state) {
  (void)state;
  g_fail = 0;
  check_device(g_gpu_backend, 0);
  assert_int_equal(g_fail, 0);
}

int main(void) {
  find_exe_dir();
  if (!driver_installed()) {
    printf("1..0 # SKIP no NVIDIA driver (libcuda.so.1 not found); needs a machine with an NVIDIA GPU\n");
    return 0;
  }
  g_gpu_backend = load_plugin();
  if (!g_gpu_backend) {
    printf("1..1\nnot ok 1 - cuda plugin loads: %s\n", dh_error_message());
    return 1;
  }
  const char* r = g_gpu_backend->unavailable_reason();
  if (r) {
    printf("1..0 # SKIP no usable NVIDIA GPU: %s\n", r);
    return 0;
  }
  cmocka_set_message_output(CM_OUTPUT_TAP);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_real_gpu),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
