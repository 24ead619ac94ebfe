/*
 * backends/cuda/cuda_driver.h — the CUDA driver API entry points the cuda backend
 * uses, resolved at run time with dlsym from libcuda.so.1 (never linked).
 *
 * <cuda.h> is included for its types and enums only. It #defines many API names to
 * their versioned symbols (cuMemAlloc -> cuMemAlloc_v2, ...), so the pointers below
 * have our own lower-case field names and their own types, and the symbol each is
 * resolved from is spelled out as a string literal (never macro-expanded).
 *
 * Thread-safety: the table is filled once by dh_cuda_init (cuda_device.c, the
 * backend's init, which the core serialises) and read-only afterwards.
 */
#ifndef DEVHARNESS_BACKENDS_CUDA_DRIVER_H_
#define DEVHARNESS_BACKENDS_CUDA_DRIVER_H_

#include <cuda.h>
#include <stddef.h>

/* X(field, "symbol", (parameters)) for every entry point resolved after cuInit
 * succeeded; all are required. Versioned names as cuda.h 13.0 maps them. */
#define DH_CUDA_REQUIRED_FUNCS(X)                                                         \
  X(device_get, "cuDeviceGet", (CUdevice * dev, int ordinal))                             \
  X(device_get_count, "cuDeviceGetCount", (int* count))                                   \
  X(device_get_name, "cuDeviceGetName", (char* name, int len, CUdevice dev))              \
  X(device_get_attribute, "cuDeviceGetAttribute",                                         \
    (int* pi, CUdevice_attribute attrib, CUdevice dev))                                   \
  X(device_total_mem, "cuDeviceTotalMem_v2", (size_t * bytes, CUdevice dev))              \
  X(primary_ctx_retain, "cuDevicePrimaryCtxRetain", (CUcontext * pctx, CUdevice dev))     \
  X(primary_ctx_release, "cuDevicePrimaryCtxRelease_v2", (CUdevice dev))                  \
  X(ctx_set_current, "cuCtxSetCurrent", (CUcontext ctx))                                  \
  X(ctx_get_current, "cuCtxGetCurrent", (CUcontext * pctx))                               \
  X(pointer_get_attribute, "cuPointerGetAttribute",                                       \
    (void* data, CUpointer_attribute attribute, CUdeviceptr ptr))                         \
  X(mem_get_info, "cuMemGetInfo_v2", (size_t * free_bytes, size_t * total_bytes))         \
  X(mem_alloc, "cuMemAlloc_v2", (CUdeviceptr * dptr, size_t bytesize))                    \
  X(mem_free, "cuMemFree_v2", (CUdeviceptr dptr))                                         \
  X(mem_host_alloc, "cuMemHostAlloc", (void** pp, size_t bytesize, unsigned int flags))   \
  X(mem_free_host, "cuMemFreeHost", (void* p))                                            \
  X(memcpy_htod_async, "cuMemcpyHtoDAsync_v2",                                            \
    (CUdeviceptr dst, const void* src, size_t n, CUstream s))                             \
  X(memcpy_dtoh_async, "cuMemcpyDtoHAsync_v2",                                            \
    (void* dst, CUdeviceptr src, size_t n, CUstream s))                                   \
  X(memcpy_dtod_async, "cuMemcpyDtoDAsync_v2",                                            \
    (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s))                             \
  X(memcpy_peer_async, "cuMemcpyPeerAsync",                                               \
    (CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, size_t n,    \
     CUstream s))                                                                         \
  X(stream_create, "cuStreamCreate", (CUstream * ps, unsigned int flags))                 \
  X(stream_destroy, "cuStreamDestroy_v2", (CUstream s))                                   \
  X(stream_synchronize, "cuStreamSynchronize", (CUstream s))                              \
  X(stream_wait_event, "cuStreamWaitEvent", (CUstream s, CUevent e, unsigned int flags))  \
  X(event_create, "cuEventCreate", (CUevent * pe, unsigned int flags))                    \
  X(event_record, "cuEventRecord", (CUevent e, CUstream s))                               \
  X(event_synchronize, "cuEventSynchronize", (CUevent e))                                 \
  X(event_query, "cuEventQuery", (CUevent e))                                             \
  X(event_destroy, "cuEventDestroy_v2", (CUevent e))                                      \
  X(module_load_data, "cuModuleLoadData", (CUmodule * pm, const void* image))             \
  X(module_unload, "cuModuleUnload", (CUmodule m))                                        \
  X(module_get_function, "cuModuleGetFunction",                                           \
    (CUfunction * pf, CUmodule m, const char* name))                                      \
  X(launch_kernel, "cuLaunchKernel",                                                      \
    (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,    \
     unsigned int by, unsigned int bz, unsigned int shared_bytes, CUstream s,             \
     void** params, void** extra))

/* The resolved table. Fields are NULL until loaded. */
typedef struct dh_cuda_driver {
  void* lib; /* dlopen handle of libcuda.so.1 */
  CUresult (*init)(unsigned int flags);           /* cuInit; required */
  CUresult (*driver_get_version)(int* version);   /* cuDriverGetVersion; optional */
  CUresult (*get_error_name)(CUresult e, const char** s);   /* optional */
  CUresult (*get_error_string)(CUresult e, const char** s); /* optional */
  /* cuDeviceCanAccessPeer; optional (the peer_access function says so when absent) */
  CUresult (*device_can_access_peer)(int* can_access, CUdevice dev, CUdevice peer);
  /* cuEventElapsedTime_v2 (CUDA >= 12.8), else cuEventElapsedTime; required */
  CUresult (*event_elapsed_time)(float* ms, CUevent start, CUevent end);
  /* cuDeviceGetPCIBusId; optional (pci_bus_id says why when it is missing) */
  CUresult (*device_get_pci_bus_id)(char* id, int len, CUdevice dev);
#define DH_CUDA_FIELD(field, sym, params) CUresult (*field) params;
  DH_CUDA_REQUIRED_FUNCS(DH_CUDA_FIELD)
#undef DH_CUDA_FIELD
} dh_cuda_driver_t;

#endif /* DEVHARNESS_BACKENDS_CUDA_DRIVER_H_ */
