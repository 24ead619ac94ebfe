/*
 * tests/fuzz/fuzz_device_spec.c — fuzzes device specs ("cuda:0") through
 * dh_device_parse and dh_device_format, with the cpu and sim plugins loaded.
 * Invariants: never crashes; a spec that parses names a loaded backend and an id in
 * range, and formats back to the canonical "name:id"; a failure leaves a message.
 */
#include <stdlib.h>
#include <string.h>

#include "devharness/devharness.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  setenv("DEVHARNESS_SIM_DEVICES", "2", 1);
  dh_plugins_load_default();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char* spec = dh_fuzz_cstr(data, size);
  if (spec == NULL) return 0;
  DLDevice dev;
  const dh_backend_t* b = NULL;
  if (dh_device_parse(spec, &dev, &b) != 0) {
    if (dh_error_message()[0] == '\0') dh_fuzz_fail("parse failed without a message");
  } else {
    if (b == NULL || (int32_t)dev.device_type != b->device_type || dev.device_id < 0) {
      dh_fuzz_fail("bad result for '%s'", spec);
    }
    int count = 0;
    if (dh_backend_device_count(b, &count) != 0 || dev.device_id >= count) {
      dh_fuzz_fail("'%s' parsed to an id out of range", spec);
    }
    char buf[128], again[128];
    dh_device_format(dev, buf, sizeof buf);
    DLDevice dev2;
    if (dh_device_parse(buf, &dev2, NULL) != 0 || dev2.device_type != dev.device_type ||
        dev2.device_id != dev.device_id) {
      dh_fuzz_fail("format/parse round trip of '%s' failed", spec);
    }
    if (strcmp(dh_device_format(dev2, again, sizeof again), buf) != 0) {
      dh_fuzz_fail("format not stable for '%s'", spec);
    }
  }
  free(spec);
  return 0;
}
