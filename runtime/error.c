/*
 * runtime/error.c — devharness/error.h on tvm-ffi's error store.
 *
 * The raised error is tvm-ffi's thread-local one (TVMFFIErrorCreate,
 * TVMFFIErrorMoveFromRaised, TVMFFIErrorSetRaised; apache-tvm-ffi 0.1.15
 * include/tvm/ffi/c_api.h), so an error set here is what a tvm-ffi caller (Python's
 * tvm_ffi, TVM, C++ code using tvm::ffi::Function) receives, and an error raised by
 * tvm-ffi code is what dh_error_kind()/dh_error_message() read.
 *
 * Reading peeks: the error object is moved out, its kind and message copied into this
 * thread's buffers (the strings dh_error_kind/dh_error_message return), and it is set
 * raised again. The buffers use the default (global-dynamic) TLS model, so the library
 * can be dlopen'ed into any process.
 */
#include "devharness/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#include "internal.h"

static _Thread_local char tl_kind[DH_ERROR_KIND_MAX];
static _Thread_local char tl_message[DH_ERROR_MESSAGE_MAX];

/* The cell after the object header (what tvm-ffi's C++-only TVMFFIErrorGetCellPtr
 * computes; c_api.h says bindings may re-implement these offset accessors). */
static const TVMFFIErrorCell* cell_of(TVMFFIObjectHandle e) {
  return (const TVMFFIErrorCell*)((const char*)e + sizeof(TVMFFIObject));
}

static void copy_bytes(char* dst, size_t cap, const TVMFFIByteArray* b) {
  size_t n = b->size < cap - 1 ? b->size : cap - 1;
  if (n) memcpy(dst, b->data, n);
  dst[n] = '\0';
}

int dh__error_peek(void) {
  TVMFFIObjectHandle e = NULL;
  TVMFFIErrorMoveFromRaised(&e);
  if (e == NULL) return 0;
  const TVMFFIErrorCell* c = cell_of(e);
  copy_bytes(tl_kind, sizeof tl_kind, &c->kind);
  copy_bytes(tl_message, sizeof tl_message, &c->message);
  TVMFFIErrorSetRaised(e); /* takes its own reference */
  TVMFFIObjectDecRef(e);
  return 1;
}

int dh_error_setv(const char* kind, const char* fmt, va_list ap) {
  char buf[DH_ERROR_MESSAGE_MAX];
  if (fmt == NULL) {
    buf[0] = '\0';
  } else {
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    if (n < 0) snprintf(buf, sizeof buf, "(unformattable error message: %s)", fmt);
  }
  char k[DH_ERROR_KIND_MAX];
  snprintf(k, sizeof k, "%s", kind != NULL && kind[0] != '\0' ? kind : DH_KIND_RUNTIME_ERROR);
  /* Created with an empty backtrace: TVMFFIErrorSetRaisedFromCStr would capture and
   * symbolise one, which costs ~0.15 s on the first error of every process (the
   * conformance suite forks a process per case, and many cases expect errors). */
  TVMFFIByteArray kb = {k, strlen(k)}, mb = {buf, strlen(buf)}, bt = {"", 0};
  TVMFFIObjectHandle e = NULL;
  if (TVMFFIErrorCreate(&kb, &mb, &bt, &e) == 0 && e != NULL) {
    TVMFFIErrorSetRaised(e); /* takes its own reference */
    TVMFFIObjectDecRef(e);
  } else {
    TVMFFIErrorSetRaisedFromCStr(k, buf);
  }
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
  if (!dh__error_peek()) return dh_error_set(DH_KIND_INTERNAL_ERROR, "%s", prefix);
  /* tl_kind/tl_message now hold the raised error; raise "prefix: message" instead */
  char kind[DH_ERROR_KIND_MAX];
  memcpy(kind, tl_kind, sizeof kind);
  return dh_error_set(kind, "%s: %s", prefix, tl_message);
}

const char* dh_error_kind(void) { return dh__error_peek() ? tl_kind : NULL; }

const char* dh_error_message(void) { return dh__error_peek() ? tl_message : ""; }

void dh_error_clear(void) {
  TVMFFIObjectHandle e = NULL;
  TVMFFIErrorMoveFromRaised(&e);
  if (e != NULL) TVMFFIObjectDecRef(e);
}
