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
    .struct_size = sizeof(dh_backend_t),
    .abi_major = DH_BACKEND_ABI_MAJOR,
    .abi_minor = DH_BACKEND_ABI_MINOR,
    .reserved = 0,
    .name = "skeleton", /* TODO(skeleton): your backend's name */
    .description = "a backend that compiles and loads, every entry not implemented "
                   "(backends/skeleton/)",
    .device_type = DH_SKELETON_DEVICE_TYPE,
    /* TODO(skeleton): the DH_CAP_* you claim (ASYNC_COPY, EVENT_TIMING, PINNED_HOST,
     * SINGLE_QUEUE, HOST_POINTER_ARITHMETIC); each unlocks or skips clauses. */
    .caps = 0,
    .target_kind = NULL, /* TODO(skeleton): your target kind, and .target_kind_json */
    .target_kind_json = NULL,
    .init = dh_skeleton_init,
    .shutdown = dh_skeleton_shutdown,
    .unavailable_reason = dh_skeleton_unavailable_reason,
    .get_attr = dh_skeleton_get_attr,
    .get_target_property = dh_skeleton_get_target_property,
    .set_device = dh_skeleton_set_device,
    .alloc_data_space = dh_skeleton_alloc_data_space,
    .free_data_space = dh_skeleton_free_data_space,
    .alloc_workspace = dh_skeleton_alloc_workspace,
    .free_workspace = dh_skeleton_free_workspace,
    .alloc_host = dh_skeleton_alloc_host,
    .free_host = dh_skeleton_free_host,
    .copy_data_from_to = dh_skeleton_copy_data_from_to,
    .create_stream = dh_skeleton_create_stream,
    .free_stream = dh_skeleton_free_stream,
    .set_stream = dh_skeleton_set_stream,
    .get_current_stream = dh_skeleton_get_current_stream,
    .stream_sync = dh_skeleton_stream_sync,
    .sync_stream_from_to = dh_skeleton_sync_stream_from_to,
    .functions = k_functions,
    .num_functions = sizeof k_functions / sizeof k_functions[0],
    .event_create = dh_skeleton_event_create,
    .event_record = dh_skeleton_event_record,
    .event_elapsed_ms = dh_skeleton_event_elapsed_ms,
    .event_free = dh_skeleton_event_free,
    .raw = &dh_skeleton_raw_twin,
    .default_profile = NULL, /* strict */
    .device_count = NULL,    /* the core counts kExist from id 0 */
};

/* The plugin entry point (backend.h): the only exported symbol. */
__attribute__((visibility("default"))) const dh_backend_t* dh_backend_entry(void) {
  return &k_backend;
}
