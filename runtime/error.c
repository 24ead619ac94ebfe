/*
 * runtime/error.c — devharness/error.h on tvm-ffi's error store.
 *
 * The raised error is tvm-ffi's thread-local one (TVMFFIErrorCreate,
 * TVMFFIErrorMoveFromRaised, TVMFFIErrorSetRaised; apache-tvm-ffi 0.1.15
 * include/tvm/ffi/c_api.h), so an error set here is what a tvm-ffi caller (Python's
 * tvm_ffi, TVM, C++ code using tvm::ffi::Function) receives, and an error raised by
 * tvm-ffi code is what dh_error_kind()/dh_error_message() read.
 *
 * Only the bridge to tvm-ffi is here: the text of an error (kind default, formatting,
 * truncation) is base/error.c's dh_error_record_format, the rule base/ uses too.
 *
 * Reading peeks: the error object is moved out, its kind and message copied into this
 * thread's record (the strings dh_error_kind/dh_error_message return), and it is set
 * raised again. The record uses the default (global-dynamic) TLS model, so the library
 * can be dlopen'ed into any process.
 */
#include "devharness/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#include "base/error.h"
#include "internal.h"

static _Thread_local dh_error_record_t tl_peek;

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
  copy_bytes(tl_peek.kind, sizeof tl_peek.kind, &c->kind);
  copy_bytes(tl_peek.message, sizeof tl_peek.message, &c->message);
  TVMFFIErrorSetRaised(e); /* takes its own reference */
  TVMFFIObjectDecRef(e);
  return 1;
}

int dh_error_setv(const char* kind, const char* fmt, va_list ap) {
  dh_error_record_t r;
  dh_error_record_format(&r, kind, fmt, ap);
  /* Created with an empty backtrace: TVMFFIErrorSetRaisedFromCStr would capture and
   * symbolise one, which costs ~0.15 s on the first error of every process (the
   * conformance suite forks a process per case, and many cases expect errors). */
  TVMFFIByteArray kb = {r.kind, strlen(r.kind)}, mb = {r.message, strlen(r.message)}, bt = {"", 0};
  TVMFFIObjectHandle e = NULL;
  if (TVMFFIErrorCreate(&kb, &mb, &bt, &e) == 0 && e != NULL) {
    TVMFFIErrorSetRaised(e); /* takes its own reference */
    TVMFFIObjectDecRef(e);
  } else {
    TVMFFIErrorSetRaisedFromCStr(r.kind, r.message);
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
  /* tl_peek now holds the raised error; raise "prefix: message" instead */
  dh_error_record_t was = tl_peek;
  return dh_error_set(was.kind, "%s: %s", prefix, was.message);
}

const char* dh_error_kind(void) { return dh__error_peek() ? tl_peek.kind : NULL; }

const char* dh_error_message(void) { return dh__error_peek() ? tl_peek.message : ""; }

void dh_error_clear(void) {
  TVMFFIObjectHandle e = NULL;
  TVMFFIErrorMoveFromRaised(&e);
  if (e != NULL) TVMFFIObjectDecRef(e);
}
