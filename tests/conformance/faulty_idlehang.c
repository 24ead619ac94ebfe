/* Fault: the hang of faulty_hang (stream_sync of a process that has neither allocated
 * nor launched anything never returns) on a backend without device-side timing (no
 * DH_CAP_EVENT_TIMING, no event entries). The event clauses skip on it; their cleanup
 * must not sync what they never queued, so they stay skips and stream.sync_idle alone
 * times out. Expected clause: stream.sync_idle, reported as "timed out". */
#include <stdatomic.h>
#include <time.h>

#include "faulty.h"

static atomic_int used;
static dh_safe_call_t orig_fill, orig_trap, orig_noop;

static int alloc_mark(DLDevice dev, size_t nbytes, size_t alignment, DLDataType hint, void** out) {
  atomic_store(&used, 1);
  return dh_sim_backend.alloc_data_space(dev, nbytes, alignment, hint, out);
}

static int ws_mark(DLDevice dev, size_t nbytes, DLDataType hint, void** out) {
  atomic_store(&used, 1);
  return dh_sim_backend.alloc_workspace(dev, nbytes, hint, out);
}

/* the kernels it launches are work too */
#define LAUNCH_MARK(name)                                                          \
  static int name##_mark(void* self, const dh_any_t* a, int32_t n, dh_any_t* rv) { \
    atomic_store(&used, 1);                                                        \
    return orig_##name(self, a, n, rv);                                            \
  }
LAUNCH_MARK(fill)
LAUNCH_MARK(trap)
LAUNCH_MARK(noop)

static int hang_sync(DLDevice dev, dh_stream_t stream) {
  while (!atomic_load(&used)) {
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  return dh_sim_backend.stream_sync(dev, stream);
}

static void edit(void) {
  faulty.caps &= ~(uint32_t)DH_CAP_EVENT_TIMING;
  faulty.event_create = NULL;
  faulty.event_record = NULL;
  faulty.event_elapsed_ms = NULL;
  faulty.event_free = NULL;
  faulty.alloc_data_space = alloc_mark;
  faulty.alloc_workspace = ws_mark;
  faulty.stream_sync = hang_sync;
  orig_fill = faulty_replace_function(DH_FUNC_FILL, fill_mark);
  orig_trap = faulty_replace_another_function(DH_FUNC_TRAP, trap_mark);
  orig_noop = faulty_replace_another_function(DH_FUNC_NOOP, noop_mark);
}

FAULTY_ENTRY("idlehang", edit())
