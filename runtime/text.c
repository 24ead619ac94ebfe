/* runtime/text.c — see runtime/text.h. */
#include "runtime/text.h"

#include <stdio.h>
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
