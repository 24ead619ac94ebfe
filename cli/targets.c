/*
 * cli/targets.c — `devharness targets list|show|validate|detect` on top of
 * devharness/target.h (TVM target rules: apache/tvm v0.27.0 src/target/target.cc).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/info.h"
#include "base/child.h"
#include "base/text.h"
#include "devharness/devharness.h"

/* printf format: the device-option group's usage (detect takes it). */
static const char kTargetsUsage[] =
    "usage: devharness targets list\n"
    "       devharness targets show TAG|FILE\n"
    "       devharness targets validate FILE...\n"
    "       devharness targets detect [--tvm]%s DEVICE\n"
    "\n"
    "  list      target kinds and tags (presets in the targets folder)\n"
    "  show      the full target (defaults filled in) as JSON\n"
    "  validate  parse and check each file by TVM's target rules; one line per file\n"
    "  detect    the JSON target of a live device, e.g. `targets detect opencl:0`;\n"
    "            --tvm: in the form TVM's tvm.target.Target(...) accepts (TVM's kind name,\n"
    "            \"tag\": \"\", TVM's key order, devharness-only properties left out)\n"
    "exit: 0 ok, 1 detect: the device's backend crashed or blocked while asked, 2 usage\n"
    "error or an invalid target (the reason names the file and the position or\n"
    "option), 3 detect: the backend of DEVICE has no device\n";

static void print_name(const char* name, void* user) {
  (void)user;
  printf("  %s\n", name);
}

static int print_target(dh_target_t* t) {
  char* json = dh_target_to_json(t, 1);
  if (json == NULL) {
    dh_cmdline_print_error("targets");
    return DH_EXIT_USAGE;
  }
  printf("%s\n", json);
  free(json);
  return DH_EXIT_OK;
}

static int cmd_list(void) {
  printf("kinds (%s):\n", dh_targets_dir() ? dh_targets_dir() : "no targets folder found");
  if (dh_target_kinds_load() != 0) {
    dh_cmdline_print_error("targets list");
    return DH_EXIT_USAGE;
  }
  dh_target_kind_list(print_name, NULL);
  printf("tags:\n");
  dh_target_tag_list(print_name, NULL);
  return DH_EXIT_OK;
}

static int cmd_show(const char* what) {
  dh_target_t* t = NULL;
  if (dh_target_resolve(what, &t) != 0) {
    fprintf(stderr, "devharness targets show: %s\n", dh_error_message());
    return DH_EXIT_USAGE;
  }
  int rc = print_target(t);
  dh_target_free(t);
  return rc;
}

static int cmd_validate(int argc, char** argv) {
  int rc = DH_EXIT_OK;
  for (int i = 0; i < argc; ++i) {
    dh_target_t* t = NULL;
    if (dh_target_parse_file(argv[i], &t) != 0) {
      fprintf(stderr, "invalid: %s\n", dh_error_message());
      rc = DH_EXIT_USAGE;
      continue;
    }
    printf("valid: %s (kind %s)\n", dh_cmdline_quote(argv[i]), dh_target_kind_name(t));
    dh_target_free(t);
  }
  return rc;
}

typedef struct {
  DLDevice dev;
  int tvm;
} detect_job_t;

/* In a child (base/child.h): the target of job->dev as JSON, "0\n<json>", or
 * "2\n<error>" to the pipe. */
static void detect_child(void* arg, int fd) {
  const detect_job_t* job = arg;
  dh_target_t* t = NULL;
  char* js = NULL;
  if (dh_target_detect(job->dev, &t) == 0) js = job->tvm ? dh_target_to_tvm_json(t, 1) : dh_target_to_json(t, 1);
  const char* text = js ? js : dh_error_message();
  if (dh_write_all(fd, js ? "0\n" : "2\n", 2) == 0) dh_write_all(fd, text, strlen(text));
  free(js);
  dh_target_free(t);
}

/* The device's target, asked in a child so that a backend that crashes or blocks while
 * asked costs this command one line and exit 1, never a crash. */
static int cmd_detect(const char* spec, int tvm) {
  char q[DH_TEXT_BUF];
  dh_device_list_t sel;
  dh_device_select_params_t params = {.spec = spec, .flags = DH_SELECT_PROBE_IN_CHILD};
  if (dh_device_select(&params, &sel) != 0) {
    fprintf(stderr, "devharness targets detect: %s\n", dh_error_message());
    return DH_EXIT_USAGE;
  }
  detect_job_t job = {sel.entries[0].device, tvm};
  if (job.dev.device_id < 0) { /* the backend has no device: nothing to detect */
    fprintf(stderr, "devharness targets detect: %s: NO DEVICE: %s\n", dh_text_quote(spec, q, sizeof q),
            sel.entries[0].reason);
    dh_device_list_free(&sel);
    return DH_EXIT_NO_DEVICE;
  }
  dh_device_list_free(&sel);
  dh_child_result_t r;
  dh_child_run(detect_child, &job, DH_CLI_INFO_TIMEOUT_S, &r);
  int rc = DH_EXIT_VIOLATION;
  if (r.status != DH_CHILD_ANSWERED || r.size < 2) {
    fprintf(stderr, "devharness targets detect: %s: the device's backend %s while asked for its attributes\n",
            dh_text_quote(spec, q, sizeof q), r.status != DH_CHILD_ANSWERED ? r.note : "gave no answer");
  } else if (r.data[0] == '0') {
    printf("%.*s\n", (int)(r.size - 2), r.data + 2);
    rc = DH_EXIT_OK;
  } else {
    dh_sbuf_t b = {0};
    char* msg = strndup(r.data + 2, r.size - 2);
    dh_sbuf_add_quoted(&b, msg ? msg : "");
    fprintf(stderr, "devharness targets detect: %s: %s\n", dh_text_quote(spec, q, sizeof q), dh_sbuf_str(&b));
    free(b.s);
    free(msg);
    rc = DH_EXIT_USAGE;
  }
  free(r.data);
  dh_plugins_unload_all();
  return rc;
}

int dh_cli_targets(int argc, char** argv) {
  dh_cmdline_device_options_load(); /* the group, for detect and the usage */
  if (argc < 2) {
    fprintf(stderr, kTargetsUsage, dh_cmdline_device_options_usage());
    return DH_EXIT_USAGE;
  }
  const char* sub = argv[1];
  /* the options after the subcommand (getopt_long over argv + 1, the subcommand as its
   * argv[0]); files and tags never start with '-' here (write ./-file for such a file) */
  static const struct option kOpts[] = {{"tvm", no_argument, NULL, 't'},
                                        {"help", no_argument, NULL, 'h'},
                                        {NULL, 0, NULL, 0}};
  struct option opts[sizeof kOpts / sizeof kOpts[0] + DH_CMDLINE_MAX_DEVICE_OPTIONS];
  dh_cmdline_options_with_devices(kOpts, opts, sizeof opts / sizeof opts[0]);
  char cmd[64];
  snprintf(cmd, sizeof cmd, "targets %s", dh_cmdline_quote(sub));
  int tvm = 0, c, rc = DH_EXIT_OK;
  if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
    printf(kTargetsUsage, dh_cmdline_device_options_usage());
    return DH_EXIT_OK;
  }
  dh_cmdline_getopt_begin();
  while ((c = getopt_long(argc - 1, argv + 1, "h", opts, NULL)) != -1) {
    if (c == 'h') {
      printf(kTargetsUsage, dh_cmdline_device_options_usage());
      return DH_EXIT_OK;
    }
    if (c == 't' && strcmp(sub, "detect") == 0) tvm = 1; /* the form TVM's Target(...) accepts */
    else if (dh_cmdline_device_option_name(c) != NULL && strcmp(sub, "detect") != 0)
      return dh_cmdline_usage_error(cmd, "unknown option '%s' (see devharness targets --help)",
                                    dh_cmdline_device_option_name(c));
    else if (dh_cmdline_device_option(cmd, c, optarg, &rc)) {
      if (rc != DH_EXIT_OK) return rc;
    }
    else if (c == 't') return dh_cmdline_usage_error(cmd, "unknown option '--tvm' (see devharness targets --help)");
    else return dh_cmdline_bad_option(cmd, opts, argc - 1, argv + 1);
  }
  /* detect: the backends the values name are found now; the others use no backend (nor
   * the target kinds backends bring): the plugins loaded for the group go again */
  if (strcmp(sub, "detect") != 0) dh_plugins_unload_all();
  dh_cmdline_device_options_end();
  char** args = argv + 1 + optind; /* the operands */
  int n = argc - 1 - optind;
  static const struct {
    const char* name;
    int min_args, max_args; /* after the subcommand */
    const char* args;
  } kSubs[] = {{"list", 0, 0, ""}, {"show", 1, 1, " TAG|FILE"}, {"validate", 1, -1, " FILE..."},
               {"detect", 1, 1, " [--tvm] DEVICE"}};
  for (size_t i = 0; i < sizeof kSubs / sizeof kSubs[0]; ++i) {
    if (strcmp(sub, kSubs[i].name) != 0) continue;
    if (n < kSubs[i].min_args || (kSubs[i].max_args >= 0 && n > kSubs[i].max_args))
      return dh_cmdline_usage_error(cmd, "%s (usage: devharness targets %s%s)",
                                n < kSubs[i].min_args ? "missing argument" : "too many arguments", sub,
                                kSubs[i].args);
    if (i == 0) return cmd_list();
    if (i == 1) return cmd_show(args[0]);
    if (i == 2) return cmd_validate(n, args);
    return cmd_detect(args[0], tvm);
  }
  return dh_cmdline_usage_error("targets", "unknown subcommand '%s' (expected list, show, validate or detect)",
                            dh_cmdline_quote(sub));
}
