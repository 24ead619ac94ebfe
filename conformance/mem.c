/* conformance/mem.c — memory clauses (TVM DeviceAPI::AllocDataSpace / FreeDataSpace /
 * AllocWorkspace, SPEC.md §5 mem). */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Allocates n bytes, writes a pattern, reads it back (offset 0, NULL stream). */
static void roundtrip_size(dh_conf_ctx_t* c, size_t n, uint32_t seed) {
  uint8_t* src = dc_host_alloc(c, n);
  uint8_t* dst = dc_host_alloc(c, n);
  void* d = (src && dst) ? dc_dev_alloc(c, n) : NULL;
  if (d) {
    dc_pattern(src, n, seed);
    dc_sentinel(dst, n);
    dc_upload(c, __LINE__, d, 0, src, n);
    if (!c->status) dc_download(c, __LINE__, d, 0, dst, n);
    if (!c->status) {
      char what[64];
      snprintf(what, sizeof what, "%zu-byte allocation read back", n);
      dc_check_bytes(c, __FILE__, __LINE__, what, dst, src, n, 0);
    }
    dh_device_free_data_space(c->dev, d);
  }
  free(src);
  free(dst);
}

static void sizes_small(dh_conf_ctx_t* c) {
  size_t sizes[] = {1, 3, 4, 31, 33, 4096, 65537};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) TRY(roundtrip_size(c, sizes[i], (uint32_t)i));
}

static void sizes_large(dh_conf_ctx_t* c) {
  size_t sizes[] = {DC_MIB, DC_MIB + 3, 16 * DC_MIB};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) TRY(roundtrip_size(c, sizes[i], 7 + (uint32_t)i));
}

static void size_64mib(dh_conf_ctx_t* c) { TRY(roundtrip_size(c, 64 * DC_MIB, 99)); }

static void zero_bytes(dh_conf_ctx_t* c) {
  void* p = (void*)0x1;
  CHECK_OK(dh_device_alloc_data_space(c->dev, 0, 0, dc_u8(), &p));
  CHECK_OK(dh_device_free_data_space(c->dev, p));
  /* the device still works */
  TRY(roundtrip_size(c, 64, 3));
}

static void alignment(dh_conf_ctx_t* c) {
  size_t aligns[] = {64, 128, 256, 4096};
  for (size_t i = 0; i < 4; i++) {
    void* p = NULL;
    CHECK_OK(dh_device_alloc_data_space(c->dev, 100, aligns[i], dc_u8(), &p));
    uintptr_t u = (uintptr_t)p;
    dh_device_free_data_space(c->dev, p);
    if (u % aligns[i]) {
      char e[64], g[64];
      snprintf(e, sizeof e, "address %% %zu == 0", aligns[i]);
      snprintf(g, sizeof g, "%p (remainder %zu)", p, (size_t)(u % aligns[i]));
      FAIL(e, g, "alloc_data_space(alignment %zu) returned a misaligned address", aligns[i]);
    }
  }
}

static void default_alignment(dh_conf_ctx_t* c) {
  size_t aligns[] = {0, 1, 4, 16};
  for (size_t i = 0; i < 4; i++) {
    void* p = NULL;
    CHECK_OK(dh_device_alloc_data_space(c->dev, 33, aligns[i], dc_u8(), &p));
    uintptr_t u = (uintptr_t)p;
    dh_device_free_data_space(c->dev, p);
    if (u % DH_ALLOC_ALIGNMENT) {
      char g[64];
      snprintf(g, sizeof g, "%p", p);
      FAIL("address % 64 == 0", g, "alloc_data_space(alignment %zu) is not kAllocAlignment (64)"
           "-aligned", aligns[i]);
    }
  }
}

#define OVERLAP_N 32
static void no_overlap(dh_conf_ctx_t* c) {
  void* h[OVERLAP_N] = {0};
  size_t sz[OVERLAP_N];
  uint8_t* want = NULL;
  uint8_t* got = NULL;
  size_t maxn = 0;
  for (int i = 0; i < OVERLAP_N; i++) {
    sz[i] = 1000 + (size_t)(OVERLAP_N - i) * 97; /* descending: a reused handle is big enough */
    if (sz[i] > maxn) maxn = sz[i];
  }
  want = dc_host_alloc(c, maxn);
  got = dc_host_alloc(c, maxn);
  for (int i = 0; i < OVERLAP_N && !c->status; i++) {
    h[i] = dc_dev_alloc(c, sz[i]);
    if (!c->status) {
      dc_pattern(want, sz[i], 1000u + (uint32_t)i * 13u);
      dc_upload(c, __LINE__, h[i], 0, want, sz[i]);
    }
  }
  for (int i = 0; i < OVERLAP_N && !c->status; i++) {
    dc_download(c, __LINE__, h[i], 0, got, sz[i]);
    if (c->status) break;
    dc_pattern(want, sz[i], 1000u + (uint32_t)i * 13u);
    char what[96];
    snprintf(what, sizeof what, "allocation %d of %d live (%zu bytes; overwritten by another?)",
             i, OVERLAP_N, sz[i]);
    dc_check_bytes(c, __FILE__, __LINE__, what, got, want, sz[i], 0);
  }
  for (int i = 0; i < OVERLAP_N; i++)
    if (h[i]) dh_device_free_data_space(c->dev, h[i]);
  free(want);
  free(got);
}

static size_t total_memory(dh_conf_ctx_t* c) {
  dh_any_t v = dh_any_none();
  if (dh_device_get_attr(c->dev, DH_ATTR_TOTAL_GLOBAL_MEMORY, &v) == 0 && v.type_index == DH_TYPE_INT &&
      v.v_int64 > 0)
    return (size_t)v.v_int64;
  return 0;
}

static size_t too_large_size(dh_conf_ctx_t* c) {
  size_t t = total_memory(c);
  if (t && t < ((size_t)1 << 60)) return t * 4;
  return (size_t)1 << 62;
}

static void too_large(dh_conf_ctx_t* c) {
  void* p = NULL;
  size_t n = too_large_size(c);
  int rc = dh_device_alloc_data_space(c->dev, n, 0, dc_u8(), &p);
  if (rc == 0) {
    dh_device_free_data_space(c->dev, p);
    char e[64];
    snprintf(e, sizeof e, "-1 for %zu bytes", n);
    FAIL(e, "0 (success)", "alloc_data_space of %zu bytes (more than the device has) succeeded", n);
  }
  dh_error_clear();
  TRY(roundtrip_size(c, 4096, 5));
}

static void too_large_kind(dh_conf_ctx_t* c) {
  void* p = NULL;
  size_t n = too_large_size(c);
  int rc = dh_device_alloc_data_space(c->dev, n, 0, dc_u8(), &p);
  if (rc == 0) dh_device_free_data_space(c->dev, p);
  CHECK_ERR(rc, "OutOfMemoryError");
}

static void free_null(dh_conf_ctx_t* c) {
  CHECK_OK(dh_device_free_data_space(c->dev, NULL));
  CHECK_OK(dh_device_free_data_space(c->dev, NULL));
}

static void dtype_hints(dh_conf_ctx_t* c) {
  DLDataType ts[] = {{kDLFloat, 32, 1}, {kDLInt, 8, 1}, {kDLFloat, 64, 1}, {kDLInt, 32, 4},
                     {kDLFloat, 16, 1}, {kDLBfloat, 16, 1}};
  for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
    void* p = NULL;
    CHECK_OK(dh_device_alloc_data_space(c->dev, 256, 0, ts[i], &p));
    CHECK_OK(dh_device_free_data_space(c->dev, p));
  }
}

static void realloc_cycle(dh_conf_ctx_t* c) {
  for (int i = 0; i < 200; i++) {
    void* p = NULL;
    CHECK_OK(dh_device_alloc_data_space(c->dev, 4096 + (size_t)i, 0, dc_u8(), &p));
    CHECK_OK(dh_device_free_data_space(c->dev, p));
  }
  TRY(roundtrip_size(c, 333, 8));
}

static void workspace_roundtrip(dh_conf_ctx_t* c) {
  void* w = NULL;
  CHECK_OK(dh_device_alloc_workspace(c->dev, 8192, dc_u8(), &w));
  CHECK(w != NULL, "alloc_workspace(8192) returned a NULL handle");
  CHECK_OK(dh_device_free_workspace(c->dev, w));
}

/* AddressSanitizer's quarantine keeps freed blocks mapped, so address-space growth
 * says nothing under it; the available-memory check still applies. */
#if defined(__SANITIZE_ADDRESS__)
#define DC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DC_ASAN 1
#endif
#endif
#ifndef DC_ASAN
#define DC_ASAN 0
#endif

/* VmSize of this process in bytes (0 when unknown or under ASan). */
static size_t vm_size(void) {
  if (DC_ASAN) return 0;
  FILE* f = fopen("/proc/self/statm", "r");
  unsigned long pages = 0;
  if (!f) return 0;
  if (fscanf(f, "%lu", &pages) != 1) pages = 0;
  fclose(f);
  return (size_t)pages * 4096;
}

#define WS_SIZE (256 * 1024)
#define WS_ITERS 1000
static void workspace_no_growth(dh_conf_ctx_t* c) {
  dh_any_t a0 = dh_any_none(), a1 = dh_any_none();
  /* warm up once so lazy pools do not count as growth */
  void* w = NULL;
  CHECK_OK(dh_device_alloc_workspace(c->dev, WS_SIZE, dc_u8(), &w));
  CHECK_OK(dh_device_free_workspace(c->dev, w));
  dh_device_get_attr(c->dev, DH_ATTR_AVAILABLE_GLOBAL_MEMORY, &a0);
  size_t vm0 = vm_size();
  for (int i = 0; i < WS_ITERS; i++) {
    w = NULL;
    if (dh_device_alloc_workspace(c->dev, WS_SIZE, dc_u8(), &w) != 0) {
      char call[96];
      snprintf(call, sizeof call, "alloc_workspace(%d bytes) in iteration %d of %d", WS_SIZE, i,
               WS_ITERS);
      dc_fail_call(c, __FILE__, __LINE__, call);
      return;
    }
    CHECK_OK(dh_device_free_workspace(c->dev, w));
  }
  size_t vm1 = vm_size();
  dh_device_get_attr(c->dev, DH_ATTR_AVAILABLE_GLOBAL_MEMORY, &a1);
  size_t limit = (size_t)WS_SIZE * WS_ITERS / 4;
  if (a0.type_index == DH_TYPE_INT && a1.type_index == DH_TYPE_INT &&
      a0.v_int64 - a1.v_int64 > (int64_t)limit) {
    char e[64], g[64];
    snprintf(e, sizeof e, "drop < %zu bytes", limit);
    snprintf(g, sizeof g, "dropped %" PRId64 " bytes", a0.v_int64 - a1.v_int64);
    FAIL(e, g, "kAvailableGlobalMemory fell after %d workspace alloc/free pairs of %d bytes",
         WS_ITERS, WS_SIZE);
  }
  if (vm0 && vm1 > vm0 + limit) {
    char e[64], g[64];
    snprintf(e, sizeof e, "growth < %zu bytes", limit);
    snprintf(g, sizeof g, "grew %zu bytes", vm1 - vm0);
    FAIL(e, g, "process address space grew after %d workspace alloc/free pairs of %d bytes",
         WS_ITERS, WS_SIZE);
  }
}

struct thr {
  dh_conf_ctx_t ctx;
  int index;
};

static void* alloc_thread(void* arg) {
  struct thr* t = arg;
  dh_conf_ctx_t* c = &t->ctx;
  for (int i = 0; i < 200 && !c->status; i++) {
    void* p = NULL;
    size_t n = 64 + (size_t)((i * 37 + t->index * 101) % 4000);
    if (dh_device_alloc_data_space(c->dev, n, 0, dc_u8(), &p) != 0) {
      dc_fail_call(c, __FILE__, __LINE__, "alloc_data_space (concurrent)");
      break;
    }
    if (dh_device_free_data_space(c->dev, p) != 0) {
      dc_fail_call(c, __FILE__, __LINE__, "free_data_space (concurrent)");
      break;
    }
  }
  if (!c->status) roundtrip_size(c, 4096 + (size_t)t->index, 40u + (uint32_t)t->index);
  return NULL;
}

static void concurrent(dh_conf_ctx_t* c) {
  struct thr t[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    t[i].ctx = *c;
    t[i].index = i;
    CHECK(pthread_create(&th[i], NULL, alloc_thread, &t[i]) == 0, "pthread_create failed");
  }
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < 4; i++)
    if (t[i].ctx.status == DC_FAIL) {
      *c = t[i].ctx;
      return;
    }
}

const dh_clause_t dc_mem_clauses[] = {
    {"mem.sizes_small", "allocations of 1, 3, 4, 31, 33, 4096, 65537 bytes hold every byte written",
     DC_MUST,
     "TVM docs §DeviceAPI \"Allocate data space\" (device_target_interactions.rst:81-90); IREE "
     "HAL CTS allocator", 0, sizes_small, NULL, DC_PROFILE_TVM},
    {"mem.sizes_large", "allocations of 1 MiB, 1 MiB + 3 and 16 MiB hold every byte written",
     DC_MUST, "TVM docs §DeviceAPI \"Allocate data space\" (device_target_interactions.rst:81-90); "
     "OpenCL-CTS test_buffers", 0, sizes_large, NULL, DC_PROFILE_TVM},
    {"mem.size_64mib", "a 64 MiB allocation holds every byte written", DC_MUST,
     "TVM docs §DeviceAPI \"Allocate data space\" (device_target_interactions.rst:81-90); "
     "OpenCL-CTS test_buffers", 0, size_64mib, NULL, DC_PROFILE_TVM},
    {"mem.zero_bytes", "a zero-byte allocation succeeds and is freeable", DC_MUST,
     "devharness backend.h alloc_data_space (nbytes 0)", 0, zero_bytes, NULL, DC_PROFILE_STRICT},
    {"mem.alignment", "requested alignments 64..4096 are honoured where pointers are addresses",
     DC_MUST, "apache/tvm 0.27 include/tvm/runtime/device_api.h:166-175 AllocDataSpace (alignment)",
     DC_NEED_HOST_PTR, alignment, NULL, DC_PROFILE_TVM},
    {"mem.default_alignment", "every allocation is at least kAllocAlignment (64) aligned", DC_MUST,
     "apache/tvm 0.27 include/tvm/runtime/device_api.h:112-113 kAllocAlignment = 64 (each "
     "allocation)", DC_NEED_HOST_PTR, default_alignment, NULL, DC_PROFILE_TVM},
    {"mem.no_overlap", "32 live allocations never overlap (unique patterns survive)", DC_MUST,
     "TVM docs §DeviceAPI \"Allocate data space\" (device_target_interactions.rst:81-90); IREE "
     "HAL CTS allocator; OpenCL-CTS test_buffers", 0, no_overlap, NULL, DC_PROFILE_TVM},
    {"mem.too_large",
     "an allocation larger than the device fails cleanly and the device still works", DC_MUST,
     "devharness backend.h alloc_data_space; PJRT C API", 0, too_large, NULL, DC_PROFILE_STRICT},
    {"mem.too_large_kind", "an allocation larger than the device fails with OutOfMemoryError",
     DC_SHOULD, "devharness backend.h alloc_data_space", 0, too_large_kind, NULL,
     DC_PROFILE_STRICT},
    {"mem.free_null", "freeing NULL is a no-op", DC_MUST, "devharness backend.h free_data_space", 0,
     free_null, NULL, DC_PROFILE_STRICT},
    {"mem.dtype_hints", "allocation accepts float/int/bfloat type hints with lanes", DC_MUST,
     "apache/tvm 0.27 include/tvm/runtime/device_api.h:170-171 AllocDataSpace (type_hint)", 0,
     dtype_hints, NULL, DC_PROFILE_TVM},
    {"mem.realloc_cycle", "200 alloc/free cycles succeed and the device still works", DC_MUST,
     "TVM docs §DeviceAPI \"Allocate data space\" (device_target_interactions.rst:81-90)", 0,
     realloc_cycle, NULL, DC_PROFILE_TVM},
    {"mem.workspace", "alloc_workspace gives a handle that free_workspace releases", DC_MUST,
     "TVM docs §DeviceAPI \"Allocate work space\" (device_target_interactions.rst:92-98)", 0,
     workspace_roundtrip, NULL, DC_PROFILE_TVM},
    {"mem.workspace_no_growth", "1000 workspace alloc/free pairs do not grow memory use", DC_MUST,
     "devharness backend.h alloc_workspace", 0, workspace_no_growth, NULL, DC_PROFILE_STRICT},
    {"mem.concurrent", "alloc/free from 4 threads concurrently succeeds and data stays intact",
     DC_MUST, "devharness backend.h threading; level-zero-tests", 0, concurrent, NULL,
     DC_PROFILE_STRICT},
};
const size_t dc_mem_count = sizeof dc_mem_clauses / sizeof dc_mem_clauses[0];
