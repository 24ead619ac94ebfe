/* Fault: the backend's own noop launches without checking its argument (a missing or
 * non-Device argument is accepted). Expected clause: packed.noop_type_error. */
#include "faulty.h"

static dh_safe_call_t orig;

static int bad(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)args;
  (void)n;
  DLDevice dev = {(DLDeviceType)faulty.device_type, 0};
  dh_any_t a = dh_any_device(dev);
  return orig(self, &a, 1, rv);
}

FAULTY_ENTRY("nooparg", orig = faulty_replace_function(DH_FUNC_NOOP, bad))
