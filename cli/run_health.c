/*
 * cli/run_health.c — measurement health of `devharness run` (cli/run.h): snapshots
 * (machine/health.h) before and after the conformance and bench steps, health.json in the
 * results folder (its verdict joins the bench's own, devharness.health.* of bench.json's
 * context) and the line the run summary prints (docs/benchmarks.md "Measurement
 * health").
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "machine/health.h"
#include "cli/cli.h"
#include "cli/run.h"

/* snaps: conformance before, after; bench before, after. */
static dh_machine_health_t g_snaps[4];
static int g_taken[4];

void dh_cli_run_health_take(int which) {
  if (which < 0 || which > 3) return;
  dh_machine_health_take(&g_snaps[which]);
  g_taken[which] = 1;
}

/* The reasons of the bench step's own verdict from bench.json's context (bench/main.c),
 * 1 when there is a verdict. */
static int bench_verdict(const char* bench_json, char* reasons, size_t size) {
  json_t* root = json_load_file(bench_json, 0, NULL);
  json_t* ctx = json_object_get(root, "context");
  const char* n = json_string_value(json_object_get(ctx, "devharness.health.noisy"));
  const char* r = json_string_value(json_object_get(ctx, "devharness.health.reasons"));
  int have = n != NULL;
  if (have) snprintf(reasons, size, "%s", r ? r : "");
  json_decref(root);
  return have;
}

/* Appends "bench: <r>" for each "; "-separated reason of the bench step. */
static void add_bench_reasons(const char* bench_reasons, char* reasons, size_t size) {
  const char* p = bench_reasons;
  while (p && *p) {
    const char* end = strstr(p, "; ");
    size_t len = end ? (size_t)(end - p) : strlen(p), n = strlen(reasons);
    if (n + 16 < size)
      snprintf(reasons + n, size - n, "%sbench: %.*s", n ? "; " : "", (int)len, p);
    p = end ? end + 2 : NULL;
  }
}

/* health.json: every snapshot, the verdict and its reasons. */
static json_t* health_doc(const dh_cli_run_dir_t* d) {
  static const char* const kNames[4][2] = {
      {"conformance", "before"}, {"conformance", "after"}, {"bench", "before"}, {"bench", "after"}};
  json_t* doc = json_object();
  json_object_set_new(doc, "schema", json_string("devharness.run.health"));
  for (int i = 0; i < 4; ++i) {
    if (!g_taken[i]) continue;
    json_t* step = json_object_get(doc, kNames[i][0]);
    if (!step) json_object_set_new(doc, kNames[i][0], step = json_object());
    json_object_set_new(step, kNames[i][1], dh_machine_health_json(&g_snaps[i]));
  }
  char reasons[4096] = "", bench_reasons[2048] = "";
  if (g_taken[0] && g_taken[1])
    dh_machine_health_reasons("conformance", &g_snaps[0], &g_snaps[1], reasons, sizeof reasons);
  if (g_taken[2] && g_taken[3]) {
    if (bench_verdict(d->bench, bench_reasons, sizeof bench_reasons))
      add_bench_reasons(bench_reasons, reasons, sizeof reasons);
    else /* bench.json without a verdict (it failed): the run's own snapshots */
      dh_machine_health_reasons("bench", &g_snaps[2], &g_snaps[3], reasons, sizeof reasons);
  }
  json_object_set_new(doc, "noisy", json_boolean(reasons[0] != 0));
  json_object_set_new(doc, "reasons", json_string(reasons));
  return doc;
}

int dh_cli_run_health_write(const dh_cli_run_dir_t* d) {
  char path[PATH_MAX], tmp[PATH_MAX];
  dh_cli_run_path_join(path, d->partial, "health.json");
  dh_cli_run_path_join(tmp, d->partial, ".health.json.tmp");
  json_t* doc = health_doc(d);
  FILE* f = fopen(tmp, "w");
  int ok = f && json_dumpf(doc, f, JSON_INDENT(2)) == 0 && fputc('\n', f) != EOF && fflush(f) == 0 &&
           fsync(fileno(f)) == 0;
  int e = errno;
  if (f && fclose(f) != 0 && ok) ok = 0, e = errno;
  json_decref(doc);
  if (ok && rename(tmp, path) == 0) return 0;
  e = ok ? errno : e;
  unlink(tmp);
  fprintf(stderr, "devharness run: cannot write %s: %s\n", path, strerror(e));
  return -1;
}

void dh_cli_run_print_health(FILE* out, const char* final_dir) {
  char path[PATH_MAX];
  dh_cli_run_path_join(path, final_dir, "health.json");
  json_t* doc = json_load_file(path, 0, NULL);
  if (!doc) return;
  const char* reasons = json_string_value(json_object_get(doc, "reasons"));
  if (json_is_true(json_object_get(doc, "noisy")))
    fprintf(out, "\nhealth: NOISY run (figures may not be representative): %s\n", reasons ? reasons : "?");
  else
    fprintf(out, "\nhealth: not noisy (no GPU throttling, governor unchanged, no other work beside it; health.json)\n");
  json_decref(doc);
}
