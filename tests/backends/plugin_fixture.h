/*
 * tests/backends/plugin_fixture.h — loading a backend plugin of this build in a backend
 * test program (tests/backends/<name>/), through the runtime's own loader.
 *
 * The test programs live in $(BUILD)/tests/ and the plugins in
 * $(BUILD)/lib/devharness/, so a plugin is found relative to the running program.
 * Header-only (static inline); not thread-safe (call from a cmocka setup or main).
 */
#ifndef DEVHARNESS_TESTS_BACKENDS_PLUGIN_FIXTURE_H_
#define DEVHARNESS_TESTS_BACKENDS_PLUGIN_FIXTURE_H_

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devharness/device_api.h"

/* Writes the path of libdevharness_<name>.so into out: $DEVHARNESS_<NAME>_PLUGIN when
 * set, else <dir of this program>/../lib/devharness/libdevharness_<name>.so.
 * 0 on success; -1 when /proc/self/exe cannot be read or the path does not fit. */
static inline int dh_test_plugin_path(const char* name, char* out, size_t size) {
  char var[64] = "DEVHARNESS_";
  size_t k = strlen(var);
  for (const char* p = name; *p && k + 8 < sizeof var; ++p) var[k++] = (char)toupper((unsigned char)*p);
  snprintf(var + k, sizeof var - k, "_PLUGIN");
  const char* env = getenv(var);
  if (env != NULL) return snprintf(out, size, "%s", env) < (int)size ? 0 : -1;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return -1;
  exe[n] = '\0';
  char* slash = strrchr(exe, '/');
  if (slash) *slash = '\0';
  int w = snprintf(out, size, "%s/../lib/devharness/libdevharness_%s.so", exe, name);
  return w > 0 && w < (int)size ? 0 : -1;
}

/* Loads libdevharness_<name>.so with dh_plugin_load and initialises it with
 * dh_backend_init. Returns 0 with *out_backend set and *out_ndev = its device count
 * (0 when it has none: reason then holds its unavailable_reason); -1 with reason
 * filled ("cannot load PATH: ...", "init failed: ...") and *out_backend NULL. */
static inline int dh_test_load_backend(const char* name, const dh_backend_t** out_backend,
                                       int* out_ndev, char* reason, size_t reason_size) {
  char path[PATH_MAX + 64];
  *out_backend = NULL;
  *out_ndev = 0;
  reason[0] = '\0';
  if (dh_test_plugin_path(name, path, sizeof path) != 0) {
    snprintf(reason, reason_size, "cannot find the %s plugin next to this test program", name);
    return -1;
  }
  const dh_backend_t* b = NULL;
  if (dh_plugin_load(path, &b) != 0) {
    snprintf(reason, reason_size, "cannot load %s: %s", path, dh_error_message());
    return -1;
  }
  if (dh_backend_init(b) != 0) {
    snprintf(reason, reason_size, "init failed: %s", dh_error_message());
    return -1;
  }
  *out_backend = b;
  const char* why = dh_backend_unavailable_reason(b);
  if (why != NULL) {
    snprintf(reason, reason_size, "%s", why);
    return 0;
  }
  if (dh_backend_device_count(b, out_ndev) != 0) {
    snprintf(reason, reason_size, "device count: %s", dh_error_message());
    *out_ndev = 0;
  }
  return 0;
}

#endif /* DEVHARNESS_TESTS_BACKENDS_PLUGIN_FIXTURE_H_ */
