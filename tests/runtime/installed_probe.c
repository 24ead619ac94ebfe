/* tests/runtime/installed_probe.c — run by tests/runtime/installed_plugins.sh from a
 * folder with no ../lib/devharness, against a copy of libdevharness.so in another
 * prefix: prints the backends default discovery found; exit 1 when none. */
#include <stdio.h>

#include "devharness/device_api.h"

int main(void) {
  size_t n = dh_plugins_load_default();
  for (size_t i = 0; i < dh_backend_count(); i++) printf("%s\n", dh_backend_at(i)->name);
  dh_plugins_unload_all();
  return n > 0 ? 0 : 1;
}
