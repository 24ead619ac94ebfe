/*
 * backends/vulkan/vulkan_backend.c — the Vulkan backend's dh_backend_t table and
 * dh_backend_entry, the plugin's only exported symbol (backend.h). The entries live in
 * the other vulkan_*.c files; see vulkan_internal.h for the design.
 */
#include "vulkan_internal.h"

/*===========================================================================
 * Lifecycle: vulkan_device.c is handed what it needs from the files above it
 *===========================================================================*/
static void dh_vulkan_device_release(dh_vulkan_device_t* d) {
  dh_vulkan_streams_destroy_all(d);
  dh_vulkan_memory_release(d);
  dh_vulkan_pipelines_destroy(d);
}

static const dh_vulkan_device_hooks_t k_hooks = {dh_vulkan_stream_new, dh_vulkan_device_release};

static int dh_vulkan_init(void) { return dh_vulkan_device_init(&k_hooks); }

/*===========================================================================
 * Entry
 *===========================================================================*/
static const dh_backend_t k_backend = {
    .struct_size = sizeof(dh_backend_t),
    .abi_major = DH_BACKEND_ABI_MAJOR,
    .abi_minor = DH_BACKEND_ABI_MINOR,
    .name = "vulkan",
    .description = "Vulkan compute through the Vulkan loader (buffers, timeline-semaphore streams, "
                   "SPIR-V noop/fill)",
    .device_type = kDLVulkan,
    .caps = DH_CAP_ASYNC_COPY | DH_CAP_EVENT_TIMING | DH_CAP_PINNED_HOST,
    .target_kind = "vulkan",
    .init = dh_vulkan_init,
    .shutdown = dh_vulkan_shutdown,
    .unavailable_reason = dh_vulkan_unavailable_reason,
    .get_attr = dh_vulkan_get_attr,
    .get_target_property = dh_vulkan_get_target_property,
    .set_device = dh_vulkan_set_device,
    .alloc_data_space = dh_vulkan_alloc_data_space,
    .free_data_space = dh_vulkan_free_data_space,
    .alloc_workspace = dh_vulkan_alloc_workspace,
    .free_workspace = dh_vulkan_free_workspace,
    .alloc_host = dh_vulkan_alloc_host,
    .free_host = dh_vulkan_free_host,
    .copy_data_from_to = dh_vulkan_copy_data_from_to,
    .create_stream = dh_vulkan_create_stream,
    .free_stream = dh_vulkan_free_stream,
    .set_stream = dh_vulkan_set_stream,
    .get_current_stream = dh_vulkan_get_current_stream,
    .stream_sync = dh_vulkan_stream_sync,
    .sync_stream_from_to = dh_vulkan_sync_stream_from_to,
    .functions = dh_vulkan_functions,
    .num_functions = sizeof dh_vulkan_functions / sizeof dh_vulkan_functions[0],
    .event_create = dh_vulkan_event_create,
    .event_record = dh_vulkan_event_record,
    .event_elapsed_ms = dh_vulkan_event_elapsed_ms,
    .event_free = dh_vulkan_event_free,
    .raw = &dh_vulkan_raw_twin,
};

const dh_backend_t* dh_backend_entry(void);
__attribute__((visibility("default"))) const dh_backend_t* dh_backend_entry(void) { return &k_backend; }
