/* base/text.c — see base/text.h. */
#include "base/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The one UTF-8 validator of the tree (base/text.h). Well-formed sequences as Unicode
 * 15.0 table 3-7 lists them: the second byte's range depends on the first, which
 * rules out overlong forms (\xc0\x80, \xe0\x80\x80), UTF-16 surrogates
 * (\xed\xa0\x80 .. \xed\xbf\xbf) and anything above U+10FFFF. */
size_t dh_utf8_seq_len(const char* s) {
  const unsigned char* p = (const unsigned char*)s;
  unsigned char b = p[0];
  if (b < 0x80) return 1;
  size_t len;
  unsigned char lo = 0x80, hi = 0xbf; /* range of the second byte */
  if (b >= 0xc2 && b <= 0xdf) len = 2;
  else if (b >= 0xe0 && b <= 0xef) {
    len = 3;
    if (b == 0xe0) lo = 0xa0;      /* overlong below U+0800 */
    else if (b == 0xed) hi = 0x9f; /* surrogates U+D800..U+DFFF */
  } else if (b >= 0xf0 && b <= 0xf4) {
    len = 4;
    if (b == 0xf0) lo = 0x90;      /* overlong below U+10000 */
    else if (b == 0xf4) hi = 0x8f; /* above U+10FFFF */
  } else {
    return 0; /* a continuation byte, \xc0, \xc1 or \xf5..\xff */
  }
  if (p[1] < lo || p[1] > hi) return 0; /* also stops at the NUL */
  for (size_t i = 2; i < len; i++)
    if ((p[i] & 0xc0) != 0x80) return 0;
  return len;
}

/* One piece of dh_text_clean's output for the text at p: *used bytes of p become the
 * returned bytes in out (at most 8). */
static size_t clean_piece(const unsigned char* p, char out[8], size_t* used) {
  size_t u = dh_utf8_seq_len((const char*)p);
  *used = u ? u : 1;
  if (u == 0) return (size_t)snprintf(out, 8, "\\x%02x", p[0]);
  if (u == 1) {
    if (p[0] == '\r') return (size_t)snprintf(out, 8, "\\r");
    if ((p[0] < 0x20 && p[0] != '\t' && p[0] != '\n') || p[0] == 0x7f)
      return (size_t)snprintf(out, 8, "\\x%02x", p[0]);
  }
  /* U+FFFE and U+FFFF: well-formed UTF-8 but no XML 1.0 character */
  if (u == 3 && p[0] == 0xef && p[1] == 0xbf && (p[2] == 0xbe || p[2] == 0xbf))
    return (size_t)snprintf(out, 8, "\\u%s", p[2] == 0xbe ? "FFFE" : "FFFF");
  memcpy(out, p, u);
  return u;
}

int dh_text_clean(char* s, size_t size) {
  if (s == NULL || size == 0) return 0;
  s[size - 1] = '\0';
  size_t n = strlen(s), changed = 0, o = 0;
  char* out = malloc(n * 6 + 1); /* the widest piece: \uFFFF (6) for 3 bytes, \xNN (4) for 1 */
  if (out == NULL) { /* no memory: keep the ASCII that needs nothing, '?' for the rest */
    for (size_t i = 0; i < n; i++) {
      unsigned char c = (unsigned char)s[i];
      if (c >= 0x80 || (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) s[i] = '?', changed = 1;
    }
    return (int)changed;
  }
  size_t fit = 0; /* output bytes up to the last piece that still fits in s */
  for (const unsigned char* p = (const unsigned char*)s; *p;) {
    char piece[8];
    size_t used, k = clean_piece(p, piece, &used);
    if (k != used || memcmp(piece, p, k) != 0) changed = 1;
    memcpy(out + o, piece, k);
    o += k;
    if (o <= size - 1) fit = o; /* a longer result is cut here: never inside a piece */
    p += used;
  }
  if (fit < o) changed = 1;
  o = fit;
  memcpy(s, out, o);
  s[o] = '\0';
  free(out);
  return (int)changed;
}

/* 1 when the well-formed sequence p (u bytes) is a character a terminal acts on or
 * that reorders the text around it: C1 controls U+0080..U+009F (CSI, OSC, ...) and the
 * bidirectional formatting characters U+061C, U+200E, U+200F, U+202A..U+202E,
 * U+2066..U+2069 (Unicode 15.0 UAX 9, table 4; the "Trojan Source" characters). */
static int is_format_control(const unsigned char* p, size_t u) {
  if (u == 2) return (p[0] == 0xc2 && p[1] <= 0x9f) || (p[0] == 0xd8 && p[1] == 0x9c);
  if (u != 3) return 0;
  if (p[0] == 0xe2 && p[1] == 0x80) return p[2] == 0x8e || p[2] == 0x8f || (p[2] >= 0xaa && p[2] <= 0xae);
  if (p[0] == 0xe2 && p[1] == 0x81) return p[2] >= 0xa6 && p[2] <= 0xa9;
  return 0;
}

/* One piece of dh_text_quote's output for the text at p: *used bytes of p become the
 * returned bytes in tmp (at most 11: \\uXXXX for a format control). */
static size_t quote_piece(const unsigned char* p, char tmp[12], size_t* used) {
  size_t u = dh_utf8_seq_len((const char*)p);
  *used = u ? u : 1;
  if (u > 1 && is_format_control(p, u)) {
    unsigned cp = u == 2 ? ((p[0] & 0x1fu) << 6 | (p[1] & 0x3fu))
                         : ((p[0] & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu));
    return (size_t)snprintf(tmp, 12, "\\u%04X", cp);
  }
  if (u > 1) return memcpy(tmp, p, u), u;
  if (*p == '\n') return (size_t)snprintf(tmp, 12, "\\n");
  if (*p == '\r') return (size_t)snprintf(tmp, 12, "\\r");
  if (*p == '\t') return (size_t)snprintf(tmp, 12, "\\t");
  if (u == 0 || *p < 0x20 || *p == 0x7f) return (size_t)snprintf(tmp, 12, "\\x%02x", *p);
  tmp[0] = (char)*p;
  return 1;
}

const char* dh_text_quote(const char* s, char* buf, size_t size) {
  if (buf == NULL || size == 0) return "";
  if (s == NULL) s = "(null)";
  const unsigned char* p = (const unsigned char*)s;
  size_t total = strlen(s), o = 0, shown = 0;
  while (*p && shown < DH_TEXT_SHOW_MAX) {
    char tmp[12];
    size_t u, n = quote_piece(p, tmp, &u);
    if (o + n + 1 > size) break;
    memcpy(buf + o, tmp, n);
    o += n;
    p += u;
    shown += u;
  }
  buf[o] = '\0';
  if (*p) {
    char tail[40];
    int n = snprintf(tail, sizeof tail, "...(%zu bytes)", total);
    if (n > 0 && o + (size_t)n + 1 <= size) memcpy(buf + o, tail, (size_t)n + 1);
  }
  return buf;
}

void dh_sbuf_add_quoted(dh_sbuf_t* b, const char* s) {
  if (s == NULL) s = "(null)";
  for (const unsigned char* p = (const unsigned char*)s; *p;) {
    char tmp[12];
    size_t u, n = quote_piece(p, tmp, &u);
    tmp[n] = '\0';
    dh_sbuf_add(b, tmp);
    p += u;
  }
}

/* Makes room for n more bytes plus the NUL; 0, or -1 when out of memory. */
static int sbuf_reserve(dh_sbuf_t* b, size_t n) {
  if (b->len + n + 1 <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + n + 1) cap *= 2;
  char* p = realloc(b->s, cap);
  if (!p) return -1;
  b->s = p;
  b->cap = cap;
  return 0;
}

void dh_sbuf_add(dh_sbuf_t* b, const char* t) {
  size_t n = strlen(t);
  if (sbuf_reserve(b, n) != 0) return;
  memcpy(b->s + b->len, t, n + 1);
  b->len += n;
}

void dh_sbuf_addf(dh_sbuf_t* b, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (k < 0 || sbuf_reserve(b, (size_t)k) != 0) return;
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
  va_end(ap);
  b->len += (size_t)k;
}

const char* dh_sbuf_str(const dh_sbuf_t* b) { return b->s ? b->s : ""; }

void dh_sbuf_clear(dh_sbuf_t* b) {
  b->len = 0;
  if (b->s) b->s[0] = '\0';
}
