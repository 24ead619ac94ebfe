/*
 * bench/register.c — what every suite file calls to register its benchmarks and to
 * skip one with the error that stopped it (bench/bench_internal.h).
 */
#include <stdio.h>

#include "bench_internal.h"
#include "devharness/error.h"

dh_gb_bench_t* dh_bench_common(dh_gb_bench_t* b, const dh_bench_opts_t* o) {
  /* min time, warm-up and repetitions are given as Google Benchmark flags by
   * dh_bench_main (per-benchmark settings would append "/min_time:..." to every name). */
  (void)o;
  return b;
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
