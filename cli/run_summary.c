/* cli/run_summary.c — the table `devharness run` prints at the end (cli/run.h). */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/run.h"

/* The devices array of conformance.summary.json (`devharness conformance --summary`,
 * schema in docs/conformance.md), or NULL when the file is missing or not that
 * schema (the conformance step failed before writing it). */
static json_t* summary_devices(json_t* summary) {
  const char* schema = json_string_value(json_object_get(summary, "schema"));
  if (!schema || strcmp(schema, "devharness.conformance.summary") != 0) return NULL;
  json_t* devices = json_object_get(summary, "devices");
  return json_is_array(devices) ? devices : NULL;
}

static int count_of(json_t* dev, const char* key) {
  return (int)json_integer_value(json_object_get(dev, key));
}

static const char* text_of(json_t* obj, const char* key, const char* fallback) {
  const char* s = json_string_value(json_object_get(obj, key));
  return s ? s : fallback;
}

/* Best harness copy bandwidth (GB/s) of a device over every direction, from the bench
 * summary's best_copy list (bench/report/summary.c); 0 when it has none. */
static double peak_copy_gbps(json_t* bench, const char* device) {
  double best = 0;
  size_t i;
  json_t* b;
  json_t* list = json_object_get(json_object_get(bench, "devharness_summary"), "best_copy");
  json_array_foreach(list, i, b) {
    if (strcmp(text_of(b, "device", ""), device) != 0) continue;
    double g = json_number_value(json_object_get(b, "GBps"));
    if (g > best) best = g;
  }
  return best;
}

/* One row: device, profile, counts, and the peak copy when there is a bench. */
static void print_device_row(FILE* out, json_t* dev, int w, json_t* bench) {
  const char* name = text_of(dev, "name", "?");
  fprintf(out, "%-*s %-7s %6d %6d %6d %6d", w, name, text_of(dev, "profile", "-"), count_of(dev, "pass"),
         count_of(dev, "fail"), count_of(dev, "skip"), count_of(dev, "xfail"));
  if (bench) {
    double g = peak_copy_gbps(bench, name);
    if (g > 0) fprintf(out, "  %.2f", g);
    else fprintf(out, "  -");
  }
  fprintf(out, "\n");
}

int dh_cli_run_print_devices(FILE* out, const dh_cli_run_opts_t* o, const dh_cli_run_dir_t* d, char f_tap[PATH_MAX]) {
  char f_summary[PATH_MAX], f_bench[PATH_MAX];
  dh_cli_run_path_join(f_tap, d->final_dir, "conformance.tap");
  dh_cli_run_path_join(f_summary, d->final_dir, "conformance.summary.json");
  dh_cli_run_path_join(f_bench, d->final_dir, "bench.json");
  json_t* summary = json_load_file(f_summary, 0, NULL);
  json_t* devices = summary_devices(summary);
  json_t* bench = o->no_bench ? NULL : json_load_file(f_bench, 0, NULL);
  size_t i;
  json_t* dev;
  int w = 14; /* the device column fits the longest name ("tvm-cuda (no device)") */
  json_array_foreach(devices, i, dev) {
    int len = (int)strlen(text_of(dev, "name", ""));
    if (len > w) w = len;
  }
  fprintf(out, "\n%-*s %-7s %6s %6s %6s %6s  %s\n", w, "device", "profile", "pass", "fail", "skip", "xfail",
         bench ? "peak copy GB/s (10^9 B/s, harness)" : "");
  int fail_total = 0;
  json_array_foreach(devices, i, dev) {
    fail_total += count_of(dev, "fail");
    print_device_row(out, dev, w, bench);
  }
  /* a backend without a device is said loudly, not only as a row of skips */
  json_array_foreach(devices, i, dev) {
    const char* why = json_string_value(json_object_get(dev, "no_device"));
    if (why)
      fprintf(out, "NO DEVICE: %s not tested (every clause skipped): %s\n", text_of(dev, "backend", "?"), why);
  }
  /* a plugin refused at load (it crashed, exited or failed a check) is not tested either */
  json_t* refused = json_object_get(summary, "refused_plugins");
  json_array_foreach(refused, i, dev) {
    if (json_is_string(dev)) fprintf(out, "NO DEVICE: plugin refused, not tested: %s\n", json_string_value(dev));
  }
  json_decref(bench);
  json_decref(summary);
  return fail_total;
}

/* The failed cases of a cases document, one line each (at most max, then how many
 * more, naming file); a module case's device and function come from its subject
 * ("add sim:0"). Returns how many failed; prints nothing when out is NULL. */
static int print_failed(FILE* out, json_t* doc, int max, const char* file) {
  size_t i;
  json_t* k;
  int shown = 0, failed = 0;
  json_array_foreach(json_object_get(doc, "cases"), i, k) {
    if (strcmp(text_of(k, "status", ""), "fail") != 0) continue;
    if (failed++ >= max || out == NULL) continue;
    const char* subject = text_of(k, "subject", NULL);
    const char* sp = subject ? strrchr(subject, ' ') : NULL;
    const char* dev = subject ? (sp ? sp + 1 : "-") : text_of(k, "device", "?");
    int flen = subject ? (sp ? (int)(strchr(subject, ' ') - subject) : (int)strlen(subject)) : 0;
    /* the message is the case's own text, cleaned by the suite (valid UTF-8) but
     * possibly long: its first line, cut */
    const char* m = text_of(k, "message", "");
    int len = (int)strcspn(m, "\n");
    fprintf(out, "  not ok %s %s%s%.*s: %.*s%s\n", dev, text_of(k, "clause", "?"), flen ? " " : "", flen,
            subject ? subject : "", len > 160 ? 160 : len, m, len > 160 ? "..." : "");
    shown++;
  }
  if (out && failed > shown) fprintf(out, "  ... and %d more (%s)\n", failed - shown, file);
  return failed;
}

void dh_cli_run_print_failures(FILE* out, const char* final_dir, int max) {
  char f_cases[PATH_MAX];
  dh_cli_run_path_join(f_cases, final_dir, "conformance.cases.json");
  json_t* doc = json_load_file(f_cases, 0, NULL);
  print_failed(out, doc, max, "conformance.cases.json");
  json_decref(doc);
}

int dh_cli_run_print_module_failures(FILE* out, const dh_cli_run_opts_t* o, const char* final_dir, int max) {
  int total = 0;
  for (int k = 0; k < o->n_modules; k++) {
    char f_cases[PATH_MAX], f_tap[PATH_MAX];
    dh_cli_run_module_path(f_cases, final_dir, o->module_names[k], ".cases.json");
    dh_cli_run_module_path(f_tap, final_dir, o->module_names[k], ".tap");
    json_t* doc = json_load_file(f_cases, 0, NULL);
    int n = print_failed(NULL, doc, 0, "");
    if (n > 0 && out) {
      fprintf(out, "module check %s: %d failed case(s); see %s\n", o->modules[k], n, f_tap);
      print_failed(out, doc, max, strrchr(f_cases, '/') + 1);
    }
    total += n;
    json_decref(doc);
  }
  return total;
}

int dh_cli_run_steps_verdict(const dh_cli_run_step_t* steps, int total) {
  int worst = DH_EXIT_OK;
  for (int i = 0; i < total; ++i) {
    /* exit 3 of a step: no selected device at all (info, conformance and bench say so
     * when the backend --device names has none) */
    int no_dev = steps[i].rc == DH_EXIT_NO_DEVICE;
    if (no_dev && worst == DH_EXIT_OK) worst = DH_EXIT_NO_DEVICE;
    else if (steps[i].rc > 0 && !no_dev) worst = DH_EXIT_VIOLATION; /* -1: not run, the step before said why */
  }
  return worst;
}

void dh_cli_run_print_steps(FILE* out, const dh_cli_run_step_t* steps, int total) {
  fprintf(out, "\nsteps:\n");
  int w = 12; /* the title column fits the longest ("module NAME") */
  for (int i = 0; i < total; ++i)
    if ((int)strlen(steps[i].title) > w) w = (int)strlen(steps[i].title);
  for (int i = 0; i < total; ++i) {
    int no_dev = steps[i].rc == DH_EXIT_NO_DEVICE;
    const char* verdict = steps[i].rc == 0 ? "ok" : steps[i].rc == -1 ? "not run" : no_dev ? "NO DEVICE"
                          : steps[i].below_floor                     ? "BELOW FLOOR"
                                                                     : "FAILED";
    fprintf(out, "  %-*s %-11s exit %-3d %6.1f s\n", w, steps[i].title, verdict, steps[i].rc, steps[i].seconds);
  }
}


/* devharness_summary.expect of a bench JSON (bench/report/expect.h), or NULL. */
static json_t* expect_of(json_t* bench) {
  json_t* e = json_object_get(json_object_get(bench, "devharness_summary"), "expect");
  return json_is_object(e) ? e : NULL;
}

int dh_cli_run_bench_below_floor(const char* path) {
  json_t* bench = json_load_file(path, 0, NULL);
  json_t* e = expect_of(bench);
  int failed = e ? (int)json_integer_value(json_object_get(e, "failed")) : 0;
  json_decref(bench);
  return failed > 0;
}

int dh_cli_run_print_expect(FILE* out, const dh_cli_run_dir_t* d) {
  char f_bench[PATH_MAX];
  dh_cli_run_path_join(f_bench, d->final_dir, "bench.json");
  json_t* bench = json_load_file(f_bench, 0, NULL);
  json_t* e = expect_of(bench);
  json_t* checks = json_object_get(e, "checks");
  int failed = (int)json_integer_value(json_object_get(e, "failed"));
  fprintf(out, "\nexpected performance (--expect %s): %d pass, %d fail, %d skip\n", text_of(e, "target", "?"),
          (int)json_integer_value(json_object_get(e, "passed")), failed,
          (int)json_integer_value(json_object_get(e, "skipped")));
  size_t i;
  json_t* c;
  json_array_foreach(checks, i, c) {
    const char* verdict = text_of(c, "verdict", "?");
    int bad = strcmp(verdict, "fail") == 0, skip = strcmp(verdict, "skip") == 0;
    fprintf(out, "%sok %zu - expect %s: %s%s%s%s\n", bad ? "not " : "", i + 1, text_of(c, "device", "?"),
            text_of(c, "floor", "?"), skip ? " # SKIP " : ": ", text_of(c, "line", ""), bad ? ": below its floor" : "");
    if (bad)
      fprintf(stderr, "devharness run: %s below its floor '%s': %s\n", text_of(c, "device", "?"),
              text_of(c, "floor", "?"), text_of(c, "line", ""));
  }
  if (!e) fprintf(out, "  (bench.json has no verdicts)\n");
  json_decref(bench);
  return failed;
}
