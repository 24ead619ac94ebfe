/*
 * base/error.h — errors below the runtime: the one formatting rule of an error (a kind
 * and a printf message, both truncated) and base/'s record of the calling thread's last
 * base error. Part of base/, the static helper library with hidden visibility: not
 * installed, not exported.
 *
 * The error programs read is tvm-ffi's raised error (devharness/error.h, bridged by
 * runtime/error.c). base/ sits below the runtime and calls nothing above it
 * (tests/layering/base_floor.t), so a base function that fails stores (kind, message)
 * in this thread's base record with dh_base_error_set and returns -1; its caller, above
 * the runtime, raises that record as the thread's dh_error with dh_base_error_raise()
 * (or reads it). The record belongs to the calling thread and to the linked copy of
 * libdh_base.a (libdevharness.so and the command each link one, hidden); a caller reads
 * the copy of the base function it called, since both calls bind inside one binary.
 */
#ifndef DEVHARNESS_BASE_ERROR_H_
#define DEVHARNESS_BASE_ERROR_H_

#include <stdarg.h>

#include "devharness/error.h"

/* An error's text: a kind and a message, NUL-terminated. */
typedef struct dh_error_record {
  char kind[DH_ERROR_KIND_MAX];
  char message[DH_ERROR_MESSAGE_MAX];
} dh_error_record_t;

/* Fills *r with (kind, printf-formatted message), the rule devharness/error.h states
 * for dh_error_set: kind NULL or "" is "RuntimeError"; fmt NULL is the empty message; a
 * message vsnprintf cannot format is "(unformattable error message: FMT)"; both are
 * truncated to their buffers (never an error). Thread-safe (touches only *r). */
void dh_error_record_format(dh_error_record_t* r, const char* kind, const char* fmt, va_list ap);

/* Stores (kind, message) as the calling thread's base error (dh_error_record_format's
 * rule) and returns -1, so base functions write `return dh_base_error_set(...)`. */
int dh_base_error_set(const char* kind, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/* The calling thread's base error kind ("RuntimeError" when none was set) and message
 * ("" when none); pointers into this thread's record, valid until its next
 * dh_base_error_set on this thread. */
const char* dh_base_error_kind(void);
const char* dh_base_error_message(void);

/* Raises the calling thread's base error as its dh_error (kind and message unchanged)
 * and returns -1: what a caller of a failed base function returns. Inline, so it is
 * compiled into the caller, which sits above the runtime; libdh_base.a itself never
 * calls dh_error_set. */
static inline int dh_base_error_raise(void) {
  return dh_error_set(dh_base_error_kind(), "%s", dh_base_error_message());
}

#endif /* DEVHARNESS_BASE_ERROR_H_ */
