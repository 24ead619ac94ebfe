/*
 * runtime/error.c — the thread-local last error (devharness/error.h).
 * Each thread owns fixed buffers (_Thread_local); nothing is shared, nothing allocates.
 */
#include "devharness/error.h"

#include <stdio.h>
#include <string.h>

#include "internal.h"

/* The flag is read and cleared on every packed call (dh_func_call), so it uses the
 * initial-exec TLS model (no __tls_get_addr call; 4 bytes of static TLS). The buffers
 * are only touched on errors and keep the default model. */
#if defined(__GNUC__)
static _Thread_local int tl_has_error __attribute__((tls_model("initial-exec")));
#else
static _Thread_local int tl_has_error;
#endif
static _Thread_local char tl_kind[DH_ERROR_KIND_MAX];
static _Thread_local char tl_message[DH_ERROR_MESSAGE_MAX];

int dh_error_setv(const char* kind, const char* fmt, va_list ap) {
  /* Format into a local buffer first: the arguments may point into tl_message. */
  char buf[DH_ERROR_MESSAGE_MAX];
  if (fmt == NULL) {
    buf[0] = '\0';
  } else {
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    if (n < 0) snprintf(buf, sizeof buf, "(unformattable error message: %s)", fmt);
  }
  /* kind may be dh_error_kind() itself: copy through a local buffer too */
  char k[DH_ERROR_KIND_MAX];
  snprintf(k, sizeof k, "%s", kind != NULL ? kind : "RuntimeError");
  memcpy(tl_kind, k, strlen(k) + 1);
  memcpy(tl_message, buf, strlen(buf) + 1);
  tl_has_error = 1;
  return -1;
}

int dh_error_set(const char* kind, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  dh_error_setv(kind, fmt, ap);
  va_end(ap);
  return -1;
}

int dh_error_prefix(const char* fmt, ...) {
  char prefix[DH_ERROR_MESSAGE_MAX];
  va_list ap;
  va_start(ap, fmt);
  int n = fmt != NULL ? vsnprintf(prefix, sizeof prefix, fmt, ap) : 0;
  va_end(ap);
  if (n < 0) n = 0, prefix[0] = '\0';
  if (!tl_has_error) return dh_error_set("InternalError", "%s", prefix);
  /* tl_message = prefix + ": " + tl_message, truncated to the buffer */
  char buf[DH_ERROR_MESSAGE_MAX];
  size_t np = strlen(prefix), nm = strlen(tl_message), cap = sizeof buf - 1;
  if (np > cap) np = cap;
  memcpy(buf, prefix, np);
  size_t used = np;
  for (const char* sep = ": "; *sep && used < cap; sep++) buf[used++] = *sep;
  if (nm > cap - used) nm = cap - used;
  memcpy(buf + used, tl_message, nm);
  buf[used + nm] = '\0';
  memcpy(tl_message, buf, used + nm + 1);
  return -1;
}

const char* dh_error_kind(void) { return tl_has_error ? tl_kind : NULL; }

const char* dh_error_message(void) { return tl_has_error ? tl_message : ""; }

void dh__error_reset(void) { tl_has_error = 0; /* kind/message are read only when set */ }

void dh_error_clear(void) { tl_has_error = 0; }
