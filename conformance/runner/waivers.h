/*
 * conformance/runner/waivers.h — waiver files (targets/waivers/<target-or-backend>.json).
 *
 * Format: {"waivers": [{"clause": GLOB, "kind": "skip"|"xfail", "reason": TEXT}, ...]}
 * GLOB is an fnmatch(3) pattern on clause ids ("stream.*"). kind skip: the clause is
 * not run and reports `# SKIP reason`; xfail: it runs and reports `# TODO reason`
 * (a failure under TODO does not fail the run; with --verify-xfails a pass does).
 * Not thread-safe (loaded once by the runner).
 */
#ifndef DEVHARNESS_CONFORMANCE_WAIVERS_H_
#define DEVHARNESS_CONFORMANCE_WAIVERS_H_

#include <stddef.h>

#define DC_WAIVE_SKIP 1
#define DC_WAIVE_XFAIL 2

typedef struct dc_waiver {
  char* glob;
  int kind;     /* DC_WAIVE_SKIP / DC_WAIVE_XFAIL */
  char* reason; /* non-empty */
  char* origin; /* "file: waivers[i]" */
} dc_waiver_t;

typedef struct dc_waivers {
  dc_waiver_t* v;
  size_t n, cap;
} dc_waivers_t;

/* 1 when `glob` is a usable fnmatch pattern (non-empty, brackets closed, no trailing
 * backslash), else 0 with a reason in why (static). */
int dc_glob_valid(const char* glob, const char** why);

/* Appends the waivers of `path` to *w. 0 on success; -1 with a one-line message in
 * err ("PATH:LINE:COL: JSON syntax error: ...", "PATH: waivers[2]: missing
 * \"reason\"", ...) for unreadable files, malformed JSON, a missing or empty reason,
 * an unknown kind, a bad glob, unknown keys or a file larger than 1 MiB. Strings from the file are quoted with
 * control characters escaped, so the message stays on one line. On failure, entries
 * before the bad one may already have been appended: callers treat any failure as an
 * input error and discard *w. */
int dc_waivers_load(dc_waivers_t* w, const char* path, char* err, size_t err_size);

/* Checks waivers [first, w->n) against the clause ids ids[0..n): each glob must match
 * at least one clause (a waiver for a clause that does not exist is a typo that would
 * silently waive nothing). 0 when all match; -1 with a one-line message naming the
 * waiver's origin and glob otherwise. */
int dc_waivers_check_clauses(const dc_waivers_t* w, size_t first, const char* const* ids,
                             size_t n, char* err, size_t err_size);

/* First waiver whose glob matches clause id `id`, or NULL. */
const dc_waiver_t* dc_waivers_match(const dc_waivers_t* w, const char* id);

/* Frees the entries (the struct itself is the caller's). */
void dc_waivers_free(dc_waivers_t* w);

#endif /* DEVHARNESS_CONFORMANCE_WAIVERS_H_ */
