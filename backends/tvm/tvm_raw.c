/*
 * backends/tvm/tvm_raw.c — the raw twin of TVM's own CPU set, tvm-cpu (TVM's other sets
 * have none: the cuda backend's CUDA-driver twin is the raw API for the GPU under
 * tvm-cuda). Calls down into tvm_device.c and the shared
 * backends/common/host_memcpy_twin.c.
 */
#include <stddef.h>
#include <stdint.h>

#include "devharness/backend.h"

#include "backends/tvm/tvm_internal.h"
#include "backends/common/host_memcpy_twin.h"

/*---------------------------------------------------------------- raw twin */

/* "memcpy": what TVM's CPU CopyDataFromTo does (apache/tvm 0.27
 * src/runtime/cpu_device_api.cc:134-138), called directly, so the bench shows TVM's
 * DeviceAPI overhead next to the raw API; stream sync is a no-op in TVM's CPU API
 * (cpu_device_api.cc:119), here an empty call. No launch: TVM's DeviceAPI has no kernels.
 * The twin itself is shared with the cpu backend: backends/common/host_memcpy_twin.c. */
static int raw_setup(DLDevice dev, dh_raw_op_t op, size_t nbytes, uint32_t flags, void** out_ctx) {
  (void)flags;
  *out_ctx = NULL;
  if (dh_tvm_ready(dev, "raw setup")) return -1;
  return dh_common_host_memcpy_twin_setup("tvm-cpu", 0, "TVM's DeviceAPI has no kernels", op, nbytes,
                                          out_ctx);
}

const dh_raw_twin_t dh_tvm_raw_twin =
    DH_RAW_TWIN("memcpy", raw_setup, dh_common_host_memcpy_twin_run, dh_common_host_memcpy_twin_teardown);
