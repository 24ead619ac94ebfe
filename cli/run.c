/*
 * cli/run.c — `devharness run`: the main job. Runs, each in its own process,
 *   1. info (info.txt, info.json)
 *   2. conformance on every device (conformance.tap, conformance.junit.xml,
 *      conformance.summary.json; its stdout is the same TAP stream and is not kept twice)
 *   3. the quick benchmarks (bench.json, bench.txt)
 *   4. plots of the benchmarks (PNG files in plots/; --no-plots leaves them out)
 * with measurement health (cli/run_health.c) taken before and after steps 2 and 3
 * into health.json,
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
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/run.h"
#include "store/bundle.h"
#include "base/text.h"
#include "devharness/devharness.h"

/* printf format: the device-option group's usage, then its help (column 17). */
static const char kRunUsage[] =
    "usage: devharness run [--output DIR] [--device SPEC]%s\n"
    "                      [--timeout SEC] [--no-bench | --no-plots] [--full-bench] [--expect FILE|TAG]\n"
    "                      [--store PATH | --no-store] [--module LIB.so]... [--quiet|--verbose]\n"
    "\n"
    "The main job: info, conformance on every device, a quick benchmark run and its\n"
    "plots, written to DIR/run-<date>-<time>/ (DIR/latest points at the newest) and\n"
    "summarised in a table.\n"
    "  --output DIR   results folder (default: results)\n"
    "  --device SPEC  only this device (e.g. sim:0)\n"
    "%s"
    "  --timeout SEC  per-clause conformance timeout (default 10)\n"
    "  --no-bench     skip the benchmarks and plots\n"
    "  --no-plots     run the benchmarks, skip their plots\n"
    "  --full-bench   full benchmark run instead of --quick\n"
    "  --expect T     the floors (\"expect\") of target file or tag T become verdicts on\n"
    "                 the devices of its kind (bench --expect; a floor the run did not\n"
    "                 measure, e.g. 256 MiB without --full-bench, is a skip); a device\n"
    "                 below its floor fails the run (exit 1) with measured, ceiling, floor\n"
    "  --store PATH   record the run in this results store (default DIR/devharness.sqlite;\n"
    "                 docs/results.md); the results folder is a result bundle\n"
    "                 (manifest.json) either way\n"
    "  --no-store     do not record the run in a store\n"
    "  --module LIB.so  after conformance, `devharness module check LIB.so` on the run's\n"
    "                 --device (every device without one) into module-NAME.tap,\n"
    "                 module-NAME.junit.xml and module-NAME.cases.json (NAME: the file's\n"
    "                 name less .so; recorded in the store with the run), one step per\n"
    "                 library (repeatable, up to 16, each file name once); a failed case\n"
    "                 fails the run (exit 1) and is named after the results line\n"
    "  -q, --quiet    print only errors and the verdict line, 'devharness run: DIR: N\n"
    "                 devices, F failed cases, steps ok (exit E)' (no progress, tables)\n"
    "  -v, --verbose  also each step's command line, '+ devharness conformance ...',\n"
    "                 on stderr before it runs, and the verdict line\n"
    "The folder is published (renamed into place, latest moved) only when every step\n"
    "finished and every file is whole; otherwise it is kept as run-<date>-<time>.failed\n"
    "with the reason on stderr. Folders of runs that died are removed by the next run.\n"
    "health.json holds the measurement health (CPU governor and frequency, load, the\n"
    "thread's NUMA node, NVIDIA GPU clocks and throttling through NVML) before and after\n"
    "conformance and bench; a noisy run is flagged in the summary with its reasons.\n"
    "exit: 0 every clause kept and every step ran, 1 violations, a failed step,\n"
    "      a device below an --expect floor or incomplete results,\n"
    "      2 usage error or results folder not writable, 3 no device: no selected\n"
    "      device could run (every clause skipped; a backend without a device among\n"
    "      others is a NO DEVICE line in the summary, not an error)\n";

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs `self argv...` in folder cwd (NULL: this one) with stdout to out_path (NULL:
 * inherit; relative to cwd) and returns its exit status (128+signal when killed, 127
 * when it could not start). */
static int g_verbosity; /* dh_cli_run_opts_t.verbosity, for the steps' command lines */

static int spawn_self_in(char* const* args, const char* out_path, const char* cwd) {
  if (g_verbosity > 0) { /* --verbose: the step's command, as a shell would run it */
    fprintf(stderr, "+ %s%s%s", cwd ? "cd " : "", cwd ? cwd : "", cwd ? " && " : "");
    for (int i = 0; args[i]; i++) fprintf(stderr, "%s%s", i ? " " : "", args[i]);
    fprintf(stderr, "%s%s\n", out_path ? " > " : "", out_path ? out_path : "");
  }
  fflush(stdout);
  fflush(stderr);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return 127;
  if (pid == 0) {
    /* the step dies with this process, however it ends (a SIGKILL too) */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(127);
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
  if (g_verbosity < 0) return;
  fprintf(stderr, "[%d/%d] %s ...\n", step, total, title);
}

/* --module LIB.so: a readable file whose name (less ".so") no other --module has (its
 * files are module-NAME.*). */
static int add_module(dh_cli_run_opts_t* o, const char* lib) {
  struct stat st;
  if (o->n_modules >= DH_CLI_RUN_MAX_MODULES)
    return dh_cmdline_usage_error("run", "--module: at most %d libraries", DH_CLI_RUN_MAX_MODULES);
  if (stat(lib, &st) != 0 || !S_ISREG(st.st_mode))
    return dh_cmdline_usage_error("run", "--module '%s': not a readable file", dh_cmdline_quote(lib));
  const char* base = strrchr(lib, '/') ? strrchr(lib, '/') + 1 : lib;
  size_t n = strlen(base);
  if (n > 3 && strcmp(base + n - 3, ".so") == 0) n -= 3;
  char* name = o->module_names[o->n_modules];
  snprintf(name, sizeof o->module_names[0], "%.*s", (int)(n < 127 ? n : 127), base);
  for (int k = 0; k < o->n_modules; k++)
    if (strcmp(o->module_names[k], name) == 0)
      return dh_cmdline_usage_error("run", "--module '%s': another --module has the file name '%s' (its files are module-NAME.*)",
                                    dh_cmdline_quote(lib), dh_cmdline_quote(base));
  o->modules[o->n_modules++] = lib;
  return DH_EXIT_OK;
}

/* Reads the options. Returns -1 to go on, else the exit code (--help, usage error). */
static int parse_run_opts(int argc, char** argv, dh_cli_run_opts_t* o) {
  *o = (dh_cli_run_opts_t){.output = "results", .timeout = "10"};
  static const struct option kOpts[] = {{"output", required_argument, NULL, 'o'},
                                        {"device", required_argument, NULL, 'd'},
                                        {"timeout", required_argument, NULL, 't'},
                                        {"no-bench", no_argument, NULL, 'n'},
                                        {"full-bench", no_argument, NULL, 'f'},
                                        {"no-plots", no_argument, NULL, 'P'},
                                        {"expect", required_argument, NULL, 'e'},
                                        {"store", required_argument, NULL, 'S'},
                                        {"no-store", no_argument, NULL, 'N'},
                                        {"module", required_argument, NULL, 'M'},
                                        {"quiet", no_argument, NULL, 'q'},
                                        {"verbose", no_argument, NULL, 'v'},
                                        {"help", no_argument, NULL, 'h'},
                                        {NULL, 0, NULL, 0}};
  /* the device-option group: given to the backends here (checked), passed on to every
   * step's command line (args_device) */
  struct option opts[sizeof kOpts / sizeof kOpts[0] + DH_CMDLINE_MAX_DEVICE_OPTIONS];
  dh_cmdline_device_options_load();
  dh_cmdline_options_with_devices(kOpts, opts, sizeof opts / sizeof opts[0]);
  dh_cmdline_getopt_begin();
  int c, rc = DH_EXIT_OK;
  int quiet = 0, verbose = 0;
  while ((c = getopt_long(argc, argv, "o:hqv", opts, NULL)) != -1) {
    switch (c) {
      case 'o': o->output = optarg; break;
      case 'd':
        if (dh_cmdline_set_once("run", "--device", &o->device, optarg) != DH_EXIT_OK) return DH_EXIT_USAGE;
        break;
      case 't': o->timeout = optarg; break;
      case 'n': o->no_bench = 1; break;
      case 'f': o->full_bench = 1; break;
      case 'P': o->no_plots = 1; break;
      case 'e':
        if (dh_cmdline_set_once("run", "--expect", &o->expect, optarg) != DH_EXIT_OK) return DH_EXIT_USAGE;
        break;
      case 'S': o->store = optarg; break;
      case 'N': o->no_store = 1; break;
      case 'M':
        if (add_module(o, optarg) != DH_EXIT_OK) return DH_EXIT_USAGE;
        break;
      case 'q': quiet = 1; break;
      case 'v': verbose = 1; break;
      case 'h': printf(kRunUsage, dh_cmdline_device_options_usage(), dh_cmdline_device_options_help(17)); return DH_EXIT_OK;
      default:
        if (!dh_cmdline_device_option("run", c, optarg, &rc)) return dh_cmdline_bad_option("run", opts, argc, argv);
        if (rc != DH_EXIT_OK) return rc;
    }
  }
  if (dh_cmdline_no_operands("run", argc, argv) != DH_EXIT_OK) return DH_EXIT_USAGE;
  if (quiet && verbose) return dh_cmdline_usage_error("run", "--quiet and --verbose exclude each other");
  if (o->expect && o->no_bench)
    return dh_cmdline_usage_error("run", "--expect needs the benchmarks; it and --no-bench exclude each other");
  o->verbosity = quiet ? -1 : verbose;
  g_verbosity = o->verbosity;
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
    dh_cmdline_device_options_end(); /* the backends the values name are found now */
    dh_device_list_t sel;
    dh_device_select_params_t params = {.spec = o->device, .flags = DH_SELECT_PROBE_IN_CHILD,
                                        .probe_timeout_s = (int)tmo};
    int bad = dh_cmdline_select_devices("run", &params, &sel) != DH_EXIT_OK;
    dh_device_list_free(&sel);
    if (bad) return DH_EXIT_USAGE;
  }
  dh_plugins_unload_all(); /* loaded for the device-option group and --device: the steps load their own */
  return -1;
}

/* The argument vector of one step: `devharness <command> ...`, NULL-terminated. */
typedef struct step_args {
  char* v[24 + DH_CMDLINE_MAX_DEVICE_ARGS];
  int n;
} step_args_t;

static void args_add(step_args_t* a, const char* arg) {
  if (a->n < (int)(sizeof a->v / sizeof a->v[0]) - 1) a->v[a->n++] = (char*)arg;
  a->v[a->n] = NULL;
}

/* `devharness command`. */
static step_args_t args_begin(const char* command) {
  step_args_t a = {{NULL}, 0};
  args_add(&a, "devharness");
  args_add(&a, command);
  return a;
}

/* --device SPEC when the run names one, then the device-option group's values as
 * given to the run (the steps do not inherit them). */
static void args_device(step_args_t* a, const dh_cli_run_opts_t* o) {
  if (o->device) {
    args_add(a, "--device");
    args_add(a, o->device);
  }
  const char* words[DH_CMDLINE_MAX_DEVICE_ARGS];
  int n = dh_cmdline_device_option_args(words, DH_CMDLINE_MAX_DEVICE_ARGS);
  for (int i = 0; i < n; i++) args_add(a, words[i]);
}

/* Step 1: info.json and info.txt. */
static int step_info(const dh_cli_run_opts_t* o, const dh_cli_run_dir_t* d) {
  step_args_t json = args_begin("info"), text = args_begin("info");
  args_add(&json, "--json");
  /* a backend that blocks in a question costs the run's --timeout */
  args_add(&json, "--timeout");
  args_add(&json, o->timeout);
  args_add(&text, "--timeout");
  args_add(&text, o->timeout);
  args_device(&json, o);
  args_device(&text, o);
  int rc = spawn_self(json.v, d->info_json);
  /* exit 3 (the named device's backend has none) still writes the listing */
  if (rc == DH_EXIT_OK || rc == DH_EXIT_NO_DEVICE) rc = spawn_self(text.v, d->info_txt);
  return rc;
}

/* Step 2: conformance.tap, conformance.junit.xml, conformance.summary.json and
 * conformance.cases.json; every case (--shard 1/1: GitLab sets CI_NODE_INDEX and
 * CI_NODE_TOTAL in parallel:matrix jobs too, and a run is never a shard). */
static int step_conformance(const dh_cli_run_opts_t* o, const dh_cli_run_dir_t* d) {
  step_args_t a = args_begin("conformance");
  const char* const pairs[][2] = {{"--tap", d->tap},         {"--junit", d->junit},
                                  {"--summary", d->summary}, {"--cases", d->cases},
                                  {"--timeout", o->timeout}, {"--shard", "1/1"}};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    args_add(&a, pairs[i][0]);
    args_add(&a, pairs[i][1]);
  }
  args_device(&a, o);
  if (o->verbosity < 0) args_add(&a, "--quiet"); /* no waiver counts on stderr */
  /* stdout is the TAP stream, already in conformance.tap: not kept twice */
  return spawn_self(a.v, "/dev/null");
}

/* Step 3: bench.json and bench.txt. */
static int step_bench(const dh_cli_run_opts_t* o, const dh_cli_run_dir_t* d) {
  step_args_t a = args_begin("bench");
  if (!o->full_bench) args_add(&a, "--quick");
  args_add(&a, "--out");
  args_add(&a, d->bench);
  if (o->expect) {
    args_add(&a, "--expect");
    args_add(&a, o->expect);
  }
  args_device(&a, o);
  return spawn_self(a.v, d->bench_txt);
}

/* A module step: `module check LIB.so` of --module k on the run's --device into
 * module-NAME.tap, .junit.xml and .cases.json (its stdout, the TAP stream, is not kept
 * twice). */
static int step_module(const dh_cli_run_opts_t* o, const dh_cli_run_dir_t* d, int k) {
  char tap[PATH_MAX], junit[PATH_MAX], cases[PATH_MAX];
  dh_cli_run_module_path(tap, d->partial, o->module_names[k], ".tap");
  dh_cli_run_module_path(junit, d->partial, o->module_names[k], ".junit.xml");
  dh_cli_run_module_path(cases, d->partial, o->module_names[k], ".cases.json");
  step_args_t a = args_begin("module");
  args_add(&a, "check");
  args_add(&a, o->modules[k]);
  const char* const pairs[][2] = {{"--tap", tap}, {"--junit", junit}, {"--cases", cases}, {"--timeout", o->timeout}};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    args_add(&a, pairs[i][0]);
    args_add(&a, pairs[i][1]);
  }
  if (o->device) { /* module check takes no device-option group: --device alone */
    args_add(&a, "--device");
    args_add(&a, o->device);
  }
  if (o->verbosity < 0) args_add(&a, "--quiet");
  return spawn_self(a.v, "/dev/null");
}

/* Runs one step with its progress line and time into *step. */
static void run_step(dh_cli_run_step_t* step, int num, int total, const char* what,
                     int (*fn)(const dh_cli_run_opts_t*, const dh_cli_run_dir_t*), const dh_cli_run_opts_t* o,
                     const dh_cli_run_dir_t* d) {
  progress(num, total, what);
  double t0 = now_s();
  step->rc = fn(o, d);
  step->seconds = now_s() - t0;
}

/* Step 4: plots, run in the results folder, so plot.log names bench.json and plots/,
 * not the temporary .partial folder's paths; not run when the benchmarks failed. */
static int step_plots(const dh_cli_run_opts_t* o, const dh_cli_run_dir_t* d) {
  (void)o;
  step_args_t a = args_begin("plot");
  args_add(&a, "bench.json");
  args_add(&a, "-o");
  args_add(&a, "plots");
  return spawn_self_in(a.v, "plot.log", d->partial);
}

/* Steps 1 and 2, a module step per --module (into msteps, numbered after
 * conformance), then 3 and 4 when asked for. DH_EXIT_USAGE when info refused the
 * device (the folder is removed), else -1. */
static int run_steps(const dh_cli_run_opts_t* o, const dh_cli_run_dir_t* d, dh_cli_run_step_t* steps, int total,
                     dh_cli_run_step_t* msteps) {
  const int nm = o->n_modules, all = total + nm;
  run_step(&steps[0], 1, all, "info: backends, devices, attributes", step_info, o, d);
  if (steps[0].rc == DH_EXIT_USAGE) {
    fprintf(stderr, "devharness run: info failed (bad --device?); no results written\n");
    dh_cli_run_dir_remove(d);
    return DH_EXIT_USAGE;
  }
  dh_cli_run_health_take(0);
  run_step(&steps[1], 2, all, "conformance: every clause on every device", step_conformance, o, d);
  dh_cli_run_health_take(1);
  for (int k = 0; k < nm; k++) {
    static char titles[DH_CLI_RUN_MAX_MODULES][160], what[DH_CLI_RUN_MAX_MODULES][PATH_MAX];
    snprintf(titles[k], sizeof titles[k], "module %s", o->module_names[k]);
    snprintf(what[k], sizeof what[k], "module check %s", o->modules[k]);
    msteps[k].title = titles[k];
    progress(3 + k, all, what[k]);
    double t0 = now_s();
    msteps[k].rc = step_module(o, d, k);
    msteps[k].seconds = now_s() - t0;
  }
  if (o->no_bench) return -1;
  dh_cli_run_health_take(2);
  run_step(&steps[2], 3 + nm, all, o->full_bench ? "bench: full benchmark run" : "bench: quick benchmarks",
           step_bench, o, d);
  dh_cli_run_health_take(3);
  steps[2].below_floor = steps[2].rc == DH_EXIT_VIOLATION && dh_cli_run_bench_below_floor(d->bench);
  if (o->no_plots) {
    steps[3].rc = -1; /* not asked for: not a step of this run (total 3) */
  } else if (steps[2].rc == 0 || steps[2].below_floor) {
    run_step(&steps[3], 4 + nm, all, "plots: bandwidth and latency", step_plots, o, d);
  } else {
    progress(4 + nm, all, "plots: bandwidth and latency");
    steps[3].rc = -1; /* not run */
  }
  return -1;
}

/* Every step of the run in the order they ran: info, conformance, the module steps,
 * bench, plots (for the steps table, the verdict and the manifest). Their count. */
static int steps_in_order(const dh_cli_run_step_t* steps, int total, const dh_cli_run_step_t* msteps, int nm,
                          dh_cli_run_step_t* out) {
  int n = 0;
  for (int i = 0; i < 2 && i < total; i++) out[n++] = steps[i];
  for (int k = 0; k < nm; k++) out[n++] = msteps[k];
  for (int i = 2; i < total; i++) out[n++] = steps[i];
  return n;
}

/* After the published folder's tables: the results line, the failed cases (of
 * conformance, then of each module step), the verdict line. */
static void say_results(const dh_cli_run_opts_t* o, const dh_cli_run_dir_t* d, const char* latest, const char* f_tap,
                        int fail_total, const dh_cli_run_step_t* all, int nall, int worst) {
  int mfail = dh_cli_run_print_module_failures(NULL, o, d->final_dir, 0);
  if (o->verbosity >= 0) {
    printf("\nresults: %s (also %s)\n", d->final_dir, latest);
    if (fail_total > 0) {
      printf("conformance: %d violation(s); see %s\n", fail_total, f_tap);
      dh_cli_run_print_failures(stdout, d->final_dir, 10); /* which, without opening the TAP */
    }
    dh_cli_run_print_module_failures(stdout, o, d->final_dir, 10);
  }
  if (o->verbosity != 0) {
    int failed_steps = 0, failed = fail_total + mfail;
    for (int i = 0; i < nall; i++) failed_steps += all[i].rc != 0;
    printf("devharness run: %s: %d failed case%s, %d of %d steps not ok (exit %d)\n", d->final_dir, failed,
           failed == 1 ? "" : "s", failed_steps, nall, worst);
  }
}

int dh_cli_run(int argc, char** argv) {
  dh_cli_run_opts_t o;
  int rc = parse_run_opts(argc, argv, &o);
  if (rc >= 0) return rc;
  static dh_cli_run_dir_t d;
  static dh_store_bundle_t bundle;
  if (dh_cli_run_dir_create(o.output, &d) != 0) return DH_EXIT_USAGE;
  dh_cli_run_bundle_begin(&bundle, &d, argc, argv);

  const int total = o.no_bench ? 2 : o.no_plots ? 3 : 4;
  dh_cli_run_step_t steps[4] = {{.title = "info"}, {.title = "conformance"}, {.title = "bench"}, {.title = "plots"}};
  dh_cli_run_step_t msteps[DH_CLI_RUN_MAX_MODULES], all[4 + DH_CLI_RUN_MAX_MODULES];
  if (run_steps(&o, &d, steps, total, msteps) == DH_EXIT_USAGE) return DH_EXIT_USAGE;
  const int nall = steps_in_order(steps, total, msteps, o.n_modules, all);

  char latest[PATH_MAX], f_tap[PATH_MAX], why[PATH_MAX + 128];
  dh_cli_run_health_write(&d); /* a failure is said; the other files still count */
  if (dh_cli_run_check_complete(&d, steps, total, why, sizeof why) != 0 ||
      dh_cli_run_check_modules(&o, &d, msteps, why, sizeof why) != 0 ||
      (dh_cli_run_bundle_finish(&bundle, all, nall) != 0 && snprintf(why, sizeof why, "no manifest.json") > 0) ||
      (dh_cli_run_record(&o, &d) != 0 && snprintf(why, sizeof why, "not recorded in the store") > 0)) {
    dh_cli_run_dir_keep_failed(o.output, &d);
    dh_cli_run_print_steps(o.verbosity < 0 ? stderr : stdout, all, nall);
    fprintf(stderr, "devharness run: results incomplete (%s); kept in %s, not published (latest unchanged)\n",
            why, d.final_dir);
    return DH_EXIT_VIOLATION;
  }
  if (dh_cli_run_dir_publish(o.output, &d, latest) != 0) return DH_EXIT_USAGE;
  FILE* out = stdout;
  FILE* sink = o.verbosity < 0 ? fopen("/dev/null", "w") : NULL; /* --quiet: tables unprinted */
  if (sink) out = sink;
  int fail_total = dh_cli_run_print_devices(out, &o, &d, f_tap);
  dh_cli_run_print_health(out, d.final_dir);
  int below = o.expect ? dh_cli_run_print_expect(out, &d) : 0;
  dh_cli_run_print_steps(out, all, nall);
  int worst = dh_cli_run_steps_verdict(all, nall);
  if (below > 0) worst = DH_EXIT_VIOLATION;
  if (sink) fclose(sink);
  say_results(&o, &d, latest, f_tap, fail_total, all, nall, worst);
  return worst;
}
