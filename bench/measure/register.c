/*
 * bench/measure/register.c — what every suite file calls to register its benchmarks and to
 * skip one with the error that stopped it (bench/measure/measure.h).
 */
#include <stdio.h>

#include "bench/measure/measure.h"
#include "devharness/error.h"

dh_gb_bench_t* dh_bench_register(const char* name, dh_gb_fn_t fn, void* user,
                                 const dh_bench_opts_t* o, dh_gb_unit_t unit) {
  (void)o;
  dh_gb_bench_t* b = dh_gb_register(name, fn, user);
  if (!b) return dh_error_set(DH_KIND_INTERNAL_ERROR, "bench: cannot register %s", name), NULL;
  return dh_gb_bench_unit(b, unit);
}

dh_gb_bench_t* dh_bench_register_timed(const char* name, dh_gb_fn_t fn, void* user,
                                       const dh_bench_opts_t* o) {
  dh_gb_bench_t* b = dh_bench_register(name, fn, user, o, DH_GB_US);
  return b ? dh_gb_bench_use_manual_time(b) : NULL;
}

static _Thread_local char g_errtext[DH_ERROR_MESSAGE_MAX + DH_ERROR_KIND_MAX + 4];

const char* dh_bench_error_text(void) {
  const char* k = dh_error_kind();
  snprintf(g_errtext, sizeof g_errtext, "%s: %s", k ? k : "Error", dh_error_message());
  return g_errtext;
}

void dh_bench_skip_error(dh_gb_state_t* st, const char* what) {
  char buf[sizeof g_errtext + 256];
  snprintf(buf, sizeof buf, "%s: %s", what, dh_bench_error_text());
  dh_gb_skip_with_error(st, buf);
}
