/*
 * bench/report/expect.c — floors from the --expect target turned into verdicts (bench/report/expect.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/report/expect.h"
#include "bench/report/summary.h"
#include "cmdline/cmdline.h"
#include "devharness/error.h"
#include "devharness/target.h"
#include "machine/ceilings.h"

typedef struct floor_spec {
  char text[160];
  int latency;     /* 0: a copy's bandwidth, 1: a benchmark's time */
  int dir;         /* copy: DH_MACHINE_DIR_* */
  char mem[16];    /* copy: pageable, pinned, device */
  long long size;  /* copy: bytes */
  int percent;     /* copy: value is % of the ceiling (else GB/s) */
  double value;    /* copy: % or GB/s; latency: the budget in ns */
  char bench[96];  /* latency: "launch/roundtrip" */
} floor_spec_t;

static floor_spec_t g_floors[32];
static size_t g_nfloors;
static char g_target[256];
static int32_t g_device_type = -1;
static double g_mem_gbps;
static char g_mem_source[512];
static int g_loaded;

/* "256MiB", "1MiB", "4B", "65536" -> bytes; -1 when not a size. */
static long long parse_size(const char* s) {
  char* end = NULL;
  long long v = strtoll(s, &end, 10);
  if (end == s || v <= 0) return -1;
  static const struct {
    const char* unit;
    long long f;
  } kUnits[] = {{"", 1}, {"B", 1}, {"KiB", 1LL << 10}, {"MiB", 1LL << 20}, {"GiB", 1LL << 30}};
  for (size_t i = 0; i < sizeof kUnits / sizeof kUnits[0]; ++i)
    if (strcmp(end, kUnits[i].unit) == 0) return v * kUnits[i].f;
  return -1;
}

/* A number followed by one of units[] (scale[] alike) into *out; the unit index or -1. */
static int parse_value(const char* s, const char* const* units, size_t n, double* out) {
  char* end = NULL;
  double v = strtod(s, &end);
  if (end == s || !isfinite(v) || v <= 0) return -1;
  for (size_t i = 0; i < n; ++i)
    if (strcmp(end, units[i]) == 0) return *out = v, (int)i;
  return -1;
}

/* The text from `from` on with blanks dropped ("70 %" -> "70%") into out. */
static void squeeze(const char* from, char* out, size_t size) {
  size_t k = 0;
  for (; from && *from && k + 1 < size; ++from)
    if (*from != ' ' && *from != '\t') out[k++] = *from;
  out[k] = '\0';
}

/* Parses one floor; 0, or -1 with what was expected in why. */
static int parse_floor(const char* text, floor_spec_t* f, char* why, size_t size) {
  memset(f, 0, sizeof *f);
  snprintf(f->text, sizeof f->text, "%s", text);
  char w[4][64] = {{0}}, rest[64] = "";
  int pos4 = -1, pos2 = -1;
  sscanf(text, " %63s %63s %n", w[0], w[1], &pos2);
  sscanf(text, " %63s %63s %63s %63s %n", w[0], w[1], w[2], w[3], &pos4);
  f->dir = dh_machine_dir_index(w[0]);
  if (f->dir >= 0) {
    static const char* const kPct[] = {"%", "GB/s"};
    squeeze(pos4 >= 0 ? text + pos4 : NULL, rest, sizeof rest); /* "70%", "5GB/s" */
    int u = pos4 >= 0 && strcmp(w[3], ">=") == 0 ? parse_value(rest, kPct, 2, &f->value) : -1;
    f->size = parse_size(w[2]);
    static const char* const kMems[] = {"pageable", "pinned", "device", NULL};
    if (u < 0 || f->size < 0 || dh_cmdline_choice(w[1], kMems) < 0) {
      snprintf(why, size, "expected '<h2d|d2h|d2d|bidir> <pageable|pinned|device> <size[B|KiB|MiB|GiB]> >= <N>%%' "
               "or '... >= <X> GB/s'");
      return -1;
    }
    snprintf(f->mem, sizeof f->mem, "%.15s", w[1]);
    f->percent = u == 0;
    return 0;
  }
  static const char* const kTime[] = {"ns", "us", "ms"};
  static const double kScale[] = {1, 1e3, 1e6};
  squeeze(pos2 >= 0 ? text + pos2 : NULL, rest, sizeof rest); /* "20us" */
  int u = pos2 >= 0 && strcmp(w[1], "<=") == 0 ? parse_value(rest, kTime, 3, &f->value) : -1;
  if (u < 0 || strchr(w[0], '/') == NULL || strlen(w[0]) >= sizeof f->bench) {
    snprintf(why, size, "expected '<dir> <memory> <size> >= <N>%%' or '<suite>/<benchmark> <= <T> ns|us|ms' "
             "(e.g. 'launch/roundtrip <= 20 us')");
    return -1;
  }
  f->latency = 1;
  f->value *= kScale[u];
  snprintf(f->bench, sizeof f->bench, "%s", w[0]);
  return 0;
}

/* The target's JSON (as devharness writes it back) with its floors read into g_floors. */
static int load_floors(json_t* j, const char* name) {
  json_t* exp = json_object_get(j, "expect");
  size_t i;
  json_t* v;
  json_array_foreach(exp, i, v) {
    char why[256];
    if (g_nfloors >= sizeof g_floors / sizeof g_floors[0])
      return dh_cmdline_usage_error("bench", "--expect %s: more than %zu floors", dh_cmdline_quote(name),
                                    sizeof g_floors / sizeof g_floors[0]);
    if (parse_floor(json_string_value(v), &g_floors[g_nfloors], why, sizeof why) != 0)
      return dh_cmdline_usage_error("bench", "--expect %s: expect[%zu] '%s': %s", dh_cmdline_quote(name), i,
                                    dh_cmdline_quote(json_string_value(v)), why);
    g_nfloors++;
  }
  return DH_EXIT_OK;
}

int dh_bench_expect_load(const char* file_or_tag) {
  dh_target_t* t = NULL;
  if (dh_target_resolve(file_or_tag, &t) != 0) {
    fprintf(stderr, "devharness bench: --expect %s: %s\n", dh_cmdline_quote(file_or_tag), dh_error_message());
    dh_error_clear();
    return DH_EXIT_USAGE;
  }
  char* text = dh_target_to_json(t, 0);
  json_t* j = text ? json_loads(text, 0, NULL) : NULL;
  free(text);
  g_device_type = dh_target_device_type(t);
  snprintf(g_target, sizeof g_target, "%s", file_or_tag);
  dh_target_free(t);
  if (!j) return dh_cmdline_usage_error("bench", "--expect %s: cannot read the target back", dh_cmdline_quote(file_or_tag));
  g_mem_gbps = json_number_value(json_object_get(j, "memory_bandwidth_gbps"));
  const char* src = json_string_value(json_object_get(j, "memory_bandwidth_source"));
  snprintf(g_mem_source, sizeof g_mem_source, "%s", src ? src : "no source given");
  int rc = load_floors(j, file_or_tag);
  json_decref(j);
  g_loaded = rc == DH_EXIT_OK;
  return rc;
}

double dh_bench_expect_memory_gbps(int32_t device_type, const char** source) {
  if (!g_loaded || device_type != g_device_type || !(g_mem_gbps > 0)) return 0;
  *source = g_mem_source;
  return g_mem_gbps;
}

void dh_bench_expect_free(void) {
  g_nfloors = 0;
  g_loaded = 0;
  g_device_type = -1;
}

/* Median of benchmark `name` with the suffixes Google Benchmark appends; NAN if none ran. */
static double median_of(const char* name, char* used, size_t size) {
  static const char* const kSuffix[] = {"/manual_time", "", "/real_time"};
  for (size_t i = 0; i < 3; ++i) {
    snprintf(used, size, "%s%s", name, kSuffix[i]);
    double ns = dh_bench_median_ns(used);
    if (!isnan(ns)) return ns;
  }
  snprintf(used, size, "%s", name);
  return NAN;
}

/* One floor on one device into a check object; the verdict's line in c->line. */
typedef struct check {
  const char* verdict;
  char line[1024];
} check_t;

static json_t* eval_copy(const floor_spec_t* f, const char* spec, check_t* c) {
  char name[256], used[300];
  snprintf(name, sizeof name, "copy/%s/%s/%s/harness/%lld", dh_machine_dir_name(f->dir), f->mem, spec, f->size);
  double ns = median_of(name, used, sizeof used);
  double gbps = ns > 0 ? (double)f->size * (f->dir == DH_MACHINE_DIR_BIDIR ? 2 : 1) / ns : NAN;
  const dh_machine_ceiling_t* ce = dh_machine_ceiling_get(spec, f->dir);
  double ceil = ce ? ce->gbps : 0, floor_gbps = f->percent ? ceil * f->value / 100 : f->value;
  char ceil_text[600];
  if (ceil > 0) snprintf(ceil_text, sizeof ceil_text, "ceiling %.4g GB/s (%s)", ceil, ce->what);
  else snprintf(ceil_text, sizeof ceil_text, "ceiling %s", ce ? ce->what : "unknown: none recorded");
  json_t* o = json_pack("{ss ss ss}", "device", spec, "floor", f->text, "benchmark", used);
  if (isnan(gbps)) {
    c->verdict = "skip";
    snprintf(c->line, sizeof c->line, "not measured in this run (%s did not run; --quick measures 4 B, 64 KiB, 1 MiB)",
             name);
  } else if (f->percent && ceil <= 0) {
    c->verdict = "skip";
    snprintf(c->line, sizeof c->line, "measured %.2f GB/s, %s: no floor", gbps, ceil_text);
  } else {
    c->verdict = gbps >= floor_gbps ? "pass" : "fail";
    char pct[64] = "";
    if (f->percent) snprintf(pct, sizeof pct, " (%g %% of the ceiling)", f->value);
    snprintf(c->line, sizeof c->line, "measured %.4g GB/s, %s, floor %.4g GB/s%s", gbps, ceil_text, floor_gbps, pct);
    json_object_set_new(o, "floor_value", json_real(floor_gbps));
  }
  if (!isnan(gbps)) json_object_set_new(o, "measured", json_real(gbps));
  json_object_set_new(o, "unit", json_string("GB/s"));
  json_object_set_new(o, "ceiling", json_string(ce ? ce->what : "unknown: none recorded"));
  if (ceil > 0) json_object_set_new(o, "ceiling_GBps", json_real(ceil));
  return o;
}

static json_t* eval_latency(const floor_spec_t* f, const char* spec, check_t* c) {
  char name[256], used[300];
  snprintf(name, sizeof name, "%s/%s/harness", f->bench, spec);
  double ns = median_of(name, used, sizeof used);
  json_t* o = json_pack("{ss ss ss ss sf}", "device", spec, "floor", f->text, "benchmark", used, "unit", "us",
                        "floor_value", f->value / 1e3);
  if (isnan(ns)) {
    c->verdict = "skip";
    snprintf(c->line, sizeof c->line, "not measured in this run (%s did not run)", name);
  } else {
    c->verdict = ns <= f->value ? "pass" : "fail";
    snprintf(c->line, sizeof c->line, "measured %.4g us, ceiling n/a (a time budget), budget %.6g us", ns / 1e3,
             f->value / 1e3);
    json_object_set_new(o, "measured", json_real(ns / 1e3));
  }
  return o;
}

json_t* dh_bench_expect_evaluate(const dh_bench_device_t* devs, size_t ndev, int* failed) {
  *failed = 0;
  if (!g_loaded) return NULL;
  json_t* checks = json_array();
  int n = 0, counts[3] = {0, 0, 0};
  printf("== expected performance (--expect %s): floors of the target on its devices\n", g_target);
  for (size_t d = 0; d < ndev; ++d) {
    if ((int32_t)devs[d].dev.device_type != g_device_type) continue;
    for (size_t i = 0; i < g_nfloors; ++i) {
      check_t c;
      const floor_spec_t* f = &g_floors[i];
      json_t* o = f->latency ? eval_latency(f, devs[d].spec, &c) : eval_copy(f, devs[d].spec, &c);
      int k = strcmp(c.verdict, "pass") == 0 ? 0 : strcmp(c.verdict, "fail") == 0 ? 1 : 2;
      counts[k]++;
      if (k == 2) printf("ok %d - expect %s: %s # SKIP %s\n", ++n, devs[d].spec, f->text, c.line);
      else printf("%sok %d - expect %s: %s: %s%s\n", k ? "not " : "", ++n, devs[d].spec, f->text, c.line,
                  k ? ": below its floor" : "");
      json_object_set_new(o, "verdict", json_string(c.verdict));
      json_object_set_new(o, "line", json_string(c.line));
      json_array_append_new(checks, o);
    }
  }
  printf("1..%d\n", n);
  if (n == 0) printf("  (no device of the target's kind ran, or the target has no \"expect\" floors)\n");
  *failed = counts[1];
  return json_pack("{ss so si si si}", "target", g_target, "checks", checks, "passed", counts[0], "failed",
                   counts[1], "skipped", counts[2]);
}
