/*
 * bench/report/summary.c — what a benchmark run measured (every result Google Benchmark
 * reports) and the summary after it (bench/report/summary.h): harness/raw ratios, the call
 * overheads over tvm-ffi, the CV of large copies, the best copy per direction against
 * its ceiling (machine/ceilings.h).
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dlpack/dlpack.h>

#include "bench/report/summary.h"
#include "cmdline/cmdline.h"
#include "machine/ceilings.h"

/*--- collected results ---*/
typedef struct res {
  char* name;
  char* agg;
  double ns;
  int error;
} res_t;
static res_t* g_res;
static size_t g_nres, g_capres;

void dh_bench_on_result(const dh_gb_result_t* r, void* user) {
  (void)user;
  if (g_nres == g_capres) {
    size_t cap = g_capres ? 2 * g_capres : 256;
    res_t* n = realloc(g_res, cap * sizeof *n);
    if (!n) return;
    g_res = n;
    g_capres = cap;
  }
  res_t* x = &g_res[g_nres];
  x->name = strdup(r->name);
  x->agg = strdup(r->aggregate);
  if (!x->name || !x->agg) {
    free(x->name);
    free(x->agg);
    return;
  }
  x->ns = r->real_time_ns;
  x->error = r->error_occurred;
  ++g_nres;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* Median of the measured (non-aggregate) runs of `name`; NAN when none. */
double dh_bench_median_ns(const char* name) {
  double v[256];
  size_t n = 0;
  for (size_t i = 0; i < g_nres && n < 256; ++i)
    if (!g_res[i].error && !g_res[i].agg[0] && strcmp(g_res[i].name, name) == 0)
      v[n++] = g_res[i].ns;
  if (!n) return NAN;
  qsort(v, n, sizeof v[0], cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The measured runs of a benchmark: how many, the fastest and the slowest (ns). */
typedef struct spread {
  size_t n;
  double min, max;
} spread_t;

static spread_t spread_of(const char* name) {
  spread_t s = {0, INFINITY, -INFINITY};
  for (size_t i = 0; i < g_nres; ++i)
    if (!g_res[i].error && !g_res[i].agg[0] && strcmp(g_res[i].name, name) == 0) {
      s.n++;
      s.min = fmin(s.min, g_res[i].ns);
      s.max = fmax(s.max, g_res[i].ns);
    }
  return s;
}

/* A harness/raw ratio under 0.95 says the twin was slower than the harness, which the
 * best use of the vendor API never is (docs/benchmarks.md "What is measured"). It is
 * called a twin defect only when the repetitions say so: at least kDefectRuns runs on
 * each side and every harness run faster than every twin run; otherwise the flag says
 * what it rests on. "" when the ratio is 0.95 or more. */
enum { kDefectRuns = 3 };
static const char* defect_flag(const char* harness, const char* twin, double ratio, char* buf, size_t size) {
  if (ratio >= 0.95) return "";
  spread_t h = spread_of(harness), r = spread_of(twin);
  size_t n = h.n < r.n ? h.n : r.n;
  if (n < kDefectRuns)
    snprintf(buf, size, "  < 0.95 on %zu run%s *", n, n == 1 ? "" : "s");
  else if (h.max < r.min)
    snprintf(buf, size, "  < 0.95: twin defect (every harness run faster than every twin run)");
  else
    snprintf(buf, size, "  < 0.95, within the runs' spread (not a twin defect)");
  return buf;
}

/* Replaces the first "/harness" path component of name by "/<twin>" ("raw" or
 * "raw_released"). 0 if none. */
static int twin_name(const char* name, const char* twin, char* out, size_t size) {
  const char* p = strstr(name, "/harness");
  if (!p || (p[8] != '/' && p[8] != '\0')) return 0;
  snprintf(out, size, "%.*s/%s%s", (int)(p - name), name, twin, p + 8);
  return 1;
}

/* The copy size of a benchmark name: its last all-digit path component ("copy/h2d/
 * pinned/cuda:0/harness/1048576/manual_time" -> 1048576); -1 when none. */
static long long name_size(const char* name) {
  long long size = -1;
  for (const char* p = name; (p = strchr(p, '/')) != NULL;) {
    ++p;
    size_t n = strspn(p, "0123456789");
    if (n > 0 && (p[n] == '/' || p[n] == '\0')) size = atoll(p);
  }
  return size;
}

static int seen_before(size_t i) {
  for (size_t j = 0; j < i; ++j)
    if (strcmp(g_res[j].name, g_res[i].name) == 0) return 1;
  return 0;
}

/* The fastest harness copy (GB/s into *bw) of direction dir on device spec among the
 * results from i on; NULL when none. */
static const char* best_of_group(size_t i, const char* dir, const char* spec, double* bw_out) {
  double bestbw = 0;
  const char* bestname = NULL;
  for (size_t j = i; j < g_nres; ++j) {
    char d2[16], m2[32], s2[96];
    if (g_res[j].agg[0] || g_res[j].error || !strstr(g_res[j].name, "/harness/") ||
        sscanf(g_res[j].name, "copy/%15[^/]/%31[^/]/%95[^/]/", d2, m2, s2) != 3 ||
        strcmp(d2, dir) != 0 || strcmp(s2, spec) != 0)
      continue;
    double med = dh_bench_median_ns(g_res[j].name);
    long long sz = name_size(g_res[j].name);
    if (isnan(med) || med <= 0 || sz <= 0) continue;
    double bw = (double)sz * (strcmp(dir, "bidir") == 0 ? 2 : 1) / med; /* GB/s */
    if (bw > bestbw) {
      bestbw = bw;
      bestname = g_res[j].name;
    }
  }
  *bw_out = bestbw;
  return bestname;
}

static int g_all_rows; /* dh_bench_summary_all_rows */

void dh_bench_summary_all_rows(int all) { g_all_rows = all != 0; }

/* One pair's JSON record. */
static json_t* pair_json(const char* harness, const char* twin, const char* kind, double h, double r) {
  return json_pack("{s:s, s:s, s:s, s:f, s:f, s:f}", "harness", harness, "raw", twin, "twin", kind, "harness_ns", h,
                   "raw_ns", r, "ratio", h / r);
}

/* Harness/raw pairs: the time ratio of every harness benchmark and its twin, all in the
 * JSON; printed are the pairs outside DH_BENCH_RATIO_GOAL_LO..HI (all with --verbose),
 * then how many are within and one footnote for the flag of too few runs. */
static json_t* summarize_pairs(void) {
  json_t* pairs = json_array();
  printf("\n== devharness summary: harness/raw time ratio (median of runs; < 1 = harness faster)\n");
  size_t n_pairs = 0, within = 0, few_runs = 0;
  for (size_t i = 0; i < g_nres; ++i) {
    static const char* const kTwins[] = {"raw", "raw_released"};
    if (g_res[i].agg[0] || seen_before(i)) continue;
    for (size_t t = 0; t < 2; ++t) {
      char twin[512];
      if (!twin_name(g_res[i].name, kTwins[t], twin, sizeof twin)) continue;
      double h = dh_bench_median_ns(g_res[i].name), r = dh_bench_median_ns(twin);
      if (isnan(h) || isnan(r) || r <= 0) continue;
      n_pairs++;
      json_array_append_new(pairs, pair_json(g_res[i].name, twin, kTwins[t], h, r));
      int inside = h / r >= DH_BENCH_RATIO_GOAL_LO && h / r <= DH_BENCH_RATIO_GOAL_HI;
      within += inside;
      if (inside && !g_all_rows) continue;
      char flag[128];
      const char* f = defect_flag(g_res[i].name, twin, h / r, flag, sizeof flag);
      few_runs += f[0] && f[strlen(f) - 1] == '*';
      printf("  %-58s %7.3f  (harness %.3f us, %s %.3f us)%s\n", g_res[i].name, h / r, h * 1e-3, kTwins[t],
             r * 1e-3, f);
    }
  }
  if (n_pairs == 0) printf("  (no harness/raw pair ran)\n");
  else if (!g_all_rows)
    printf("  %zu of %zu pairs within %.2f-%.2f, not listed (bench --verbose lists every pair; --out's JSON has "
           "them all)\n", within, n_pairs, DH_BENCH_RATIO_GOAL_LO, DH_BENCH_RATIO_GOAL_HI);
  if (few_runs)
    printf("  * %zu ratio%s below 0.95 on too few runs: a twin defect needs --repetitions %d or more\n", few_runs,
           few_runs == 1 ? "" : "s", (int)kDefectRuns);
  return pairs;
}

/* Packed-call costs and devharness's dispatch over tvm-ffi. */
static json_t* summarize_calls(void) {
  json_t* calls = json_object();
  double direct = dh_bench_median_ns("call/direct/3args"), packed = dh_bench_median_ns("call/packed/3args"),
         ffi = dh_bench_median_ns("call/tvm_ffi/3args");
  if (!isnan(packed)) {
    printf("== call: packed/3args %.2f ns", packed);
    json_object_set_new(calls, "packed_3args_ns", json_real(packed));
    if (!isnan(direct) && direct > 0) {
      printf("; packed/direct %.2f", packed / direct);
      json_object_set_new(calls, "packed_over_direct", json_real(packed / direct));
    }
    if (!isnan(ffi) && ffi > 0) {
      printf("; packed/tvm-ffi %.3f", packed / ffi);
      json_object_set_new(calls, "packed_over_tvm_ffi", json_real(packed / ffi));
    } else {
      printf("; tvm-ffi peer skipped");
    }
    printf("\n");
  }
  /* The goal: devharness's dispatch adds at most 5 ns or 5 % (the larger) on top of
   * TVMFFIFunctionCall for the same 3-argument call (docs/benchmarks.md "Method",
   * summary). Two pairs: the same no-op (dh_func_call vs TVMFFIFunctionCall) and the cpu
   * backend's echo (dh_device_call by device and name vs TVMFFIFunctionCall on its
   * handle). */
  const char* pairs3[2][2] = {{"call/packed/3args", "call/tvm_ffi/3args"},
                              {"call/backend/3args", "call/tvm_ffi_backend/3args"}};
  for (int k = 0; k < 2; k++) {
    double a = dh_bench_median_ns(pairs3[k][0]), b = dh_bench_median_ns(pairs3[k][1]);
    if (isnan(a) || isnan(b) || b <= 0) continue;
    double allowed = b * 0.05 > 5.0 ? b * 0.05 : 5.0;
    printf("== dispatch over tvm-ffi: %s %.2f ns - %s %.2f ns = %+.2f ns (%+.1f %%; goal <= %.2f ns): %s\n",
           pairs3[k][0] + 5, a, pairs3[k][1] + 5, b, a - b, 100.0 * (a - b) / b, allowed,
           a - b <= allowed ? "met" : "NOT met");
    char key[64];
    snprintf(key, sizeof key, "%s_over_tvm_ffi_ns", k == 0 ? "packed" : "backend");
    json_object_set_new(calls, key, json_real(a - b));
  }
  return calls;
}

/* The coefficient of variation of copies >= 1 MiB over the repetitions. */
static json_t* summarize_cvs(void) {
  json_t* cvs = json_array();
  int anycv = 0;
  for (size_t i = 0; i < g_nres; ++i) {
    if (strcmp(g_res[i].agg, "cv") != 0 || strncmp(g_res[i].name, "copy/", 5) != 0) continue;
    long long size = name_size(g_res[i].name);
    if (size < (1 << 20)) continue;
    if (!anycv) printf("== coefficient of variation over repetitions, copies >= 1 MiB\n");
    anycv = 1;
    printf("  %-58s %6.2f %%\n", g_res[i].name, 100.0 * g_res[i].ns);
    json_t* c = json_object();
    json_object_set_new(c, "name", json_string(g_res[i].name));
    json_object_set_new(c, "cv", json_real(g_res[i].ns));
    json_array_append_new(cvs, c);
  }
  return cvs;
}

/* Best harness copy of each direction per device, as % of the ceiling. */
static json_t* summarize_best(void) {
  json_t* best = json_array();
  /* Best harness copy of each direction per device, as % of the ceiling. */
  int anybest = 0;
  for (size_t i = 0; i < g_nres; ++i) {
    if (g_res[i].agg[0] || g_res[i].error || strncmp(g_res[i].name, "copy/", 5) != 0 ||
        !strstr(g_res[i].name, "/harness/") || seen_before(i))
      continue;
    /* first result of a (direction, device) group: find the group's best */
    char dir[16], mem[32], spec[96];
    if (sscanf(g_res[i].name, "copy/%15[^/]/%31[^/]/%95[^/]/", dir, mem, spec) != 3) continue;
    int first = 1;
    for (size_t j = 0; j < i && first; ++j) {
      char d2[16], m2[32], s2[96];
      if (!g_res[j].agg[0] && !g_res[j].error && strstr(g_res[j].name, "/harness/") &&
          sscanf(g_res[j].name, "copy/%15[^/]/%31[^/]/%95[^/]/", d2, m2, s2) == 3 &&
          strcmp(d2, dir) == 0 && strcmp(s2, spec) == 0)
        first = 0;
    }
    if (!first) continue;
    double bestbw = 0;
    const char* bestname = best_of_group(i, dir, spec, &bestbw);
    if (!bestname) continue;
    const dh_machine_ceiling_t* c = dh_machine_ceiling_get(spec, dh_machine_dir_index(dir));
    double ceil = c ? c->gbps : 0;
    const char* ceil_what = c ? c->what : "unknown: no ceiling recorded for this device";
    if (!anybest)
      printf("== best copy per direction (harness, median), GB/s = 10^9 bytes/s, measured / ceiling\n");
    anybest = 1;
    if (ceil > 0)
      printf("  %-6s %-12s %9.2f GB/s / %.2f GB/s = %5.1f %% of the ceiling, %s  (%s)\n", dir, spec, bestbw, ceil,
             100 * bestbw / ceil, ceil_what, bestname);
    else
      printf("  %-6s %-12s %9.2f GB/s  ceiling %s  (%s)\n", dir, spec, bestbw, ceil_what, bestname);
    json_t* b = json_object();
    json_object_set_new(b, "direction", json_string(dir));
    json_object_set_new(b, "device", json_string(spec));
    json_object_set_new(b, "benchmark", json_string(bestname));
    json_object_set_new(b, "GBps", json_real(bestbw));
    json_object_set_new(b, "ceiling", json_string(ceil_what));
    if (ceil > 0) {
      json_object_set_new(b, "ceiling_GBps", json_real(ceil));
      json_object_set_new(b, "percent_of_ceiling", json_real(100 * bestbw / ceil));
    }
    json_array_append_new(best, b);
  }
  return best;
}

json_t* dh_bench_summarize(void) {
  json_t* sum = json_object();
  json_t* pairs = summarize_pairs();
  json_t* calls = summarize_calls();
  json_t* cvs = summarize_cvs();
  json_object_set_new(sum, "best_copy", summarize_best());
  json_object_set_new(sum, "harness_raw_pairs", pairs);
  json_object_set_new(sum, "call", calls);
  json_object_set_new(sum, "copy_cv", cvs);
  json_object_set_new(sum, "bytes_processed",
                      json_string("bytes copied, counted once (not read + written)"));
  return sum;
}

size_t dh_bench_result_count(void) {
  size_t n = 0;
  for (size_t i = 0; i < g_nres; ++i) n += !g_res[i].agg[0] && !g_res[i].error;
  return n;
}

void dh_bench_results_free(void) {
  for (size_t i = 0; i < g_nres; ++i) {
    free(g_res[i].name);
    free(g_res[i].agg);
  }
  free(g_res);
  g_res = NULL;
  g_nres = g_capres = 0;
}
