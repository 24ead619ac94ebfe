/* base/text.c — see base/text.h. */
#include "base/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at p (1..4), 0 when it is not one. */
static size_t utf8_len(const unsigned char* p) {
  size_t len = p[0] < 0x80 ? 1 : (p[0] >> 5) == 6 ? 2 : (p[0] >> 4) == 14 ? 3 : (p[0] >> 3) == 30 ? 4 : 0;
  if (len == 2 && p[0] < 0xc2) return 0; /* overlong */
  for (size_t i = 1; i < len; i++)
    if ((p[i] & 0xc0) != 0x80) return 0;
  return len;
}

const char* dh_text_quote(const char* s, char* buf, size_t size) {
  if (buf == NULL || size == 0) return "";
  if (s == NULL) s = "(null)";
  const unsigned char* p = (const unsigned char*)s;
  size_t total = strlen(s), o = 0, shown = 0;
  while (*p && shown < DH_TEXT_SHOW_MAX) {
    char tmp[8];
    size_t n;
    size_t u = utf8_len(p);
    if (u > 1) {
      memcpy(tmp, p, u);
      n = u;
    } else if (*p == '\n') n = (size_t)snprintf(tmp, sizeof tmp, "\\n"), u = 1;
    else if (*p == '\r') n = (size_t)snprintf(tmp, sizeof tmp, "\\r"), u = 1;
    else if (*p == '\t') n = (size_t)snprintf(tmp, sizeof tmp, "\\t"), u = 1;
    else if (u == 0 || *p < 0x20 || *p == 0x7f) n = (size_t)snprintf(tmp, sizeof tmp, "\\x%02x", *p), u = 1;
    else tmp[0] = (char)*p, n = 1;
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
