/*
 * backends/skeleton/skeleton_kernels.c — the skeleton's module functions (backend.h
 * "Module functions every backend provides"): noop(Device) enqueues the empty kernel
 * and fill(DLTensorPtr dst, Int value) writes value to every 32-bit word of dst, both
 * on the calling thread's current stream (dh_env_get_stream). echo and raise are the
 * runtime's (dh_backend_func_echo / dh_backend_func_raise). Calls down into
 * skeleton_device.c only.
 */
#include <stddef.h>

#include "skeleton_internal.h"

int dh_skeleton_func_noop(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  (void)result;
  if (num_args != 1 || args == NULL || args[0].type_index != DH_TYPE_DEVICE)
    return dh_error_set(DH_KIND_TYPE_ERROR, "skeleton.noop: expected (Device dev), got %d argument%s",
                        (int)num_args, num_args == 1 ? "" : "s");
  if (dh_skeleton_check_device(args[0].v_device, "noop") != 0) return -1;
  /* TODO(skeleton): enqueue your empty kernel on the current stream. */
  return dh_skeleton_not_implemented("noop");
}

int dh_skeleton_func_fill(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  (void)result;
  if (num_args != 2 || args == NULL)
    return dh_error_set(DH_KIND_TYPE_ERROR, "skeleton.fill: expected (DLTensorPtr dst, Int value), got "
                        "%d argument%s", (int)num_args, num_args == 1 ? "" : "s");
  const DLTensor* t = dh_any_as_tensor(&args[0]);
  if (t == NULL)
    return dh_error_set(DH_KIND_TYPE_ERROR, "skeleton.fill: args[0] (dst) must be a non-NULL DLTensorPtr");
  if (dh_skeleton_check_device(t->device, "fill") != 0) return -1;
  /* TODO(skeleton): launch your fill kernel on the current stream (dst->byte_offset and
   * nbytes multiples of 4). */
  return dh_skeleton_not_implemented("fill");
}
