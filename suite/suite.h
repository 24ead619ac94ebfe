/*
 * suite/suite.h — the suite machinery that `devharness conformance` and `devharness
 * module check` share (internal to the command rooms; suite/README.md has the map):
 *
 *   the case record   one verdict type (ds_verdict_t) set once per case, plus the
 *                     waived flag, and what a report shows of the case
 *   the runner        ds_run: cases in forked children (base/child.h), --jobs at a
 *                     time, each reported in table order as soon as it is known
 *   the reporters     TAP, JUnit, the summary JSON, the cases JSON, driven through
 *                     the same calls; they see the run view below, never a command's
 *                     options
 *
 * A command owns its case table and what is particular to it (conformance: clauses,
 * devices, profiles, waivers; module: functions and their arguments); it fills a
 * ds_run_view_t of groups (a device, a library) x cases and calls the reporters:
 *
 *   begin                                once, before the first group
 *   begin_group, end_case x ncase, end_group   per group, cases in table order
 *   end                                  once, with the totals and exit code known
 *
 * A reporter appends its output to rep->text; a reporter with to_stdout has what it
 * appended written to stdout after each call (the TAP stream). At the end the command
 * writes rep->text to the file named by the reporter's option (--<option> FILE) with
 * ds_write_file, so a failed run leaves no half-written file. Adding an output format:
 * one file here defining ds_report_<name>, one line in the table of suite/report.c
 * (docs/adding-a-report-format.md).
 *
 * Not thread-safe: one run per process, from its main thread.
 */
#ifndef DEVHARNESS_SUITE_SUITE_H_
#define DEVHARNESS_SUITE_SUITE_H_

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/child.h"
#include "base/text.h"

/* snprintf that truncates silently (messages are bounded on purpose). */
static inline void ds_fmt(char* dst, size_t size, const char* f, ...) __attribute__((format(printf, 3, 4)));
static inline void ds_fmt(char* dst, size_t size, const char* f, ...) {
  va_list ap;
  va_start(ap, f);
  vsnprintf(dst, size, f, ap);
  va_end(ap);
}

/*--- the case record ---*/

/* A case's verdict, as every report shows it. DS_XFAIL: an xfail waiver decided the
 * case (its check failed as expected, or passed: ds_case_t.xpass); an xfail that
 * passes under --verify-xfails is DS_FAIL. */
typedef enum ds_verdict { DS_PASS = 0, DS_FAIL, DS_SKIP, DS_XFAIL } ds_verdict_t;

/* "pass", "fail", "skip", "xfail": the one spelling of a verdict in every report
 * (TAP directives aside), the summary and cases JSON and the store. */
const char* ds_verdict_name(ds_verdict_t v);

/* ds_case_t.waived */
#define DS_WAIVED_SKIP 1
#define DS_WAIVED_XFAIL 2

/* Text limits of a case record. */
#define DS_MSG_MAX 1024
#define DS_VAL_MAX 512

/* One case: what the command's runner found. Every text is valid UTF-8 of XML
 * characters once ds_case_clean ran (a reporter escapes for its format only). */
typedef struct ds_case {
  ds_verdict_t verdict;
  int xpass;              /* DS_XFAIL only: the check passed */
  int waived;             /* 0, or the waiver that decided the case: DS_WAIVED_SKIP,
                             DS_WAIVED_XFAIL (which may leave a case that skipped itself
                             DS_SKIP, or one that passed under --verify-xfails DS_FAIL) */
  int counts;             /* 1 when it is a violation of the run */
  int other_shard;        /* not run: another shard's case (a skip no report counts) */
  char reason[512];       /* skip / xfail reason */
  char note[96];          /* "crashed: SIGSEGV" / "timed out after 10 s" (an <error>) */
  char message[DS_MSG_MAX];
  char expected[DS_VAL_MAX];
  char got[DS_VAL_MAX];
  char file[128];         /* where the failure was found, line 0 for a file alone */
  int line;
  char details[DS_MSG_MAX]; /* findings, one per line */
  char err_tail[2048];    /* base/child.h dh_child_result_t.err_tail */
  double ms;
} ds_case_t;

/* The one place where text from a backend, a driver, a file or a child's output is
 * made fit for every report (base/text.h dh_text_clean: valid UTF-8 of XML
 * characters, odd bytes as visible \xNN escapes); a command calls it on each case
 * before any reporter sees it. */
void ds_case_clean(ds_case_t* k);

/* What the case table says of case j of every group. */
typedef struct ds_info {
  const char* id;        /* "mem.alloc_free", "module.call_valid" */
  const char* subject;   /* what the case is run on, after the id in TAP ("add cpu:0"), or NULL */
  const char* classname; /* a JUnit <testcase>'s classname; NULL: the group's name */
  const char* statement; /* one line: what it checks (--verbose), or NULL */
  const char* level;     /* "must" / "should", or NULL */
  const char* profile;   /* "tvm" / "strict", or NULL */
  const char* source;    /* where the rule comes from, or NULL */
  const char* src_file;  /* JUnit file/line of the case's code (--junit-file-line), or NULL */
  int src_line;
} ds_info_t;

/* A group of cases: a device (conformance) or a library (module check). Texts are
 * cleaned by the command (dh_text_clean) before the first reporter call. */
typedef struct ds_group {
  char name[96];          /* "sim:0", "cuda (no device)", a library path */
  char package[64];       /* JUnit package: the backend's name */
  char reason[512];       /* why there is no device / why the probe failed */
  int id;                 /* the device's id; -1 for a group without one */
  int no_device;          /* the group has no device to run on (its probe failed, or the
                             backend found none): every case skipped or failed */
  int probe_failed;       /* the group itself failed to start (a violation) */
  const char* profile;    /* "tvm" / "strict" the group is held to, or NULL */
  const char* profile_from; /* "backend", "--profile" or "default", or NULL */
  int failed;             /* the group has violations (set before end_group) */
  time_t started;         /* wall-clock time its first case started (JUnit timestamp) */
} ds_group_t;

/*--- the run view ---*/

/* Layouts of the TAP stream (suite/tap.c). */
typedef enum ds_tap_layout {
  DS_TAP_SUBTESTS = 0, /* one TAP-14 subtest per group, YAML diagnostics, one outer line each */
  DS_TAP_FLAT,         /* one top-level point per group x case, "GROUP ID", '#' diagnostics */
  DS_TAP_CASES         /* one top-level point per case, "ID SUBJECT", its message as a '#' line */
} ds_tap_layout_t;

/* How the command wants the reports written. */
typedef struct ds_report_opts {
  const char* command;    /* "conformance": "devharness conformance: ..." on stderr */
  const char* schema;     /* "devharness.conformance": the JSON reports' schema prefix */
  int tap_version;        /* 13 or 14 */
  ds_tap_layout_t tap_layout;
  int tap_summary;        /* 1: the group and waiver summary as TAP comments at the end */
  int verbosity;          /* -1 quiet, 0, 1 verbose (a '#' line under every case) */
  long max_waived;        /* -1: no limit */
  int shard_index, shard_total; /* 1 of 1 unsharded */
} ds_report_opts_t;

/* The run as reporters see it. The fields above the line are set before begin; a
 * case's record is complete when its end_case is called; the totals before end. */
typedef struct ds_run_view {
  ds_report_opts_t o;
  const char* preamble;   /* '#' comment lines after the TAP plan ("" or NULL: none) */
  const ds_info_t* infos; /* infos[case] */
  size_t ncase;
  const ds_group_t* groups;
  size_t ng;
  ds_case_t* const* cases; /* cases[group][case] */
  const char* const* refused; /* the plugin loader's refusals, cleaned like every text */
  size_t nrefused;
  /* ---- totals, set before end ---- */
  int violations;      /* groups with violations */
  size_t no_device;    /* groups that could not run (every case skipped) */
  double seconds;      /* wall time of the run */
  size_t waived_skip;  /* cases decided by a skip waiver */
  size_t waived_xfail; /* cases decided by an xfail waiver */
  int too_many_waived; /* more waived cases than max_waived */
  int exit_code;       /* the run's verdict (cmdline/cmdline.h DH_EXIT_*) */
} ds_run_view_t;

/* Case counts of a run (other shards' cases left out): each case exactly one verdict. */
typedef struct ds_tally {
  size_t pass, fail, skip, xfail, waived, violations;
} ds_tally_t;
void ds_tally_case(ds_tally_t* t, const ds_case_t* k);
/* Every case of group g (g < v->ng), or of every group when g == (size_t)-1. */
ds_tally_t ds_tally(const ds_run_view_t* v, size_t g);

/* --shard: the cases of another shard are not run and no report lists them (TAP,
 * JUnit, the cases JSON); the reports count them apart ("# 92 cases in other
 * shards", the summary's other_shards). Cases of group g this run reports (its
 * other shards' left out), or of every group when g == (size_t)-1: */
size_t ds_group_cases(const ds_run_view_t* v, size_t g);
/* Cases of other shards in group g, or in every group when g == (size_t)-1. */
size_t ds_other_shard_cases(const ds_run_view_t* v, size_t g);
/* 1 when the reports show group g: it has a case of this run, or no case at all (a
 * shard whose cases of a device all went to other shards leaves the device out). */
int ds_group_shown(const ds_run_view_t* v, size_t g);

/*--- the reporters (suite/report.c, one file per format) ---*/

/* One reporter's output during a run. */
typedef struct ds_report {
  const ds_run_view_t* run;
  dh_sbuf_t text;
  size_t num;     /* the reporter's own count: TAP's last top-level test point */
  size_t sub_num; /* TAP's last test point within the current group's subtest */
} ds_report_t;

typedef struct ds_reporter {
  const char* option;  /* "tap": --tap FILE writes the report to FILE */
  const char* help;    /* the --help text of --<option> FILE */
  int to_stdout;       /* 1: written to stdout as it grows, with or without FILE */
  void (*begin)(ds_report_t* rep);
  void (*begin_group)(ds_report_t* rep, size_t g);
  void (*end_case)(ds_report_t* rep, size_t g, size_t c);
  void (*end_group)(ds_report_t* rep, size_t g);
  void (*end)(ds_report_t* rep);
} ds_reporter_t;

/* Every reporter, in the order their files are written; ds_reporter_count entries. */
extern const ds_reporter_t* const ds_reporters[];
extern const size_t ds_reporter_count;
enum { DS_REPORTERS_MAX = 8 };

/* The reporters of one run: which are active (paths[k] given, or to_stdout and the
 * command wants it), their texts, what went to stdout. Zero-initialisable. */
typedef struct ds_reports {
  const char* paths[DS_REPORTERS_MAX]; /* --<option> FILE of ds_reporters[k], or NULL */
  int only[DS_REPORTERS_MAX];  /* with use_only: 1 for the reporters the command offers */
  int use_only;
  int quiet;                   /* no stream on stdout (the files are still written) */
  ds_report_t reports[DS_REPORTERS_MAX];
  size_t flushed[DS_REPORTERS_MAX];
} ds_reports_t;

/* The events of the reporter calls. */
typedef enum ds_event { DS_EV_BEGIN, DS_EV_BEGIN_GROUP, DS_EV_END_CASE, DS_EV_END_GROUP, DS_EV_END } ds_event_t;
/* Calls one event of every active reporter over view v; what a to_stdout reporter
 * appended goes to stdout at once (unless quiet). */
void ds_reports_event(ds_reports_t* rs, const ds_run_view_t* v, ds_event_t ev, size_t g, size_t c);
/* Writes every active reporter's file; 0, or -1 after one line on stderr per file. */
int ds_reports_write(ds_reports_t* rs, const char* command);
void ds_reports_free(ds_reports_t* rs);
/* The index of the reporter with this option ("tap"), or -1. */
int ds_reporter_find(const char* option);

/* Appends the JSON document root (steals the reference) to rep's text, indent spaces
 * a level, keys in their order, and a line break (suite/summary.c, suite/cases.c). */
struct json_t;
void ds_report_json(ds_report_t* rep, struct json_t* root, int indent);

/* Writes text to path through a temporary name + rename; -1 after one line on stderr
 * ("devharness COMMAND: cannot write PATH: REASON"). */
int ds_write_file(const char* command, const char* path, const char* text, size_t n);
/* A TAP description or directive reason: '#' and '\\' escaped, control characters as
 * spaces (suite/tap.c). */
void ds_tap_text(dh_sbuf_t* b, const char* s);
/* A refusal of the plugin loader ("PATH: refused: REASON", or any other text) split
 * into the plugin (into plugin, n bytes: PATH, or "plugin" when the text has no
 * ": refused: ") and the reason (a pointer into msg). Every reporter shows a refused
 * plugin as a skipped test with that reason. */
const char* ds_refusal_split(const char* msg, char* plugin, size_t n);

/*--- the runner (suite/run.c) ---*/

/* How ds_run runs a table of n cases. Zero-initialisable apart from the callbacks. */
typedef struct ds_runner {
  size_t n;               /* cases, in table order */
  int jobs;               /* children at a time (1..64; <1 is 1) */
  int timeout_s;          /* one child's limit */
  int no_fork;            /* run each case in this process (a debugger; no timeout) */
  size_t arg_size;        /* bytes of one case's child argument (prepare fills it) */
  void* user;
  /* Decides case i before it runs: 1 to run it with *arg filled, 0 when its record is
   * already final (a skip). */
  int (*prepare)(void* user, size_t i, void* arg);
  /* In the child (or in process with no_fork): runs the case, writes its answer to fd. */
  void (*child)(void* arg, int fd);
  /* Fills case i's record from the child's answer, crash or timeout (r->data is freed
   * by ds_run afterwards). */
  void (*finish)(void* user, size_t i, void* arg, dh_child_result_t* r);
  /* Optional: 1 when case i must run with no other case beside it. */
  int (*alone)(void* user, size_t i);
  /* Called for the cases in table order, each as soon as it and those before it are
   * known. */
  void (*done)(void* user, size_t i);
} ds_runner_t;

/* Runs every case of r (see ds_runner_t). Returns 0, or -1 when out of memory. */
int ds_run(const ds_runner_t* r);

#endif /* DEVHARNESS_SUITE_SUITE_H_ */
