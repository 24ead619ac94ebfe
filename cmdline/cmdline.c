/* cmdline/cmdline.c — see cmdline/cmdline.h. */
#include "cmdline/cmdline.h"

#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devharness/error.h"
#include "base/text.h"

void dh_cmdline_getopt_begin(void) {
  optind = 1;
  opterr = 0;
}

int dh_cmdline_bad_option(const char* cmd, const struct option* opts, int argc, char** argv) {
  /* getopt_long has advanced optind past the offending word. optopt is 0 for an unknown
   * long option, the option's val for a known one that lacks its value, and the
   * character for an unknown short option. */
  char q[DH_TEXT_BUF];
  const char* word = dh_text_quote(optind > 0 && optind <= argc ? argv[optind - 1] : "", q, sizeof q);
  const struct option* match = NULL;
  for (const struct option* o = opts; optopt != 0 && o->name != NULL; ++o) {
    if (o->val == optopt) match = o;
  }
  if (match && match->has_arg == required_argument) {
    fprintf(stderr, "devharness %s: option '%s' needs a value (see devharness %s --help)\n",
            cmd, word, cmd);
  } else if (match && match->has_arg == no_argument && strncmp(word, "--", 2) == 0 && strchr(word, '=')) {
    fprintf(stderr, "devharness %s: option '--%s' takes no value (see devharness %s --help)\n", cmd,
            match->name, cmd);
  } else if (optopt > 0 && optopt < 128 &&
             (word[0] != '-' || word[1] == '-' || strchr(word, optopt) == NULL)) {
    fprintf(stderr, "devharness %s: unknown option '-%c' (see devharness %s --help)\n", cmd,
            optopt, cmd);
  } else {
    fprintf(stderr, "devharness %s: unknown option '%s' (see devharness %s --help)\n", cmd, word,
            cmd);
  }
  return DH_EXIT_USAGE;
}

int dh_cmdline_no_operands(const char* cmd, int argc, char** argv) {
  if (optind >= argc) return DH_EXIT_OK;
  return dh_cmdline_usage_error(cmd, "unexpected argument '%s'", dh_cmdline_quote(argv[optind]));
}

const char* dh_cmdline_quote(const char* s) {
  static char bufs[4][DH_TEXT_BUF];
  static int next;
  char* b = bufs[next++ & 3];
  return dh_text_quote(s, b, DH_TEXT_BUF);
}

int dh_cmdline_usage_error(const char* cmd, const char* fmt, ...) {
  char msg[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "devharness %s: ", cmd);
  for (const unsigned char* p = (const unsigned char*)msg; *p; p++) {
    if (*p == '\n') fputs("\\n", stderr);
    else if (*p < 0x20 || *p == 0x7f) fprintf(stderr, "\\x%02x", *p);
    else fputc(*p, stderr);
  }
  fputc('\n', stderr);
  return DH_EXIT_USAGE;
}

int dh_cmdline_parse_long(const char* text, long min, long max, long* out) {
  if (text == NULL || *text == '\0') return -1;
  char* end = NULL;
  long v = strtol(text, &end, 10);
  if (*end != '\0' || v < min || v > max) return -1;
  *out = v;
  return 0;
}

int dh_cmdline_set_once(const char* cmd, const char* opt, const char** slot, const char* value) {
  if (*slot != NULL)
    return dh_cmdline_usage_error(cmd, "%s given twice ('%s', then '%s'); it takes one value", opt,
                              dh_cmdline_quote(*slot), dh_cmdline_quote(value));
  *slot = value;
  return DH_EXIT_OK;
}

int dh_cmdline_choice(const char* text, const char* const* choices) {
  for (int i = 0; text != NULL && choices[i] != NULL; i++)
    if (strcmp(text, choices[i]) == 0) return i;
  return -1;
}

void dh_cmdline_print_error(const char* context) {
  if (context != NULL && context[0] != '\0') {
    fprintf(stderr, "devharness: %s: %s\n", context, dh_error_message());
  } else {
    fprintf(stderr, "devharness: %s\n", dh_error_message());
  }
}

int dh_cmdline_select_devices(const char* cmd, const dh_device_select_params_t* params, dh_device_list_t* out) {
  if (dh_device_select(params, out) == 0) return DH_EXIT_OK;
  return dh_cmdline_usage_error(cmd, "--device: %s", dh_error_message());
}

const char* dh_cmdline_self_path(void) {
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
