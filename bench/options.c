/*
 * bench/options.c — the options of `devharness bench` and the argv handed to Google
 * Benchmark (bench/steps.h dh_bench_args_parse).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/report/summary.h"
#include "bench/steps.h"
#include "bench/suites/suites.h"
#include "cmdline/cmdline.h"

/* printf format: the suite list (bench/suites/suites.h), then the device-option group's
 * help (column 20). */
static const char kUsage[] =
    "usage: devharness bench [--suite LIST] [--device NAME:ID] [--quick] [--out FILE.json]\n"
    "                        [--module LIB.so] [--bundle DIR]\n"
    "                        [--repetitions N] [--timing auto|host|device]\n"
    "                        [--pin auto|core|node|none] [--noisy-cv PCT]\n"
    "                        [--color auto|always|never] [--quiet|--verbose]\n"
    "                        [--expect FILE|TAG] [--benchmark_*=...]\n"
    "\n"
    "Microbenchmarks through Google Benchmark, on every device of every loaded backend\n"
    "(or one --device). Each copy/sync/launch benchmark has a raw twin (the backend's\n"
    "vendor API directly) named .../raw/... next to .../harness/...; the summary after the\n"
    "run gives the harness/raw time ratio of every pair.\n"
    "\n"
    "  --suite LIST      comma-separated: %s (default: all but\n"
    "                    matrix, which runs only when named: copies between every ordered\n"
    "                    pair of devices, N x N tables after the run)\n"
    "  --device SPEC     only this device, e.g. sim:0 (default: every device)\n"
    "%s"
    "  --quick           short min_time and fewer sizes (under a minute here)\n"
    "  --module LIB.so   the tvm-ffi library of the module suite: each exported function\n"
    "                    called through tvm-ffi next to a direct C call of its symbol\n"
    "                    (the suite registers nothing without it)\n"
    "  --out FILE        Google Benchmark JSON (+ \"devharness_summary\": ratios, CVs)\n"
    "  --bundle DIR      write a result bundle to DIR (docs/results.md): bench.json (unless\n"
    "                    --out names another file), info.json and manifest.json\n"
    "  --repetitions N   repeat each benchmark N times (mean/median/stddev/cv; >= 9 for\n"
    "                    `devharness compare`); N >= 2 runs the repetitions of all\n"
    "                    benchmarks interleaved in random order (undo with\n"
    "                    --benchmark_enable_random_interleaving=false)\n"
    "  --timing MODE     copies: auto or host (default: host clock around copy + sync on\n"
    "                    both sides of every pair) or device (backend events vs the raw\n"
    "                    twin's device timer; not the same span on every API)\n"
    "  --pin MODE        bind the benchmark thread with hwloc: auto (default: the first\n"
    "                    core of the devices' NUMA node, from the sysfs numa_node of\n"
    "                    their PCI function, host memory bound to that node; the\n"
    "                    context says which node and why), core (core 0), node (NUMA\n"
    "                    node 0), none; all but none bind PoCL's workers one\n"
    "                    per core too (POCL_AFFINITY=1, unless the environment sets it)\n"
    "  --noisy-cv PCT    call the run noisy when a copy >= 1 MiB varies more than PCT %%\n"
    "                    (coefficient of variation over --repetitions; default 10, 0\n"
    "                    off); GPU throttling (NVML), a changing CPU governor or a load\n"
    "                    average above the CPUs also do (devharness.health.* in the\n"
    "                    context; DEVHARNESS_NVML_LIB names another libnvidia-ml.so.1)\n"
    "  --color WHEN      colour in the console table: auto (default: on a terminal, unless\n"
    "                    NO_COLOR is set and not empty), always, never\n"
    "  --expect T        a target JSON file or tag whose \"expect\" floors become verdicts\n"
    "                    after the run (e.g. \"h2d pinned 256MiB >= 70%%\" of the ceiling,\n"
    "                    \"launch/roundtrip <= 20 us\"), TAP lines in the summary, on the\n"
    "                    devices of its kind; its memory_bandwidth_gbps is their D2D ceiling\n"
    "  -q, --quiet       print only errors (stderr) and the verdict line, 'devharness\n"
    "                    bench: N benchmark runs (exit E)'; --out FILE is written as\n"
    "                    always\n"
    "  -v, --verbose     the whole context header (every devharness.* entry and each\n"
    "                    ceiling's sentence) and every harness/raw pair of the summary;\n"
    "                    by default the header has the machine and device lines, one\n"
    "                    ceiling line per device and a count of the rest, and the\n"
    "                    summary the pairs outside 0.95-1.05 and a count of the others\n"
    "                    (--out's JSON always holds everything)\n"
    "  --benchmark_*     passed to Google Benchmark, e.g. --benchmark_filter=copy/h2d\n"
    "                    --benchmark_list_tests=true --benchmark_min_time=0.5; a filter\n"
    "                    has at most 256 bytes, 2 repetitions (*, +, ?, {}) and 4 '|',\n"
    "                    none on a group (Google Benchmark's regex backtracks)\n"
    "\n"
    "Bytes processed count bytes copied once. --out FILE is written whole or not at all\n"
    "(a temporary beside it, renamed when complete). Exit (cmdline/cmdline.h): 0 ran, 1 nothing\n"
    "matched, --out could not be written or a device is below an --expect floor (--out\n"
    "is written first), 2 usage error (an --out that cannot be created),\n"
    "3 no device: the backend --device names has none (nothing was measured).\n";

enum { OPT_SUITE = 256, OPT_DEVICE, OPT_QUICK, OPT_OUT, OPT_REPS, OPT_TIMING, OPT_PIN, OPT_COLOR,
       OPT_EXPECT, OPT_NOISY_CV, OPT_MODULE, OPT_BUNDLE };

static const struct option kOpts[] = {
    {"suite", required_argument, NULL, OPT_SUITE},      {"device", required_argument, NULL, OPT_DEVICE},
    {"quick", no_argument, NULL, OPT_QUICK},            {"out", required_argument, NULL, OPT_OUT},
    {"repetitions", required_argument, NULL, OPT_REPS}, {"timing", required_argument, NULL, OPT_TIMING},
    {"pin", required_argument, NULL, OPT_PIN},          {"color", required_argument, NULL, OPT_COLOR},
    {"noisy-cv", required_argument, NULL, OPT_NOISY_CV},
    {"bundle", required_argument, NULL, OPT_BUNDLE},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {"expect", required_argument, NULL, OPT_EXPECT},
    {"module", required_argument, NULL, OPT_MODULE},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

/* Sorts argv: --benchmark_* words into a->user, as they are, for Google Benchmark; the
 * rest into a->ours for getopt_long. Returns the number of words in a->ours. */
static int split_words(int argc, char** argv, dh_bench_args_t* a) {
  int n = 0;
  a->ours[n++] = argc > 0 ? argv[0] : "bench";
  for (int i = 1; i < argc; ++i) {
    if (strncmp(argv[i], "--benchmark_", 12) == 0) a->user[a->nuser++] = argv[i];
    else a->ours[n++] = argv[i];
  }
  a->ours[n] = NULL;
  return n;
}

/* --benchmark_filter goes to Google Benchmark 1.7.1, which matches it with std::regex
 * (ECMAScript, a backtracking matcher: src/re.h): its time grows as the name's length to
 * the power of the repetitions in the pattern, exponentially for a repeated group, and
 * its recursion overflows the stack on a long pattern. A filter is refused unless it
 * keeps matching polynomial of low degree on names of about 100 bytes: at most
 * FILTER_MAX_BYTES bytes, FILTER_MAX_REPEATS repetition operators (*, +, ?, {m,n}; a
 * lazy '?' after one and '(?' count nothing), none applied to a group, and
 * FILTER_MAX_BARS alternatives '|' (each multiplies the paths a match may try). */
enum { FILTER_MAX_BYTES = 256, FILTER_MAX_REPEATS = 2, FILTER_MAX_BARS = 4 };
static const char kFilterFlag[] = "--benchmark_filter=";

static int check_filter(const char* re) {
  size_t n = strlen(re);
  int repeats = 0, bars = 0, in_class = 0;
  if (n > FILTER_MAX_BYTES)
    return dh_cmdline_usage_error("bench", "--benchmark_filter: %zu bytes, at most %d", n, (int)FILTER_MAX_BYTES);
  for (size_t i = 0; i < n; ++i) {
    char ch = re[i], prev = i > 0 ? re[i - 1] : '\0';
    if (ch == '\\') {
      ++i;
    } else if (in_class) {
      in_class = ch != ']';
    } else if (ch == '|') {
      ++bars;
    } else if (ch == '[') {
      in_class = 1;
      if (re[i + 1] == '^') ++i;
      if (re[i + 1] == ']') ++i;
    } else if (ch == '*' || ch == '+' || ch == '{' || (ch == '?' && !strchr("*+?}(", prev))) {
      if (prev == ')')
        return dh_cmdline_usage_error("bench", "--benchmark_filter '%s': a repeated group (matching it takes "
                                      "exponential time)", dh_cmdline_quote(re));
      ++repeats;
    }
  }
  if (repeats > FILTER_MAX_REPEATS || bars > FILTER_MAX_BARS)
    return dh_cmdline_usage_error("bench", "--benchmark_filter '%s': %d repetition operators (*, +, ?, {}) and %d "
                                  "'|', at most %d and %d (Google Benchmark's regex backtracks: matching time "
                                  "grows as a power of their count)",
                                  dh_cmdline_quote(re), repeats, bars, (int)FILTER_MAX_REPEATS,
                                  (int)FILTER_MAX_BARS);
  return DH_EXIT_OK;
}

/* Reads our options. Returns -1 to go on, else the exit code. */
static int read_options(int n, dh_bench_args_t* a) {
  static const char* const kTimings[] = {"auto", "host", "device", NULL};
  static const char* const kPins[] = {"auto", "core", "node", "none", NULL};
  static const char* const kColors[] = {"auto", "always", "never", NULL};
  char** ours = a->ours;
  struct option opts[sizeof kOpts / sizeof kOpts[0] + DH_CMDLINE_MAX_DEVICE_OPTIONS];
  dh_cmdline_device_options_load();
  dh_cmdline_options_with_devices(kOpts, opts, sizeof opts / sizeof opts[0]);
  dh_cmdline_getopt_begin();
  int c, rc = DH_EXIT_OK;
  long reps;
  while ((c = getopt_long(n, ours, "hqv", opts, NULL)) != -1) {
    switch (c) {
      case 'h': {
        char names[256];
        printf(kUsage, dh_bench_suite_names(",", names, sizeof names), dh_cmdline_device_options_help(20));
        return DH_EXIT_OK;
      }
      case OPT_SUITE: a->suites = optarg; break;
      case OPT_DEVICE:
        if (dh_cmdline_set_once("bench", "--device", &a->device, optarg) != DH_EXIT_OK) return DH_EXIT_USAGE;
        break;
      case OPT_QUICK: a->quick = 1; break;
      case 'q': a->quiet = 1; break;
      case 'v':
        dh_gb_set_full_context(1);
        dh_bench_summary_all_rows(1);
        break;
      case OPT_OUT: a->out = optarg; break;
      case OPT_BUNDLE: a->bundle_dir = optarg; break;
      case OPT_TIMING: a->timing = optarg; break;
      case OPT_PIN: a->pin_mode = optarg; break;
      case OPT_COLOR: a->color = optarg; break;
      case OPT_EXPECT:
        if (dh_cmdline_set_once("bench", "--expect", &a->expect, optarg) != DH_EXIT_OK) return DH_EXIT_USAGE;
        break;
      case OPT_NOISY_CV: {
        char* end = NULL;
        a->noisy_cv = strtod(optarg, &end);
        if (end == optarg || *end || !(a->noisy_cv >= 0 && a->noisy_cv <= 1000))
          return dh_cmdline_usage_error("bench", "--noisy-cv wants a percentage 0..1000, got '%s'",
                                        dh_cmdline_quote(optarg));
        break;
      }
      case OPT_MODULE: a->module = optarg; break;
      case OPT_REPS:
        if (dh_cmdline_parse_long(optarg, 1, 1000, &reps) != 0)
          return dh_cmdline_usage_error("bench", "--repetitions wants an integer 1..1000, got '%s'",
                                    dh_cmdline_quote(optarg));
        a->reps = (int)reps;
        break;
      default:
        if (!dh_cmdline_device_option("bench", c, optarg, &rc)) return dh_cmdline_bad_option("bench", opts, n, ours);
        if (rc != DH_EXIT_OK) return rc;
    }
  }
  if (dh_cmdline_no_operands("bench", n, ours) != DH_EXIT_OK) return DH_EXIT_USAGE;
  for (int k = 0; k < a->nuser; ++k)
    if (strncmp(a->user[k], kFilterFlag, sizeof kFilterFlag - 1) == 0 &&
        check_filter(a->user[k] + sizeof kFilterFlag - 1) != DH_EXIT_OK)
      return DH_EXIT_USAGE;
  if (dh_bench_suites_check(a->suites) != DH_EXIT_OK) return DH_EXIT_USAGE;
  if (a->suites != NULL && dh_bench_suite_selected(a->suites, "module") && a->module == NULL)
    return dh_cmdline_usage_error("bench", "--suite module needs --module LIB.so (a tvm-ffi library)");
  if (a->module != NULL && access(a->module, R_OK) != 0)
    return dh_cmdline_usage_error("bench", "--module: '%s': not a readable file", dh_cmdline_quote(a->module));
  if (dh_cmdline_choice(a->timing, kTimings) < 0)
    return dh_cmdline_usage_error("bench", "--timing wants auto, host or device, got '%s'", dh_cmdline_quote(a->timing));
  if (dh_cmdline_choice(a->color, kColors) < 0)
    return dh_cmdline_usage_error("bench", "--color wants auto, always or never, got '%s'", dh_cmdline_quote(a->color));
  if (dh_cmdline_choice(a->pin_mode, kPins) < 0)
    return dh_cmdline_usage_error("bench", "--pin wants auto, core, node or none, got '%s'", dh_cmdline_quote(a->pin_mode));
  return -1;
}

/* Google Benchmark's argv: our defaults (min time, warm-up, repetitions, interleaving)
 * before the user's --benchmark_* flags, so the user's win; then --out. */
static int build_gb_argv(dh_bench_args_t* a, const char* argv0) {
  a->ngb = 0;
  a->gb[a->ngb++] = (char*)argv0;
  a->gb[a->ngb++] = a->quick ? "--benchmark_min_time=0.01" : "--benchmark_min_time=0.1";
  a->gb[a->ngb++] = a->quick ? "--benchmark_min_warmup_time=0.002" : "--benchmark_min_warmup_time=0.02";
  snprintf(a->reps_flag, sizeof a->reps_flag, "--benchmark_repetitions=%d", a->reps > 0 ? a->reps : 1);
  a->gb[a->ngb++] = a->reps_flag;
  /* With repetitions, interleave them (Google Benchmark shuffles the repetitions of all
   * selected benchmarks together), so a harness benchmark and its raw twin see the same
   * load drift and their ratio is not skewed by it; --benchmark_enable_random_interleaving
   * given by the user wins (it comes later). */
  a->order = "single repetition";
  a->gb[a->ngb++] = "--benchmark_enable_random_interleaving=false";
  if (a->reps >= 2) {
    a->gb[a->ngb - 1] = "--benchmark_enable_random_interleaving=true";
    a->order = "interleaved: the repetitions of all benchmarks run in one random order";
  }
  snprintf(a->color_flag, sizeof a->color_flag, "--benchmark_color=%s", a->color);
  a->gb[a->ngb++] = a->color_flag; /* the user's --benchmark_color, after it, wins */
  for (int k = 0; k < a->nuser; ++k) {
    a->gb[a->ngb++] = a->user[k];
    if (strncmp(a->user[k], "--benchmark_enable_random_interleaving", 38) == 0)
      a->order = a->user[k]; /* the user's flag, as given */
  }
  if (a->out) {
    if (dh_bench_out_open(a->out, &a->out_tmp) != DH_EXIT_OK) return DH_EXIT_USAGE;
    size_t n = strlen(a->out_tmp) + 32;
    if (!(a->out_flag = malloc(n))) return dh_cmdline_usage_error("bench", "out of memory");
    snprintf(a->out_flag, n, "--benchmark_out=%s", a->out_tmp);
    a->gb[a->ngb++] = a->out_flag;
    a->gb[a->ngb++] = "--benchmark_out_format=json";
  }
  a->gb[a->ngb] = NULL;
  return DH_EXIT_OK;
}

/* --bundle DIR: the folder made, bench.json in it unless --out names another file.
 * -1 to go on, else the usage exit code. */
static int bundle_begin(dh_bench_args_t* a, int argc, char** argv) {
  if (!a->bundle_dir) return -1;
  if (dh_store_bundle_begin(&a->bundle, "bench", a->bundle_dir, argc, argv) != 0) return DH_EXIT_USAGE;
  if (!a->out) {
    snprintf(a->bundle_out, sizeof a->bundle_out, "%.4000s/bench.json", a->bundle.dir);
    a->out = a->bundle_out;
  }
  return -1;
}

int dh_bench_args_parse(int argc, char** argv, dh_bench_args_t* a) {
  memset(a, 0, sizeof *a);
  a->pin_mode = "auto";
  a->noisy_cv = 10;
  a->timing = "auto";
  a->color = "auto";
  size_t n = (size_t)argc + 16;
  a->user = calloc(n, sizeof *a->user);
  a->ours = calloc(n, sizeof *a->ours);
  a->gb = calloc(n, sizeof *a->gb);
  if (!a->user || !a->ours || !a->gb) return DH_EXIT_USAGE;
  int rc = read_options(split_words(argc, argv, a), a);
  if (rc < 0) rc = bundle_begin(a, argc, argv);
  if (rc < 0 && (rc = build_gb_argv(a, argc > 0 ? argv[0] : "bench")) == DH_EXIT_OK) rc = -1;
  return rc;
}

void dh_bench_args_free(dh_bench_args_t* a) {
  dh_bench_out_discard(a->out_tmp); /* published or not: the temporary goes */
  free(a->out_tmp);
  free(a->out_flag);
  free(a->gb);
  free(a->user);
  free(a->ours);
  memset(a, 0, sizeof *a);
}
