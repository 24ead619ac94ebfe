/*
 * backends/cuda/cuda_kernels.c — the cuda backend's module functions (backend.h:
 * noop, fill, memory_peak_bandwidth, echo, raise): backends/cuda/kernels.cu, embedded
 * as a fatbin, loaded with cuModuleLoadData once per device and launched on the
 * calling thread's current stream. Calls down into cuda_device.c only.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/backend.h"
#include "devharness/error.h"
#include "devharness/tensor.h"

#include "cuda_driver.h"
#include "cuda_internal.h"

/* The embedded fatbin: `static const unsigned char dh_cuda_fatbin[]`, generated
 * from kernels.cu by backends/cuda/backend.mk into $(BUILD)/gen/cuda/. */
#include "kernels_fatbin.h"

/* Loads the embedded module on device d and resolves the kernels (once). The
 * device's context must be current. */
int dh_cuda_ensure_module(dh_cuda_device_t* d, int id) {
  (void)id; /* the core's dispatch prefixes "cuda:<id>: <op>: " to errors */
  if (__atomic_load_n(&d->module_ready, __ATOMIC_ACQUIRE)) return 0;
  int rc = 0;
  pthread_mutex_lock(&d->mu);
  if (!d->module_ready) {
    CUresult r = dh_cuda_drv.module_load_data(&d->module, dh_cuda_fatbin);
    if (r != CUDA_SUCCESS) {
      rc = dh_cuda_fail(r,
                        "cuModuleLoadData(embedded fatbin, %zu bytes: SASS sm_75, sm_80, sm_86, "
                        "sm_89, sm_90a + compute_90 PTX, built with CUDA %d.%d; driver %s)",
                        sizeof dh_cuda_fatbin, CUDA_VERSION / 1000, (CUDA_VERSION % 1000) / 10,
                        dh_cuda_driver_version_string());
    } else if ((r = dh_cuda_drv.module_get_function(&d->fn_noop, d->module, "dh_cuda_noop")) !=
               CUDA_SUCCESS) {
      rc = dh_cuda_fail(r, "cuModuleGetFunction(\"dh_cuda_noop\")");
    } else if ((r = dh_cuda_drv.module_get_function(&d->fn_fill, d->module, "dh_cuda_fill")) !=
               CUDA_SUCCESS) {
      rc = dh_cuda_fail(r, "cuModuleGetFunction(\"dh_cuda_fill\")");
    }
    if (rc != 0 && d->module) {
      dh_cuda_drv.module_unload(d->module);
      d->module = NULL;
    }
    if (rc == 0) __atomic_store_n(&d->module_ready, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&d->mu);
  return rc;
}

void dh_cuda_kernels_release(void) {
  int n = dh_cuda_live_devices(); /* a forked child must not touch the driver */
  for (int i = 0; i < n; i++) {
    dh_cuda_device_t* d = &dh_cuda_devices[i];
    if (d->ctx_ready && d->module) {
      dh_cuda_drv.ctx_set_current(d->ctx);
      dh_cuda_drv.module_unload(d->module);
    }
  }
}

/*===========================================================================
 * Module functions (backend.h: noop, fill, echo, raise)
 *===========================================================================*/

int dh_cuda_launch_noop(DLDevice dev, CUstream s) {
  dh_cuda_device_t* d;
  if (dh_cuda_enter(dev, "noop", &d)) return -1;
  if (dh_cuda_ensure_module(d, dev.device_id)) return -1;
  CUresult r = dh_cuda_drv.launch_kernel(d->fn_noop, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL);
  if (r != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuLaunchKernel(dh_cuda_noop, <<<1, 1>>>)");
  return 0;
}

int dh_cuda_func_noop(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  (void)result;
  if (num_args != 1 || !args || args[0].type_index != DH_TYPE_DEVICE)
    return dh_error_set(DH_KIND_TYPE_ERROR, "cuda.noop: expected (Device dev), got %d argument%s%s%s",
                        (int)num_args, num_args == 1 ? "" : "s",
                        num_args >= 1 && args ? " with args[0] of type " : "",
                        num_args >= 1 && args ? dh_type_index_name(args[0].type_index) : "");
  DLDevice dev = args[0].v_device;
  if (dh_cuda_check_device(dev, "noop")) return -1;
  return dh_cuda_launch_noop(dev, dh_cuda_current_stream(dev.device_id));
}

int dh_cuda_func_fill(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  (void)result;
  if (num_args != 2 || !args)
    return dh_error_set(DH_KIND_TYPE_ERROR, "cuda.fill: expected (DLTensorPtr dst, Int value), got %d "
                                     "argument%s", (int)num_args, num_args == 1 ? "" : "s");
  if (dh_any_as_tensor(&args[0]) == NULL)
    return dh_error_set(DH_KIND_TYPE_ERROR, "cuda.fill: args[0] (dst) must be a non-NULL DLTensorPtr, got %s",
                        dh_type_index_name(args[0].type_index));
  if (args[1].type_index != DH_TYPE_INT)
    return dh_error_set(DH_KIND_TYPE_ERROR, "cuda.fill: args[1] (value) must be Int, got %s",
                        dh_type_index_name(args[1].type_index));
  const DLTensor* t = dh_any_as_tensor(&args[0]);
  DLDevice dev = t->device;
  if (dh_cuda_check_device(dev, "fill")) return -1;
  if (!dh_tensor_is_contiguous(t))
    return dh_error_set(DH_KIND_VALUE_ERROR, "cuda.fill: dst is not contiguous");
  size_t nbytes = 0;
  if (dh_tensor_nbytes(t, &nbytes)) return dh_error_prefix("cuda.fill: dst");
  if (t->byte_offset % 4 != 0 || nbytes % 4 != 0)
    return dh_error_set(DH_KIND_VALUE_ERROR,
                        "cuda.fill: byte_offset (%" PRIu64 ") and nbytes (%zu) must be multiples "
                        "of 4", (uint64_t)t->byte_offset, nbytes);
  if (nbytes == 0) return 0;
  if (!t->data) return dh_error_set(DH_KIND_VALUE_ERROR, "cuda.fill: dst->data is NULL (%zu bytes)", nbytes);
  dh_cuda_device_t* d;
  if (dh_cuda_enter(dev, "fill", &d)) return -1;
  if (dh_cuda_ensure_module(d, dev.device_id)) return -1;
  CUdeviceptr p = (CUdeviceptr)(uintptr_t)t->data + t->byte_offset;
  unsigned int value = (unsigned int)(uint32_t)args[1].v_int64;
  unsigned long long nwords = nbytes / 4;
  unsigned long long blocks = (nwords + 255) / 256;
  if (blocks > 65535) blocks = 65535; /* grid-stride loop covers the rest */
  void* params[] = {&p, &value, &nwords};
  CUresult r = dh_cuda_drv.launch_kernel(d->fn_fill, (unsigned)blocks, 1, 1, 256, 1, 1, 0,
                                         dh_cuda_current_stream(dev.device_id), params, NULL);
  if (r != CUDA_SUCCESS)
    return dh_cuda_fail(r, "cuLaunchKernel(dh_cuda_fill, <<<%llu, 256>>>, %llu words)", blocks, nwords);
  return 0;
}

/* memory_peak_bandwidth(Device dev) -> Float bytes/s: 2 (double data rate) x memory
 * clock x bus width / 8, from CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE (kHz) and
 * CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH (bits), as CUDA's deviceQuery sample and
 * nvbandwidth quote it (H100 SXM: 2619 MHz x 5120 bits -> 3.35 TB/s). */
int dh_cuda_func_memory_peak_bandwidth(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  if (num_args != 1 || !args || args[0].type_index != DH_TYPE_DEVICE)
    return dh_error_set(DH_KIND_TYPE_ERROR, "cuda.%s: expected (Device dev), got %d argument%s",
                        DH_FUNC_MEMORY_PEAK_BANDWIDTH, (int)num_args, num_args == 1 ? "" : "s");
  DLDevice dev = args[0].v_device;
  if (dh_cuda_check_device(dev, DH_FUNC_MEMORY_PEAK_BANDWIDTH)) return -1;
  dh_cuda_device_t* d = &dh_cuda_devices[dev.device_id];
  int khz = 0, bits = 0;
  if (dh_cuda_attr_int(d, dev.device_id, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, "MEMORY_CLOCK_RATE", &khz) ||
      dh_cuda_attr_int(d, dev.device_id, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH,
               "GLOBAL_MEMORY_BUS_WIDTH", &bits))
    return -1;
  if (result) *result = dh_any_float(2.0 * (double)khz * 1e3 * (double)bits / 8.0);
  return 0;
}

/* pci_bus_id(Device dev) -> Str: cuDeviceGetPCIBusId ("0000:01:00.0", upper-case hex
 * from the driver), lower-cased as sysfs names the function; an owned copy. */
int dh_cuda_func_pci_bus_id(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  if (num_args != 1 || !args || args[0].type_index != DH_TYPE_DEVICE)
    return dh_error_set(DH_KIND_TYPE_ERROR, "cuda.%s: expected (Device dev), got %d argument%s",
                        DH_FUNC_PCI_BUS_ID, (int)num_args, num_args == 1 ? "" : "s");
  DLDevice dev = args[0].v_device;
  if (dh_cuda_check_device(dev, DH_FUNC_PCI_BUS_ID)) return -1;
  if (!dh_cuda_drv.device_get_pci_bus_id)
    return dh_error_set(DH_KIND_RUNTIME_ERROR, "cuda.%s: libcuda.so.1 has no cuDeviceGetPCIBusId",
                        DH_FUNC_PCI_BUS_ID);
  char id[32] = "";
  CUresult r = dh_cuda_drv.device_get_pci_bus_id(id, (int)sizeof id, dh_cuda_devices[dev.device_id].dev);
  if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuDeviceGetPCIBusId(device %d)", (int)dev.device_id);
  for (char* p = id; *p; ++p) *p = (char)tolower((unsigned char)*p);
  return result ? dh_any_string(id, strlen(id), result) : 0;
}

/* peer_access(Device dev, Int peer) -> Str: whether dev can address peer's memory
 * (cuDeviceCanAccessPeer), for the copy matrix of `devharness bench --suite matrix`.
 * The backend never calls cuCtxEnablePeerAccess: its copies across devices are
 * cuMemcpyPeerAsync, which the driver carries out whether or not access is enabled. */
int dh_cuda_func_peer_access(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  if (num_args != 2 || !args || args[0].type_index != DH_TYPE_DEVICE || args[1].type_index != DH_TYPE_INT)
    return dh_error_set(DH_KIND_TYPE_ERROR, "cuda.%s: expected (Device dev, Int peer_device_id)",
                        DH_FUNC_PEER_ACCESS);
  DLDevice dev = args[0].v_device;
  DLDevice peer = {kDLCUDA, (int32_t)args[1].v_int64};
  if (args[1].v_int64 < 0 || args[1].v_int64 > INT32_MAX)
    return dh_error_set(DH_KIND_INDEX_ERROR, "cuda.%s: peer device id %lld out of range",
                        DH_FUNC_PEER_ACCESS, (long long)args[1].v_int64);
  if (dh_cuda_check_device(dev, DH_FUNC_PEER_ACCESS) || dh_cuda_check_device(peer, DH_FUNC_PEER_ACCESS))
    return -1;
  const char* text;
  char buf[160];
  int can = 0;
  if (dev.device_id == peer.device_id) {
    text = "same device";
  } else if (!dh_cuda_drv.device_can_access_peer) {
    text = "not reported (libcuda.so.1 has no cuDeviceCanAccessPeer)";
  } else {
    CUresult r = dh_cuda_drv.device_can_access_peer(&can, dh_cuda_devices[dev.device_id].dev,
                                                    dh_cuda_devices[peer.device_id].dev);
    if (r != CUDA_SUCCESS) return dh_cuda_fail(r, "cuDeviceCanAccessPeer(cuda:%d, cuda:%d)",
                                               (int)dev.device_id, (int)peer.device_id);
    snprintf(buf, sizeof buf, "%s (cuDeviceCanAccessPeer = %d; not enabled by the backend, copies are cuMemcpyPeerAsync)",
             can ? "yes" : "no", can);
    text = buf;
  }
  return result ? dh_any_string(text, strlen(text), result) : 0;
}
