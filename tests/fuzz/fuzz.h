/*
 * tests/fuzz/fuzz.h — libFuzzer entry points of devharness's fuzz targets.
 *
 * Each target file defines LLVMFuzzerTestOneInput (and optionally
 * LLVMFuzzerInitialize). Built two ways (mk/fuzz.mk, tests/fuzz/tests.mk):
 *   - with clang -fsanitize=fuzzer for `make fuzz`;
 *   - with replay.c as main, as a normal test that runs every file of the seed corpus
 *     and of regressions/<target>/ once and prints TAP (crashes found by fuzzing are
 *     kept there as regression tests).
 * A target calls dh_fuzz_fail() for a broken invariant, so libFuzzer and the replay
 * both see it as a crash.
 */
#ifndef DEVHARNESS_TESTS_FUZZ_FUZZ_H_
#define DEVHARNESS_TESTS_FUZZ_FUZZ_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerInitialize(int* argc, char*** argv);

/* Reports a broken invariant and traps (a crash both for libFuzzer and the replay). */
#define dh_fuzz_fail(...)            \
  do {                               \
    fprintf(stderr, "fuzz invariant: " __VA_ARGS__); \
    fputc('\n', stderr);             \
    __builtin_trap();                \
  } while (0)

/* Copies data into a NUL-terminated heap string (caller frees). */
static inline char* dh_fuzz_cstr(const uint8_t* data, size_t size) {
  char* s = (char*)malloc(size + 1);
  if (s == NULL) return NULL;
  for (size_t i = 0; i < size; ++i) s[i] = (char)data[i];
  s[size] = '\0';
  return s;
}

#endif /* DEVHARNESS_TESTS_FUZZ_FUZZ_H_ */
