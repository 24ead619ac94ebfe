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
    {DH_FUNC_PCI_BUS_ID, dh_cuda_func_pci_bus_id},
    {DH_FUNC_PEER_ACCESS, dh_cuda_func_peer_access},
    {DH_FUNC_FILL, dh_cuda_func_fill},
    {DH_FUNC_ECHO, dh_backend_func_echo},
    {DH_FUNC_RAISE, dh_backend_func_raise},
};

static const dh_backend_t k_backend = {
    DH_BACKEND_HEADER_FIELDS,
    .name = "cuda",
    .description = "NVIDIA GPUs through the CUDA driver API (libcuda.so.1, loaded at run time)",
    .device_type = kDLCUDA,
    .caps = DH_CAP_ASYNC_COPY | DH_CAP_EVENT_TIMING | DH_CAP_PINNED_HOST,
    .target_kind = "cuda",
    .target_kind_json = NULL,
    DH_BACKEND_BIND_ALL_ENTRIES(dh_cuda),
    .functions = k_functions,
    .num_functions = sizeof k_functions / sizeof k_functions[0],
    .raw = &dh_cuda_raw_twin,
};

__attribute__((visibility("default"))) const dh_backend_t* dh_backend_entry(void) {
  return &k_backend;
}
