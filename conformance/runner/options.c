/* conformance/runner/options.c — the options of `devharness conformance` and its --help
 * (conformance/runner/runner.h has the file map). */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline/cmdline.h"
#include "suite/suite.h"
#include "runner/runner.h"

static void usage(FILE* f) {
  dh_sbuf_t reports = {0}; /* one line per reporter: --<option> FILE */
  for (size_t k = 0; k < ds_reporter_count; k++) {
    char opt[64];
    ds_fmt(opt, sizeof opt, "%s FILE", ds_reporters[k]->option);
    dh_sbuf_addf(&reports, "  --%-18s %s\n", opt, ds_reporters[k]->help);
  }
  fprintf(f,
          "usage: devharness conformance [options]\n"
          "\n"
          "Runs every conformance clause on every device of every loaded backend; each case\n"
          "runs in a forked child with a timeout. TAP on stdout (TAP-14 subtests, one per\n"
          "device, under a 'TAP version 13' header unless --tap-version 14).\n"
          "\n"
          "options:\n"
          "  --device NAME:ID     run on this device only (e.g. cpu:0, sim:1)\n"
          "  --plugin PATH        load only this plugin instead of default discovery (repeatable)\n"
          "%s"
          "  --target FILE|TAG    check devices of that kind against the target (attr.target_match)\n"
          "  --filter GLOB        run clauses whose id matches (fnmatch; repeatable, comma-separated)\n"
          "  --waivers FILE       waiver file {\"waivers\": [{clause, kind: skip|xfail, reason}]};\n"
          "                       targets/waivers/<backend>.json is loaded automatically\n"
          "  --verify-xfails      an xfail clause that passes is a failure\n"
          "  --profile tvm|strict clauses to hold devices to: tvm = TVM's documented DeviceAPI\n"
          "                       contract, strict = tvm + devharness's sharper rules (default:\n"
          "                       strict, or the backend's declared default_profile)\n"
          "  --shard I/N          run only shard I (1-based) of N: the (device, clause) cases\n"
          "                       split by a hash of their names (docs/results.md \"Shards\");\n"
          "                       without it, CI_NODE_INDEX/CI_NODE_TOTAL (GitLab parallel:)\n"
          "                       when both are set. The reports list only this shard's cases;\n"
          "                       the others are counted apart (\"# N cases in other shards\")\n"
          "  --bundle DIR         write a result bundle to DIR: manifest.json, info.json and\n"
          "                       conformance.{tap,junit.xml,summary.json,cases.json} (the\n"
          "                       --tap/--junit/--summary/--cases paths given win)\n"
          "  --max-waived N       more than N cases decided by a waiver (skip or xfail) is a\n"
          "                       failure of the run (exit 1); the summary always counts them\n"
          "  --timeout SEC        per-case timeout (default 10)\n"
          "  --no-fork            run cases in this process (for debuggers; no timeout)\n"
          "  --jobs N             run up to N cases of a device at once (default 1; output\n"
          "                       order unchanged; clauses that read device-wide state,\n"
          "                       allocate near the limit or time an allocator run alone)\n"
          "%s"
          "  --tap-version 13|14  header of the TAP stream (default 13: prove 3.44 rejects 14)\n"
          "  --tap-layout subtests|flat  layout of the TAP stream and --tap FILE: subtests (the\n"
          "                       default) is one TAP-14 subtest per device, one outer line each;\n"
          "                       flat is one top-level test point per device x clause, named\n"
          "                       DEVICE CLAUSE, which prove and tap.py count, a failure's\n"
          "                       reason after its name, expected/got/at as '#' lines under\n"
          "                       it and as one line on stderr (prove shows it without -v);\n"
          "                       in either layout a refused plugin is a '# SKIP' test point\n"
          "  --junit-file-line    add file and line (the clause's source) to every JUnit\n"
          "                       <testcase>, for annotation actions; neither the Jenkins xunit\n"
          "                       schema nor the generic JUnit schema allows them\n"
          "  -q, --quiet          no TAP on stdout (--tap FILE and the other files are still\n"
          "                       written): only errors and the verdict line, 'devharness\n"
          "                       conformance: N clauses x M devices: P pass, F fail, S skip,\n"
          "                       X xfail (exit E)'\n"
          "  -v, --verbose        also a TAP diagnostic under every passing or skipped case\n"
          "                       (its statement, level, profile and time; --tap FILE too) and\n"
          "                       the verdict line on stderr\n"
          "  --list               list clause ids, levels and statements, run nothing\n"
          "  --format text|markdown  format of --list (markdown: the docs/conformance.md table)\n"
          "  --help               this text\n"
          "\n"
          "exit status (cmdline/cmdline.h): 0 every clause kept, 1 violations, 2 usage or input error,\n"
          "  3 no device: no selected backend has a device, nothing was tested (every\n"
          "  clause and device is # SKIP with the reason)\n",
          dh_cmdline_device_options_help(23), dh_sbuf_str(&reports));
  free(reports.s);
}

int dc_usage_error(const char* fmt, ...) {
  char msg[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return dh_cmdline_usage_error("conformance", "%s", msg);
}

/* Option values are pointers into argv; --filter is split at commas into a copy. */
static char** g_owned; /* the copies, freed by dc_opts_free */
static size_t g_n_owned;

/* Appends value (split at commas when split) to a growable array of strings. */
static int add_list(const char*** arr, size_t* n, const char* value, int split) {
  char* copy = strdup(value);
  if (!copy) return -1;
  char** no = realloc(g_owned, (g_n_owned + 1) * sizeof *no);
  if (!no) {
    free(copy);
    return -1;
  }
  g_owned = no;
  g_owned[g_n_owned++] = copy;
  char* save = NULL;
  for (char* tok = split ? strtok_r(copy, ",", &save) : copy; tok;
       tok = split ? strtok_r(NULL, ",", &save) : NULL) {
    const char** na = realloc(*arr, (*n + 1) * sizeof *na);
    if (!na) return -1;
    *arr = na;
    (*arr)[(*n)++] = tok;
    if (!split) break;
  }
  return 0;
}

enum {
  OPT_DEVICE = 256, OPT_PLUGIN, OPT_TARGET, OPT_FILTER, OPT_WAIVERS, OPT_TIMEOUT, OPT_TAP_VERSION, OPT_FORMAT, OPT_PROFILE, OPT_MAX_WAIVED, OPT_NO_FORK, OPT_LIST,
  OPT_VERIFY_XFAILS, OPT_TAP_LAYOUT, OPT_JUNIT_FILE_LINE, OPT_SHARD, OPT_BUNDLE,
  OPT_REPORT /* OPT_REPORT + k: --<option> FILE of ds_reporters[k] */
};

/* The fixed options; opts_with_reports() appends one per reporter. */
static const struct option kOpts[] = {
    {"device", required_argument, NULL, OPT_DEVICE},
    {"plugin", required_argument, NULL, OPT_PLUGIN},
    {"target", required_argument, NULL, OPT_TARGET},
    {"filter", required_argument, NULL, OPT_FILTER},
    {"waivers", required_argument, NULL, OPT_WAIVERS},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"tap-version", required_argument, NULL, OPT_TAP_VERSION},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"jobs", required_argument, NULL, 'j'},
    {"profile", required_argument, NULL, OPT_PROFILE},
    {"max-waived", required_argument, NULL, OPT_MAX_WAIVED},
    {"no-fork", no_argument, NULL, OPT_NO_FORK},
    {"list", no_argument, NULL, OPT_LIST},
    {"verify-xfails", no_argument, NULL, OPT_VERIFY_XFAILS},
    {"tap-layout", required_argument, NULL, OPT_TAP_LAYOUT},
    {"junit-file-line", no_argument, NULL, OPT_JUNIT_FILE_LINE},
    {"shard", required_argument, NULL, OPT_SHARD},
    {"bundle", required_argument, NULL, OPT_BUNDLE},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

enum { N_FIXED_OPTS = sizeof kOpts / sizeof kOpts[0] - 1 };

/* kOpts, then --<option> FILE of every reporter, then the terminator. */
static void opts_with_reports(struct option* all) {
  memcpy(all, kOpts, N_FIXED_OPTS * sizeof *all);
  for (size_t k = 0; k < ds_reporter_count; k++)
    all[N_FIXED_OPTS + k] = (struct option){ds_reporters[k]->option, required_argument, NULL, OPT_REPORT + (int)k};
  all[N_FIXED_OPTS + ds_reporter_count] = (struct option){NULL, 0, NULL, 0};
}

/* "I/N" with 1 <= I <= N <= 10000 into o->shard_index/shard_total; 0, or the usage
 * exit code after one line naming what (the option or the variables). */
static int parse_shard(const char* what, const char* val, dc_opts_t* o) {
  long i = 0, n = 0;
  char a[32], b[32];
  const char* slash = strchr(val, '/');
  if (slash && (size_t)(slash - val) < sizeof a && strlen(slash + 1) < sizeof b) {
    ds_fmt(a, sizeof a, "%.*s", (int)(slash - val), val);
    ds_fmt(b, sizeof b, "%s", slash + 1);
    if (dh_cmdline_parse_long(b, 1, 10000, &n) == 0 && dh_cmdline_parse_long(a, 1, n, &i) == 0) {
      o->shard_index = (int)i;
      o->shard_total = (int)n;
      return 0;
    }
  }
  return dc_usage_error("%s: expected I/N with 1 <= I <= N <= 10000 (1-based, as GitLab's CI_NODE_INDEX), "
                        "got \"%s\"", what, dh_cmdline_quote(val));
}

/* Without --shard: CI_NODE_INDEX/CI_NODE_TOTAL when both are set (GitLab's parallel:
 * jobs, 1-based). 0, or the usage exit code. */
static int shard_from_env(dc_opts_t* o) {
  const char* i = getenv("CI_NODE_INDEX");
  const char* n = getenv("CI_NODE_TOTAL");
  if (o->shard_total || !i || !n || !i[0] || !n[0]) return 0;
  char v[80];
  ds_fmt(v, sizeof v, "%s/%s", i, n);
  return parse_shard("CI_NODE_INDEX/CI_NODE_TOTAL", v, o);
}

/* An option with a value checked against a range or a list; -1 when c is not one. */
static int parse_checked(int c, const char* val, dc_opts_t* o) {
  static const char* const kTapVersions[] = {"13", "14", NULL};
  static const char* const kFormats[] = {"text", "markdown", NULL};
  static const char* const kProfiles[] = {"tvm", "strict", NULL};
  static const char* const kTapLayouts[] = {"subtests", "flat", NULL};
  long t = 0;
  int i;
  switch (c) {
    case OPT_TIMEOUT:
      if (dh_cmdline_parse_long(val, 1, 86400, &t) != 0)
        return dc_usage_error("--timeout: expected whole seconds 1..86400, got \"%s\"", dh_cmdline_quote(val));
      o->timeout_s = (int)t;
      return 0;
    case 'j':
      if (dh_cmdline_parse_long(val, 1, 64, &t) != 0)
        return dc_usage_error("--jobs: expected 1..64 parallel cases, got \"%s\"", dh_cmdline_quote(val));
      o->jobs = (int)t;
      return 0;
    case OPT_MAX_WAIVED:
      if (dh_cmdline_parse_long(val, 0, 100000000, &t) != 0)
        return dc_usage_error("--max-waived: expected a count 0..100000000 of waived cases, got \"%s\"",
                              dh_cmdline_quote(val));
      o->max_waived = t;
      return 0;
    case OPT_TAP_VERSION:
      if ((i = dh_cmdline_choice(val, kTapVersions)) < 0)
        return dc_usage_error("--tap-version: expected 13 or 14, got \"%s\"", dh_cmdline_quote(val));
      o->tap_version = i == 0 ? 13 : 14;
      return 0;
    case OPT_TAP_LAYOUT:
      if ((i = dh_cmdline_choice(val, kTapLayouts)) < 0)
        return dc_usage_error("--tap-layout: expected subtests or flat, got \"%s\"", dh_cmdline_quote(val));
      o->tap_flat = i == 1;
      return 0;
    case OPT_FORMAT:
      if ((i = dh_cmdline_choice(val, kFormats)) < 0)
        return dc_usage_error("--format: expected text or markdown, got \"%s\"", dh_cmdline_quote(val));
      o->markdown = i == 1;
      return 0;
    case OPT_SHARD: return parse_shard("--shard", val, o);
    case OPT_PROFILE:
      if ((i = dh_cmdline_choice(val, kProfiles)) < 0)
        return dc_usage_error("--profile: expected tvm or strict, got \"%s\"", dh_cmdline_quote(val));
      o->profile = i == 0 ? DC_PROFILE_TVM : DC_PROFILE_STRICT;
      return 0;
  }
  return -1;
}

int dc_opts_parse(int argc, char** argv, dc_opts_t* o) {
  memset(o, 0, sizeof *o);
  o->timeout_s = 10;
  o->tap_version = 13;
  o->jobs = 1;
  o->max_waived = -1;
  struct option own[N_FIXED_OPTS + DS_REPORTERS_MAX + 1];
  struct option opts[N_FIXED_OPTS + DS_REPORTERS_MAX + DH_CMDLINE_MAX_DEVICE_OPTIONS + 1];
  opts_with_reports(own);
  dh_cmdline_device_options_load_named(argc, argv, "hj:qv", own, OPT_PLUGIN);
  dh_cmdline_options_with_devices(own, opts, sizeof opts / sizeof opts[0]);
  dh_cmdline_getopt_begin();
  int c, rc = DH_EXIT_OK;
  int quiet = 0, verbose = 0;
  while ((c = getopt_long(argc, argv, "hj:qv", opts, NULL)) != -1) {
    int bad = 0;
    switch (c) {
      case 'h': usage(stdout); return DH_EXIT_OK;
      case OPT_DEVICE:
        if (dh_cmdline_set_once("conformance", "--device", &o->device_spec, optarg) != DH_EXIT_OK)
          return DH_EXIT_USAGE;
        break;
      case OPT_PLUGIN: bad = add_list(&o->plugins, &o->n_plugins, optarg, 0); break;
      case OPT_TARGET: o->target_arg = optarg; break;
      case OPT_FILTER: bad = add_list(&o->filters, &o->n_filters, optarg, 1); break;
      case OPT_WAIVERS: bad = add_list(&o->waiver_paths, &o->n_waiver_paths, optarg, 0); break;
      case OPT_NO_FORK: o->no_fork = 1; break;
      case OPT_LIST: o->list = 1; break;
      case OPT_VERIFY_XFAILS: o->verify_xfails = 1; break;
      case OPT_JUNIT_FILE_LINE: o->junit_file_line = 1; break;
      case OPT_BUNDLE: o->bundle_dir = optarg; break;
      case 'q': quiet = 1; break;
      case 'v': verbose = 1; break;
      case '?':
      case ':': return dh_cmdline_bad_option("conformance", opts, argc, argv);
      default:
        if (c >= OPT_REPORT && c < OPT_REPORT + (int)ds_reporter_count) o->report_paths[c - OPT_REPORT] = optarg;
        else if (dh_cmdline_device_option("conformance", c, optarg, &rc)) {
          if (rc != DH_EXIT_OK) return rc;
        } else if (parse_checked(c, optarg, o) != 0) return DH_EXIT_USAGE;
    }
    if (bad) return dc_usage_error("out of memory");
  }
  if (dh_cmdline_no_operands("conformance", argc, argv) != DH_EXIT_OK) return DH_EXIT_USAGE;
  if (quiet && verbose) return dc_usage_error("--quiet and --verbose exclude each other");
  o->verbosity = quiet ? -1 : verbose;
  if (shard_from_env(o) != 0) return DH_EXIT_USAGE;
  if (!o->shard_total) o->shard_index = o->shard_total = 1;
  return -1;
}

void dc_opts_free(dc_opts_t* o) {
  free(o->filters);
  free(o->plugins);
  free(o->waiver_paths);
  memset(o, 0, sizeof *o);
  for (size_t i = 0; i < g_n_owned; i++) free(g_owned[i]);
  free(g_owned);
  g_owned = NULL;
  g_n_owned = 0;
}
