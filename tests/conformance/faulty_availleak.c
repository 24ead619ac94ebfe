/* Fault: freeing an allocation of 16 MiB or more is not credited back to
 * kAvailableGlobalMemory (the accounting of a large-block pool leaks; the memory
 * itself is freed). Expected clause: attr.available_restored. */
#include <stdatomic.h>

#include "faulty.h"

static atomic_llong leaked;

static int bad_free(DLDevice dev, void* ptr) {
  uint8_t* bytes = NULL;
  size_t size = 0;
  if (ptr != NULL && dh_sim_handle_bytes(dev, ptr, &bytes, &size) == 0 && size >= ((size_t)16 << 20))
    atomic_fetch_add(&leaked, (long long)size);
  dh_error_clear();
  return dh_sim_backend.free_data_space(dev, ptr);
}

static int bad_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  int rc = dh_sim_backend.get_attr(dev, kind, out);
  if (rc == 0 && kind == DH_ATTR_AVAILABLE_GLOBAL_MEMORY && out->type_index == DH_TYPE_INT) {
    long long l = atomic_load(&leaked);
    out->v_int64 = out->v_int64 > l ? out->v_int64 - l : 0;
  }
  return rc;
}

FAULTY_ENTRY("availleak", (faulty.free_data_space = bad_free, faulty.get_attr = bad_get_attr))
