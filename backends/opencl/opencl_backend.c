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
    {DH_FUNC_PCI_BUS_ID, dh_opencl_func_pci_bus_id},
    {DH_FUNC_ECHO, dh_backend_func_echo},
    {DH_FUNC_RAISE, dh_backend_func_raise},
};

/*===========================================================================
 * The backend
 *===========================================================================*/

static const dh_backend_t k_backend = {
    DH_BACKEND_HEADER_FIELDS,
    .name = "opencl",
    .description = "OpenCL through the ICD loader (cl_mem handles, in-order profiling queues)",
    .device_type = DH_OPENCL_DEVICE_TYPE,
    .caps = DH_CAP_ASYNC_COPY | DH_CAP_EVENT_TIMING | DH_CAP_PINNED_HOST,
    .target_kind = "opencl",
    .target_kind_json = NULL,
    DH_BACKEND_BIND_ALL_ENTRIES(dh_opencl),
    .functions = k_functions,
    .num_functions = sizeof k_functions / sizeof k_functions[0],
    .raw = &dh_opencl_raw_twin,
    .options = dh_opencl_options, /* ABI 1.6: pocl-affinity (unlisted), opencl_device.c */
    .num_options = DH_OPENCL_NUM_OPTIONS,
    .set_option = dh_opencl_set_option,
};

/* Plugin entry point (backend.h DH_BACKEND_ENTRY_SYMBOL). Does no work: init does. */
__attribute__((visibility("default"))) const dh_backend_t* dh_backend_entry(void) {
  return &k_backend;
}
