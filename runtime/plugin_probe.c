/*
 * runtime/plugin_probe.c — a plugin is tried in a forked child before this process
 * maps it: dlopen, the entry symbol, the entry's result and the struct checks of
 * abi_check.c run there, with a timeout (base/child.c). A plugin that crashes while it
 * loads (a truncated file: SIGBUS when the loader touches pages past its end), exits
 * (an entry or a constructor calling exit), hangs or fails a check is refused with what
 * happened, and the caller's process never maps it: its constructors, its global
 * registrations in tvm-ffi's table and its exit handlers never run there.
 * (runtime/README.md "Plugin checks"; docs/contract.md "Plugin ABI".)
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "base/child.h"
#include "internal.h"

typedef struct probe_arg {
  const char* path; /* as given: messages name it */
  const char* real; /* resolved: what is opened */
} probe_arg_t;

/* In the child: "ok", or the error's kind, a newline and its message. */
static void probe_child(void* arg, int fd) {
  const probe_arg_t* a = arg;
  char answer[DH_ERROR_KIND_MAX + DH_ERROR_MESSAGE_MAX + 2] = "ok";
  dlerror();
  void* h = dlopen(a->real, RTLD_NOW | RTLD_LOCAL);
  void* sym = h ? dlsym(h, DH_BACKEND_ENTRY_SYMBOL) : NULL;
  if (h == NULL) {
    const char* why = dlerror();
    dh_error_set(DH_KIND_ABI_ERROR, "%s: dlopen failed: %s", a->path, why ? why : "unknown reason");
  } else if (sym == NULL) {
    dh_error_set(DH_KIND_ABI_ERROR, "%s: missing entry symbol %s", a->path, DH_BACKEND_ENTRY_SYMBOL);
  } else {
    dh_backend_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry);
    dh_backend_t copy;
    if (dh__backend_accept(a->path, entry(), SIZE_MAX, &copy) == 0) dh_error_clear();
  }
  if (dh_error_kind() != NULL) snprintf(answer, sizeof answer, "%s\n%s", dh_error_kind(), dh_error_message());
  dh_write_all(fd, answer, strlen(answer));
}

int dh__plugin_probe(const char* path, const char* real) {
  probe_arg_t a = {path, real};
  dh_child_result_t r;
  dh_child_run(probe_child, &a, DH__PLUGIN_PROBE_TIMEOUT_S, &r);
  char* nl = r.data ? memchr(r.data, '\n', r.size) : NULL;
  int rc = -1;
  if (r.status == DH_CHILD_ANSWERED && r.size == 2 && memcmp(r.data, "ok", 2) == 0) {
    rc = 0;
  } else if (r.status == DH_CHILD_ANSWERED && nl != NULL) { /* a check failed: its own error */
    *nl = '\0';
    dh_error_set(r.data, "%.*s", (int)(r.size - (size_t)(nl + 1 - r.data)), nl + 1);
  } else if (r.status == DH_CHILD_ANSWERED) { /* exit(0) before an answer */
    dh_error_set(DH_KIND_ABI_ERROR, "%s: refused: the plugin ended the process (exit status 0) while it "
                 "loaded (dlopen or %s)", path, DH_BACKEND_ENTRY_SYMBOL);
  } else {
    dh_error_set(DH_KIND_ABI_ERROR, "%s: refused: loading it in a probe process: %s (dlopen or %s)", path,
                 r.note, DH_BACKEND_ENTRY_SYMBOL);
  }
  free(r.data);
  return rc;
}
