/* cli/run_summary.c — the table `devharness run` prints at the end (cli/run.h). */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/run.h"

/* Per-device conformance tallies parsed from the TAP file. */
typedef struct dev_tally {
  char device[64];
  char profile[16]; /* "tvm" / "strict" from the subtest's "# profile:" line */
  int pass, fail, skip, todo;
  char why[768]; /* the outer "# SKIP reason" of a backend without a device */
} dev_tally_t;

static int parse_tap(const char* path, dev_tally_t* out, int max) {
  FILE* f = fopen(path, "r");
  if (!f) return 0;
  char line[4096];
  int n = -1;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "    # Subtest: ", 15) == 0) continue;
    if (strncmp(line, "# Subtest: ", 11) == 0) {
      if (n + 1 >= max) break;
      ++n;
      memset(&out[n], 0, sizeof out[n]);
      snprintf(out[n].device, sizeof out[n].device, "%.*s", (int)strcspn(line + 11, "\r\n"),
               line + 11);
      continue;
    }
    const char* skip_at = strstr(line, " # SKIP ");
    if (n >= 0 && strncmp(line, "ok ", 3) == 0 && skip_at)
      snprintf(out[n].why, sizeof out[n].why, "%.*s", (int)strcspn(skip_at + 8, "\r\n"), skip_at + 8);
    if (n < 0 || strncmp(line, "    ", 4) != 0) continue;
    if (strncmp(line, "    # profile: ", 15) == 0) {
      snprintf(out[n].profile, sizeof out[n].profile, "%.*s", (int)strcspn(line + 15, " \r\n"), line + 15);
      continue;
    }
    const char* p = line + 4;
    int ok = strncmp(p, "ok ", 3) == 0;
    int notok = strncmp(p, "not ok ", 7) == 0;
    if (!ok && !notok) continue;
    if (strstr(p, "# SKIP") || strstr(p, "# skip")) ++out[n].skip;
    else if (strstr(p, "# TODO") || strstr(p, "# todo")) ++out[n].todo;
    else if (ok) ++out[n].pass;
    else ++out[n].fail;
  }
  fclose(f);
  return n + 1;
}

/* Best copy bandwidth (GB/s) per device from Google Benchmark JSON: the largest
 * bytes_per_second among benchmarks whose name contains "copy" and the device spec
 * and "harness". */
static double peak_copy_gbps(json_t* bench, const char* device) {
  double best = 0;
  size_t i;
  json_t* b;
  json_array_foreach(json_object_get(bench, "benchmarks"), i, b) {
    const char* name = json_string_value(json_object_get(b, "name"));
    char seg[80]; /* "/cpu:0/", so cpu:0 does not also match tvm-cpu:0 */
    snprintf(seg, sizeof seg, "/%s/", device);
    if (!name || !strstr(name, "copy") || !strstr(name, seg) || !strstr(name, "harness")) continue;
    double bps = json_number_value(json_object_get(b, "bytes_per_second"));
    if (bps > best) best = bps;
  }
  return best / 1e9;
}

int dh_run_print_devices(const run_opts_t* o, const run_dir_t* d, char f_tap[PATH_MAX]) {
  char f_bench[PATH_MAX];
  dh_run_path_join(f_tap, d->final_dir, "conformance.tap");
  dh_run_path_join(f_bench, d->final_dir, "bench.json");
  dev_tally_t tallies[256];
  int ndev = parse_tap(f_tap, tallies, 256);
  json_t* bench = o->no_bench ? NULL : json_load_file(f_bench, 0, NULL);
  int w = 14; /* the device column fits the longest name ("tvm-cuda (no device)") */
  for (int i = 0; i < ndev; ++i)
    if ((int)strlen(tallies[i].device) > w) w = (int)strlen(tallies[i].device);
  printf("\n%-*s %-7s %6s %6s %6s %6s  %s\n", w, "device", "profile", "pass", "fail", "skip", "xfail",
         bench ? "peak copy GB/s (harness)" : "");
  int fail_total = 0;
  for (int i = 0; i < ndev; ++i) {
    fail_total += tallies[i].fail;
    printf("%-*s %-7s %6d %6d %6d %6d", w, tallies[i].device, tallies[i].profile[0] ? tallies[i].profile : "-",
           tallies[i].pass, tallies[i].fail, tallies[i].skip, tallies[i].todo);
    if (bench) {
      double g = peak_copy_gbps(bench, tallies[i].device);
      if (g > 0) printf("  %.2f", g);
      else printf("  -");
    }
    printf("\n");
  }
  json_decref(bench);
  /* a backend without a device is said loudly, not only as a row of skips */
  for (int i = 0; i < ndev; ++i)
    if (strstr(tallies[i].device, "(no device)"))
      printf("NO DEVICE: %.*s not tested (every clause skipped): %s\n",
             (int)(strstr(tallies[i].device, " (no device)") - tallies[i].device), tallies[i].device,
             tallies[i].why[0] ? tallies[i].why : "see conformance.tap");
  return fail_total;
}

int dh_run_print_steps(const run_step_t* steps, int total) {
  printf("\nsteps:\n");
  int worst = DH_EXIT_OK;
  for (int i = 0; i < total; ++i) {
    /* conformance exit 3: no selected device at all (nothing tested) */
    int no_dev = i == 1 && steps[i].rc == DH_EXIT_NO_DEVICE;
    const char* verdict = steps[i].rc == 0 ? "ok" : steps[i].rc == -1 ? "not run" : no_dev ? "NO DEVICE" : "FAILED";
    printf("  %-12s %-9s exit %-3d %6.1f s\n", steps[i].title, verdict, steps[i].rc, steps[i].seconds);
    if (no_dev && worst == DH_EXIT_OK) worst = DH_EXIT_NO_DEVICE;
    else if (steps[i].rc != 0 && !no_dev) worst = DH_EXIT_VIOLATION;
  }
  return worst;
}

