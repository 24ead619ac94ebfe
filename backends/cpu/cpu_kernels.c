/*
 * backends/cpu/cpu_kernels.c — the cpu backend's module functions (backend.h): noop,
 * fill and the optional trap, run on the calling thread.
 */
#include <inttypes.h>
#include <dlpack/dlpack.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/backend.h"
#include "devharness/error.h"
#include "devharness/tensor.h"

#include "cpu_internal.h"

/*===========================================================================
 * Module functions
 *===========================================================================*/

int dh_cpu_func_noop(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  (void)result;
  if (num_args < 1 || args[0].type_index != DH_TYPE_DEVICE)
    return dh_error_set(DH_KIND_TYPE_ERROR, "cpu.noop: expected (Device)");
  return dh_cpu_check_device(args[0].v_device);
}

/* trap: the kernel runs (and fails) on the calling thread, so the call itself reports
 * the failure (backend.h DH_FUNC_TRAP: "a backend that runs kernels synchronously may
 * return the error from the call itself"); there is nothing left for stream_sync. */
int dh_cpu_func_trap(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  (void)result;
  if (num_args < 1 || args[0].type_index != DH_TYPE_DEVICE)
    return dh_error_set(DH_KIND_TYPE_ERROR, "cpu.trap: expected (Device)");
  if (dh_cpu_check_device(args[0].v_device) != 0) return -1;
  return dh_error_set(DH_KIND_RUNTIME_ERROR, "cpu: kernel 'trap' failed (run on the calling thread)");
}

int dh_cpu_func_fill(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  (void)result;
  if (num_args < 2 || dh_any_as_tensor(&args[0]) == NULL ||
      args[1].type_index != DH_TYPE_INT)
    return dh_error_set(DH_KIND_TYPE_ERROR, "cpu.fill: expected (DLTensorPtr dst, Int value)");
  const DLTensor* t = dh_any_as_tensor(&args[0]);
  size_t nbytes;
  if (t == NULL || t->data == NULL)
    return dh_error_set(DH_KIND_TYPE_ERROR, "cpu.fill: dst is a NULL tensor or has NULL data");
  if (dh_cpu_check_device(t->device) != 0) return -1;
  if (!dh_tensor_is_contiguous(t)) return dh_error_set(DH_KIND_VALUE_ERROR, "cpu.fill: dst is not contiguous");
  if (dh_tensor_nbytes(t, &nbytes) != 0) return -1;
  if (t->byte_offset % 4 || nbytes % 4)
    return dh_error_set(DH_KIND_VALUE_ERROR,
                        "cpu.fill: byte_offset %llu and nbytes %zu must be multiples of 4",
                        (unsigned long long)t->byte_offset, nbytes);
  uint32_t pattern = (uint32_t)args[1].v_int64;
  unsigned char* p = (unsigned char*)t->data + t->byte_offset;
  for (size_t i = 0; i < nbytes; i += 4) memcpy(p + i, &pattern, 4);
  return 0;
}
