/*
 * backends/cpu/cpu_raw.c — the cpu backend's raw twin ("memcpy"): the same operations
 * with libc directly, through the twin shared with tvm-cpu
 * (backends/common/host_memcpy_twin.c).
 */
#include <dlpack/dlpack.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/backend.h"
#include "devharness/error.h"
#include "devharness/tensor.h"

#include "cpu_internal.h"
#include "backends/common/host_memcpy_twin.h"

static int dh_cpu_raw_setup(DLDevice dev, dh_raw_op_t op, size_t nbytes, uint32_t flags,
                            void** out_ctx) {
  (void)flags; /* memcpy is synchronous: pinned and host-source-released change nothing */
  if (out_ctx == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "cpu raw: out_ctx is NULL");
  *out_ctx = NULL;
  if (dh_cpu_check_device(dev) != 0) return -1;
  return dh_common_host_memcpy_twin_setup("cpu", 1, NULL, op, nbytes, out_ctx);
}

const dh_raw_twin_t dh_cpu_raw_twin = DH_RAW_TWIN("memcpy", dh_cpu_raw_setup, dh_common_host_memcpy_twin_run,
                                                 dh_common_host_memcpy_twin_teardown);
