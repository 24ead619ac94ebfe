/*
 * base/json_read.h — reading a small JSON document within limits: the one reader of
 * target files, kind files, tags (target/) and waiver files (conformance/). Part of
 * base/, the static helper library with hidden visibility: not installed, not exported.
 *
 * Limits, each refused with a one-line base error (base/error.h: the caller raises it
 * with dh_base_error_raise or reads it) naming the file (escaped, base/text.h) and,
 * for syntax, line:column:
 *   - size: at most DH_JSON_MAX_BYTES (1 MiB); a larger file is refused from its size
 *     before it is parsed (tests/hostile/hostile.t: huge files get one line, not minutes
 *     of parsing), a growing one while it is read;
 *   - files: regular files only, opened O_NONBLOCK, so a FIFO or a device named by
 *     mistake is refused at once instead of blocking;
 *   - text: empty or blank input, invalid UTF-8, duplicate keys (jansson
 *     JSON_REJECT_DUPLICATES), nesting deeper than DH_JSON_MAX_DEPTH levels;
 *   - the root must be a JSON object.
 * Errors: "IOError" (open, stat, read, not a regular file), "ValueError" (too large),
 * "ParseError" (empty, syntax, UTF-8, duplicate key, too deep), "TypeError" (root not
 * an object), "OutOfMemoryError". Thread-safe.
 */
#ifndef DEVHARNESS_BASE_JSON_READ_H_
#define DEVHARNESS_BASE_JSON_READ_H_

#include <jansson.h>
#include <stddef.h>

#include "base/error.h" /* its errors are base errors */

#define DH_JSON_MAX_BYTES ((size_t)1 << 20) /* 1 MiB */
#define DH_JSON_MAX_DEPTH 64                /* nesting levels */

/* Reads the file at path into *out (a new reference to an object). 0, or -1 with
 * dh_base_error_set; messages name the path as dh_text_quote shows it. */
int dh_json_read_file(const char* path, json_t** out);

/* Parses len bytes of text; messages name `origin` (used as given: quote it first).
 * 0, or -1 with dh_base_error_set. */
int dh_json_read_text(const char* text, size_t len, const char* origin, json_t** out);

/* "string \"1024\"", "int 3", "float 1.5", "bool true", "null", "array [1, 2]",
 * "object {...}": a value's JSON type and text (cut after 60 bytes) for messages. */
void dh_json_describe(const json_t* v, char* buf, size_t size);

/* Seeds jansson's hash once per process before first use (jansson docs, "Thread
 * safety"); the readers above call it. */
void dh_json_init(void);

#endif /* DEVHARNESS_BASE_JSON_READ_H_ */
