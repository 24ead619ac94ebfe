/*
 * cli/cli.h — subcommands of the devharness command (internal to the CLI).
 *
 * Each subcommand takes argv with argv[0] = the subcommand name, prints its own
 * --help, and returns the process exit code (DH_EXIT_*, cli/args.h).
 */
#ifndef DEVHARNESS_CLI_CLI_H_
#define DEVHARNESS_CLI_CLI_H_

#include "cli/args.h"

/* `devharness info [--json] [--device SPEC]` (cli/info.c). */
int dh_cli_info(int argc, char** argv);
/* `devharness targets list|show|validate|detect` (cli/targets.c). */
int dh_cli_targets(int argc, char** argv);
/* `devharness run [--output DIR] ...` (cli/run.c). */
int dh_cli_run(int argc, char** argv);

/* Subcommands provided by conformance/ and bench/ (declared weak so the CLI still
 * links while one of them is not built; the CLI then says so and exits 2). */
int dh_conformance_main(int argc, char** argv) __attribute__((weak));
int dh_bench_main(int argc, char** argv) __attribute__((weak));
int dh_plot_main(int argc, char** argv) __attribute__((weak));
int dh_compare_main(int argc, char** argv) __attribute__((weak));

#endif /* DEVHARNESS_CLI_CLI_H_ */
