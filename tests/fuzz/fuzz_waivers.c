/*
 * tests/fuzz/fuzz_waivers.c — fuzzes conformance waiver files (conformance/runner/waivers.c,
 * dc_waivers_load; format in conformance/runner/waivers.h and targets/waivers/README.md).
 * Linked with the waivers object as is.
 *
 * The input is the file's content, written to an in-memory file (memfd) loaded through
 * its /proc/self/fd path.
 * Invariants: never crashes or leaks; a failure leaves a message "PATH: what" or
 * "PATH:LINE:COL: WHAT: what" with WHAT one of "JSON syntax error", "invalid UTF-8",
 * "duplicate key" (the bounded reader base/json_read.c); a file that loads
 * gives exactly one waiver per entry of its "waivers" array (checked against an
 * independent jansson parse), each with its clause as glob (a valid one), kind skip or
 * xfail as written, the same non-empty reason and origin "PATH: waivers[i]"; matching
 * clause ids against the list never crashes and returns a waiver whose glob matches.
 */
#include <fnmatch.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "conformance/runner/waivers.h"
#include "tests/fuzz/fuzz.h"

static int g_fd = -1;
static char g_path[64];

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  g_fd = memfd_create("waivers.json", 0);
  if (g_fd < 0) dh_fuzz_fail("memfd_create failed");
  snprintf(g_path, sizeof g_path, "/proc/self/fd/%d", g_fd);
  return 0;
}

static void write_input(const uint8_t* data, size_t size) {
  if (ftruncate(g_fd, 0) != 0) dh_fuzz_fail("ftruncate failed");
  size_t done = 0;
  while (done < size) {
    ssize_t w = pwrite(g_fd, data + done, size - done, (off_t)done);
    if (w <= 0) dh_fuzz_fail("pwrite failed");
    done += (size_t)w;
  }
}

static void check_failure(const char* err) {
  size_t np = strlen(g_path);
  if (err[0] == '\0') dh_fuzz_fail("load failed without a message");
  if (strncmp(err, g_path, np) != 0 || err[np] != ':')
    dh_fuzz_fail("message does not start with the file name: '%s'", err);
  /* "PATH: what" or "PATH:LINE:COL: JSON syntax error: what" */
  const char* p = err + np + 1;
  if (*p == ' ') return;
  if (*p < '0' || *p > '9') dh_fuzz_fail("message is neither 'PATH: ...' nor 'PATH:LINE:COL: ...': '%s'", err);
  while (*p >= '0' && *p <= '9') p++;
  if (*p++ != ':' || *p < '0' || *p > '9') dh_fuzz_fail("position without a column: '%s'", err);
  while (*p >= '0' && *p <= '9') p++;
  if (strncmp(p, ": JSON syntax error: ", 21) != 0 && strncmp(p, ": invalid UTF-8: ", 17) != 0 &&
      strncmp(p, ": duplicate key: ", 17) != 0)
    dh_fuzz_fail("position without a syntax error: '%s'", err);
}

static void check_success(const dc_waivers_t* w, const uint8_t* data, size_t size) {
  json_error_t je;
  json_t* root = json_loadb((const char*)data, size, JSON_REJECT_DUPLICATES, &je);
  if (root == NULL) dh_fuzz_fail("loaded, but jansson rejects the text: %s", je.text);
  json_t* arr = json_object_get(root, "waivers");
  if (!json_is_object(root) || !json_is_array(arr)) dh_fuzz_fail("loaded a file without a waivers array");
  if (json_array_size(arr) != w->n)
    dh_fuzz_fail("%zu waivers loaded from an array of %zu", w->n, json_array_size(arr));
  for (size_t i = 0; i < w->n; i++) {
    const dc_waiver_t* v = &w->v[i];
    json_t* e = json_array_get(arr, i);
    const char* clause = json_string_value(json_object_get(e, "clause"));
    const char* kind = json_string_value(json_object_get(e, "kind"));
    const char* reason = json_string_value(json_object_get(e, "reason"));
    const char* why = NULL;
    if (v->glob == NULL || clause == NULL || strcmp(v->glob, clause) != 0 || !dc_glob_valid(v->glob, &why))
      dh_fuzz_fail("waivers[%zu]: glob is not the entry's valid clause", i);
    if (v->reason == NULL || v->reason[0] == '\0' || reason == NULL || strcmp(v->reason, reason) != 0)
      dh_fuzz_fail("waivers[%zu]: reason missing, empty or not the entry's", i);
    int want = kind && strcmp(kind, "skip") == 0 ? DC_WAIVE_SKIP
               : kind && strcmp(kind, "xfail") == 0 ? DC_WAIVE_XFAIL : 0;
    if (want == 0 || v->kind != want) dh_fuzz_fail("waivers[%zu]: kind %d, entry says '%s'", i, v->kind, kind);
    char origin[128];
    snprintf(origin, sizeof origin, "%s: waivers[%zu]", g_path, i);
    if (v->origin == NULL || strcmp(v->origin, origin) != 0)
      dh_fuzz_fail("waivers[%zu]: origin '%s', expected '%s'", i, v->origin ? v->origin : "(NULL)", origin);
  }
  json_decref(root);
  /* Matching: real clause ids, and each glob's own text. */
  static const char* ids[] = {"attr.exist", "stream.sync_waits", "mem.alloc_zero", "copy.h2d_d2h", ""};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    const dc_waiver_t* m = dc_waivers_match(w, ids[i]);
    if (m != NULL && fnmatch(m->glob, ids[i], 0) != 0) dh_fuzz_fail("match returned a non-matching waiver");
  }
  for (size_t i = 0; i < w->n && i < 8; i++) {
    const dc_waiver_t* m = dc_waivers_match(w, w->v[i].glob);
    if (m != NULL && fnmatch(m->glob, w->v[i].glob, 0) != 0)
      dh_fuzz_fail("match returned a non-matching waiver");
  }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  write_input(data, size);
  dc_waivers_t w = {NULL, 0, 0};
  char err[1024];
  err[0] = '\0';
  int rc = dc_waivers_load(&w, g_path, err, sizeof err);
  if (rc == 0) {
    check_success(&w, data, size);
  } else if (rc == -1) {
    check_failure(err);
  } else {
    dh_fuzz_fail("dc_waivers_load returned %d", rc);
  }
  dc_waivers_free(&w);
  return 0;
}
