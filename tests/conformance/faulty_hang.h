/* tests/conformance/faulty_hang.h — the hang of faulty_hang and faulty_idlehang:
 * stream_sync never returns while the process has neither allocated nor launched
 * anything (it waits for a completion that never comes). hang_edit() installs it on
 * `faulty` (faulty.h): allocations, workspaces and the first 8 module functions mark the
 * process used. */
#ifndef DEVHARNESS_TESTS_CONFORMANCE_FAULTY_HANG_H_
#define DEVHARNESS_TESTS_CONFORMANCE_FAULTY_HANG_H_

#include <stdatomic.h>
#include <time.h>

#include "faulty.h"

static atomic_int used;
static dh_backend_function_t fns[16];
static dh_safe_call_t orig[16];

#define WRAP(i)                                                              \
  static int w##i(void* self, const dh_any_t* a, int32_t n, dh_any_t* rv) { \
    atomic_store(&used, 1);                                                  \
    return orig[i](self, a, n, rv);                                          \
  }
WRAP(0) WRAP(1) WRAP(2) WRAP(3) WRAP(4) WRAP(5) WRAP(6) WRAP(7)
static const dh_safe_call_t wraps[8] = {w0, w1, w2, w3, w4, w5, w6, w7};

static int alloc_mark(DLDevice dev, size_t nbytes, size_t alignment, DLDataType hint, void** out) {
  atomic_store(&used, 1);
  return dh_sim_backend.alloc_data_space(dev, nbytes, alignment, hint, out);
}

static int ws_mark(DLDevice dev, size_t nbytes, DLDataType hint, void** out) {
  atomic_store(&used, 1);
  return dh_sim_backend.alloc_workspace(dev, nbytes, hint, out);
}

static int hang_sync(DLDevice dev, dh_stream_t stream) {
  while (!atomic_load(&used)) {
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  return dh_sim_backend.stream_sync(dev, stream);
}

static void hang_edit(void) {
  size_t n = dh_sim_backend.num_functions < 8 ? dh_sim_backend.num_functions : 8;
  for (size_t i = 0; i < n; i++) {
    fns[i] = dh_sim_backend.functions[i];
    orig[i] = fns[i].call;
    fns[i].call = wraps[i];
  }
  faulty.functions = fns;
  faulty.num_functions = n;
  faulty.alloc_data_space = alloc_mark;
  faulty.alloc_workspace = ws_mark; /* the sim's workspaces are allocations too */
  faulty.stream_sync = hang_sync;
}

#endif /* DEVHARNESS_TESTS_CONFORMANCE_FAULTY_HANG_H_ */
