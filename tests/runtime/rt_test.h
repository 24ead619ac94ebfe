/*
 * tests/runtime/rt_test.h — helpers shared by the runtime tests (header-only).
 * cmocka needs <stdarg.h>, <stddef.h>, <setjmp.h> before <cmocka.h>.
 */
#ifndef DEVHARNESS_TESTS_RUNTIME_RT_TEST_H_
#define DEVHARNESS_TESTS_RUNTIME_RT_TEST_H_

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <libgen.h>
#include <cmocka.h>

/* Writes "<dir of this test executable>/<rel>" into buf. Returns buf. */
static inline const char* rt_path(char* buf, size_t size, const char* rel) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n < 0) n = 0;
  exe[n] = '\0';
  snprintf(buf, size, "%s/%s", dirname(exe), rel);
  return buf;
}

/* Asserts that `haystack` contains `needle`, printing both when not. */
#define assert_contains(haystack, needle)                                                  \
  do {                                                                                     \
    const char* h_ = (haystack);                                                           \
    const char* n_ = (needle);                                                             \
    if (h_ == NULL || strstr(h_, n_) == NULL)                                              \
      fail_msg("expected \"%s\" to contain \"%s\"", h_ ? h_ : "(NULL)", n_);               \
  } while (0)

#endif
