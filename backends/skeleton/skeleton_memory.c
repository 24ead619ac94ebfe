/*
 * backends/skeleton/skeleton_memory.c — the skeleton's memory: data space, workspaces,
 * pinned host memory and copy_data_from_to (TVM DeviceAPI AllocDataSpace,
 * FreeDataSpace, AllocWorkspace, FreeWorkspace, CopyDataFromTo). Calls down into
 * skeleton_device.c only.
 */
#include <stddef.h>

#include "skeleton_internal.h"

int dh_skeleton_alloc_data_space(DLDevice dev, size_t nbytes, size_t alignment,
                                 DLDataType type_hint, void** out_ptr) {
  (void)nbytes;
  (void)alignment;
  (void)type_hint;
  if (out_ptr == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "skeleton: alloc_data_space: out_ptr is NULL");
  *out_ptr = NULL;
  if (dh_skeleton_check_device(dev, "alloc_data_space") != 0) return -1;
  /* TODO(skeleton): nbytes (0 allowed) aligned to `alignment` (0 = DH_ALLOC_ALIGNMENT); the handle is
   * opaque unless you claim DH_CAP_HOST_POINTER_ARITHMETIC. */
  return dh_skeleton_not_implemented("alloc_data_space");
}

int dh_skeleton_free_data_space(DLDevice dev, void* ptr) {
  if (ptr == NULL) return 0; /* NULL is a no-op */
  if (dh_skeleton_check_device(dev, "free_data_space") != 0) return -1;
  /* TODO(skeleton): free a handle of alloc_data_space; a foreign or stale one is a ValueError. */
  return dh_skeleton_not_implemented("free_data_space");
}

int dh_skeleton_alloc_workspace(DLDevice dev, size_t nbytes, DLDataType type_hint,
                                void** out_ptr) {
  (void)nbytes;
  (void)type_hint;
  if (out_ptr == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "skeleton: alloc_workspace: out_ptr is NULL");
  *out_ptr = NULL;
  if (dh_skeleton_check_device(dev, "alloc_workspace") != 0) return -1;
  /* TODO(skeleton): or set .alloc_workspace = NULL: the core falls back to data space. */
  return dh_skeleton_not_implemented("alloc_workspace");
}

int dh_skeleton_free_workspace(DLDevice dev, void* ptr) {
  if (ptr == NULL) return 0;
  if (dh_skeleton_check_device(dev, "free_workspace") != 0) return -1;
  /* TODO(skeleton): free a workspace of alloc_workspace. */
  return dh_skeleton_not_implemented("free_workspace");
}

int dh_skeleton_alloc_host(DLDevice dev, size_t nbytes, void** out_ptr) {
  (void)nbytes;
  if (out_ptr == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "skeleton: alloc_host: out_ptr is NULL");
  *out_ptr = NULL;
  if (dh_skeleton_check_device(dev, "alloc_host") != 0) return -1;
  /* TODO(skeleton): pinned host memory (with DH_CAP_PINNED_HOST), or set .alloc_host = NULL. */
  return dh_skeleton_not_implemented("alloc_host");
}

int dh_skeleton_free_host(DLDevice dev, void* ptr) {
  if (ptr == NULL) return 0;
  if (dh_skeleton_check_device(dev, "free_host") != 0) return -1;
  /* TODO(skeleton): free a block of alloc_host. */
  return dh_skeleton_not_implemented("free_host");
}

int dh_skeleton_copy_data_from_to(const void* from, size_t from_offset, void* to,
                                  size_t to_offset, size_t nbytes, DLDevice dev_from,
                                  DLDevice dev_to, DLDataType type_hint, dh_stream_t stream) {
  (void)from;
  (void)from_offset;
  (void)to;
  (void)to_offset;
  (void)nbytes;
  (void)type_hint;
  (void)stream;
  DLDevice dev = (int32_t)dev_from.device_type == dh_skeleton_device_type() ? dev_from : dev_to;
  if (dh_skeleton_check_device(dev, "copy_data_from_to") != 0) return -1;
  /* TODO(skeleton): host<->device and device<->device copies on `stream`; offsets
   * are the DLPack byte_offsets; never read a host source after returning. */
  return dh_skeleton_not_implemented("copy_data_from_to");
}
