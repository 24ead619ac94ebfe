/*
 * cli/cli.h — the subcommands cli/ itself implements (internal to the command; the
 * others are declared by the rooms that own them: conformance/conformance.h,
 * module/command.h, bench/bench.h, store/store.h; cli/main.c's DH_CLI_COMMANDS lists
 * them all).
 *
 * Each subcommand takes argv with argv[0] = the subcommand name, prints its own
 * --help, and returns the process exit code (DH_EXIT_*, cmdline/cmdline.h).
 */
#ifndef DEVHARNESS_CLI_CLI_H_
#define DEVHARNESS_CLI_CLI_H_

#include "cmdline/cmdline.h"

/* `devharness info [--json] [--device SPEC]` (cli/info.c). */
int dh_cli_info(int argc, char** argv);
/* `devharness targets list|show|validate|detect` (cli/targets.c). */
int dh_cli_targets(int argc, char** argv);
/* `devharness run [--output DIR] ...` (cli/run.c). */
int dh_cli_run(int argc, char** argv);

#endif /* DEVHARNESS_CLI_CLI_H_ */
