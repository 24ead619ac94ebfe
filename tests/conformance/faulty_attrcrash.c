/* Fault: get_attr(kDeviceName) and the target property "device_name" crash (SIGSEGV). Not part of the proof of power (the
 * case would be a crash, reported as such): tests/cli/isolated.t checks that `info`
 * and `targets detect` ask in a child and name the signal. */
#include <signal.h>

#include "faulty.h"

static int crashing_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (kind == DH_ATTR_DEVICE_NAME) raise(SIGSEGV);
  return dh_sim_backend.get_attr(dev, kind, out);
}

static int crashing_target_property(DLDevice dev, const char* name, dh_any_t* out) {
  if (strcmp(name, "device_name") == 0) raise(SIGSEGV);
  return dh_sim_backend.get_target_property(dev, name, out);
}

FAULTY_ENTRY("attrcrash", (faulty.get_attr = crashing_get_attr, faulty.get_target_property = crashing_target_property))
