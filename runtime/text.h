/*
 * runtime/text.h — user-supplied text (file names, tags, kinds, option names, device
 * specs) made safe to put in a one-line message (internal to devharness: the runtime,
 * the conformance runner and the command use it; not part of the installed API).
 */
#ifndef DH_RUNTIME_TEXT_H
#define DH_RUNTIME_TEXT_H

#include <stddef.h>

/* At most this many bytes of one user string are shown; longer ones are cut and
 * followed by "...(N bytes)", so a message holding a few of them stays far below
 * DH_ERROR_MESSAGE_MAX (2048) and the reason after them is never cut. */
#define DH_TEXT_SHOW_MAX 160
/* A buffer that always holds dh_text_quote's result. */
#define DH_TEXT_BUF (DH_TEXT_SHOW_MAX * 4 + 32)

/* Writes s into buf (size bytes, DH_TEXT_BUF is always enough) as printable text on one
 * line: newline, carriage return and tab as \n \r \t, other control characters, DEL and
 * bytes that are not valid UTF-8 as \xNN; valid UTF-8 is kept. Cut after
 * DH_TEXT_SHOW_MAX bytes of s with "...(N bytes)". NULL is shown as "(null)". Returns
 * buf. Thread-safe (no state). */
const char* dh_text_quote(const char* s, char* buf, size_t size);

#endif
