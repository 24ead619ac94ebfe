/* conformance/clauses/mem.c — memory clauses on allocation itself: sizes, alignment, overlap,
 * refusals, hints, workspaces (TVM DeviceAPI::AllocDataSpace / FreeDataSpace /
 * AllocWorkspace, docs/contract.md §Memory); mem_lifetime.c and mem_distinct.c hold the
 * families after it. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* check.h: allocates n bytes, writes a pattern, reads it back (offset 0, NULL stream). */
void dc_roundtrip_size(dh_conf_ctx_t* c, size_t n, uint32_t seed) {
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
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) TRY(dc_roundtrip_size(c, sizes[i], (uint32_t)i));
}

static void sizes_large(dh_conf_ctx_t* c) {
  size_t sizes[] = {DC_MIB, DC_MIB + 3, 16 * DC_MIB};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) TRY(dc_roundtrip_size(c, sizes[i], 7 + (uint32_t)i));
}

static void size_64mib(dh_conf_ctx_t* c) { TRY(dc_roundtrip_size(c, 64 * DC_MIB, 99)); }

static void zero_bytes(dh_conf_ctx_t* c) {
  void* p = (void*)0x1;
  CHECK_OK(dh_device_alloc_data_space(c->dev, 0, 0, dc_u8(), &p));
  CHECK_OK(dh_device_free_data_space(c->dev, p));
  /* the device still works */
  TRY(dc_roundtrip_size(c, 64, 3));
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

/* Every alignment below 64 is tried (none stops the loop): the failure names the
 * first, the got string lists every alignment that did not give a 64-aligned address
 * (TVM's CPU DeviceAPI honours 8, 16, 32 literally and refuses 1, 4). */
static void default_alignment(dh_conf_ctx_t* c) {
  size_t aligns[] = {0, 1, 4, 8, 16, 32};
  char got[512] = "", first[160] = "";
  size_t used = 0;
  for (size_t i = 0; i < sizeof aligns / sizeof aligns[0]; i++) {
    void* p = NULL;
    char one[160];
    if (dh_device_alloc_data_space(c->dev, 33, aligns[i], dc_u8(), &p) != 0) {
      snprintf(one, sizeof one, "alignment %zu: %s", aligns[i], dh_error_kind() ? dh_error_kind() : "error");
      if (!first[0])
        snprintf(first, sizeof first, "alloc_data_space(alignment %zu) failed (%s) instead of giving "
                 "kAllocAlignment (64)-aligned memory", aligns[i], dh_error_kind() ? dh_error_kind() : "error");
      dh_error_clear();
    } else {
      uintptr_t u = (uintptr_t)p;
      dh_device_free_data_space(c->dev, p);
      if (u % DH_ALLOC_ALIGNMENT == 0) continue;
      snprintf(one, sizeof one, "alignment %zu: %p", aligns[i], p);
      if (!first[0])
        snprintf(first, sizeof first, "alloc_data_space(alignment %zu) is not kAllocAlignment (64)-aligned",
                 aligns[i]);
    }
    if (used < sizeof got) used += (size_t)snprintf(got + used, sizeof got - used, "%s%s", used ? "; " : "", one);
  }
  if (first[0]) FAIL("address % 64 == 0 for alignments 0, 1, 4, 8, 16, 32", got, "%s", first);
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
  TRY(dc_roundtrip_size(c, 4096, 5));
}

static void too_large_kind(dh_conf_ctx_t* c) {
  void* p = NULL;
  size_t n = too_large_size(c);
  int rc = dh_device_alloc_data_space(c->dev, n, 0, dc_u8(), &p);
  if (rc == 0) dh_device_free_data_space(c->dev, p);
  CHECK_ERR(rc, DH_KIND_OUT_OF_MEMORY_ERROR);
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
  TRY(dc_roundtrip_size(c, 333, 8));
}

static void workspace_roundtrip(dh_conf_ctx_t* c) {
  void* w = NULL;
  CHECK_OK(dh_device_alloc_workspace(c->dev, 8192, dc_u8(), &w));
  CHECK(w != NULL, "alloc_workspace(8192) returned a NULL handle");
  CHECK_OK(dh_device_free_workspace(c->dev, w));
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
    {"mem.default_alignment", "every allocation is at least kAllocAlignment (64) aligned, whatever "
     "alignment below 64 (0, 1, 4, 8, 16, 32) is asked", DC_MUST,
     "devharness backend.h alloc_data_space (>= DH_ALLOC_ALIGNMENT); TVM names kAllocAlignment "
     "(apache/tvm 0.27 include/tvm/runtime/device_api.h:112-113) but applies the floor in its callers "
     "(src/runtime/device_api.cc:104-108,136-137), its DeviceAPIs honour the alignment asked "
     "(src/runtime/cpu_device_api.cc:105-106)", DC_NEED_HOST_PTR, default_alignment, NULL, DC_PROFILE_STRICT},
    {"mem.no_overlap", "32 live allocations never overlap (unique patterns survive)", DC_MUST,
     "TVM docs §DeviceAPI \"Allocate data space\" (device_target_interactions.rst:81-90); IREE "
     "HAL CTS allocator; OpenCL-CTS test_buffers", 0, no_overlap, NULL, DC_PROFILE_TVM},
    {"mem.too_large",
     "an allocation larger than the device fails cleanly and the device still works", DC_MUST,
     "devharness backend.h alloc_data_space; PJRT C API", DC_RUN_ALONE, too_large, NULL, DC_PROFILE_STRICT},
    {"mem.too_large_kind", "an allocation larger than the device fails with OutOfMemoryError",
     DC_SHOULD, "devharness backend.h alloc_data_space", DC_RUN_ALONE, too_large_kind, NULL,
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
};
const size_t dc_mem_count = sizeof dc_mem_clauses / sizeof dc_mem_clauses[0];
