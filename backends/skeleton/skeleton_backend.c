/*
 * backends/skeleton/skeleton_backend.c — the skeleton backend's vtable and plugin
 * entry (libdevharness_skeleton.so). Every entry of dh_backend_t
 * (include/devharness/backend.h, TVM's DeviceAPI as a C vtable) is present and
 * answers NotImplementedError until it is written; init finds no device, so the
 * conformance suite SKIPs every clause with "not implemented". Copy this folder to
 * start a backend: docs/adding-a-backend.md.
 */
#include <stddef.h>

#include "skeleton_internal.h"

static const dh_backend_function_t k_functions[] = {
    {DH_FUNC_NOOP, dh_skeleton_func_noop},
    {DH_FUNC_FILL, dh_skeleton_func_fill},
    {DH_FUNC_ECHO, dh_backend_func_echo},   /* the runtime's reference echo */
    {DH_FUNC_RAISE, dh_backend_func_raise}, /* and raise: nothing device-specific */
};

static const dh_backend_t k_backend = {
    DH_BACKEND_HEADER_FIELDS,
    .name = DH_SKELETON_NAME,
    .description = "a backend that compiles and loads, every entry not implemented "
                   "(backends/skeleton/)",
    .device_type = DH_SKELETON_DEVICE_TYPE, /* 0: the loader assigns one of 64..127 */
    /* TODO(skeleton): the DH_CAP_* you claim (ASYNC_COPY, EVENT_TIMING, PINNED_HOST,
     * SINGLE_QUEUE, HOST_POINTER_ARITHMETIC); each unlocks or skips clauses. */
    .caps = 0,
    .target_kind = NULL, /* TODO(skeleton): your target kind, and .target_kind_json */
    .target_kind_json = NULL,
    DH_BACKEND_BIND_LIFECYCLE_ENTRIES(dh_skeleton),
    DH_BACKEND_BIND_DEVICE_ENTRIES(dh_skeleton),
    DH_BACKEND_BIND_MEMORY_ENTRIES(dh_skeleton),
    DH_BACKEND_BIND_WORKSPACE_ENTRIES(dh_skeleton), /* optional: NULL = data space */
    DH_BACKEND_BIND_HOST_ENTRIES(dh_skeleton),      /* optional: DH_CAP_PINNED_HOST */
    DH_BACKEND_BIND_STREAM_ENTRIES(dh_skeleton),
    .functions = k_functions,
    .num_functions = sizeof k_functions / sizeof k_functions[0],
    DH_BACKEND_BIND_EVENT_ENTRIES(dh_skeleton), /* optional: DH_CAP_EVENT_TIMING */
    .raw = &dh_skeleton_raw_twin,
    .default_profile = NULL, /* strict */
    .device_count = NULL,    /* the core counts kExist from id 0 */
};

/* The plugin entry point (backend.h): the only exported symbol. */
__attribute__((visibility("default"))) const dh_backend_t* dh_backend_entry(void) {
  return &k_backend;
}
