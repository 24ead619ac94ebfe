/*
 * backends/tvm/tvm_options.c — the plugin's options (ABI 1.6, backend.h
 * dh_backend_option_t; README.md "Options"): --tvm-lib PATH and --rpc [KEY@]HOST:PORT,
 * declared with the help every command prints, checked and kept here when a command
 * (or any program, dh_backend_option_set) gives them, before more_backends looks for
 * the sets they name (tvm_libs.c). Their documented fallbacks are the environment
 * variables DEVHARNESS_TVM_LIBS (colon-separated) and DEVHARNESS_TVM_RPC
 * (comma-separated), read here too; their entries come first.
 *
 * State: the values given, one list per option, appended to by the loader's
 * set_option calls (serialised with loading, before more_backends: no lock needed).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devharness/backend.h"

#include "backends/tvm/tvm_internal.h"

const dh_backend_option_t dh_tvm_options[DH_TVM_NUM_OPTIONS] = {
    {"tvm-lib", "PATH",
     "a library with TVM DeviceAPIs (device_api.<name>): its devices are tvm-<name>:N (repeatable; also "
     "DEVHARNESS_TVM_LIBS=A:B)",
     DH_BACKEND_OPTION_REPEATABLE},
    {"rpc", "HOST:PORT",
     "a TVM RPC server: its devices are tvm-rpc-<name>:N (repeatable; also DEVHARNESS_TVM_RPC=H:P,H:P); "
     "KEY@HOST:PORT: the server of KEY from the TVM RPC tracker at HOST:PORT",
     DH_BACKEND_OPTION_REPEATABLE},
};

static char* g_given[DH_TVM_NUM_OPTIONS]; /* the values given, sep-separated (malloc'd) */
static const char kSeparator[DH_TVM_NUM_OPTIONS] = {':', ','};
static const char* const kEnvironment[DH_TVM_NUM_OPTIONS] = {"DEVHARNESS_TVM_LIBS", "DEVHARNESS_TVM_RPC"};

/* "a" then sep then "b", or whichever of them is not empty; malloc'd, NULL when both
 * are empty or out of memory. */
static char* joined(const char* a, char sep, const char* b) {
  a = a ? a : "";
  b = b ? b : "";
  size_t n = strlen(a) + strlen(b) + 2;
  char* all = (a[0] || b[0]) ? malloc(n) : NULL;
  if (all != NULL) snprintf(all, n, "%s%s%s", a, a[0] && b[0] ? (char[]){sep, '\0'} : "", b);
  return all;
}

/* Appends value to the list of option i. 0, or -1 with an OutOfMemoryError. */
static int keep(int i, const char* value) {
  char* all = joined(g_given[i], kSeparator[i], value);
  if (all == NULL) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "out of memory");
  free(g_given[i]);
  g_given[i] = all;
  return 0;
}

/* --tvm-lib PATH: made absolute against the working folder of the moment it is given
 * (./lib.so: cwd/lib.so), so the processes a command starts elsewhere find it too. */
static int take_lib(const char* path) {
  if (path[0] == '\0' || strchr(path, ':') != NULL)
    return dh_error_set(DH_KIND_VALUE_ERROR, "%s",
                        path[0] ? "a path with ':' cannot go into DEVHARNESS_TVM_LIBS" : "empty path");
  char abs[2 * PATH_MAX + 2], cwd[PATH_MAX];
  while (path[0] == '.' && path[1] == '/') path += 2;
  if (path[0] != '/' && strlen(path) < PATH_MAX && getcwd(cwd, sizeof cwd) != NULL)
    snprintf(abs, sizeof abs, "%s/%.*s", cwd, PATH_MAX - 1, path);
  else
    snprintf(abs, sizeof abs, "%.*s", PATH_MAX - 1, path);
  return keep(DH_TVM_OPT_LIB, abs);
}

/* --rpc [KEY@]HOST:PORT: port 1..65535, KEY 1..63 bytes, no ','. */
static int take_rpc(const char* hostport) {
  const char* at = strchr(hostport, '@');
  const char* hp = at ? at + 1 : hostport;
  const char* colon = strrchr(hp, ':');
  char* end = NULL;
  long port = colon ? strtol(colon + 1, &end, 10) : 0;
  if (colon == NULL || colon == hp || colon[1] == '\0' || *end != '\0' || port < 1 || port > 65535 ||
      strchr(hostport, ',') != NULL || (at && (at == hostport || at - hostport > 63)))
    return dh_error_set(DH_KIND_VALUE_ERROR, "expected HOST:PORT (port 1..65535) of a TVM RPC server, or "
                        "KEY@HOST:PORT of a TVM RPC tracker (KEY 1..63 bytes)");
  return keep(DH_TVM_OPT_RPC, hostport);
}

int dh_tvm_set_option(const char* name, const char* value) {
  if (strcmp(name, dh_tvm_options[DH_TVM_OPT_LIB].name) == 0) return take_lib(value);
  if (strcmp(name, dh_tvm_options[DH_TVM_OPT_RPC].name) == 0) return take_rpc(value);
  return dh_error_set(DH_KIND_KEY_ERROR, "tvm: no option --%s", name);
}

char* dh_tvm_option_values(int i) {
  if (i < 0 || i >= DH_TVM_NUM_OPTIONS) return NULL;
  return joined(getenv(kEnvironment[i]), kSeparator[i], g_given[i]);
}
