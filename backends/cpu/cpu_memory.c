/*
 * backends/cpu/cpu_memory.c — the cpu backend's memory: alloc/free_data_space (host
 * memory, aligned, counted in dh_cpu_live_bytes for kAvailableGlobalMemory) and
 * copy_data_from_to (memcpy; everything is complete when it returns).
 */
#include <malloc.h>
#include <stdatomic.h>
#include <dlpack/dlpack.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/backend.h"
#include "devharness/error.h"
#include "devharness/tensor.h"

#include "cpu_internal.h"

int dh_cpu_alloc_data_space(DLDevice dev, size_t nbytes, size_t alignment,
                            DLDataType type_hint, void** out_ptr) {
  (void)type_hint;
  if (out_ptr == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "cpu: alloc_data_space: out_ptr is NULL");
  *out_ptr = NULL;
  if (dh_cpu_check_device(dev) != 0) return -1;
  if (alignment != 0 && (alignment & (alignment - 1)) != 0)
    return dh_error_set(DH_KIND_VALUE_ERROR, "cpu: alignment %zu is not a power of two", alignment);
  if (alignment < DH_ALLOC_ALIGNMENT) alignment = DH_ALLOC_ALIGNMENT;
  /* Refuse what the machine cannot hold before asking malloc, which could succeed
   * lazily through overcommit and fault later. */
  if ((uint64_t)nbytes > (uint64_t)dh_cpu_info.total_memory)
    return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR,
                        "cpu: cannot allocate %zu bytes: the machine has %lld bytes", nbytes,
                        (long long)dh_cpu_info.total_memory);
  int err = posix_memalign(out_ptr, alignment, nbytes ? nbytes : 1);
  if (err != 0) {
    *out_ptr = NULL;
    return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "cpu: posix_memalign(%zu, %zu bytes) failed: %s",
                        alignment, nbytes, strerror(err));
  }
  atomic_fetch_add(&dh_cpu_live_bytes, (long long)malloc_usable_size(*out_ptr));
  return 0;
}

int dh_cpu_free_data_space(DLDevice dev, void* ptr) {
  if (dh_cpu_check_device(dev) != 0) return -1;
  if (ptr == NULL) return 0;
  atomic_fetch_sub(&dh_cpu_live_bytes, (long long)malloc_usable_size(ptr));
  free(ptr);
  return 0;
}

int dh_cpu_copy_data_from_to(const void* from, size_t from_offset, void* to,
                             size_t to_offset, size_t nbytes, DLDevice dev_from,
                             DLDevice dev_to, DLDataType type_hint, dh_stream_t stream) {
  (void)type_hint;
  if (dev_from.device_type != kDLCPU || dev_to.device_type != kDLCPU)
    return dh_error_set(DH_KIND_VALUE_ERROR, "cpu: copy between device types %d and %d: cpu copies "
                        "host to host only", (int)dev_from.device_type, (int)dev_to.device_type);
  if (stream != NULL)
    return dh_error_set(DH_KIND_VALUE_ERROR, "cpu: stream %p: the cpu has a single queue (NULL)", stream);
  if (nbytes == 0) return 0;
  if (from == NULL || to == NULL)
    return dh_error_set(DH_KIND_VALUE_ERROR, "cpu: copy_data_from_to: NULL %s",
                        from == NULL ? "source" : "destination");
  memmove((char*)to + to_offset, (const char*)from + from_offset, nbytes);
  return 0;
}
