/*
 * conformance/clauses/harness.c — harness self-tests: clauses that test devharness's own
 * core (the copy checks of runtime/device_api.c, the registry of runtime/plugin.c),
 * not the backend. They carry DC_ONCE: the runner runs them on the first device of a
 * run and skips them, saying so, on the others, so a verdict per device never rests on
 * them. The backend-facing halves are copy.size_mismatch and copy.non_contiguous (for a
 * backend that takes DLTensors itself, backend.h copy_tensor_from_to).
 */
#include <stdio.h>
#include <string.h>

#include "check.h"

static void host_tensor(DLTensor* t, void* data, int ndim, int64_t* shape, DLDataType dt) {
  memset(t, 0, sizeof *t);
  t->data = data;
  t->device = dc_host();
  t->ndim = ndim;
  t->shape = shape;
  t->dtype = dt;
}

/* One copy the core must refuse with ValueError whose message contains `needle`. */
static void refused(dh_conf_ctx_t* c, int line, const DLTensor* a, const DLTensor* b, const char* needle) {
  int rc = dh_device_copy_data_from_to(a, b, NULL);
  const char* kind = rc == -1 ? dh_error_kind() : NULL;
  char got[DC_VAL_MAX];
  snprintf(got, sizeof got, "%d%s%s: %s", rc, kind ? " with " : "", kind ? kind : "", rc ? dh_error_message() : "");
  if (rc != -1 || kind == NULL || strcmp(kind, DH_KIND_VALUE_ERROR) != 0 || strstr(dh_error_message(), needle) == NULL)
    dc_fail(c, __FILE__, line, "-1 with ValueError naming the mismatch", got,
            "the core let a copy through or refused it unclearly (message should contain \"%s\")", needle);
  dh_error_clear();
}

/* The core's checks before a flat copy_data_from_to, on two host tensors (the check is
 * the same whatever device a flat backend serves). */
static void copy_checks(dh_conf_ctx_t* c) {
  uint8_t a_buf[64], b_buf[64];
  DLDataType u8 = dc_u8(), i4 = {kDLInt, 4, 1}, f32 = {kDLFloat, 32, 1};
  int64_t s12[1] = {12}, s16[1] = {16}, sq[2] = {4, 4}, st[2] = {1, 4};
  DLTensor a, b;
  host_tensor(&a, a_buf, 1, s12, u8);
  host_tensor(&b, b_buf, 1, s16, u8);
  refused(c, __LINE__, &a, &b, "12 bytes");
  host_tensor(&a, a_buf, 1, s16, i4); /* 8 packed bytes (tvm-ffi GetDataSize) */
  if (!c->status) refused(c, __LINE__, &a, &b, "8 bytes");
  host_tensor(&a, a_buf, 2, sq, f32);
  host_tensor(&b, b_buf, 2, sq, f32);
  b.strides = st;
  if (!c->status) refused(c, __LINE__, &a, &b, "contiguous");
  if (c->status) return;
  b.strides = NULL;
  CHECK_OK(dh_device_copy_data_from_to(&a, &b, NULL));
}

static void registry_same(dh_conf_ctx_t* c) {
  const dh_backend_t *a = NULL, *b = NULL, *t = NULL;
  CHECK_OK(dh_device_api_get(c->backend->name, &a));
  CHECK_OK(dh_device_api_get(c->backend->name, &b));
  CHECK_OK(dh_device_api_get_by_type(c->dev.device_type, &t));
  CHECK(a == b, "device_api.%s returned %p then %p", c->backend->name, (const void*)a, (const void*)b);
  CHECK(a == t, "by name %p, by device type %p", (const void*)a, (const void*)t);
}

static void registry_function(dh_conf_ctx_t* c) {
  char name[128];
  snprintf(name, sizeof name, DH_DEVICE_API_PREFIX "%s", c->backend->name);
  dh_function_t fn;
  CHECK_OK(dh_func_get(name, &fn));
  dh_any_t r1 = dh_any_none(), r2 = dh_any_none();
  int rc1 = dh_func_call(&fn, NULL, 0, &r1);
  int rc2 = dh_func_call(&fn, NULL, 0, &r2);
  dh_func_release(&fn);
  CHECK_OK(rc1);
  CHECK_OK(rc2);
  CHECK_EQ_INT(r1.type_index, DH_TYPE_OPAQUE_PTR, "%s() result type index", name);
  CHECK(r1.v_ptr == r2.v_ptr, "%s() returned different backends", name);
  const dh_backend_t* b = NULL;
  CHECK_OK(dh_device_api_get(c->backend->name, &b));
  CHECK(r1.v_ptr == (const void*)b, "%s() returned %p, dh_device_api_get %p", name, r1.v_ptr,
        (const void*)b);
}

static void unknown_backend(dh_conf_ctx_t* c) {
  const dh_backend_t* b = NULL;
  CHECK_ERR(dh_device_api_get("no_such_backend_xyz", &b), DH_KIND_KEY_ERROR);
  int rc = dh_device_api_get("no_such_backend_xyz", &b);
  CHECK(rc == -1 && strstr(dh_error_message(), "is not enabled"),
        "message \"%s\" does not say \"Device API no_such_backend_xyz is not enabled\"",
        dh_error_message());
}

const dh_clause_t dc_harness_clauses[] = {
    {"harness.copy_checks", "the core refuses, with ValueError naming the mismatch, tensors of different "
     "byte sizes (int4[16] against uint8[16] included) and non-contiguous tensors before a flat "
     "copy_data_from_to is called", DC_MUST,
     "devharness device_api.h dh_device_copy_data_from_to (TVM's checks, apache/tvm 0.27 "
     "src/runtime/device_api.cc:146-150, made before the backend)", DC_ONCE, copy_checks, NULL,
     DC_PROFILE_STRICT},
    {"harness.registry_same", "the registry returns the same backend by name and by device type",
     DC_MUST, "TVM docs §DeviceAPI registration as device_api.<name> "
     "(device_target_interactions.rst:143-159), devharness's registry (runtime/plugin.c)", DC_ONCE,
     registry_same, NULL, DC_PROFILE_STRICT},
    {"harness.registry_function", "devharness.device_api.<name> (TVM's device_api.<name> under "
     "devharness's prefix) is a global function returning the backend",
     DC_MUST, "TVM docs §DeviceAPI registration as device_api.<name> "
     "(device_target_interactions.rst:143-159); devharness device_api.h DH_DEVICE_API_PREFIX", DC_ONCE,
     registry_function, NULL, DC_PROFILE_STRICT},
    {"harness.unknown_backend", "an unknown backend name gives \"Device API <name> is not enabled\"",
     DC_MUST, "apache/tvm 0.27 src/runtime/device_api.cc:84-90 (\"Device API x is not enabled\"), "
     "devharness's registry (runtime/plugin.c)", DC_ONCE, unknown_backend, NULL, DC_PROFILE_STRICT},
};
const size_t dc_harness_count = sizeof dc_harness_clauses / sizeof dc_harness_clauses[0];
