/* suite/report.c — the table of reporters and the calls that drive them and write
 * their files (suite/suite.h); what the reporters share is suite/case.c, below them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suite/suite.h"

/* One line per output format, in the order their files are written: X(name) is the
 * ds_reporter_t ds_report_<name> of suite/<name>.c, which holds its option, help and
 * calls. */
#define DS_REPORT_FORMATS(X) \
  X(tap)                     \
  X(junit)                   \
  X(summary)                 \
  X(cases)                   \
  /* end of the table */

#define DS_REPORT_DECLARE(name) extern const ds_reporter_t ds_report_##name;
#define DS_REPORT_ENTRY(name) &ds_report_##name,
DS_REPORT_FORMATS(DS_REPORT_DECLARE)
const ds_reporter_t* const ds_reporters[] = {DS_REPORT_FORMATS(DS_REPORT_ENTRY)};
const size_t ds_reporter_count = sizeof ds_reporters / sizeof ds_reporters[0];
_Static_assert(sizeof ds_reporters / sizeof ds_reporters[0] <= DS_REPORTERS_MAX,
               "more reporters than ds_reports_t holds (DS_REPORTERS_MAX)");

int ds_reporter_find(const char* option) {
  for (size_t k = 0; k < ds_reporter_count; k++)
    if (strcmp(ds_reporters[k]->option, option) == 0) return (int)k;
  return -1;
}

static int active(const ds_reports_t* rs, size_t k) {
  if (rs->use_only && !rs->only[k]) return 0;
  return ds_reporters[k]->to_stdout || rs->paths[k] != NULL;
}

void ds_reports_event(ds_reports_t* rs, const ds_run_view_t* v, ds_event_t ev, size_t g, size_t c) {
  for (size_t k = 0; k < ds_reporter_count; k++) {
    const ds_reporter_t* rp = ds_reporters[k];
    ds_report_t* rep = &rs->reports[k];
    if (!active(rs, k)) continue;
    rep->run = v;
    switch (ev) {
      case DS_EV_BEGIN: if (rp->begin) rp->begin(rep); break;
      case DS_EV_BEGIN_GROUP: if (rp->begin_group) rp->begin_group(rep, g); break;
      case DS_EV_END_CASE: if (rp->end_case) rp->end_case(rep, g, c); break;
      case DS_EV_END_GROUP: if (rp->end_group) rp->end_group(rep, g); break;
      default: if (rp->end) rp->end(rep); break;
    }
    if (rp->to_stdout && rep->text.len > rs->flushed[k]) {
      if (!rs->quiet) {
        fwrite(rep->text.s + rs->flushed[k], 1, rep->text.len - rs->flushed[k], stdout);
        fflush(stdout);
      }
      rs->flushed[k] = rep->text.len;
    }
  }
}

int ds_reports_write(ds_reports_t* rs, const char* command) {
  int rc = 0;
  for (size_t k = 0; k < ds_reporter_count; k++) {
    const dh_sbuf_t* t = &rs->reports[k].text;
    if (rs->paths[k] && active(rs, k) && ds_write_file(command, rs->paths[k], dh_sbuf_str(t), t->len) != 0) rc = -1;
  }
  return rc;
}

void ds_reports_free(ds_reports_t* rs) {
  for (size_t k = 0; k < DS_REPORTERS_MAX; k++) free(rs->reports[k].text.s);
  memset(rs->reports, 0, sizeof rs->reports);
}
