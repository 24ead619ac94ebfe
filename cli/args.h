/*
 * cli/args.h — what every devharness command shares on its command line: the exit
 * codes, option parsing with getopt_long (glibc <getopt.h>: --name VALUE, --name=VALUE,
 * unambiguous prefixes), and one-line usage errors. Used by cli/, conformance/runner*.c
 * and bench/ (linked into build/bin/devharness and build/bin/devharness-bench).
 * Internal to devharness; not installed. Not thread-safe (getopt is not): call from
 * the command's main thread.
 */
#ifndef DEVHARNESS_CLI_ARGS_H_
#define DEVHARNESS_CLI_ARGS_H_

#include <stddef.h>

/* Exit codes of every devharness command (documented once here; README.md "Exit codes"
 * and each command's --help repeat them for the user). */
#define DH_EXIT_OK 0        /* success: every clause kept, every step ran */
#define DH_EXIT_VIOLATION 1 /* violations, a failed step, a benchmark regression */
#define DH_EXIT_USAGE 2     /* usage or input error: bad option, file, target, device spec */
#define DH_EXIT_NO_DEVICE 3 /* `conformance`, `run`: no selected backend has a device, nothing
                               was tested (every clause is # SKIP with the reason) */

struct option;

/* Resets getopt for a fresh parse of a command's argv (optind = 1) and turns off
 * getopt's own messages (opterr = 0): dh_cli_bad_option prints one line instead. */
void dh_cli_getopt_begin(void);

/* After getopt_long returned '?' or ':': prints one line to stderr,
 * "devharness CMD: unknown option '--x' (see devharness CMD --help)" or
 * "devharness CMD: option '--x' needs a value (...)". opts: the table given to
 * getopt_long. Reads optind/optopt. Returns DH_EXIT_USAGE. */
int dh_cli_bad_option(const char* cmd, const struct option* opts, int argc, char** argv);

/* When getopt_long left operands (optind < argc): prints "devharness CMD: unexpected
 * argument 'X'" and returns DH_EXIT_USAGE; else returns DH_EXIT_OK. */
int dh_cli_no_operands(const char* cmd, int argc, char** argv);

/* Prints "devharness CMD: <message>" as one line on stderr (control characters that
 * reached the message from user text written as \n or \xNN) and returns DH_EXIT_USAGE.
 * User text in the message should go through dh_cli_quote. */
int dh_cli_usage_error(const char* cmd, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/* s escaped and capped for a message (base/text.h dh_text_quote); four rotating
 * static buffers, so up to four quoted strings fit in one message. */
const char* dh_cli_quote(const char* s);

/* Parses a decimal integer in [min, max] (strtol: leading blanks and a sign allowed,
 * no trailing text) into *out. Returns 0, or -1 when text is not one. */
int dh_cli_parse_long(const char* text, long min, long max, long* out);

/* Stores value in *slot for an option that takes one value (e.g. "--device"), the
 * first time; a second occurrence is a usage error rather than a silent
 * last-one-wins, which would run one device where two were asked for: prints
 * "devharness CMD: OPT given twice ('A', then 'B'); it takes one value" (values
 * escaped) and returns DH_EXIT_USAGE. Returns DH_EXIT_OK when stored. */
int dh_cli_set_once(const char* cmd, const char* opt, const char** slot, const char* value);

/* Index of text in the NULL-terminated list choices, or -1. */
int dh_cli_choice(const char* text, const char* const* choices);

/* Prints "devharness: <context>: <message>" from the thread's last error (dh_error). */
void dh_cli_print_error(const char* context);

/* Path of the running executable (readlink /proc/self/exe), static storage. */
const char* dh_cli_self_path(void);

#endif /* DEVHARNESS_CLI_ARGS_H_ */
