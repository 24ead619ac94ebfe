/* cli/main.c — the devharness command: one table of subcommands (DH_CLI_COMMANDS),
 * --help, --version. */
#include <stdio.h>
#include <string.h>

#include "base/text.h"
#include "bench/bench.h"
#include "cli/cli.h"
#include "conformance/conformance.h"
#include "devharness/devharness.h"
#include "module/command.h"
#include "store/store.h"

/* The table of subcommands, in the order of the top-level --help: ROW(name, entry,
 * usage, summary). `name` is the word after devharness; `entry` its function (argv[0] =
 * the name; returns the exit code), declared in the header of the room that owns the
 * command; `usage` the first column of its --help line, `summary` the second. A new
 * command is one more row above the end mark, backslash included. */
#define DH_CLI_COMMANDS(ROW)                                                                       \
  ROW(info, dh_cli_info, "info [--json]",                                                          \
      "every backend, why one is unavailable, every device and attribute")                         \
  ROW(targets, dh_cli_targets, "targets list|show|validate|detect",                                \
      "target kinds and tags; validate target files; detect a live device")                        \
  ROW(conformance, dh_conformance_main, "conformance [options]",                                   \
      "clause-by-clause conformance suite (TAP, JUnit)")                                           \
  ROW(bench, dh_bench_main, "bench [options]",                                                     \
      "microbenchmarks (Google Benchmark; its flags pass through)")                                \
  ROW(plot, dh_plot_main, "plot RESULTS.json -o DIR",                                              \
      "plots of a benchmark run (PNG, SVG)")                                                       \
  ROW(compare, dh_compare_main, "compare BASE.json NEW.json",                                      \
      "regression gate between two benchmark runs, or a run and the store")                        \
  ROW(module, dh_module_main, "module check|list LIB.so",                                          \
      "a tvm-ffi kernel library checked from its own type signatures (TAP, JUnit)")                \
  ROW(history, dh_store_cmd_history, "history [--store PATH]",                                     \
      "verdict timelines, flips, flaky clauses, change points")                                    \
  ROW(dashboard, dh_store_cmd_dashboard, "dashboard -o DIR",                                       \
      "static HTML dashboard of the results store")                                                \
  ROW(export, dh_store_cmd_export, "export --format bmf|csv|openmetrics",                          \
      "benchmark results as Bencher Metric Format, CSV or OpenMetrics")                            \
  ROW(run, dh_cli_run, "run [--output DIR]",                                                       \
      "the main job: info + conformance + quick bench, results folder")                            \
  ROW(store, dh_store_cmd_store, "store import|stats",                                             \
      "record result bundles in the SQLite results store")                                         \
  ROW(merge, dh_conformance_merge_main, "merge BUNDLE... -o DIR",                                  \
      "join the shard bundles of one conformance run")                                             \
  ROW(verify, dh_store_cmd_verify, "verify BUNDLE...",                                             \
      "check every (device, clause) case ran exactly once")                                        \
  /* end of the table */

/* One row of the table. */
typedef struct dh_cli_command {
  const char* name;
  int (*fn)(int argc, char** argv);
  const char* usage;   /* first column of its --help line */
  const char* summary; /* second column */
} dh_cli_command_t;

#define DH_CLI_COMMAND_ENTRY(n, f, u, s) {.name = #n, .fn = f, .usage = u, .summary = s},
static const dh_cli_command_t kCommands[] = {DH_CLI_COMMANDS(DH_CLI_COMMAND_ENTRY)};
#undef DH_CLI_COMMAND_ENTRY
#define NUM_COMMANDS (sizeof kCommands / sizeof kCommands[0])

static void usage(FILE* out) {
  fputs("usage: devharness <command> [options]\n"
        "\n"
        "Tests and benchmarks devices through TVM's DeviceAPI contract.\n"
        "\n"
        "commands:\n",
        out);
  for (size_t i = 0; i < NUM_COMMANDS; i++) {
    if (strlen(kCommands[i].usage) <= 24) {
      fprintf(out, "  %-24s %s\n", kCommands[i].usage, kCommands[i].summary);
    } else {
      fprintf(out, "  %s\n  %-24s %s\n", kCommands[i].usage, "", kCommands[i].summary);
    }
  }
  fputs("\n"
        "options: --help (also after every command), --version\n" DH_EXIT_HELP
        "environment: DEVHARNESS_PLUGIN_PATH (extra plugin folders), DEVHARNESS_TARGETS_PATH,\n"
        "             DEVHARNESS_SIM_DEVICES, DEVHARNESS_SIM_MEMORY_BYTES, and the fallbacks\n"
        "             of the backends' options (a command's --help lists those options)\n",
        out);
}

int main(int argc, char** argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? DH_EXIT_USAGE : DH_EXIT_OK;
  }
  if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
    printf("devharness %s (plugin ABI %d.%d)\n", DH_VERSION_STRING, DH_BACKEND_ABI_MAJOR,
           DH_BACKEND_ABI_MINOR);
    return DH_EXIT_OK;
  }
  for (size_t i = 0; i < NUM_COMMANDS; i++)
    if (strcmp(argv[1], kCommands[i].name) == 0) return kCommands[i].fn(argc - 1, argv + 1);
  char q[DH_TEXT_BUF];
  fprintf(stderr, "devharness: unknown command '%s' (see devharness --help)\n", dh_text_quote(argv[1], q, sizeof q));
  return DH_EXIT_USAGE;
}
