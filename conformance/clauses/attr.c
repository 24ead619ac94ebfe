/* conformance/clauses/attr.c — attribute clauses (TVM DeviceAPI::GetAttr, docs/contract.md
 * §Attributes). */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Declared value type of each TVM DeviceAttrKind (docs/contract.md §Attributes). */
static int attr_type(int kind) {
  switch (kind) {
    case DH_ATTR_COMPUTE_VERSION:
    case DH_ATTR_DEVICE_NAME:
    case DH_ATTR_MAX_THREAD_DIMENSIONS:
    case DH_ATTR_GCN_ARCH:
    case DH_ATTR_DRIVER_VERSION:
      return DH_TYPE_RAW_STR;
    default:
      return DH_TYPE_INT;
  }
}

static void get_attr(dh_conf_ctx_t* c, int line, int kind, dh_any_t* v) {
  *v = dh_any_none();
  if (dh_device_get_attr(c->dev, (dh_attr_kind_t)kind, v) != 0) {
    char call[64];
    snprintf(call, sizeof call, "get_attr(kind %d)", kind);
    dc_fail_call(c, __FILE__, line, call);
  }
}
#define GET_ATTR(kind, v) TRY(get_attr(c, __LINE__, (kind), (v)))

static void exist_valid(dh_conf_ctx_t* c) {
  for (int id = 0; id < c->num_devices; id++) {
    DLDevice d = {c->dev.device_type, id};
    dh_any_t v = dh_any_none();
    CHECK_OK(dh_device_get_attr(d, DH_ATTR_EXIST, &v));
    CHECK_EQ_INT(v.type_index, DH_TYPE_INT, "kExist of device id %d: type index", id);
    CHECK_EQ_INT(v.v_int64, 1, "kExist of device id %d", id);
  }
}

static void exist_past_last(dh_conf_ctx_t* c) {
  int ids[] = {c->num_devices, c->num_devices + 1, DH_MAX_DEVICES_PER_BACKEND, 1000000};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    DLDevice d = {c->dev.device_type, ids[i]};
    dh_any_t v = dh_any_none();
    int rc = dh_device_get_attr(d, DH_ATTR_EXIST, &v);
    if (rc != 0) {
      char got[DC_VAL_MAX];
      snprintf(got, sizeof got, "-1 (%s: %s)", dh_error_kind() ? dh_error_kind() : "?",
               dh_error_message());
      FAIL("0 (success) with Int 0", got, "get_attr(kExist) for device id %d (past the last "
           "device %d) errored", ids[i], c->num_devices - 1);
    }
    CHECK_EQ_INT(v.type_index, DH_TYPE_INT, "kExist of device id %d: type index", ids[i]);
    CHECK_EQ_INT(v.v_int64, 0, "kExist of device id %d (past the last device)", ids[i]);
  }
}

/* kExist against an independent route: set_device and get_attr(kDeviceName) answer
 * for exactly the ids kExist says exist (the runner counts devices by both, so an
 * over-reported id is named here instead of becoming a phantom device). */
static void exist_count(dh_conf_ctx_t* c) {
  for (int id = 0; id <= c->num_devices + 1; id++) {
    DLDevice d = {c->dev.device_type, id};
    dh_any_t v = dh_any_none();
    CHECK_OK(dh_device_get_attr(d, DH_ATTR_EXIST, &v));
    int says = v.type_index == DH_TYPE_INT && v.v_int64 == 1;
    int set_ok = dh_device_set_device(d) == 0;
    char kind[64];
    snprintf(kind, sizeof kind, "%s", set_ok ? "" : (dh_error_kind() ? dh_error_kind() : "?"));
    dh_error_clear();
    dh_any_t name = dh_any_none();
    int name_ok = dh_device_get_attr(d, DH_ATTR_DEVICE_NAME, &name) == 0;
    dh_error_clear();
    if (says != set_ok || says != name_ok) {
      char e[128], g[160];
      snprintf(e, sizeof e, "kExist, set_device and get_attr(kDeviceName) agree for device id %d", id);
      snprintf(g, sizeof g, "kExist %d, set_device %s%s%s, get_attr(kDeviceName) %s", says,
               set_ok ? "ok" : "failed", kind[0] ? " with " : "", kind, name_ok ? "ok" : "failed");
      dh_device_set_device(c->dev);
      FAIL(e, g, "device id %d: kExist disagrees with the device's own entries (%d device%s counted)",
           id, c->num_devices, c->num_devices == 1 ? "" : "s");
    }
  }
  dh_device_set_device(c->dev);
  dh_error_clear();
}

static void exist_negative(dh_conf_ctx_t* c) {
  DLDevice d = {c->dev.device_type, -1};
  dh_any_t v = dh_any_none();
  CHECK_OK(dh_device_get_attr(d, DH_ATTR_EXIST, &v));
  CHECK_EQ_INT(v.type_index, DH_TYPE_INT, "kExist of device id -1: type index");
  CHECK_EQ_INT(v.v_int64, 0, "kExist of device id -1");
}

static void types(dh_conf_ctx_t* c) {
  for (int k = 0; k < DH_ATTR_KIND_COUNT; k++) {
    dh_any_t v;
    GET_ATTR(k, &v);
    if (v.type_index == DH_TYPE_NONE) continue;
    if (v.type_index != attr_type(k)) {
      char e[64], g[64];
      snprintf(e, sizeof e, "None or %s", dh_type_index_name(attr_type(k)));
      snprintf(g, sizeof g, "%s", dh_type_index_name(v.type_index));
      FAIL(e, g, "attribute kind %d has the wrong type", k);
    }
    if (v.type_index == DH_TYPE_RAW_STR) CHECK(v.v_c_str != NULL, "attribute kind %d: RawStr NULL", k);
  }
}

static void max_thread_dims(dh_conf_ctx_t* c) {
  dh_any_t v;
  GET_ATTR(DH_ATTR_MAX_THREAD_DIMENSIONS, &v);
  if (v.type_index == DH_TYPE_NONE) SKIP("kMaxThreadDimensions not reported (None)");
  CHECK_EQ_INT(v.type_index, DH_TYPE_RAW_STR, "kMaxThreadDimensions type index");
  json_error_t err;
  json_t* j = json_loads(v.v_c_str, 0, &err);
  int ok = j && json_is_array(j) && json_array_size(j) == 3;
  for (size_t i = 0; ok && i < 3; i++) {
    json_t* e = json_array_get(j, i);
    ok = json_is_integer(e) && json_integer_value(e) > 0;
  }
  json_decref(j);
  if (!ok) FAIL("JSON array of 3 positive ints", v.v_c_str, "kMaxThreadDimensions is malformed");
}

static void device_name(dh_conf_ctx_t* c) {
  dh_any_t v;
  GET_ATTR(DH_ATTR_DEVICE_NAME, &v);
  if (v.type_index == DH_TYPE_NONE) FAIL("a non-empty string", "None", "kDeviceName not reported");
  CHECK_EQ_INT(v.type_index, DH_TYPE_RAW_STR, "kDeviceName type index");
  CHECK(v.v_c_str && v.v_c_str[0], "kDeviceName is empty");
}

static void compute_version(dh_conf_ctx_t* c) {
  dh_any_t v;
  GET_ATTR(DH_ATTR_COMPUTE_VERSION, &v);
  if (v.type_index != DH_TYPE_RAW_STR) SKIP("kComputeVersion not reported as a string");
  unsigned a, b;
  char tail;
  /* TVM: "major.minor"; OpenCL reports "OpenCL 3.0 ..." (docs/contract.md §Attributes), so accept a
   * leading word. */
  const char* s = v.v_c_str;
  int ok = sscanf(s, "%u.%u%c", &a, &b, &tail) == 2 ||
           (strncmp(s, "OpenCL ", 7) == 0 && sscanf(s + 7, "%u.%u", &a, &b) == 2);
  if (!ok) FAIL("\"major.minor\"", s, "kComputeVersion is not major.minor");
}

static void total_positive(dh_conf_ctx_t* c) {
  dh_any_t v;
  GET_ATTR(DH_ATTR_TOTAL_GLOBAL_MEMORY, &v);
  if (v.type_index == DH_TYPE_NONE) SKIP("kTotalGlobalMemory not reported (None)");
  CHECK(v.type_index == DH_TYPE_INT && v.v_int64 > 0, "kTotalGlobalMemory is %" PRId64,
        v.v_int64);
}

static void available_le_total(dh_conf_ctx_t* c) {
  dh_any_t t, a;
  GET_ATTR(DH_ATTR_TOTAL_GLOBAL_MEMORY, &t);
  GET_ATTR(DH_ATTR_AVAILABLE_GLOBAL_MEMORY, &a);
  if (t.type_index != DH_TYPE_INT || a.type_index != DH_TYPE_INT)
    SKIP("kTotalGlobalMemory/kAvailableGlobalMemory not both reported");
  if (a.v_int64 < 0 || a.v_int64 > t.v_int64) {
    char e[64], g[64];
    snprintf(e, sizeof e, "0 <= available <= %" PRId64, t.v_int64);
    snprintf(g, sizeof g, "%" PRId64, a.v_int64);
    FAIL(e, g, "kAvailableGlobalMemory out of range");
  }
}

#define AVAIL_N (16 * DC_MIB)

/* kAvailableGlobalMemory into *a0, then an AVAIL_N-byte allocation into *p (NULL after a
 * skip or failure recorded in c). */
static void avail_then_alloc(dh_conf_ctx_t* c, dh_any_t* a0, void** p) {
  *p = NULL;
  GET_ATTR(DH_ATTR_AVAILABLE_GLOBAL_MEMORY, a0);
  if (a0->type_index != DH_TYPE_INT) SKIP("kAvailableGlobalMemory not reported");
  *p = dc_dev_alloc(c, AVAIL_N);
}

static void available_drops(dh_conf_ctx_t* c) {
  dh_any_t a0, a1;
  void* p;
  avail_then_alloc(c, &a0, &p);
  if (!p) return;
  GET_ATTR(DH_ATTR_AVAILABLE_GLOBAL_MEMORY, &a1);
  int64_t drop = a0.v_int64 - a1.v_int64;
  dh_device_free_data_space(c->dev, p);
  if (drop < (int64_t)AVAIL_N) {
    char e[64], g[64];
    snprintf(e, sizeof e, ">= %zu", AVAIL_N);
    snprintf(g, sizeof g, "%" PRId64, drop);
    FAIL(e, g, "kAvailableGlobalMemory dropped by %" PRId64 " bytes after a %zu-byte allocation",
         drop, AVAIL_N);
  }
}

static void available_restored(dh_conf_ctx_t* c) {
  dh_any_t a0, a1;
  void* p;
  avail_then_alloc(c, &a0, &p);
  if (!p) return;
  TRY(dc_dev_free(c, p));
  GET_ATTR(DH_ATTR_AVAILABLE_GLOBAL_MEMORY, &a1);
  if (a1.v_int64 < a0.v_int64 - (int64_t)(AVAIL_N / 16)) {
    char e[64], g[64];
    snprintf(e, sizeof e, ">= %" PRId64, a0.v_int64 - (int64_t)(AVAIL_N / 16));
    snprintf(g, sizeof g, "%" PRId64, a1.v_int64);
    FAIL(e, g, "kAvailableGlobalMemory did not come back after free (before: %" PRId64 ")",
         a0.v_int64);
  }
}

struct mm {
  dh_conf_ctx_t* c;
  int n;
  char text[DC_MSG_MAX];
  char exp[DC_VAL_MAX];
  char got[DC_VAL_MAX];
};

static void on_mismatch(const char* option, const char* expected, const char* got, void* user) {
  struct mm* m = user;
  size_t l = strlen(m->text);
  snprintf(m->text + l, sizeof m->text - l, "%s%s: declared %s, device has %s", m->n ? "; " : "",
           option, expected, got);
  l = strlen(m->exp);
  snprintf(m->exp + l, sizeof m->exp - l, "%s%s=%s", m->n ? ", " : "", option, expected);
  l = strlen(m->got);
  snprintf(m->got + l, sizeof m->got - l, "%s%s=%s", m->n ? ", " : "", option, got);
  m->n++;
}

static void target_match(dh_conf_ctx_t* c) {
  if (!c->target) SKIP("no --target given");
  struct mm m;
  memset(&m, 0, sizeof m);
  m.c = c;
  int n = dh_target_check_device(c->target, c->dev, on_mismatch, NULL, &m);
  if (n < 0) {
    dc_fail_call(c, __FILE__, __LINE__, "dh_target_check_device");
    return;
  }
  if (n > 0) {
    /* one detail line per mismatch */
    char* out = c->details;
    size_t left = sizeof c->details;
    const char* p = m.text;
    while (*p && left > 1) {
      const char* semi = strstr(p, "; ");
      size_t len = semi ? (size_t)(semi - p) : strlen(p);
      if (len + 2 > left) break;
      memcpy(out, p, len);
      out[len] = '\n';
      out += len + 1;
      left -= len + 1;
      *out = 0;
      p = semi ? semi + 2 : p + len;
    }
  }
  if (n > 0)
    FAIL(m.exp, m.got, "%d declared propert%s of target %s differ%s from the device: %s", n,
         n == 1 ? "y" : "ies", c->target_name ? c->target_name : "?", n == 1 ? "s" : "", m.text);
}

static void invalid_id(dh_conf_ctx_t* c) {
  int ids[] = {c->num_devices, -1, 1000000};
  for (size_t i = 0; i < 3; i++) {
    DLDevice d = {c->dev.device_type, ids[i]};
    dh_any_t v = dh_any_none();
    CHECK_ERR(dh_device_get_attr(d, DH_ATTR_DEVICE_NAME, &v), NULL);
    CHECK_ERR(dh_device_get_attr(d, DH_ATTR_TOTAL_GLOBAL_MEMORY, &v), NULL);
  }
}

static void invalid_id_kind(dh_conf_ctx_t* c) {
  DLDevice d = {c->dev.device_type, c->num_devices};
  dh_any_t v = dh_any_none();
  CHECK_ERR(dh_device_get_attr(d, DH_ATTR_DEVICE_NAME, &v), DH_KIND_INDEX_ERROR);
}

static void unknown_kind(dh_conf_ctx_t* c) {
  int kinds[] = {DH_ATTR_KIND_COUNT, 1000, -1};
  for (size_t i = 0; i < 3; i++) {
    dh_any_t v = dh_any_none();
    CHECK_ERR(dh_device_get_attr(c->dev, (dh_attr_kind_t)kinds[i], &v), NULL);
  }
}

static void unknown_kind_kind(dh_conf_ctx_t* c) {
  dh_any_t v = dh_any_none();
  CHECK_ERR(dh_device_get_attr(c->dev, (dh_attr_kind_t)DH_ATTR_KIND_COUNT, &v), DH_KIND_VALUE_ERROR);
}

/* The attributes a device has from its hardware, not from its use: attr.stable and
 * attr.stable_with_streams read them (kAvailableGlobalMemory moves with use). */
static const int static_kinds[] = {DH_ATTR_EXIST, DH_ATTR_MAX_THREADS_PER_BLOCK, DH_ATTR_WARP_SIZE,
                                   DH_ATTR_DEVICE_NAME, DH_ATTR_MULTI_PROCESSOR_COUNT,
                                   DH_ATTR_MAX_THREAD_DIMENSIONS, DH_ATTR_TOTAL_GLOBAL_MEMORY};
#define N_STATIC_KINDS (sizeof static_kinds / sizeof static_kinds[0])

static void stable(dh_conf_ctx_t* c) {
  for (size_t i = 0; i < N_STATIC_KINDS; i++) {
    dh_any_t a, b;
    GET_ATTR(static_kinds[i], &a);
    GET_ATTR(static_kinds[i], &b);
    CHECK(dh_any_equal(&a, &b), "attribute kind %d changed between two reads", static_kinds[i]);
  }
}

/* The static attributes read before, while and after SWS_N streams are live give one
 * answer: a device's hardware does not change as a caller creates queues (TVM's callers,
 * e.g. the graph executor's schedule, read kMaxThreadsPerBlock and
 * kMultiProcessorCount once and keep them). */
#define SWS_N 4
typedef struct {
  dh_stream_t s[SWS_N];
  int n;
} sws_t;
static void sws_release(dh_conf_ctx_t* c, sws_t* st) {
  for (int i = st->n - 1; i >= 0; i--)
    if (dh_device_free_stream(c->dev, st->s[i]) != 0 && c->status == DC_PASS)
      dc_fail_call(c, __FILE__, __LINE__, "free_stream");
  st->n = 0;
}
static void sws_compare(dh_conf_ctx_t* c, const dh_any_t* before, const char* when) {
  for (size_t i = 0; i < N_STATIC_KINDS; i++) {
    dh_any_t v;
    GET_ATTR(static_kinds[i], &v);
    CHECK(dh_any_equal(&before[i], &v), "attribute kind %d changed %s", static_kinds[i], when);
  }
}
DC_WITH_STATE(stable_with_streams, sws_t, st, sws_release) {
  dh_any_t before[N_STATIC_KINDS];
  for (size_t i = 0; i < N_STATIC_KINDS; i++) GET_ATTR(static_kinds[i], &before[i]);
  for (st->n = 0; st->n < SWS_N;) {
    TRY(dc_stream_create(c, &st->s[st->n]));
    st->n++;
  }
  TRY(sws_compare(c, before, "while 4 streams were live"));
  sws_release(c, st);
  if (c->status) return;
  sws_compare(c, before, "after 4 streams were created and freed");
}

static void positive_ints(dh_conf_ctx_t* c) {
  int kinds[] = {DH_ATTR_MAX_THREADS_PER_BLOCK, DH_ATTR_WARP_SIZE, DH_ATTR_MULTI_PROCESSOR_COUNT,
                 DH_ATTR_MAX_CLOCK_RATE, DH_ATTR_L2_CACHE_SIZE_BYTES};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    dh_any_t a;
    GET_ATTR(kinds[i], &a);
    if (a.type_index != DH_TYPE_INT) continue;
    if (a.v_int64 <= 0) {
      char g[32];
      snprintf(g, sizeof g, "%" PRId64, a.v_int64);
      FAIL("> 0", g, "attribute kind %d is not positive", kinds[i]);
    }
  }
}

/* kAvailableGlobalMemory is per device: an allocation on this device does not lower
 * another device's (a backend that counts the process's allocations, or the current
 * device's, fails). Needs the attribute on both devices. */
static void available_per_device(dh_conf_ctx_t* c) {
  DLDevice other = {c->dev.device_type, c->dev.device_id == 0 ? 1 : 0};
  dh_any_t h0, h1, o0 = dh_any_none(), o1 = dh_any_none();
  GET_ATTR(DH_ATTR_AVAILABLE_GLOBAL_MEMORY, &h0);
  if (h0.type_index != DH_TYPE_INT) SKIP("kAvailableGlobalMemory not reported");
  CHECK_OK(dh_device_get_attr(other, DH_ATTR_AVAILABLE_GLOBAL_MEMORY, &o0));
  void* p = dc_dev_alloc(c, AVAIL_N);
  if (!p) return;
  int rc = dh_device_get_attr(other, DH_ATTR_AVAILABLE_GLOBAL_MEMORY, &o1);
  int rh = dh_device_get_attr(c->dev, DH_ATTR_AVAILABLE_GLOBAL_MEMORY, &h1);
  dh_device_free_data_space(c->dev, p);
  dh_error_clear();
  CHECK(rc == 0 && rh == 0 && o0.type_index == DH_TYPE_INT && o1.type_index == DH_TYPE_INT &&
            h1.type_index == DH_TYPE_INT, "kAvailableGlobalMemory of device %d or %d not an Int",
        c->dev.device_id, other.device_id);
  int64_t here = h0.v_int64 - h1.v_int64, there = o0.v_int64 - o1.v_int64;
  if (here >= (int64_t)AVAIL_N && there >= (int64_t)AVAIL_N / 2) {
    char g[96];
    snprintf(g, sizeof g, "this device's dropped %" PRId64 ", device id %d's %" PRId64, here,
             other.device_id, there);
    FAIL("only this device's drops", g, "a %zu-byte allocation on this device lowered another device's "
         "kAvailableGlobalMemory", AVAIL_N);
  }
}

const dh_clause_t dc_attr_clauses[] = {
    {"attr.exist_valid", "kExist is Int 1 for every device id below the device count", DC_MUST,
     "TVM docs §DeviceAPI \"Attribute queries\" (device_target_interactions.rst:64-71); "
     "apache/tvm 0.27 include/tvm/runtime/device_api.h:86 kExist", 0, exist_valid, NULL,
     DC_PROFILE_TVM},
    {"attr.exist_past_last", "kExist never errors and is 0 for ids past the last device", DC_MUST,
     "devharness backend.h get_attr (TVM CPU answers 1 for any id: apache/tvm 0.27 "
     "src/runtime/cpu_device_api.cc:56-58)", 0, exist_past_last, NULL, DC_PROFILE_STRICT},
    {"attr.exist_count",
     "kExist is 1 for exactly the ids set_device and get_attr(kDeviceName) accept (ids 0..count+1)",
     DC_MUST, "devharness backend.h get_attr (kExist 0 without a device) checked by an independent "
     "route (set_device, kDeviceName); the runner counts devices by both", 0, exist_count, NULL,
     DC_PROFILE_STRICT},
    {"attr.exist_negative", "kExist is 0, not an error, for device id -1", DC_SHOULD,
     "devharness backend.h get_attr", 0, exist_negative, NULL, DC_PROFILE_STRICT},
    {"attr.types", "every attribute kind 0..16 is None or of its declared type", DC_MUST,
     "devharness backend.h dh_attr_kind_t value types (TVM declares none: apache/tvm 0.27 "
     "include/tvm/runtime/device_api.h:85-103)", 0, types, NULL, DC_PROFILE_STRICT},
    {"attr.max_thread_dims", "kMaxThreadDimensions is a JSON array of 3 positive ints", DC_MUST,
     "devharness backend.h dh_attr_kind_t (JSON as TVM CUDA writes it)", 0, max_thread_dims, NULL,
     DC_PROFILE_STRICT},
    {"attr.device_name", "kDeviceName is a non-empty string", DC_SHOULD,
     "devharness backend.h dh_attr_kind_t", 0, device_name, NULL, DC_PROFILE_STRICT},
    {"attr.compute_version", "kComputeVersion, when reported, reads \"major.minor\"", DC_SHOULD,
     "devharness backend.h dh_attr_kind_t", 0, compute_version, NULL, DC_PROFILE_STRICT},
    {"attr.positive_ints", "reported thread/warp/SM/clock/L2 attributes are positive", DC_SHOULD,
     "devharness backend.h dh_attr_kind_t", 0, positive_ints, NULL, DC_PROFILE_STRICT},
    {"attr.total_memory", "kTotalGlobalMemory, when reported, is positive", DC_MUST,
     "devharness backend.h dh_attr_kind_t", 0, total_positive, NULL, DC_PROFILE_STRICT},
    {"attr.available_le_total", "kAvailableGlobalMemory is between 0 and kTotalGlobalMemory",
     DC_MUST, "devharness backend.h dh_attr_kind_t", DC_RUN_ALONE, available_le_total, NULL,
     DC_PROFILE_STRICT},
    {"attr.available_drops", "kAvailableGlobalMemory drops by >= N after an N-byte allocation",
     DC_SHOULD, "devharness backend.h dh_attr_kind_t", DC_RUN_ALONE, available_drops, NULL, DC_PROFILE_STRICT},
    {"attr.available_restored", "kAvailableGlobalMemory comes back after the allocation is freed",
     DC_SHOULD, "devharness backend.h dh_attr_kind_t", DC_RUN_ALONE, available_restored, NULL,
     DC_PROFILE_STRICT},
    {"attr.target_match", "every property the device's target declares equals the live value",
     DC_MUST,
     "apache/tvm 0.27 include/tvm/runtime/device_api.h:157-163 GetTargetProperty (\"expand "
     "-from_device\")", DC_NEED_TARGET, target_match, NULL, DC_PROFILE_TVM},
    {"attr.invalid_id", "get_attr on an invalid device id errors instead of crashing", DC_MUST,
     "devharness backend.h get_attr; PJRT C API (invalid device ids fail clearly)", 0, invalid_id,
     NULL, DC_PROFILE_STRICT},
    {"attr.invalid_id_kind", "get_attr on an invalid device id fails with IndexError", DC_SHOULD,
     "devharness backend.h get_attr", 0, invalid_id_kind, NULL, DC_PROFILE_STRICT},
    {"attr.unknown_kind", "unknown attribute kinds (17, 1000, -1) error instead of crashing",
     DC_MUST, "devharness backend.h get_attr (TVM backends have no default branch)", 0,
     unknown_kind, NULL, DC_PROFILE_STRICT},
    {"attr.unknown_kind_kind", "an unknown attribute kind fails with ValueError", DC_SHOULD,
     "devharness backend.h get_attr", 0, unknown_kind_kind, NULL, DC_PROFILE_STRICT},
    {"attr.stable", "static attributes read twice give the same value", DC_SHOULD,
     "devharness backend.h get_attr", 0, stable, NULL, DC_PROFILE_STRICT},
    {"attr.stable_with_streams", "static attributes keep their values while streams are live and after they are freed",
     DC_SHOULD, "devharness backend.h get_attr; TVM 0.27 include/tvm/runtime/device_api.h GetAttr (device properties)",
     0, stable_with_streams, NULL, DC_PROFILE_STRICT},
    {"attr.available_per_device", "an allocation on this device does not lower another device's "
     "kAvailableGlobalMemory", DC_SHOULD, "devharness backend.h get_attr (attributes of the device "
     "given)", DC_NEED_TWO_DEVICES | DC_RUN_ALONE, available_per_device, NULL, DC_PROFILE_STRICT},
};
const size_t dc_attr_count = sizeof dc_attr_clauses / sizeof dc_attr_clauses[0];
