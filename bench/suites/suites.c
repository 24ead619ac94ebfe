/* bench/suites/suites.c — the suites table and what is derived from it (bench/suites/suites.h). */
#include <stdio.h>
#include <string.h>

#include "bench/suites/suites.h"
#include "cmdline/cmdline.h"
#include "devharness/error.h"

#define DH_BENCH_SUITE_ENTRY(name, devices) {#name, devices, dh_bench_suite_##name},
const dh_bench_suite_t dh_bench_suites[] = {DH_BENCH_SUITES(DH_BENCH_SUITE_ENTRY){NULL, 0, NULL}};
#undef DH_BENCH_SUITE_ENTRY

const char* dh_bench_suite_names(const char* sep, char* buf, size_t size) {
  size_t n = 0;
  buf[0] = '\0';
  for (const dh_bench_suite_t* s = dh_bench_suites; s->name && n < size; ++s)
    n += (size_t)snprintf(buf + n, size - n, "%s%s", s == dh_bench_suites ? "" : sep, s->name);
  return buf;
}

/* The suite named by the `len` bytes at p, or NULL. */
static const dh_bench_suite_t* find(const char* p, size_t len) {
  for (const dh_bench_suite_t* s = dh_bench_suites; s->name; ++s)
    if (strlen(s->name) == len && strncmp(p, s->name, len) == 0) return s;
  return NULL;
}

int dh_bench_suite_selected(const char* list, const char* name) {
  if (!list) {
    const dh_bench_suite_t* s = find(name, strlen(name));
    return !s || s->devices != DH_BENCH_PER_DEVICE_OPT_IN;
  }
  size_t n = strlen(name);
  for (const char* p = list; *p;) {
    const char* e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && strncmp(p, name, n) == 0) return 1;
    if (!e) break;
    p = e + 1;
  }
  return 0;
}

int dh_bench_suites_check(const char* list) {
  for (const char* p = list; p && *p;) {
    const char* e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (!find(p, len)) {
      char known[256];
      return dh_cmdline_usage_error("bench", "--suite: unknown suite '%.*s' (known: %s)", (int)len, p,
                                    dh_bench_suite_names(", ", known, sizeof known));
    }
    if (!e) break;
    p = e + 1;
  }
  return DH_EXIT_OK;
}

int dh_bench_suites_need_devices(const char* list) {
  for (const dh_bench_suite_t* s = dh_bench_suites; s->name; ++s)
    if (s->devices != DH_BENCH_HOST_ONLY && dh_bench_suite_selected(list, s->name)) return 1;
  return 0;
}

int dh_bench_suites_register(const char* list, const dh_bench_opts_t* o) {
  for (const dh_bench_suite_t* s = dh_bench_suites; s->name; ++s) {
    if (!dh_bench_suite_selected(list, s->name)) continue;
    if (s->add(o) < 0) {
      fprintf(stderr, "devharness bench: suite %s: %s: %s\n", s->name, dh_error_kind(),
              dh_error_message());
      return DH_EXIT_VIOLATION;
    }
  }
  return DH_EXIT_OK;
}
