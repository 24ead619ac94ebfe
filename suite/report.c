/* suite/report.c — the table of reporters, the calls that drive them and write their
 * files, and what every reporter shares: the verdict's name, the tally, the cleaning
 * of a case's text, a plugin refusal's parts (suite/suite.h). */
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

const char* ds_verdict_name(ds_verdict_t v) {
  switch (v) {
    case DS_PASS: return "pass";
    case DS_FAIL: return "fail";
    case DS_SKIP: return "skip";
    case DS_XFAIL: return "xfail";
  }
  return "fail";
}

void ds_tally_case(ds_tally_t* t, const ds_case_t* k) {
  if (k->other_shard) return; /* --shard: another shard's case */
  if (k->verdict == DS_SKIP) t->skip++;
  else if (k->verdict == DS_XFAIL) t->xfail++;
  else if (k->verdict == DS_PASS) t->pass++;
  else t->fail++;
  if (k->waived) t->waived++;
  if (k->counts) t->violations++;
}

ds_tally_t ds_tally(const ds_run_view_t* v, size_t g) {
  ds_tally_t t = {0};
  for (size_t i = 0; i < v->ng; i++)
    for (size_t j = 0; (g == (size_t)-1 || g == i) && j < v->ncase; j++) ds_tally_case(&t, &v->cases[i][j]);
  return t;
}

void ds_case_clean(ds_case_t* k) {
  dh_text_clean(k->reason, sizeof k->reason);
  dh_text_clean(k->note, sizeof k->note);
  dh_text_clean(k->message, sizeof k->message);
  dh_text_clean(k->expected, sizeof k->expected);
  dh_text_clean(k->got, sizeof k->got);
  dh_text_clean(k->file, sizeof k->file);
  dh_text_clean(k->details, sizeof k->details);
  dh_text_clean(k->err_tail, sizeof k->err_tail);
}

const char* ds_refusal_split(const char* msg, char* plugin, size_t n) {
  /* The loader's messages start with the file: "PATH: refused: REASON" (the probe) or
   * "PATH: REASON" (a check: "not an ELF shared object", "device type 47 ... is
   * already served"); PATH ends in ".so" for every plugin discovery finds. */
  static const char* const kSeps[] = {".so: refused: ", ": refused: ", ".so: "};
  for (size_t i = 0; i < sizeof kSeps / sizeof kSeps[0]; i++) {
    const char* sep = strstr(msg, kSeps[i]);
    if (sep == NULL || sep == msg) continue;
    size_t keep = kSeps[i][0] == '.' ? 3 : 0; /* the ".so" stays in the path */
    ds_fmt(plugin, n, "%.*s", (int)(sep - msg + keep), msg);
    return sep + strlen(kSeps[i]);
  }
  ds_fmt(plugin, n, "plugin");
  return msg;
}

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

int ds_write_file(const char* command, const char* path, const char* text, size_t n) {
  char tmp[4096];
  ds_fmt(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  FILE* f = fopen(tmp, "w");
  if (!f) {
    fprintf(stderr, "devharness %s: cannot write %s: %s\n", command, tmp, strerror(errno));
    return -1;
  }
  int ok = fwrite(text, 1, n, f) == n;
  ok = (fclose(f) == 0) && ok;
  if (!ok || rename(tmp, path) != 0) {
    fprintf(stderr, "devharness %s: cannot write %s: %s\n", command, path, strerror(errno));
    unlink(tmp);
    return -1;
  }
  return 0;
}
