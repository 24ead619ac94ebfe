/*
 * cli/cli.h — subcommands of the devharness command (internal to the CLI).
 *
 * Each subcommand takes argv with argv[0] = the subcommand name, prints its own
 * --help, and returns the process exit code:
 *   0  success / every clause kept
 *   1  violations (conformance failures, a benchmark regression)
 *   2  usage or input error (bad option, file, target, device spec)
 */
#ifndef DEVHARNESS_CLI_CLI_H_
#define DEVHARNESS_CLI_CLI_H_

#define DH_EXIT_OK 0
#define DH_EXIT_VIOLATION 1
#define DH_EXIT_USAGE 2

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

/* Path of the running executable (readlink /proc/self/exe), static storage. */
const char* dh_cli_self_path(void);

struct option;
/* After getopt_long (with opterr = 0) returned '?': prints one line to stderr,
 * "devharness CMD: unknown option '--x' (see devharness CMD --help)" or
 * "devharness CMD: option '--x' needs a value (...)". opts: the table given to
 * getopt_long. Reads optind/optopt; not thread-safe (getopt is not). */
void dh_cli_bad_option(const char* cmd, const struct option* opts, int argc, char** argv);

/* Prints "devharness: <message>" from the thread's last error to stderr. */
void dh_cli_print_error(const char* context);

#endif /* DEVHARNESS_CLI_CLI_H_ */
