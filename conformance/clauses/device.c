/* conformance/clauses/device.c — device and registry clauses (TVM DeviceAPI::SetDevice,
 * device_api.<name> registration; docs/contract.md §Device). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void set_each(dh_conf_ctx_t* c) {
  for (int id = 0; id < c->num_devices; id++) {
    DLDevice d = {c->dev.device_type, id};
    if (dh_device_set_device(d) != 0) {
      char call[64];
      snprintf(call, sizeof call, "set_device(id %d)", id);
      dc_fail_call(c, __FILE__, __LINE__, call);
      return;
    }
  }
  CHECK_OK(dh_device_set_device(c->dev));
}

static void set_invalid(dh_conf_ctx_t* c) {
  DLDevice d = {c->dev.device_type, c->num_devices};
  CHECK_ERR(dh_device_set_device(d), NULL);
  d.device_id = -1;
  CHECK_ERR(dh_device_set_device(d), NULL);
  d.device_id = 1 << 30;
  CHECK_ERR(dh_device_set_device(d), NULL);
  CHECK_OK(dh_device_set_device(c->dev));
}

static void set_invalid_kind(dh_conf_ctx_t* c) {
  DLDevice d = {c->dev.device_type, c->num_devices};
  CHECK_ERR(dh_device_set_device(d), DH_KIND_INDEX_ERROR);
}

static void each_id_works(dh_conf_ctx_t* c) {
  uint8_t a[1000], b[1000];
  for (int id = 0; id < c->num_devices; id++) {
    DLDevice saved = c->dev;
    c->dev.device_id = id;
    dc_pattern(a, sizeof a, 300u + (uint32_t)id);
    void* p = dc_dev_alloc(c, sizeof a);
    if (p) {
      dc_upload(c, __LINE__, p, 0, a, sizeof a);
      if (!c->status) dc_download(c, __LINE__, p, 0, b, sizeof b);
      if (!c->status) {
        char what[64];
        snprintf(what, sizeof what, "round trip on device id %d", id);
        dc_check_bytes(c, __FILE__, __LINE__, what, b, a, sizeof a, 0);
      }
      dh_device_free_data_space(c->dev, p);
    }
    c->dev = saved;
    if (c->status) return;
  }
}

static void init_twice(dh_conf_ctx_t* c) {
  CHECK_OK(dh_backend_init(c->backend));
  CHECK_OK(dh_backend_init(c->backend));
  CHECK(dh_backend_unavailable_reason(c->backend) == NULL,
        "a backend with a device reports unavailable: %s", dh_backend_unavailable_reason(c->backend));
  uint8_t a[64], b[64];
  dc_pattern(a, 64, 5);
  void* p = dc_dev_alloc(c, 64);
  if (!p) return;
  dc_upload(c, __LINE__, p, 0, a, 64);
  if (!c->status) dc_download(c, __LINE__, p, 0, b, 64);
  dh_device_free_data_space(c->dev, p);
  if (!c->status) CHECK_BYTES("round trip after init twice", b, a, 64, 0);
}

static void format_parse(dh_conf_ctx_t* c) {
  char buf[64], want[96];
  dh_device_format(c->dev, buf, sizeof buf);
  snprintf(want, sizeof want, "%s:%d", c->backend->name, c->dev.device_id);
  if (strcmp(buf, want) != 0) FAIL(want, buf, "dh_device_format");
  /* malformed specs are rejected (ParseError) without touching the backend */
  const char* tails[] = {"", ":", ":-1", ":1y", ":x"};
  for (int i = 0; i < 5; i++) {
    DLDevice d;
    const dh_backend_t* b;
    snprintf(want, sizeof want, "%s%s", c->backend->name, tails[i]);
    CHECK_ERR(dh_device_parse(want, &d, &b), DH_KIND_PARSE_ERROR);
  }
  DLDevice d;
  const dh_backend_t* b;
  CHECK_ERR(dh_device_parse(":0", &d, &b), DH_KIND_PARSE_ERROR);
}

/* Entries act on the DLDevice they are given, whatever set_device made current: with
 * another device current on this thread, a 16 MiB allocation on this device lowers this
 * device's kAvailableGlobalMemory (when reported) and not the other's, and a stream
 * created for this device carries an H2D and a D2H of this device's allocation. A
 * backend that allocates or creates streams on the current device (cudaMalloc and
 * cuStreamCreate do, unless the backend switches first) fails it. */
#define EX_SIZE (16 * DC_MIB)
static int64_t available(DLDevice d) {
  dh_any_t v = dh_any_none();
  int rc = dh_device_get_attr(d, DH_ATTR_AVAILABLE_GLOBAL_MEMORY, &v);
  dh_error_clear();
  return rc == 0 && v.type_index == DH_TYPE_INT ? v.v_int64 : -1;
}

static void explicit_body(dh_conf_ctx_t* c, DLDevice other, void* p, int64_t here0, int64_t there0) {
  int64_t here1 = available(c->dev), there1 = available(other);
  if (here0 >= 0 && here1 >= 0 && there0 >= 0 && there1 >= 0 && here0 - here1 < (int64_t)EX_SIZE / 2 &&
      there0 - there1 >= (int64_t)EX_SIZE / 2) {
    char g[128];
    snprintf(g, sizeof g, "this device's dropped %lld bytes, device id %d's %lld bytes", (long long)(here0 - here1),
             other.device_id, (long long)(there0 - there1));
    FAIL("this device's kAvailableGlobalMemory drops", g,
         "a %zu-byte allocation on this device was charged to the current device (id %d)", (size_t)EX_SIZE,
         other.device_id);
  }
  dh_stream_t s = NULL;
  TRY(dc_stream_create(c, &s));
  uint8_t want[4096], got[4096];
  dc_pattern(want, sizeof want, 641);
  dc_copy(c, __LINE__, want, dc_host(), 0, p, c->dev, EX_SIZE - sizeof want, sizeof want, s);
  if (c->status == DC_PASS) dc_copy(c, __LINE__, p, c->dev, EX_SIZE - sizeof want, got, dc_host(), 0, sizeof got, s);
  if (c->status == DC_PASS && dh_device_stream_sync(c->dev, s) != 0)
    dc_fail_call(c, __FILE__, __LINE__, "stream_sync of this device's stream");
  if (s) dh_device_free_stream(c->dev, s);
  dh_error_clear();
  if (c->status) return;
  CHECK_BYTES("round trip on a stream of this device, another device current", got, want, sizeof got, 0);
}

static void explicit_device(dh_conf_ctx_t* c) {
  DLDevice other = {c->dev.device_type, c->dev.device_id == 0 ? 1 : 0};
  CHECK_OK(dh_device_set_device(other));
  int64_t here0 = available(c->dev), there0 = available(other);
  void* p = dc_dev_alloc(c, EX_SIZE);
  if (p) explicit_body(c, other, p, here0, there0);
  if (p) dh_device_free_data_space(c->dev, p);
  dh_device_set_device(c->dev);
  dh_error_clear();
}

const dh_clause_t dc_device_clauses[] = {
    {"device.set_each", "set_device succeeds on every device id", DC_MUST,
     "TVM docs §DeviceAPI \"Setting active device\" (device_target_interactions.rst:73-76)", 0,
     set_each, NULL, DC_PROFILE_TVM},
    {"device.set_invalid", "set_device on an invalid id (count, -1, 2^30) errors", DC_MUST,
     "devharness backend.h set_device; PJRT C API (invalid device ids)", 0, set_invalid, NULL,
     DC_PROFILE_STRICT},
    {"device.set_invalid_kind", "set_device on an invalid id fails with IndexError", DC_SHOULD,
     "devharness backend.h set_device", 0, set_invalid_kind, NULL, DC_PROFILE_STRICT},
    {"device.each_id_works", "every device id allocates and round-trips data", DC_MUST,
     "TVM docs §DeviceAPI device_id selects the device (device_target_interactions.rst:53-60)", 0,
     each_id_works, NULL, DC_PROFILE_TVM},
    {"device.init_twice", "init twice is harmless and the device keeps working", DC_MUST,
     "devharness device_api.h dh_backend_init", 0, init_twice, NULL, DC_PROFILE_STRICT},
    {"device.format_parse", "devices format as \"name:id\"; malformed specs give ParseError",
     DC_SHOULD, "devharness device_api.h dh_device_parse / dh_device_format", 0, format_parse, NULL,
     DC_PROFILE_STRICT},
    {"device.explicit_device", "with another device current, allocations and streams of this device are "
     "this device's (available memory, round trip on a stream)", DC_MUST, "devharness backend.h (entries act on the "
     "DLDevice given; set_device makes dev current for the calling thread)", DC_NEED_TWO_DEVICES,
     explicit_device, NULL, DC_PROFILE_STRICT},
};
const size_t dc_device_count = sizeof dc_device_clauses / sizeof dc_device_clauses[0];
