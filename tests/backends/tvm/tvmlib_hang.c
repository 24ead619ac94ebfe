/*
 * tests/backends/tvm/tvmlib_hang.c — a shared library whose constructor never returns:
 * `--tvm-lib` refuses it when the probe child's timeout (DEVHARNESS_TVM_PROBE_TIMEOUT_S)
 * runs out, and the devharness process goes on.
 */
#include <unistd.h>

__attribute__((constructor)) static void tvmlib_hang_forever(void) {
  for (;;) pause();
}
