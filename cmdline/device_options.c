/*
 * cmdline/device_options.c — the device-option group (cmdline/cmdline.h): the options
 * the loaded plugins declare (ABI 1.6, devharness/device_api.h "Backend options"),
 * offered by every command that selects devices, their values handed to the runtime
 * (dh_backend_option_set), which gives them to the declaring backend. What an option
 * means, its help and its checks are the backend's; this file only spells them.
 *
 * State: the values given, in order, for the command lines of the devharness processes
 * a command starts (the options are not inherited through the environment), and the
 * buffers of the usage and help texts. The command's main thread only.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline/cmdline.h"
#include "devharness/device_api.h"

#define MAX_GIVEN (DH_CMDLINE_MAX_DEVICE_ARGS / 2) /* values kept for other command lines */

static struct {
  const char* option; /* "--<name>", static storage of the group's name buffer */
  const char* value;  /* the command's argv */
} g_given[MAX_GIVEN];
static int g_num_given;
static char g_names[DH_CMDLINE_MAX_DEVICE_OPTIONS][72]; /* "--<name>" of option k */

void dh_cmdline_device_options_load(void) {
  dh_backend_options_open();
  dh_plugins_load_default();
}

int dh_cmdline_device_options_load_named(int argc, char** argv, const char* shortopts, const struct option* opts,
                                         int plugin_opt) {
  dh_backend_options_open();
  char** copy = calloc((size_t)argc + 1, sizeof *copy);
  int named = 0, c;
  if (copy != NULL) {
    memcpy(copy, argv, (size_t)argc * sizeof *copy);
    dh_cmdline_getopt_begin();
    int saved = opterr;
    opterr = 0; /* the real pass reports bad options */
    while ((c = getopt_long(argc, copy, shortopts, opts, NULL)) != -1)
      if (c == plugin_opt && ++named) dh_plugin_load(optarg, NULL);
    opterr = saved;
    free(copy);
  }
  if (!named) dh_plugins_load_default();
  return named;
}

void dh_cmdline_device_options_end(void) { dh_backend_options_close(); }

/* Option k of the loaded plugins (k < DH_CMDLINE_MAX_DEVICE_OPTIONS), or NULL past the
 * last; *listed: whether the group offers it (not DH_BACKEND_OPTION_UNLISTED). */
static const dh_backend_option_t* group_option(size_t k, int* listed) {
  const dh_backend_option_t* o = k < DH_CMDLINE_MAX_DEVICE_OPTIONS ? dh_backend_option_at(k, NULL) : NULL;
  *listed = o != NULL && !(o->flags & DH_BACKEND_OPTION_UNLISTED);
  return o;
}

size_t dh_cmdline_options_with_devices(const struct option* own, struct option* out, size_t cap) {
  size_t n = 0, n_own = 0;
  while (own[n_own].name != NULL) n_own++;
  for (size_t i = 0; i < n_own && n + 1 < cap; i++) out[n++] = own[i];
  const dh_backend_option_t* o;
  int listed;
  for (size_t k = 0; (o = group_option(k, &listed)) != NULL && n + 1 < cap; k++) {
    size_t i = 0;
    while (i < n_own && strcmp(own[i].name, o->name) != 0) i++;
    if (i == n_own && listed) out[n++] = (struct option){o->name, required_argument, NULL, DH_CMDLINE_OPT_DEVICE + (int)k};
  }
  out[n] = (struct option){NULL, 0, NULL, 0};
  return n;
}

const char* dh_cmdline_device_option_name(int c) {
  int listed = 0;
  const dh_backend_option_t* o =
      c >= DH_CMDLINE_OPT_DEVICE ? group_option((size_t)(c - DH_CMDLINE_OPT_DEVICE), &listed) : NULL;
  if (o == NULL || !listed) return NULL;
  char* name = g_names[c - DH_CMDLINE_OPT_DEVICE];
  snprintf(name, sizeof g_names[0], "--%s", o->name);
  return name;
}

int dh_cmdline_device_option(const char* cmd, int c, const char* value, int* rc) {
  const char* name = dh_cmdline_device_option_name(c);
  if (name == NULL) return 0;
  if (g_num_given == MAX_GIVEN) {
    *rc = dh_cmdline_usage_error(cmd, "%s %s: more than %d device-option values", name, dh_cmdline_quote(value),
                                 MAX_GIVEN);
    return 1;
  }
  if (dh_backend_option_set(name + 2, value) != 0) {
    *rc = dh_cmdline_usage_error(cmd, "%s %s: %s", name, dh_cmdline_quote(value), dh_error_message());
    return 1;
  }
  g_given[g_num_given].option = name;
  g_given[g_num_given++].value = value;
  *rc = DH_EXIT_OK;
  return 1;
}

int dh_cmdline_device_option_args(const char** out, int max) {
  int n = 0;
  for (int i = 0; i < g_num_given && n + 2 <= max; i++) {
    out[n++] = g_given[i].option;
    out[n++] = g_given[i].value;
  }
  return n;
}

/* Appends the formatted text to buf (size bytes, *used of them taken), cut at the end. */
__attribute__((format(printf, 4, 5))) static void append(char* buf, size_t size, size_t* used, const char* fmt, ...) {
  if (*used + 1 >= size) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf + *used, size - *used, fmt, ap);
  va_end(ap);
  if (n > 0) *used = *used + (size_t)n < size ? *used + (size_t)n : size - 1;
}

const char* dh_cmdline_device_options_usage(void) {
  static char buf[2048];
  size_t used = 0;
  buf[0] = '\0';
  const dh_backend_option_t* o;
  int listed;
  for (size_t k = 0; (o = group_option(k, &listed)) != NULL; k++)
    if (listed)
      append(buf, sizeof buf, &used, " [--%s %s]%s", o->name, o->value_name,
             (o->flags & DH_BACKEND_OPTION_REPEATABLE) ? "..." : "");
  return buf;
}

/* Appends to buf (size, *used) the help of one option: "  --<name> <VALUE>" padded to
 * column, then the words of help, wrapped before DH_CMDLINE_HELP_WIDTH. */
static void help_of(const dh_backend_option_t* o, int column, char* buf, size_t size, size_t* used) {
  char head[160];
  int line = snprintf(head, sizeof head, "  --%s %s", o->name, o->value_name);
  append(buf, size, used, "%s%*s", head, line < column ? column - line : 1, "");
  line = line < column ? column : line + 1;
  int first = 1;
  for (const char* w = o->help; *w != '\0';) {
    size_t len = strcspn(w, " ");
    if (!first && line + 1 + (int)len > DH_CMDLINE_HELP_WIDTH) {
      append(buf, size, used, "\n%*s", column, "");
      line = column;
      first = 1;
    }
    append(buf, size, used, "%s%.*s", first ? "" : " ", (int)len, w);
    line += (first ? 0 : 1) + (int)len;
    first = 0;
    w += len;
    while (*w == ' ') w++;
  }
  append(buf, size, used, "\n");
}

const char* dh_cmdline_device_options_help(int column) {
  static char buf[8192];
  size_t used = 0;
  buf[0] = '\0';
  const dh_backend_option_t* o;
  int listed;
  for (size_t k = 0; (o = group_option(k, &listed)) != NULL; k++)
    if (listed) help_of(o, column, buf, sizeof buf, &used);
  return buf;
}
