/*
 * base/text.h — user-supplied text (file names, tags, kinds, option names, device
 * specs) made safe to put in a one-line message, and a growable string for building
 * messages and reports. Part of base/, the static helper library linked into the
 * runtime and the command with hidden visibility: not installed, not exported.
 */
#ifndef DEVHARNESS_BASE_TEXT_H_
#define DEVHARNESS_BASE_TEXT_H_

#include <stddef.h>

/* At most this many bytes of one user string are shown; longer ones are cut and
 * followed by "...(N bytes)", so a message holding a few of them stays far below
 * DH_ERROR_MESSAGE_MAX (2048) and the reason after them is never cut. */
#define DH_TEXT_SHOW_MAX 160
/* A buffer that always holds dh_text_quote's result. */
#define DH_TEXT_BUF (DH_TEXT_SHOW_MAX * 4 + 32)

/* Writes s into buf (size bytes, DH_TEXT_BUF is always enough) as printable text on one
 * line, safe for a terminal: newline, carriage return and tab as \n \r \t, other control
 * characters, DEL and bytes that are not valid UTF-8 as \xNN; C1 controls (U+0080..
 * U+009F) and the bidirectional formatting characters (U+061C, U+200E, U+200F,
 * U+202A..U+202E, U+2066..U+2069) as \uXXXX; other valid UTF-8 is kept. Cut after
 * DH_TEXT_SHOW_MAX bytes of s with "...(N bytes)". NULL is shown as "(null)". Returns
 * buf. Thread-safe (no state). */
const char* dh_text_quote(const char* s, char* buf, size_t size);

/* Appends s to b escaped as dh_text_quote escapes it, without its cut (whole reasons
 * and messages from a backend, a library or a peer, bound for a terminal). NULL is
 * "(null)". */
struct dh_sbuf;
void dh_sbuf_add_quoted(struct dh_sbuf* b, const char* s);

/* Length (1..4) of the well-formed UTF-8 sequence s starts with, 0 when it starts none:
 * overlong forms (\xc0\x80), UTF-16 surrogates (\xed\xa0\x80), bytes above U+10FFFF
 * and stray continuation bytes are not UTF-8 (Unicode 15.0 table 3-7). Reads no
 * further than a NUL. The tree's one UTF-8 validator: dh_text_quote, dh_text_clean and
 * the conformance reporters all go through it. */
size_t dh_utf8_seq_len(const char* s);

/* Makes the NUL-terminated text in s (a buffer of size bytes) valid UTF-8 made only of
 * XML 1.0 characters, in place, so that any report format can carry it: each byte of an
 * ill-formed sequence, each control character other than tab and newline, and DEL
 * become \xNN; carriage return \r; U+FFFE and U+FFFF \uFFFE and \uFFFF. Tab, newline and
 * valid UTF-8 are kept. The escapes are visible text (a backslash and letters), never
 * the bytes they stand for. A result longer than the buffer is cut at a character or
 * escape boundary. Returns 1 when s changed, 0 when it was clean. */
int dh_text_clean(char* s, size_t size);

/* A growable NUL-terminated string. Zero-initialise ({0}); free(b.s) when done. Out of
 * memory leaves the text cut short (messages are never fatal). Not thread-safe (one
 * owner). */
typedef struct dh_sbuf {
  char* s;    /* NULL until something is added */
  size_t len; /* bytes in s, without the NUL */
  size_t cap;
} dh_sbuf_t;

/* Appends t. */
void dh_sbuf_add(dh_sbuf_t* b, const char* t);
/* Appends printf-formatted text. */
void dh_sbuf_addf(dh_sbuf_t* b, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text so far ("" when nothing was added). */
const char* dh_sbuf_str(const dh_sbuf_t* b);
/* Empties b, keeping its storage. */
void dh_sbuf_clear(dh_sbuf_t* b);

#endif /* DEVHARNESS_BASE_TEXT_H_ */
