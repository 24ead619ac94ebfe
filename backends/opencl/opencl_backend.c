/*
 * backends/opencl/opencl_backend.c — the OpenCL backend's dh_backend_t (plugin ABI,
 * include/devharness/backend.h) and its entry point dh_backend_entry, the plugin's only
 * exported symbol. The entries themselves live in the other opencl_*.c files
 * (opencl_internal.h lists them).
 */
#include "opencl_internal.h"

/*===========================================================================
 * Module functions (opencl_kernels.c)
 *===========================================================================*/

static const dh_backend_function_t k_functions[] = {
    {DH_FUNC_NOOP, dh_opencl_func_noop},
    {DH_FUNC_FILL, dh_opencl_func_fill},
    {DH_FUNC_ECHO, dh_backend_func_echo},
    {DH_FUNC_RAISE, dh_backend_func_raise},
};

/*===========================================================================
 * The backend
 *===========================================================================*/

static const dh_backend_t k_backend = {
    .struct_size = sizeof(dh_backend_t),
    .abi_major = DH_BACKEND_ABI_MAJOR,
    .abi_minor = DH_BACKEND_ABI_MINOR,
    .reserved = 0,
    .name = "opencl",
    .description = "OpenCL through the ICD loader (cl_mem handles, in-order profiling queues)",
    .device_type = DH_OPENCL_DEVICE_TYPE,
    .caps = DH_CAP_ASYNC_COPY | DH_CAP_EVENT_TIMING | DH_CAP_PINNED_HOST,
    .target_kind = "opencl",
    .target_kind_json = NULL,
    .init = dh_opencl_init,
    .shutdown = dh_opencl_shutdown,
    .unavailable_reason = dh_opencl_unavailable_reason,
    .get_attr = dh_opencl_get_attr,
    .get_target_property = dh_opencl_get_target_property,
    .set_device = dh_opencl_set_device,
    .alloc_data_space = dh_opencl_alloc_data_space,
    .free_data_space = dh_opencl_free_data_space,
    .alloc_workspace = dh_opencl_alloc_workspace,
    .free_workspace = dh_opencl_free_workspace,
    .alloc_host = dh_opencl_alloc_host,
    .free_host = dh_opencl_free_host,
    .copy_data_from_to = dh_opencl_copy_data_from_to,
    .create_stream = dh_opencl_create_stream,
    .free_stream = dh_opencl_free_stream,
    .set_stream = dh_opencl_set_stream,
    .get_current_stream = dh_opencl_get_current_stream,
    .stream_sync = dh_opencl_stream_sync,
    .sync_stream_from_to = dh_opencl_sync_stream_from_to,
    .functions = k_functions,
    .num_functions = sizeof k_functions / sizeof k_functions[0],
    .event_create = dh_opencl_event_create,
    .event_record = dh_opencl_event_record,
    .event_elapsed_ms = dh_opencl_event_elapsed_ms,
    .event_free = dh_opencl_event_free,
    .raw = &dh_opencl_raw_twin,
};

/* Plugin entry point (backend.h DH_BACKEND_ENTRY_SYMBOL). Does no work: init does. */
__attribute__((visibility("default"))) const dh_backend_t* dh_backend_entry(void) {
  return &k_backend;
}
