/*
 * conformance/clauses/catalogue.c — the clause catalogue: every family's table (attr, mem, copy,
 * stream, packed, device, event, cap, harness) in one list, in that order (check.h dc_catalogue).
 * Its own file so that calls run one way: the runner calls the catalogue, the
 * catalogue reads the families' tables, the families call util.c's helpers.
 */
#include <fnmatch.h>

#include "check.h"

const dh_clause_t* const* dc_catalogue(size_t* out_count) {
  static const dh_clause_t* all[512];
  static size_t n = 0;
  if (n == 0) {
    const dh_clause_t* tabs[] = {dc_attr_clauses,   dc_mem_clauses,    dc_copy_clauses,
                                 dc_stream_clauses, dc_packed_clauses, dc_device_clauses,
                                 dc_event_clauses,  dc_cap_clauses,    dc_harness_clauses};
    size_t counts[] = {dc_attr_count,   dc_mem_count,    dc_copy_count, dc_stream_count,
                       dc_packed_count, dc_device_count, dc_event_count, dc_cap_count,
                       dc_harness_count};
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
