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
    DH_BACKEND_HEADER_FIELDS,
    .name = "vulkan",
    .description = "Vulkan compute through the Vulkan loader (buffers, timeline-semaphore streams, "
                   "SPIR-V noop/fill)",
    .device_type = kDLVulkan,
    .caps = DH_CAP_ASYNC_COPY | DH_CAP_EVENT_TIMING | DH_CAP_PINNED_HOST,
    .target_kind = "vulkan",
    DH_BACKEND_BIND_ALL_ENTRIES(dh_vulkan),
    .functions = dh_vulkan_functions,
    .num_functions = sizeof dh_vulkan_functions / sizeof dh_vulkan_functions[0],
    .raw = &dh_vulkan_raw_twin,
};

const dh_backend_t* dh_backend_entry(void);
__attribute__((visibility("default"))) const dh_backend_t* dh_backend_entry(void) { return &k_backend; }
