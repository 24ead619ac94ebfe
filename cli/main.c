/* cli/main.c — the devharness command: subcommand dispatch, --help, --version. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "runtime/text.h"
#include "devharness/devharness.h"

static const char kUsage[] =
    "usage: devharness <command> [options]\n"
    "\n"
    "Tests and benchmarks devices through TVM's DeviceAPI contract.\n"
    "\n"
    "commands:\n"
    "  info [--json]            every backend, why one is unavailable, every device and attribute\n"
    "  targets list|show|validate|detect\n"
    "                           target kinds and tags; validate target files; detect a live device\n"
    "  conformance [options]    clause-by-clause conformance suite (TAP, JUnit)\n"
    "  bench [options]          microbenchmarks (Google Benchmark; its flags pass through)\n"
    "  plot RESULTS.json -o DIR plots of a benchmark run (PNG, SVG)\n"
    "  compare BASE.json NEW.json\n"
    "                           Mann-Whitney U regression gate between two benchmark runs\n"
    "  run [--output DIR]       the main job: info + conformance + quick bench, results folder\n"
    "\n"
    "options: --help (also after every command), --version\n"
    "exit codes: 0 ok, 1 violations or regression, 2 usage or input error\n"
    "environment: DEVHARNESS_PLUGIN_PATH (extra plugin folders), DEVHARNESS_TARGETS_PATH,\n"
    "             DEVHARNESS_SIM_DEVICES, DEVHARNESS_SIM_MEMORY_BYTES\n";

const char* dh_cli_self_path(void) {
  static char path[PATH_MAX];
  if (path[0] == '\0') {
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) {
      snprintf(path, sizeof path, "devharness");
    } else {
      path[n] = '\0';
    }
  }
  return path;
}

void dh_cli_print_error(const char* context) {
  if (context != NULL && context[0] != '\0') {
    fprintf(stderr, "devharness: %s: %s\n", context, dh_error_message());
  } else {
    fprintf(stderr, "devharness: %s\n", dh_error_message());
  }
}

void dh_cli_bad_option(const char* cmd, const struct option* opts, int argc, char** argv) {
  /* getopt_long has advanced optind past the offending word. optopt is 0 for an unknown
   * long option, the option's val for a known one that lacks its value, and the
   * character for an unknown short option. */
  char q[DH_TEXT_BUF];
  const char* word = dh_text_quote(optind > 0 && optind <= argc ? argv[optind - 1] : "", q, sizeof q);
  int known = 0;
  for (const struct option* o = opts; optopt != 0 && o->name != NULL; ++o) {
    if (o->val == optopt && o->has_arg == required_argument) known = 1;
  }
  if (known) {
    fprintf(stderr, "devharness %s: option '%s' needs a value (see devharness %s --help)\n",
            cmd, word, cmd);
  } else if (optopt != 0 && (word[0] != '-' || word[1] == '-' || strchr(word, optopt) == NULL)) {
    fprintf(stderr, "devharness %s: unknown option '-%c' (see devharness %s --help)\n", cmd,
            optopt, cmd);
  } else {
    fprintf(stderr, "devharness %s: unknown option '%s' (see devharness %s --help)\n", cmd, word,
            cmd);
  }
}

typedef int (*dh_cli_fn)(int, char**);

static int missing(const char* what) {
  fprintf(stderr, "devharness: the %s subcommand is not built into this binary\n", what);
  return DH_EXIT_USAGE;
}

int main(int argc, char** argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? DH_EXIT_USAGE : DH_EXIT_OK;
  }
  if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
    printf("devharness %s (plugin ABI %d.%d)\n", DH_VERSION_STRING, DH_BACKEND_ABI_MAJOR,
           DH_BACKEND_ABI_MINOR);
    return DH_EXIT_OK;
  }
  static const struct {
    const char* name;
    dh_cli_fn fn;
  } kCommands[] = {
      {"info", dh_cli_info},
      {"targets", dh_cli_targets},
      {"run", dh_cli_run},
      {"conformance", NULL},
      {"bench", NULL},
      {"plot", NULL},
      {"compare", NULL},
  };
  const char* cmd = argv[1];
  for (size_t i = 0; i < sizeof kCommands / sizeof kCommands[0]; ++i) {
    if (strcmp(cmd, kCommands[i].name) != 0) continue;
    dh_cli_fn fn = kCommands[i].fn;
    if (fn == NULL) {
      if (strcmp(cmd, "conformance") == 0) fn = dh_conformance_main;
      else if (strcmp(cmd, "bench") == 0) fn = dh_bench_main;
      else if (strcmp(cmd, "plot") == 0) fn = dh_plot_main;
      else if (strcmp(cmd, "compare") == 0) fn = dh_compare_main;
    }
    if (fn == NULL) return missing(cmd);
    return fn(argc - 1, argv + 1);
  }
  char q[DH_TEXT_BUF];
  fprintf(stderr, "devharness: unknown command '%s' (see devharness --help)\n", dh_text_quote(cmd, q, sizeof q));
  return DH_EXIT_USAGE;
}
