/*
 * devharness/error.h — the one error model of devharness.
 *
 * Every fallible devharness function, every backend vtable entry and every packed
 * function returns int: 0 on success, -1 on error. On -1 the details — a kind and a
 * message — are tvm-ffi's raised error of the calling thread: dh_error_set creates it
 * with TVMFFIErrorCreate (an empty backtrace: capturing one costs ~0.15 s on a
 * process's first error) and raises it with TVMFFIErrorSetRaised, and
 * dh_error_kind/dh_error_message read the error TVMFFIErrorMoveFromRaised would return
 * (apache-tvm-ffi 0.1.15 include/tvm/ffi/c_api.h).
 * So an error a backend sets reaches a tvm-ffi caller (Python's tvm_ffi raises it as
 * the exception class named by the kind), and an error raised by tvm-ffi code (C++
 * TVM_FFI_THROW, a Python callback) is what these functions read. A later error on the
 * same thread replaces it; other threads never see it. This header needs no tvm-ffi
 * header (the plugin ABI stays plain C).
 *
 * Kinds are tvm-ffi / Python style names; pass them through the DH_KIND_* constants
 * below, so a misspelt kind is a compile error rather than a silent contract break.
 * Backends may use their own kinds; they are carried through unchanged.
 */
#ifndef DEVHARNESS_ERROR_H_
#define DEVHARNESS_ERROR_H_

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The error kinds devharness raises (a backend may raise others; they are carried
 * through unchanged). Python's tvm_ffi raises the exception class of the same name
 * where it has one (apache-tvm-ffi 0.1.15 python/tvm_ffi/error.py). */
#define DH_KIND_VALUE_ERROR "ValueError"                    /* bad argument value (sizes, ids, offsets, option values) */
#define DH_KIND_TYPE_ERROR "TypeError"                      /* wrong argument or option type */
#define DH_KIND_INDEX_ERROR "IndexError"                    /* device id or argument index out of range */
#define DH_KIND_KEY_ERROR "KeyError"                        /* name not found (backend, function, tag, option, kind) */
#define DH_KIND_RUNTIME_ERROR "RuntimeError"                /* the device or driver failed */
#define DH_KIND_OUT_OF_MEMORY_ERROR "OutOfMemoryError"      /* an allocation could not be satisfied */
#define DH_KIND_NOT_IMPLEMENTED_ERROR "NotImplementedError" /* the backend lacks the operation */
#define DH_KIND_IO_ERROR "IOError"                          /* files: cannot open, read or write */
#define DH_KIND_PARSE_ERROR "ParseError"                    /* malformed JSON or spec text */
#define DH_KIND_ABI_ERROR "ABIError"                        /* a plugin that does not keep backend.h's ABI */
#define DH_KIND_INTERNAL_ERROR "InternalError"              /* a devharness bug */

/* Maximum stored message length in bytes, including the NUL; longer messages are
 * truncated (never an error). */
#define DH_ERROR_MESSAGE_MAX 2048
/* Maximum stored kind length in bytes, including the NUL. */
#define DH_ERROR_KIND_MAX 64

/* Stores (kind, printf-formatted message) as the calling thread's last error and
 * returns -1, so callers write `return dh_error_set("ValueError", "...", ...)`.
 * kind: NUL-terminated, copied; NULL means "RuntimeError". fmt: printf format, copied
 * after formatting. Thread-safe (touches only the calling thread's storage). */
int dh_error_set(const char* kind, const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* va_list form of dh_error_set. Returns -1. */
int dh_error_setv(const char* kind, const char* fmt, va_list ap);

/* Prepends "prefix: " to the calling thread's current message (kind unchanged), for
 * adding context on the way up ("sim:0: copy_data_from_to: ..."). Returns -1. If no
 * error is stored, stores ("InternalError", prefix). Thread-safe. */
int dh_error_prefix(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/* The calling thread's raised error kind, or NULL when none is raised. The error stays
 * raised. The pointer is a thread-local copy (truncated to DH_ERROR_KIND_MAX - 1
 * bytes), valid until the next dh_error_* call on this thread. */
const char* dh_error_kind(void);

/* The calling thread's raised error message, or "" when none is raised (a copy
 * truncated to DH_ERROR_MESSAGE_MAX - 1 bytes). Lifetime as dh_error_kind. */
const char* dh_error_message(void);

/* Forgets the calling thread's raised error (moves it out of tvm-ffi's store and
 * releases it). Thread-safe. */
void dh_error_clear(void);

#ifdef __cplusplus
}
#endif
#endif /* DEVHARNESS_ERROR_H_ */
