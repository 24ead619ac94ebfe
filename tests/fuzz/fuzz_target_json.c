/*
 * tests/fuzz/fuzz_target_json.c — fuzzes target JSON parsing (target.h).
 * Invariants: parsing never crashes; a target that parses serialises, and the JSON
 * parses back to an equal target (TVM's round trip: apache/tvm v0.27.0
 * src/target/target.cc); a failure always leaves an error message.
 */
#include <stdlib.h>
#include <string.h>

#include "devharness/devharness.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  setenv("DEVHARNESS_TARGETS_PATH", DH_SOURCE_DIR "/targets", 0);
  /* No plugins: from_device must fail cleanly rather than load backends. */
  setenv("DEVHARNESS_PLUGIN_PATH", "/nonexistent", 1);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char* text = dh_fuzz_cstr(data, size);
  if (text == NULL) return 0;
  dh_target_t* t = NULL;
  if (dh_target_parse_json(text, "<fuzz>", &t) != 0) {
    if (dh_error_message()[0] == '\0') dh_fuzz_fail("parse failed without a message");
  } else {
    char* json = dh_target_to_json(t, 0);
    if (json == NULL) dh_fuzz_fail("to_json failed: %s", dh_error_message());
    dh_target_t* back = NULL;
    if (dh_target_parse_json(json, "<round trip>", &back) != 0) {
      dh_fuzz_fail("round trip does not parse: %s\n%s", dh_error_message(), json);
    }
    if (!dh_target_equal(t, back)) dh_fuzz_fail("round trip differs:\n%s", json);
    dh_target_free(back);
    free(json);
    dh_target_free(t);
  }
  free(text);
  return 0;
}
