/*
 * backends/cuda/cuda_backend.c — the CUDA backend (plugin libdevharness_cuda.so): its
 * vtable and the plugin entry dh_backend_entry. The entries live in the files named in
 * cuda_internal.h (device, memory, stream, kernels, raw); the design (contexts,
 * memory, copies, streams, events, fork, kernels) is written there too.
 *
 * TVM's CUDA DeviceAPI (apache/tvm v0.27.0 src/backend/cuda/runtime/cuda_device_api.cc)
 * over the CUDA *driver* API, dlopen'd ("libcuda.so.1") in init: the plugin links no
 * CUDA library, so it loads on machines with the toolkit and no driver and reports why
 * it has no device (docs/contract.md; backends/cuda/README.md).
 */
#include "devharness/backend.h"

#include "cuda_internal.h"

/* Releases in the reverse order of use: staging slots and over-aligned records, the
 * modules, then contexts and the driver. */
static void dh_cuda_shutdown(void) {
  dh_cuda_memory_release();
  dh_cuda_kernels_release();
  dh_cuda_device_shutdown();
}

static const dh_backend_function_t k_functions[] = {
    {DH_FUNC_NOOP, dh_cuda_func_noop},
    {DH_FUNC_MEMORY_PEAK_BANDWIDTH, dh_cuda_func_memory_peak_bandwidth},
    {DH_FUNC_FILL, dh_cuda_func_fill},
    {DH_FUNC_ECHO, dh_backend_func_echo},
    {DH_FUNC_RAISE, dh_backend_func_raise},
};

static const dh_backend_t k_backend = {
    .struct_size = sizeof(dh_backend_t),
    .abi_major = DH_BACKEND_ABI_MAJOR,
    .abi_minor = DH_BACKEND_ABI_MINOR,
    .reserved = 0,
    .name = "cuda",
    .description = "NVIDIA GPUs through the CUDA driver API (libcuda.so.1, loaded at run time)",
    .device_type = kDLCUDA,
    .caps = DH_CAP_ASYNC_COPY | DH_CAP_EVENT_TIMING | DH_CAP_PINNED_HOST,
    .target_kind = "cuda",
    .target_kind_json = NULL,
    .init = dh_cuda_init,
    .shutdown = dh_cuda_shutdown,
    .unavailable_reason = dh_cuda_unavailable_reason,
    .get_attr = dh_cuda_get_attr,
    .get_target_property = dh_cuda_get_target_property,
    .set_device = dh_cuda_set_device,
    .alloc_data_space = dh_cuda_alloc_data_space,
    .free_data_space = dh_cuda_free_data_space,
    .alloc_workspace = dh_cuda_alloc_workspace,
    .free_workspace = dh_cuda_free_workspace,
    .alloc_host = dh_cuda_alloc_host,
    .free_host = dh_cuda_free_host,
    .copy_data_from_to = dh_cuda_copy_data_from_to,
    .create_stream = dh_cuda_create_stream,
    .free_stream = dh_cuda_free_stream,
    .set_stream = dh_cuda_set_stream,
    .get_current_stream = dh_cuda_get_current_stream,
    .stream_sync = dh_cuda_stream_sync,
    .sync_stream_from_to = dh_cuda_sync_stream_from_to,
    .functions = k_functions,
    .num_functions = sizeof k_functions / sizeof k_functions[0],
    .event_create = dh_cuda_event_create,
    .event_record = dh_cuda_event_record,
    .event_elapsed_ms = dh_cuda_event_elapsed_ms,
    .event_free = dh_cuda_event_free,
    .raw = &dh_cuda_raw_twin,
};

__attribute__((visibility("default"))) const dh_backend_t* dh_backend_entry(void) {
  return &k_backend;
}
