/*
 * tests/fuzz/fuzz_device_spec.c — fuzzes device specs ("cuda:0") through
 * dh_device_spec_split, dh_device_parse and dh_device_format, with the cpu and sim
 * plugins loaded.
 * Invariants: never crashes; a spec that parses names a loaded backend and an id in
 * range, and formats back to the canonical "name:id"; a failure leaves a message; the
 * split (syntax only) and the parse agree: a spec the split refuses is a ParseError of
 * the parse with the same message, one the parse accepts splits into its backend's name
 * and id, and a spec that splits has exactly one ':' and only digits after it.
 */
#include <stdio.h>
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
  char name[DH_DEVICE_NAME_MAX], split_msg[DH_ERROR_MESSAGE_MAX];
  int32_t id = -1;
  int split_ok = dh_device_spec_split(spec, name, sizeof name, &id) == 0;
  snprintf(split_msg, sizeof split_msg, "%s", split_ok ? "" : dh_error_message());
  if (split_ok) {
    const char* colon = strchr(spec, ':');
    if (colon == NULL || colon == spec || strchr(colon + 1, ':') != NULL || colon[1] == '\0' ||
        strspn(colon + 1, "0123456789") != strlen(colon + 1) || id < 0)
      dh_fuzz_fail("'%s' split although it is not NAME:ID", spec);
  }
  DLDevice dev;
  const dh_backend_t* b = NULL;
  if (dh_device_parse(spec, &dev, &b) != 0) {
    if (!split_ok && (strcmp(dh_error_kind(), "ParseError") != 0 || strcmp(dh_error_message(), split_msg) != 0))
      dh_fuzz_fail("split and parse disagree on '%s': '%s' vs '%s'", spec, split_msg, dh_error_message());
    if (dh_error_message()[0] == '\0') dh_fuzz_fail("parse failed without a message");
  } else {
    if (b == NULL || (int32_t)dev.device_type != b->device_type || dev.device_id < 0) {
      dh_fuzz_fail("bad result for '%s'", spec);
    }
    if (!split_ok || strcmp(name, b->name) != 0 || id != dev.device_id)
      dh_fuzz_fail("'%s' parsed but did not split into its backend's name and id", spec);
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
