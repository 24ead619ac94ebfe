/* suite/case.c — what every reporter and command shares about a case (suite/suite.h):
 * the verdict's one spelling, the tally, the cleaning of a case's text, a plugin
 * refusal's parts, the file writer, a JSON report's text. Below the reporters (tap.c, junit.c, summary.c,
 * cases.c) and the table that drives them (report.c). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suite/suite.h"

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

size_t ds_group_cases(const ds_run_view_t* v, size_t g) {
  size_t n = 0;
  for (size_t i = 0; i < v->ng; i++)
    for (size_t j = 0; (g == (size_t)-1 || g == i) && j < v->ncase; j++) n += !v->cases[i][j].other_shard;
  return n;
}

size_t ds_other_shard_cases(const ds_run_view_t* v, size_t g) {
  size_t n = 0;
  for (size_t i = 0; i < v->ng; i++)
    for (size_t j = 0; (g == (size_t)-1 || g == i) && j < v->ncase; j++) n += v->cases[i][j].other_shard != 0;
  return n;
}

int ds_group_shown(const ds_run_view_t* v, size_t g) { return v->ncase == 0 || ds_group_cases(v, g) > 0; }

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

void ds_report_json(ds_report_t* rep, json_t* root, int indent) {
  char* s = json_dumps(root, JSON_INDENT(indent) | JSON_PRESERVE_ORDER);
  if (s) {
    dh_sbuf_add(&rep->text, s);
    dh_sbuf_add(&rep->text, "\n");
  }
  free(s);
  json_decref(root);
}
