/*
 * cli/run.c — `devharness run`: the main job. Runs, each in its own process,
 *   1. info (info.txt, info.json)
 *   2. conformance on every device (conformance.tap, conformance.junit.xml; its stdout
 *      is the same TAP stream and is not kept twice)
 *   3. the quick benchmarks (bench.json, bench.txt)
 *   4. plots of the benchmarks (PNG and SVG files in plots/)
 * into a results folder written under a temporary name and renamed when complete
 * (OUTPUT/run-YYYYmmdd-HHMMSS, with OUTPUT/latest pointing at it), then prints a
 * summary table. Separate processes keep each step's backend threads and state
 * apart (the conformance runner forks per case and must start from a process that
 * never initialised a backend).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/text.h"
#include "devharness/devharness.h"

static const char kRunUsage[] =
    "usage: devharness run [--output DIR] [--device SPEC] [--timeout SEC]\n"
    "                      [--no-bench] [--full-bench]\n"
    "\n"
    "The main job: info, conformance on every device, a quick benchmark run and its\n"
    "plots, written to DIR/run-<date>-<time>/ (DIR/latest points at the newest) and\n"
    "summarised in a table.\n"
    "  --output DIR   results folder (default: results)\n"
    "  --device SPEC  only this device (e.g. sim:0)\n"
    "  --timeout SEC  per-clause conformance timeout (default 10)\n"
    "  --no-bench     skip the benchmarks and plots\n"
    "  --full-bench   full benchmark run instead of --quick\n"
    "exit: 0 every clause kept and every step ran, 1 violations or a failed step,\n"
    "      2 usage error or results folder not writable, 3 no device: no selected\n"
    "      device could run (every clause skipped; a backend without a device among\n"
    "      others is a NO DEVICE line in the summary, not an error)\n";

typedef struct run_step {
  const char* title;
  int rc;
  double seconds;
} run_step_t;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs `self argv...` in folder cwd (NULL: this one) with stdout to out_path (NULL:
 * inherit; relative to cwd) and returns its exit status (128+signal when killed, 127
 * when it could not start). */
static int spawn_self_in(char* const* args, const char* out_path, const char* cwd) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) return 127;
  if (pid == 0) {
    if (cwd && chdir(cwd) != 0) _exit(127);
    if (out_path) {
      int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) _exit(127);
    }
    execv(dh_cmdline_self_path(), args);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 127;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 127;
}

static int spawn_self(char* const* args, const char* out_path) { return spawn_self_in(args, out_path, NULL); }

static void progress(int step, int total, const char* title) {
  fprintf(stderr, "[%d/%d] %s ...\n", step, total, title);
}

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

/* out = dir + "/" + name; the caller has checked that dir is short enough
 * (strlen(dir) < PATH_MAX - 128), so this never truncates. */
static void path_join(char out[PATH_MAX], const char* dir, const char* name) {
  size_t d = strlen(dir), n = strlen(name);
  memcpy(out, dir, d);
  out[d] = '/';
  memcpy(out + d + 1, name, n + 1);
}

static int make_dir(const char* path) {
  if (mkdir(path, 0755) == 0 || errno == EEXIST) return 0;
  return -1;
}

typedef struct run_opts {
  const char* output;
  const char* device; /* NULL: every device */
  const char* timeout;
  int no_bench, full_bench;
} run_opts_t;

/* Reads the options. Returns -1 to go on, else the exit code (--help, usage error). */
static int parse_run_opts(int argc, char** argv, run_opts_t* o) {
  *o = (run_opts_t){"results", NULL, "10", 0, 0};
  static const struct option kOpts[] = {{"output", required_argument, NULL, 'o'},
                                        {"device", required_argument, NULL, 'd'},
                                        {"timeout", required_argument, NULL, 't'},
                                        {"no-bench", no_argument, NULL, 'n'},
                                        {"full-bench", no_argument, NULL, 'f'},
                                        {"help", no_argument, NULL, 'h'},
                                        {NULL, 0, NULL, 0}};
  dh_cmdline_getopt_begin();
  int c;
  while ((c = getopt_long(argc, argv, "o:", kOpts, NULL)) != -1) {
    switch (c) {
      case 'o': o->output = optarg; break;
      case 'd':
        if (dh_cmdline_set_once("run", "--device", &o->device, optarg) != DH_EXIT_OK) return DH_EXIT_USAGE;
        break;
      case 't': o->timeout = optarg; break;
      case 'n': o->no_bench = 1; break;
      case 'f': o->full_bench = 1; break;
      case 'h': fputs(kRunUsage, stdout); return DH_EXIT_OK;
      default: return dh_cmdline_bad_option("run", kOpts, argc, argv);
    }
  }
  if (dh_cmdline_no_operands("run", argc, argv) != DH_EXIT_OK) return DH_EXIT_USAGE;
  long tmo;
  if (dh_cmdline_parse_long(o->timeout, 1, 86400, &tmo) != 0) {
    fprintf(stderr, "devharness run: --timeout %s: expected a whole number of seconds 1..86400\n",
            o->timeout);
    return DH_EXIT_USAGE;
  }
  /* A bad --device is a usage error found before anything is created: one line, exit
   * 2, no results folder. The device is probed in a child, so this process never
   * initialises a backend; every step below runs in its own fresh process. */
  if (o->device != NULL) {
    dh_device_list_t sel;
    dh_device_select_params_t params = {.spec = o->device, .flags = DH_SELECT_PROBE_IN_CHILD,
                                        .probe_timeout_s = (int)tmo};
    int bad = dh_cmdline_select_devices("run", &params, &sel) != DH_EXIT_OK;
    dh_device_list_free(&sel);
    dh_plugins_unload_all();
    if (bad) return DH_EXIT_USAGE;
  }
  return -1;
}

/* The results folder: written as OUTPUT/.run-STAMP-PID.partial, renamed to
 * OUTPUT/run-STAMP when complete. */
typedef struct run_dir {
  char stamp[32];
  char partial[PATH_MAX], final_dir[PATH_MAX];
  char info_txt[PATH_MAX], info_json[PATH_MAX], tap[PATH_MAX], junit[PATH_MAX], bench[PATH_MAX],
      bench_txt[PATH_MAX];
} run_dir_t;

/* Creates the partial folder. 0, or DH_EXIT_USAGE after one line on stderr. */
static int make_run_dir(const char* output, run_dir_t* d) {
  char q[DH_TEXT_BUF];
  if (strlen(output) >= PATH_MAX - 256) {
    fprintf(stderr, "devharness run: --output: path too long\n");
    return DH_EXIT_USAGE;
  }
  if (make_dir(output) != 0) {
    fprintf(stderr, "devharness run: --output %s: cannot create folder: %s\n", dh_text_quote(output, q, sizeof q), strerror(errno));
    return DH_EXIT_USAGE;
  }
  time_t t = time(NULL);
  strftime(d->stamp, sizeof d->stamp, "%Y%m%d-%H%M%S", localtime(&t));
  char name[96];
  snprintf(name, sizeof name, ".run-%s-%d.partial", d->stamp, (int)getpid());
  path_join(d->partial, output, name);
  snprintf(name, sizeof name, "run-%s", d->stamp);
  path_join(d->final_dir, output, name);
  if (mkdir(d->partial, 0755) != 0) {
    fprintf(stderr, "devharness run: --output %s: not writable: %s\n", dh_text_quote(output, q, sizeof q), strerror(errno));
    return DH_EXIT_USAGE;
  }
  path_join(d->info_txt, d->partial, "info.txt");
  path_join(d->info_json, d->partial, "info.json");
  path_join(d->tap, d->partial, "conformance.tap");
  path_join(d->junit, d->partial, "conformance.junit.xml");
  path_join(d->bench, d->partial, "bench.json");
  path_join(d->bench_txt, d->partial, "bench.txt");
  return 0;
}

/* Step 1: info.json and info.txt. */
static int step_info(const run_opts_t* o, const run_dir_t* d) {
  char* a1[] = {"devharness", "info", "--json", NULL};
  char* a2[] = {"devharness", "info", NULL};
  char* a1d[] = {"devharness", "info", "--json", "--device", (char*)o->device, NULL};
  char* a2d[] = {"devharness", "info", "--device", (char*)o->device, NULL};
  int rc = spawn_self(o->device ? a1d : a1, d->info_json);
  if (rc == 0) rc = spawn_self(o->device ? a2d : a2, d->info_txt);
  return rc;
}

/* Step 2: conformance.tap and conformance.junit.xml. */
static int step_conformance(const run_opts_t* o, const run_dir_t* d) {
  char* args[16];
  int n = 0;
  args[n++] = "devharness";
  args[n++] = "conformance";
  args[n++] = "--tap";
  args[n++] = (char*)d->tap;
  args[n++] = "--junit";
  args[n++] = (char*)d->junit;
  args[n++] = "--timeout";
  args[n++] = (char*)o->timeout;
  if (o->device) {
    args[n++] = "--device";
    args[n++] = (char*)o->device;
  }
  args[n] = NULL;
  /* stdout is the TAP stream, already in conformance.tap: not kept twice */
  return spawn_self(args, "/dev/null");
}

/* Step 3: bench.json and bench.txt. */
static int step_bench(const run_opts_t* o, const run_dir_t* d) {
  char* args[16];
  int n = 0;
  args[n++] = "devharness";
  args[n++] = "bench";
  if (!o->full_bench) args[n++] = "--quick";
  args[n++] = "--out";
  args[n++] = (char*)d->bench;
  if (o->device) {
    args[n++] = "--device";
    args[n++] = (char*)o->device;
  }
  args[n] = NULL;
  return spawn_self(args, d->bench_txt);
}

/* Runs one step with its progress line and time into *step. */
static void run_step(run_step_t* step, int num, int total, const char* what,
                     int (*fn)(const run_opts_t*, const run_dir_t*), const run_opts_t* o,
                     const run_dir_t* d) {
  progress(num, total, what);
  double t0 = now_s();
  step->rc = fn(o, d);
  step->seconds = now_s() - t0;
}

/* Step 4: plots, run in the results folder, so plot.log names bench.json and plots/,
 * not the temporary .partial folder's paths; not run when the benchmarks failed. */
static int step_plots(const run_opts_t* o, const run_dir_t* d) {
  (void)o;
  char* pargs[] = {"devharness", "plot", "bench.json", "-o", "plots", NULL};
  return spawn_self_in(pargs, "plot.log", d->partial);
}

/* Renames the complete folder into place and points OUTPUT/latest at it. */
static int publish(const char* output, const run_dir_t* d, char latest[PATH_MAX]) {
  if (rename(d->partial, d->final_dir) != 0) {
    fprintf(stderr, "devharness run: cannot rename %s to %s: %s\n", d->partial, d->final_dir, strerror(errno));
    return DH_EXIT_USAGE;
  }
  char latest_tmp[PATH_MAX], target[96], name[96];
  path_join(latest, output, "latest");
  snprintf(name, sizeof name, ".latest-%d", (int)getpid());
  path_join(latest_tmp, output, name);
  snprintf(target, sizeof target, "run-%s", d->stamp);
  unlink(latest_tmp);
  if (symlink(target, latest_tmp) != 0 || rename(latest_tmp, latest) != 0) {
    fprintf(stderr, "devharness run: warning: cannot update %s: %s\n", latest, strerror(errno));
  }
  return 0;
}

/* The per-device table (conformance tallies, peak copy bandwidth) and NO DEVICE lines;
 * returns the number of violations. */
static int print_devices(const run_opts_t* o, const run_dir_t* d, char f_tap[PATH_MAX]) {
  char f_bench[PATH_MAX];
  path_join(f_tap, d->final_dir, "conformance.tap");
  path_join(f_bench, d->final_dir, "bench.json");
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

/* The steps table; returns the run's exit code. */
static int print_steps(const run_step_t* steps, int total) {
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

int dh_cli_run(int argc, char** argv) {
  run_opts_t o;
  int rc = parse_run_opts(argc, argv, &o);
  if (rc >= 0) return rc;
  static run_dir_t d;
  if (make_run_dir(o.output, &d) != 0) return DH_EXIT_USAGE;

  const int total = o.no_bench ? 2 : 4;
  run_step_t steps[4] = {{"info", 0, 0}, {"conformance", 0, 0}, {"bench", 0, 0}, {"plots", 0, 0}};
  run_step(&steps[0], 1, total, "info: backends, devices, attributes", step_info, &o, &d);
  if (steps[0].rc == DH_EXIT_USAGE) {
    fprintf(stderr, "devharness run: info failed (bad --device?); no results written\n");
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d.partial);
    if (system(cmd) != 0) fprintf(stderr, "devharness run: could not remove %s\n", d.partial);
    return DH_EXIT_USAGE;
  }
  run_step(&steps[1], 2, total, "conformance: every clause on every device", step_conformance, &o, &d);
  if (!o.no_bench) {
    run_step(&steps[2], 3, total, o.full_bench ? "bench: full benchmark run" : "bench: quick benchmarks",
             step_bench, &o, &d);
    if (steps[2].rc == 0) {
      run_step(&steps[3], 4, total, "plots: bandwidth and latency", step_plots, &o, &d);
    } else {
      progress(4, total, "plots: bandwidth and latency");
      steps[3].rc = -1; /* not run */
    }
  }

  char latest[PATH_MAX], f_tap[PATH_MAX];
  if (publish(o.output, &d, latest) != 0) return DH_EXIT_USAGE;
  int fail_total = print_devices(&o, &d, f_tap);
  int worst = print_steps(steps, total);
  printf("\nresults: %s (also %s)\n", d.final_dir, latest);
  if (fail_total > 0) printf("conformance: %d violation(s); see %s\n", fail_total, f_tap);
  return worst;
}
