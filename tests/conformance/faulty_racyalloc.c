/* Fault: an allocator without a lock. Freed 96-byte buffers go to a one-entry cache
 * that alloc takes from with an unlocked read-then-clear, so two threads can both
 * take the same handle. Single-threaded it is a correct reuse of freed memory.
 * Expected clause: mem.concurrent. */
#include "faulty.h"

static void* volatile cache;

static int bad_alloc(DLDevice dev, size_t nbytes, size_t alignment, DLDataType hint, void** out) {
  void* h = cache;
  if (nbytes == 96 && alignment <= 64 && h != NULL) {
    for (volatile int i = 0; i < 50; i++) { /* the window a missing lock leaves open */
    }
    cache = NULL;
    *out = h;
    return 0;
  }
  return dh_sim_backend.alloc_data_space(dev, nbytes, alignment, hint, out);
}

static int bad_free(DLDevice dev, void* ptr) {
  uint8_t* bytes = NULL;
  size_t size = 0;
  if (ptr != NULL && cache == NULL && dh_sim_handle_bytes(dev, ptr, &bytes, &size) == 0 && size == 96) {
    cache = ptr;
    return 0;
  }
  dh_error_clear();
  return dh_sim_backend.free_data_space(dev, ptr);
}

FAULTY_ENTRY("racyalloc", faulty.alloc_data_space = bad_alloc; faulty.free_data_space = bad_free)
