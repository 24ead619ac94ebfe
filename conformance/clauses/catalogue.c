/*
 * conformance/clauses/catalogue.c — the clause catalogue: every family's table in one list, in
 * the order of check.h DC_CLAUSE_FAMILIES (dc_catalogue).
 * Its own file so that calls run one way: the runner calls the catalogue, the
 * catalogue reads the families' tables, the families call util.c's helpers.
 */
#include <fnmatch.h>

#include "check.h"

const dh_clause_t* const* dc_catalogue(size_t* out_count) {
  static const dh_clause_t* all[512];
  static size_t n = 0;
  if (n == 0) {
#define DC_FAMILY_TABLE(name) dc_##name##_clauses,
#define DC_FAMILY_COUNT(name) dc_##name##_count,
    const dh_clause_t* tabs[] = {DC_CLAUSE_FAMILIES(DC_FAMILY_TABLE)};
    size_t counts[] = {DC_CLAUSE_FAMILIES(DC_FAMILY_COUNT)};
    for (size_t t = 0; t < sizeof counts / sizeof counts[0]; t++)
      for (size_t i = 0; i < counts[t] && n < 512; i++) all[n++] = &tabs[t][i];
  }
  *out_count = n;
  return all;
}

int dc_clause_matches(const char* const* globs, size_t n, const char* id) {
  if (n == 0) return 1;
  for (size_t i = 0; i < n; i++)
    if (fnmatch(globs[i], id, 0) == 0) return 1;
  return 0;
}

const char* dc_profile_name(int p) {
  return p == DC_PROFILE_TVM ? "tvm" : p == DC_PROFILE_STRICT ? "strict" : "unset";
}
