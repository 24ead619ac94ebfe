/*
 * conformance/report/report.h — the reporter seam of `devharness conformance`
 * (internal to conformance/). The runner (runner/runner.c) drives every reporter of
 * dc_reporters[] through the same calls, in this order:
 *
 *   begin                                once, before the first device
 *   begin_device, end_case × ncl, end_device   per device, cases in clause order
 *   end                                  once, with the totals and exit code known
 *
 * A reporter appends its output to rep->text; a reporter with to_stdout has what it
 * appended written to stdout after each call (the TAP stream). At the end the runner
 * writes rep->text to the file named by the reporter's option (--<option> FILE)
 * through a temporary name and a rename, so a failed run leaves no half-written file.
 * A reporter runs when its option is given or it has to_stdout; any call may be NULL.
 *
 * Adding an output format: one file here defining dc_report_<name>, one line in the
 * table of report/report.c (docs/adding-a-report-format.md).
 *
 * Files: report.c (the table, the file writer), tap.c, junit.c, summary.c (the run
 * reporters), list.c (--list: the clause catalogue as text or docs/conformance.md),
 * clause_sources.py (generates the table of where each clause's run function is).
 */
#ifndef DEVHARNESS_CONFORMANCE_REPORT_H_
#define DEVHARNESS_CONFORMANCE_REPORT_H_

#include <stddef.h>
#include <string.h>

#include "base/text.h"
#include "runner/runner.h"

/* The run as reporters see it. Every text in it that comes from a backend, a file or a
 * child (device names and reasons, case messages, captured output, refusals) is valid
 * UTF-8 of XML characters already (runner/runner.h dc_case_clean): a reporter escapes
 * for its format only. The fields above the line are set before begin; a case's record
 * is complete when its end_case is called; the totals are set before end. */
typedef struct dc_run_view {
  const dc_opts_t* o;
  const dh_clause_t* const* cl; /* the selected clauses */
  size_t ncl;
  const dc_device_t* devs; /* devs[i].failed is set before end_device(i) */
  size_t nd;
  dc_case_t* const* cases; /* cases[device][clause] */
  const char* const* refused; /* the plugin loader's refusals, cleaned like every text */
  size_t nrefused;
  /* ---- totals, set before end ---- */
  int violations;      /* devices with violations */
  size_t no_device;    /* backends that could not run (every clause skipped) */
  double seconds;      /* wall time of the device loop */
  size_t waived_skip;  /* cases decided by a skip waiver */
  size_t waived_xfail; /* cases decided by an xfail waiver */
  int too_many_waived; /* more waived cases than --max-waived */
  int exit_code;       /* the run's verdict (cmdline/cmdline.h DH_EXIT_*) */
} dc_run_view_t;

/* One reporter's output during a run. */
typedef struct dc_report {
  const dc_run_view_t* run;
  dh_sbuf_t text;
} dc_report_t;

typedef struct dc_reporter {
  const char* option;  /* "tap": --tap FILE writes the report to FILE */
  const char* help;    /* the --help text of --<option> FILE */
  int to_stdout;       /* 1: written to stdout as it grows, with or without FILE */
  void (*begin)(dc_report_t* rep);
  void (*begin_device)(dc_report_t* rep, size_t dev);
  void (*end_case)(dc_report_t* rep, size_t dev, size_t clause);
  void (*end_device)(dc_report_t* rep, size_t dev);
  void (*end)(dc_report_t* rep);
} dc_reporter_t;

/* Every reporter, in the order their files are written; dc_reporter_count entries. */
extern const dc_reporter_t* const dc_reporters[];
extern const size_t dc_reporter_count;

/* Where a clause's run function is defined (repository-relative file, line): generated
 * at build time from the clause tables by report/clause_sources.py (conformance.mk),
 * sorted by id. */
typedef struct dc_clause_source {
  const char* id;
  const char* file;
  int line;
} dc_clause_source_t;
extern const dc_clause_source_t dc_clause_sources[];
extern const size_t dc_clause_source_count;
/* The source of clause id, or NULL when the table has none (report/junit.c). */
const dc_clause_source_t* dc_clause_source(const char* id);

/* Writes text to path through a temporary name + rename; -1 after one line on stderr. */
int dc_write_file(const char* path, const char* text, size_t n);
/* A TAP description or directive reason: '#' and '\\' escaped, control characters as
 * spaces (report/tap.c). */
void dc_tap_text(dh_sbuf_t* b, const char* s);
/* A refusal of the plugin loader ("PATH: refused: REASON", or any other text) split
 * into the plugin (into plugin, n bytes: PATH, or "plugin" when the text has no
 * ": refused: ") and the reason (a pointer into msg: REASON, or msg whole). Every
 * reporter shows a refused plugin as a skipped test with that reason. */
static inline const char* dc_refusal_split(const char* msg, char* plugin, size_t n) {
  /* inline: tap.c, junit.c and summary.c share it and report.c sits above them. The
   * loader's messages start with the file: "PATH: refused: REASON" (the probe) or
   * "PATH: REASON" (a check: "not an ELF shared object", "device type 47 ... is
   * already served"); PATH ends in ".so" for every plugin discovery finds. */
  static const char* const kSeps[] = {".so: refused: ", ": refused: ", ".so: "};
  for (size_t i = 0; i < sizeof kSeps / sizeof kSeps[0]; i++) {
    const char* sep = strstr(msg, kSeps[i]);
    if (sep == NULL || sep == msg) continue;
    size_t keep = kSeps[i][0] == '.' ? 3 : 0; /* the ".so" stays in the path */
    dc_fmt(plugin, n, "%.*s", (int)(sep - msg + keep), msg);
    return sep + strlen(kSeps[i]);
  }
  dc_fmt(plugin, n, "plugin");
  return msg;
}
/* --list: the selected clauses as text, or as docs/conformance.md (--format markdown)
 * (report/list.c). */
int dc_list(const dc_opts_t* o, const dh_clause_t* const* cl, size_t n);

#endif /* DEVHARNESS_CONFORMANCE_REPORT_H_ */
