/*
 * cmdline/cmdline.h — what every devharness command shares on its command line: the
 * exit codes, option parsing with getopt_long (glibc <getopt.h>: --name VALUE,
 * --name=VALUE, unambiguous prefixes), one-line usage errors and the --device option.
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

/* --tvm-lib PATH (every command that selects devices): appends PATH, made absolute,
 * to the colon-separated DEVHARNESS_TVM_LIBS of this process (and so of every process
 * it starts), which backends/tvm/ reads when its plugin loads: each library is probed
 * in a child and every device_api.<name> it registers becomes the devices tvm-<name>:N
 * (backends/tvm/README.md "Any TVM DeviceAPI"). Call before the plugins load. A path
 * that is empty or holds ':' is a usage error (one line, DH_EXIT_USAGE); a library
 * that does not load is refused later, like a plugin. Returns DH_EXIT_OK. */
int dh_cmdline_add_tvm_lib(const char* cmd, const char* path);

/* --rpc [KEY@]HOST:PORT (every command that selects devices): appends it to the
 * comma-separated DEVHARNESS_TVM_RPC, which backends/tvm/ reads when its plugin loads:
 * every remote device type of that TVM RPC server (HOST:PORT), or of the server of KEY
 * that the TVM RPC tracker at HOST:PORT hands out (KEY@HOST:PORT, TVM's
 * `rpc_server --tracker HOST:PORT --key KEY`), with a device becomes the devices
 * tvm-rpc-<name>:N, the k-th entry's tvm-rpc<k>-<name>:N (backends/tvm/README.md
 * "Remote devices over TVM RPC"). Anything else (port 1..65535, KEY 1..63 bytes, no ',')
 * is a usage error (one line, DH_EXIT_USAGE); an unreachable server or tracker is
 * refused later, like a plugin. Returns DH_EXIT_OK. */
int dh_cmdline_add_tvm_rpc(const char* cmd, const char* hostport);

/* The device options every command that selects devices takes, one group: their
 * getopt_long entries (DH_CMDLINE_DEVICE_OPTIONS, first in a command's table) and
 * their one handler. The values are above any short option and any command's own
 * enum (which start at 256). */
enum { DH_CMDLINE_OPT_TVM_LIB = 0x7e01, DH_CMDLINE_OPT_RPC = 0x7e02 };
#define DH_CMDLINE_DEVICE_OPTIONS                                      \
  {"tvm-lib", required_argument, NULL, DH_CMDLINE_OPT_TVM_LIB},        \
  {"rpc", required_argument, NULL, DH_CMDLINE_OPT_RPC}
/* Handles option c of getopt_long when it is one of the group's (--tvm-lib:
 * dh_cmdline_add_tvm_lib, --rpc: dh_cmdline_add_tvm_rpc): 1 with *rc its result
 * (DH_EXIT_OK, or DH_EXIT_USAGE after its one line), 0 when c is none of them. */
int dh_cmdline_device_option(const char* cmd, int c, const char* value, int* rc);

/* The line every command's --help gives --tvm-lib. */
#define DH_CMDLINE_TVM_LIB_HELP                                                        \
  "  --tvm-lib PATH       a library with TVM DeviceAPIs (device_api.<name>): its devices\n" \
  "                       are tvm-<name>:N (repeatable; also DEVHARNESS_TVM_LIBS=A:B)\n" \
  "  --rpc HOST:PORT      a TVM RPC server: its devices are tvm-rpc-<name>:N (repeatable;\n" \
  "                       also DEVHARNESS_TVM_RPC=H:P,H:P); KEY@HOST:PORT: the server of\n" \
  "                       KEY from the TVM RPC tracker at HOST:PORT\n"

/* Path of the running executable (readlink /proc/self/exe), static storage. */
const char* dh_cmdline_self_path(void);

#endif /* DEVHARNESS_CMDLINE_CMDLINE_H_ */
