/*
 * backends/common/env_bytes.c — a byte count from the environment (env_bytes.h).
 */
#include "backends/common/env_bytes.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int dh_common_env_bytes(const char* name, size_t deflt, size_t* out, char* reason,
                        size_t reason_size) {
  *out = deflt;
  const char* v = getenv(name);
  if (!v) return 0;
  char* end = NULL;
  errno = 0;
  unsigned long long n = strtoull(v, &end, 10);
  if (!*v || *v == '-' || *v == '+' || *v == ' ' || *end || errno || n > SIZE_MAX) {
    char q[48]; /* shown with bytes outside printable ASCII as '?', cut at 40 */
    size_t k = 0;
    for (; v[k] && k < 40; k++) q[k] = (v[k] >= 0x20 && v[k] < 0x7f) ? v[k] : '?';
    q[k] = '\0';
    snprintf(reason, reason_size, "%s='%s%s': not a byte count (decimal digits, e.g. 262144)",
             name, q, v[k] ? "..." : "");
    return -1;
  }
  *out = (size_t)n;
  return 0;
}
