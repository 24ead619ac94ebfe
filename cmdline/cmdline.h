/*
 * cmdline/cmdline.h — what every devharness command shares on its command line: the
 * exit codes, option parsing with getopt_long (glibc <getopt.h>: --name VALUE,
 * --name=VALUE, unambiguous prefixes), one-line usage errors, the --device option and
 * the device-option group the backends declare (cmdline/device_options.c).
 * The room below every command: cli/, conformance/ and bench/ include it; it includes
 * none of them. Linked into build/bin/devharness; internal to devharness, not
 * installed. Not thread-safe (getopt is not): call from
 * the command's main thread.
 */
#ifndef DEVHARNESS_CMDLINE_CMDLINE_H_
#define DEVHARNESS_CMDLINE_CMDLINE_H_

#include <stddef.h>

#include "devharness/device_api.h"

/* Exit codes of every devharness command (documented once here; README.md "Exit codes"
 * and each command's --help repeat them for the user; DH_EXIT_HELP is the line the
 * top-level --help prints). */
#define DH_EXIT_OK 0        /* success: every clause kept, every step ran */
#define DH_EXIT_VIOLATION 1 /* violations, a failed step, a benchmark regression */
#define DH_EXIT_USAGE 2     /* usage or input error: bad option, file, target, device spec */
#define DH_EXIT_NO_DEVICE 3 /* no selected backend has a device, nothing was tested
                               (`conformance`, `run`: every clause is # SKIP with the
                               reason; `bench`, `info`: the backend --device names has
                               none) */
#define DH_EXIT_HELP                                                                     \
  "exit codes: 0 ok, 1 violations, a failed step or a regression, 2 usage or input\n"    \
  "            error, 3 no device (nothing was tested)\n"

struct option;

/* Resets getopt for a fresh parse of a command's argv (optind = 1) and turns off
 * getopt's own messages (opterr = 0): dh_cmdline_bad_option prints one line instead. */
void dh_cmdline_getopt_begin(void);

/* After getopt_long returned '?' or ':': prints one line to stderr,
 * "devharness CMD: unknown option '--x' (see devharness CMD --help)" or
 * "devharness CMD: option '--x' needs a value (...)". opts: the table given to
 * getopt_long. Reads optind/optopt. Returns DH_EXIT_USAGE. */
int dh_cmdline_bad_option(const char* cmd, const struct option* opts, int argc, char** argv);

/* When getopt_long left operands (optind < argc): prints "devharness CMD: unexpected
 * argument 'X'" and returns DH_EXIT_USAGE; else returns DH_EXIT_OK. */
int dh_cmdline_no_operands(const char* cmd, int argc, char** argv);

/* Prints "devharness CMD: <message>" as one line on stderr (control characters that
 * reached the message from user text written as \n or \xNN) and returns DH_EXIT_USAGE.
 * User text in the message should go through dh_cmdline_quote. */
int dh_cmdline_usage_error(const char* cmd, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/* s escaped and capped for a message (base/text.h dh_text_quote); four rotating
 * static buffers, so up to four quoted strings fit in one message. */
const char* dh_cmdline_quote(const char* s);

/* Parses a decimal integer in [min, max] (strtol: leading blanks and a sign allowed,
 * no trailing text) into *out. Returns 0, or -1 when text is not one. */
int dh_cmdline_parse_long(const char* text, long min, long max, long* out);

/* Stores value in *slot for an option that takes one value (e.g. "--device"), the
 * first time; a second occurrence is a usage error rather than a silent
 * last-one-wins, which would run one device where two were asked for: prints
 * "devharness CMD: OPT given twice ('A', then 'B'); it takes one value" (values
 * escaped) and returns DH_EXIT_USAGE. Returns DH_EXIT_OK when stored. */
int dh_cmdline_set_once(const char* cmd, const char* opt, const char** slot, const char* value);

/* Index of text in the NULL-terminated list choices, or -1. */
int dh_cmdline_choice(const char* text, const char* const* choices);

/* Prints "devharness: <context>: <message>" from the thread's last error (dh_error). */
void dh_cmdline_print_error(const char* context);

/* dh_device_select (devharness/device_api.h) for a command's --device option: on
 * error prints the one message shape every command uses, "devharness CMD: --device:
 * <the selection's message, which names the spec>", and returns DH_EXIT_USAGE; else
 * DH_EXIT_OK with *out filled (the caller frees it with dh_device_list_free). */
int dh_cmdline_select_devices(const char* cmd, const dh_device_select_params_t* params, dh_device_list_t* out);

/*---------------------------------------------------------------- the device-option group
 * The options every command that selects devices takes from the backends (ABI 1.6,
 * devharness/device_api.h "Backend options"; cmdline/device_options.c): each option a
 * loaded plugin declares (backends/tvm/: --tvm-lib PATH, --rpc HOST:PORT) is offered
 * as `--<name> <VALUE>`, its meaning the backend's; one declared
 * DH_BACKEND_OPTION_UNLISTED is not (a program gives it itself). A command
 *   1. dh_cmdline_device_options_load() (or, to load plugins of its own choosing,
 *      dh_backend_options_open() and then loads them), before it parses;
 *   2. parses with the table dh_cmdline_options_with_devices() makes of its own, giving
 *      each of the group's options to dh_cmdline_device_option;
 *   3. dh_cmdline_device_options_end() before it selects devices, so the backends the
 *      values name are found;
 *   4. passes dh_cmdline_device_option_args() on to every devharness process it starts.
 * Its --help prints dh_cmdline_device_options_usage() in its usage line and
 * dh_cmdline_device_options_help(column) in its option list. The values are above any
 * short option and any command's own enum (which start at 256). Not thread-safe (the
 * command's main thread, as getopt). */
/* Step 1 for a command with --plugin PATH: the plugins argv names with the option
 * whose getopt value is plugin_opt (a first pass over a copy of argv, silent: the real
 * pass reports bad options), else default discovery, loaded with the runtime's
 * options window open. A plugin that does not load is left to the command, which says
 * why. Returns how many --plugin options argv has. */
int dh_cmdline_device_options_load_named(int argc, char** argv, const char* shortopts, const struct option* opts,
                                         int plugin_opt);
#define DH_CMDLINE_OPT_DEVICE 0x7e00        /* getopt value of the group's option k: + k */
#define DH_CMDLINE_MAX_DEVICE_OPTIONS 32    /* options offered at most (more are left out) */
#define DH_CMDLINE_HELP_WIDTH 88            /* help lines end by this column */

/* Opens the runtime's options window and loads the default plugins (discovery), so
 * the group holds what they declare. Never fails (a refused plugin declares nothing). */
void dh_cmdline_device_options_load(void);

/* Writes into out (cap entries) the command's own table `own` (up to its {NULL} end),
 * then one required_argument entry per option the loaded plugins declare (val
 * DH_CMDLINE_OPT_DEVICE + its index in dh_backend_option_at; an unlisted one and a
 * name `own` has already are left out), then the {NULL} end. Returns the entries written, the end excluded;
 * cap must leave room for the end (own's entries + DH_CMDLINE_MAX_DEVICE_OPTIONS + 1
 * always does). */
size_t dh_cmdline_options_with_devices(const struct option* own, struct option* out, size_t cap);

/* Handles option c of getopt_long when it is one of the group's: gives value to its
 * backend (dh_backend_option_set) and keeps it for dh_cmdline_device_option_args.
 * 1 with *rc DH_EXIT_OK, or DH_EXIT_USAGE after one line "devharness CMD: --<name>
 * <value>: <the backend's reason>" (value escaped); 0 when c is none of the group's. */
int dh_cmdline_device_option(const char* cmd, int c, const char* value, int* rc);

/* "--<name>" of the group's option c (static storage), or NULL when c is none. */
const char* dh_cmdline_device_option_name(int c);

/* Closes the options window (dh_backend_options_close): the held-back backends the
 * values name are found now, as the plugins load. */
void dh_cmdline_device_options_end(void);

/* The values given so far as words for another devharness command line, "--<name>"
 * then the value, in the order given: up to max words into out (pointers into the
 * command's argv and static storage); returns how many (even: whole pairs only). The
 * first DH_CMDLINE_MAX_DEVICE_ARGS / 2 values are kept; a command refuses more
 * (usage error) rather than pass on part of them. */
#define DH_CMDLINE_MAX_DEVICE_ARGS 128
int dh_cmdline_device_option_args(const char** out, int max);

/* The group in a usage line: " [--<name> <VALUE>]" per option, "..." after a repeatable
 * one (" [--tvm-lib PATH]... [--rpc HOST:PORT]..."); "" when none. Static storage,
 * valid until the next call. */
const char* dh_cmdline_device_options_usage(void);

/* The group in an option list: per option "  --<name> <VALUE>" padded to `column`
 * (one space when it is longer), then its help wrapped by DH_CMDLINE_HELP_WIDTH with
 * `column` spaces before each further line; "" when none. Static storage, valid until
 * the next call. */
const char* dh_cmdline_device_options_help(int column);

/* Path of the running executable (readlink /proc/self/exe), static storage. */
const char* dh_cmdline_self_path(void);

#endif /* DEVHARNESS_CMDLINE_CMDLINE_H_ */
