/* cli/main.c — the devharness command: subcommand dispatch, --help, --version. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "base/text.h"
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
