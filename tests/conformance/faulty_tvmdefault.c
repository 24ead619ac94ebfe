/* Fault: kExist answers 1 for every device id, as TVM's CPU DeviceAPI does (apache/tvm
 * 0.27 src/runtime/cpu_device_api.cc:56-58), and the backend declares default_profile
 * "tvm" with a device_count (backend.h, ABI 1.1), as backends/tvm/ does. Expected: a run
 * without --profile holds it to profile tvm and passes; --profile strict fails exactly
 * attr.exist_past_last and attr.exist_negative (tests/conformance/profiles.t). */
#include "faulty.h"

static int bad_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (kind == DH_ATTR_EXIST) {
    *out = dh_any_int(1);
    return 0;
  }
  return dh_sim_backend.get_attr(dev, kind, out);
}

static int two_devices(int32_t* out) {
  *out = 2; /* the sim's two devices */
  return 0;
}

FAULTY_ENTRY("tvmdefault", faulty.get_attr = bad_get_attr; faulty.default_profile = "tvm";
             faulty.device_count = two_devices)
