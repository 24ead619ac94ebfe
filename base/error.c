/* base/error.c — the formatting rule of an error and base/'s per-thread error record
 * (base/error.h). The record uses the default (global-dynamic) TLS model, so the
 * library that links it can be dlopen'ed into any process. */
#include "base/error.h"

#include <stdio.h>

void dh_error_record_format(dh_error_record_t* r, const char* kind, const char* fmt, va_list ap) {
  if (fmt == NULL) {
    r->message[0] = '\0';
  } else {
    int n = vsnprintf(r->message, sizeof r->message, fmt, ap);
    if (n < 0) snprintf(r->message, sizeof r->message, "(unformattable error message: %s)", fmt);
  }
  snprintf(r->kind, sizeof r->kind, "%s", kind != NULL && kind[0] != '\0' ? kind : DH_KIND_RUNTIME_ERROR);
}

static _Thread_local dh_error_record_t tl_base;

int dh_base_error_set(const char* kind, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  dh_error_record_format(&tl_base, kind, fmt, ap);
  va_end(ap);
  return -1;
}

const char* dh_base_error_kind(void) { return tl_base.kind[0] ? tl_base.kind : DH_KIND_RUNTIME_ERROR; }

const char* dh_base_error_message(void) { return tl_base.message; }
