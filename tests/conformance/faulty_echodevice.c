/* Fault: the backend's own echo replaces a Device's type by its own device type (a
 * cuda:7 argument comes back as a device of this backend). Expected clause:
 * packed.echo_device. */
#include "faulty.h"

static dh_safe_call_t orig;

static int bad(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  int rc = orig(self, args, n, rv);
  if (rc == 0 && rv->type_index == DH_TYPE_DEVICE) rv->v_device.device_type = (DLDeviceType)faulty.device_type;
  return rc;
}

FAULTY_ENTRY("echodevice", orig = faulty_replace_function(DH_FUNC_ECHO, bad))
