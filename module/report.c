/*
 * module/report.c — the results of `module check` as TAP (version 13, like the
 * conformance suite: one line per case, a skip as `# SKIP reason`) and JUnit XML
 * (libxml2's xmlTextWriter; one <testsuite> per library, one <testcase> per case, its
 * classname the function and device). Files are written to a temporary name and
 * renamed, so a reader never sees half of one.
 */
#include <libxml/xmlwriter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module/check.h"

/* "module.call_valid add sim:0" */
static void case_title(const dm_result_t* r, char* buf, size_t size) {
  snprintf(buf, size, "%s %s%s%s", r->name, r->func, r->device[0] ? " " : "", r->device);
}

/* The message on one line (TAP): newlines and '#' replaced. */
static void one_line(const char* in, char* out, size_t size) {
  size_t i = 0;
  for (; in[i] && i + 1 < size; i++) out[i] = in[i] == '\n' || in[i] == '\r' ? ' ' : in[i] == '#' ? '%' : in[i];
  out[i] = '\0';
}

void dm_tap_line(FILE* f, size_t index, const dm_result_t* r) {
  char title[400], msg[sizeof r->v.message];
  case_title(r, title, sizeof title);
  one_line(r->v.message, msg, sizeof msg);
  if (r->v.code == 'o') fprintf(f, "ok %zu - %s\n  # %s\n", index, title, msg);
  else if (r->v.code == 's') fprintf(f, "ok %zu - %s # SKIP %s\n", index, title, msg);
  else fprintf(f, "not ok %zu - %s\n  # %s\n", index, title, msg);
}

/* Writes to path.tmp, then renames it; 0 or -1 with the error. */
static int publish(const char* path, FILE* f, const char* tmp) {
  int bad = ferror(f);
  if (fclose(f) != 0 || bad) return remove(tmp), dh_error_set(DH_KIND_IO_ERROR, "%s: write failed", path);
  if (rename(tmp, path) != 0) return remove(tmp), dh_error_set(DH_KIND_IO_ERROR, "%s: cannot rename into place", path);
  return 0;
}

int dm_write_tap(const char* path, const dm_result_t* rs, size_t n) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE* f = fopen(tmp, "w");
  if (f == NULL) return dh_error_set(DH_KIND_IO_ERROR, "%s: cannot write", path);
  fprintf(f, "TAP version 13\n1..%zu\n", n);
  for (size_t i = 0; i < n; i++) dm_tap_line(f, i + 1, &rs[i]);
  return publish(path, f, tmp);
}

static void junit_case(xmlTextWriterPtr w, const dm_result_t* r) {
  char cls[300];
  snprintf(cls, sizeof cls, "%s%s%s", r->func, r->device[0] ? "." : "", r->device);
  xmlTextWriterStartElement(w, BAD_CAST "testcase");
  xmlTextWriterWriteAttribute(w, BAD_CAST "classname", BAD_CAST cls);
  xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST r->name);
  xmlTextWriterWriteFormatAttribute(w, BAD_CAST "time", "%.3f", r->ms / 1000.0);
  if (r->v.code == 'n') {
    xmlTextWriterStartElement(w, BAD_CAST "failure");
    xmlTextWriterWriteAttribute(w, BAD_CAST "message", BAD_CAST r->v.message);
    xmlTextWriterWriteString(w, BAD_CAST r->v.message);
    xmlTextWriterEndElement(w);
  } else if (r->v.code == 's') {
    xmlTextWriterStartElement(w, BAD_CAST "skipped");
    xmlTextWriterWriteAttribute(w, BAD_CAST "message", BAD_CAST r->v.message);
    xmlTextWriterEndElement(w);
  } else {
    xmlTextWriterWriteElement(w, BAD_CAST "system-out", BAD_CAST r->v.message);
  }
  xmlTextWriterEndElement(w);
}

int dm_write_junit(const char* path, const char* lib, const dm_result_t* rs, size_t n) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  size_t fails = 0, skips = 0;
  double ms = 0;
  for (size_t i = 0; i < n; i++) fails += rs[i].v.code == 'n', skips += rs[i].v.code == 's', ms += rs[i].ms;
  xmlTextWriterPtr w = xmlNewTextWriterFilename(tmp, 0);
  if (w == NULL) return dh_error_set(DH_KIND_IO_ERROR, "%s: cannot write", path);
  xmlTextWriterSetIndent(w, 1);
  int rc = xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL);
  xmlTextWriterStartElement(w, BAD_CAST "testsuites");
  xmlTextWriterStartElement(w, BAD_CAST "testsuite");
  xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST lib);
  xmlTextWriterWriteFormatAttribute(w, BAD_CAST "tests", "%zu", n);
  xmlTextWriterWriteFormatAttribute(w, BAD_CAST "failures", "%zu", fails);
  xmlTextWriterWriteFormatAttribute(w, BAD_CAST "skipped", "%zu", skips);
  xmlTextWriterWriteAttribute(w, BAD_CAST "errors", BAD_CAST "0");
  xmlTextWriterWriteFormatAttribute(w, BAD_CAST "time", "%.3f", ms / 1000.0);
  for (size_t i = 0; i < n; i++) junit_case(w, &rs[i]);
  if (rc >= 0) rc = xmlTextWriterEndDocument(w);
  xmlFreeTextWriter(w);
  if (rc < 0) return remove(tmp), dh_error_set(DH_KIND_IO_ERROR, "%s: write failed", path);
  if (rename(tmp, path) != 0) return remove(tmp), dh_error_set(DH_KIND_IO_ERROR, "%s: cannot rename into place", path);
  return 0;
}
