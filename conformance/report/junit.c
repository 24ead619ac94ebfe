/* conformance/report/junit.c — the JUnit XML reporter (--junit FILE; report/report.h),
 * written with libxml2's xmlTextWriter, which escapes every attribute and text (the
 * text itself is valid UTF-8 of XML characters already: runner/runner.h dc_case_clean).
 *
 * One <testsuite> per device; a crash or a timeout is an <error> (the case could not
 * finish), a violated clause a <failure>; an xfail (todo) and a skip are <skipped>, the
 * reason as element text (GitLab reads it) and as message attribute (Jenkins, GitHub
 * reporters). A case has at most one of them, and what a crashed child wrote is in the
 * <error> text and in the suite's <system-err>: the generic JUnit schema allows no
 * other child in a <testcase>. The file validates against both the Jenkins xunit
 * plugin's junit-10.xsd and the generic JUnit.xsd of windyroad/JUnit-Schema
 * (tests/conformance/junit-*.xsd): hence <testsuites> has no attributes (the totals
 * are on each <testsuite>) and every <testsuite> has hostname, id, package, timestamp,
 * <properties>, <system-out> and <system-err>. --junit-file-line adds `file` and
 * `line` (the clause's run function) to each <testcase>, which annotation actions read
 * but neither schema allows. A plugin the loader refused is a <testcase> with <skipped>
 * in one more suite, "refused plugins". */
#include <libxml/xmlwriter.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/report.h"

static int source_cmp(const void* key, const void* elem) {
  return strcmp(key, ((const dc_clause_source_t*)elem)->id);
}

const dc_clause_source_t* dc_clause_source(const char* id) {
  return bsearch(id, dc_clause_sources, dc_clause_source_count, sizeof *dc_clause_sources, source_cmp);
}

/* The writer and whether every call so far succeeded. */
typedef struct {
  xmlTextWriterPtr w;
  int failed;
} xw_t;

static void xw_check(xw_t* x, int rc) {
  if (rc < 0) x->failed = 1;
}
static void xw_start(xw_t* x, const char* el) { xw_check(x, xmlTextWriterStartElement(x->w, BAD_CAST el)); }
static void xw_end(xw_t* x) { xw_check(x, xmlTextWriterEndElement(x->w)); }
static void xw_attr(xw_t* x, const char* name, const char* value) {
  xw_check(x, xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST value));
}
static void xw_attrf(xw_t* x, const char* name, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
static void xw_attrf(xw_t* x, const char* name, const char* fmt, ...) {
  char v[64];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v, sizeof v, fmt, ap);
  va_end(ap);
  xw_attr(x, name, v);
}
static void xw_text(xw_t* x, const char* s) { xw_check(x, xmlTextWriterWriteString(x->w, BAD_CAST s)); }

static int is_error_case(const dc_case_t* k) {
  return k->status == DC_FAIL && !k->todo && k->note[0];
}

static int is_failure_case(const dc_case_t* k) {
  return k->status == DC_FAIL && !k->todo && !k->note[0];
}

/* <skipped> of a skip or an xfail, the reason as attribute and text. */
static void junit_skipped(xw_t* x, const dc_case_t* k) {
  char m[1200];
  if (k->status == DC_SKIP) dc_fmt(m, sizeof m, "%s", k->reason);
  else
    dc_fmt(m, sizeof m, "expected failure (xfail: %s)%s%s", k->reason, k->status == DC_FAIL ? ": " : " passed",
           k->status == DC_FAIL ? k->r.message : "");
  xw_start(x, "skipped");
  xw_attr(x, "message", m);
  xw_text(x, m);
  xw_end(x);
}

/* <error> (crash, timeout) or <failure> (violated clause) with the diagnostics and
 * what the child wrote last. */
static void junit_failed(xw_t* x, const dc_case_t* k) {
  /* the note ("crashed: SIGSEGV") once, even when the message already is the note */
  char m[1200];
  if (k->note[0] && strcmp(k->note, k->r.message) != 0 && k->r.message[0])
    dc_fmt(m, sizeof m, "%s: %s", k->note, k->r.message);
  else dc_fmt(m, sizeof m, "%s", k->note[0] ? k->note : k->r.message);
  xw_start(x, k->note[0] ? "error" : "failure");
  xw_attr(x, "message", m);
  xw_attr(x, "type", k->note[0] ? (strncmp(k->note, "timed out", 9) == 0 ? "timeout" : "crash")
                                 : k->clause->level == DC_MUST ? "must" : "should");
  char body[4096 + sizeof k->err_tail];
  dc_fmt(body, sizeof body,
         "clause: %s\nprofile: %s\nlevel: %s\nexpected: %s\ngot: %s\nat: %s:%d\nsource: %s\n"
         "duration_ms: %.3f\n%s%s%s%s%s",
         k->clause->id, dc_profile_name(k->clause->profile), k->clause->level == DC_MUST ? "must" : "should",
         k->r.expected, k->r.got, k->r.file, k->r.line, k->clause->source, k->ms,
         k->r.details[0] ? "details:\n" : "", k->r.details, k->r.details[0] ? "\n" : "",
         k->err_tail[0] ? "stderr:\n" : "", k->err_tail);
  xw_text(x, body);
  xw_end(x);
}

static void junit_case(xw_t* x, const dc_opts_t* o, const dc_device_t* d, const dc_case_t* k) {
  xw_start(x, "testcase");
  xw_attr(x, "classname", d->name);
  xw_attr(x, "name", k->clause->id);
  xw_attrf(x, "time", "%.3f", k->ms / 1000.0);
  const dc_clause_source_t* src = o->junit_file_line ? dc_clause_source(k->clause->id) : NULL;
  if (src) {
    xw_attr(x, "file", src->file);
    xw_attrf(x, "line", "%d", src->line);
  }
  if (k->status == DC_SKIP || k->todo) junit_skipped(x, k);
  else if (k->status == DC_FAIL) junit_failed(x, k);
  xw_end(x);
}

/* <system-out>: the device and its profile (why it has none); <system-err>: what each
 * case's child wrote last, under the clause's id. */
static void junit_suite_output(xw_t* x, const dc_run_view_t* r, const dc_device_t* d, const dc_case_t* cases) {
  dh_sbuf_t b = {0};
  dh_sbuf_addf(&b, "%s: profile %s (%s)\n", d->name, dc_profile_name(d->profile),
               d->profile_from_backend ? "the backend's default" : r->o->profile ? "--profile" : "default");
  if (d->id < 0 && d->reason[0]) dh_sbuf_addf(&b, "%s: %s\n", d->probe_failed ? "probe failed" : "no device", d->reason);
  xw_start(x, "system-out");
  xw_text(x, dh_sbuf_str(&b));
  xw_end(x);
  dh_sbuf_clear(&b);
  for (size_t j = 0; j < r->ncl; j++)
    if (cases[j].err_tail[0])
      dh_sbuf_addf(&b, "--- %s%s%s ---\n%s\n", cases[j].clause->id, cases[j].note[0] ? ": " : "", cases[j].note,
                   cases[j].err_tail);
  xw_start(x, "system-err");
  xw_text(x, dh_sbuf_str(&b));
  xw_end(x);
  free(b.s);
}

/* One <testsuite> per device: counts, where and when it ran, its profile as a
 * property, its cases and output. */
static void junit_suite(xw_t* x, const dc_run_view_t* r, size_t i, const char* host) {
  const dc_device_t* d = &r->devs[i];
  const dc_case_t* cases = r->cases[i];
  size_t f = 0, s = 0, e = 0;
  double t = 0;
  for (size_t j = 0; j < r->ncl; j++) {
    if (is_error_case(&cases[j])) e++;
    else if (is_failure_case(&cases[j])) f++;
    else if (cases[j].status == DC_SKIP || cases[j].todo) s++;
    t += cases[j].ms / 1000.0;
  }
  char stamp[32] = "1970-01-01T00:00:00";
  struct tm tm;
  if (gmtime_r(&d->started, &tm)) strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
  xw_start(x, "testsuite");
  xw_attr(x, "name", d->name);
  xw_attrf(x, "tests", "%zu", r->ncl);
  xw_attrf(x, "failures", "%zu", f);
  xw_attrf(x, "errors", "%zu", e);
  xw_attrf(x, "skipped", "%zu", s);
  xw_attrf(x, "time", "%.3f", t);
  xw_attr(x, "timestamp", stamp); /* UTC; the generic schema allows no zone */
  xw_attr(x, "hostname", host);
  xw_attrf(x, "id", "%zu", i);
  xw_attr(x, "package", d->backend_name);
  xw_start(x, "properties");
  xw_start(x, "property");
  xw_attr(x, "name", "profile");
  xw_attr(x, "value", dc_profile_name(d->profile));
  xw_end(x);
  xw_end(x);
  for (size_t j = 0; j < r->ncl; j++) junit_case(x, r->o, d, &cases[j]);
  junit_suite_output(x, r, d, cases);
  xw_end(x);
}

/* The refused plugins as one more <testsuite>, "refused plugins", each a <testcase>
 * (classname "refused plugin", name its path) <skipped> with the loader's reason. */
static void junit_refused(xw_t* x, const dc_run_view_t* r, const char* host, const char* stamp) {
  xw_start(x, "testsuite");
  xw_attr(x, "name", "refused plugins");
  xw_attrf(x, "tests", "%zu", r->nrefused);
  xw_attr(x, "failures", "0");
  xw_attr(x, "errors", "0");
  xw_attrf(x, "skipped", "%zu", r->nrefused);
  xw_attr(x, "time", "0.000");
  xw_attr(x, "timestamp", stamp);
  xw_attr(x, "hostname", host);
  xw_attrf(x, "id", "%zu", r->nd);
  xw_attr(x, "package", "plugins");
  xw_start(x, "properties");
  xw_end(x);
  for (size_t i = 0; i < r->nrefused; i++) {
    char plugin[1024], m[1200];
    const char* reason = dc_refusal_split(r->refused[i], plugin, sizeof plugin);
    dc_fmt(m, sizeof m, "refused: %s", reason);
    xw_start(x, "testcase");
    xw_attr(x, "classname", "refused plugin");
    xw_attr(x, "name", plugin);
    xw_attr(x, "time", "0.000");
    xw_start(x, "skipped");
    xw_attr(x, "message", m);
    xw_text(x, m);
    xw_end(x);
    xw_end(x);
  }
  xw_start(x, "system-out");
  xw_text(x, "plugins the loader refused: no device of theirs was tested\n");
  xw_end(x);
  xw_start(x, "system-err");
  xw_text(x, "");
  xw_end(x);
  xw_end(x);
}

/* This machine's name, cleaned like every text; "localhost" when it has none. */
static void host_name(char* h, size_t n) {
  if (gethostname(h, n) != 0) h[0] = '\0';
  h[n - 1] = '\0';
  dh_text_clean(h, n);
  if (strspn(h, " \t\n") == strlen(h)) dc_fmt(h, n, "localhost");
}

static void junit_end(dc_report_t* rep) {
  const dc_run_view_t* r = rep->run;
  xmlBufferPtr buf = xmlBufferCreate();
  xw_t x = {buf ? xmlNewTextWriterMemory(buf, 0) : NULL, 0};
  if (!x.w) {
    fprintf(stderr, "devharness conformance: JUnit: libxml2 could not start a writer (out of memory)\n");
    if (buf) xmlBufferFree(buf);
    return;
  }
  char host[256];
  host_name(host, sizeof host);
  xw_check(&x, xmlTextWriterSetIndent(x.w, 1));
  xw_check(&x, xmlTextWriterSetIndentString(x.w, BAD_CAST "  "));
  xw_check(&x, xmlTextWriterStartDocument(x.w, NULL, "UTF-8", NULL));
  xw_start(&x, "testsuites"); /* no attributes: the generic JUnit schema allows none here */
  for (size_t i = 0; i < r->nd; i++) junit_suite(&x, r, i, host);
  if (r->nrefused) {
    char stamp[32] = "1970-01-01T00:00:00";
    struct tm tm;
    time_t now = time(NULL);
    if (gmtime_r(&now, &tm)) strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
    junit_refused(&x, r, host, stamp);
  }
  xw_end(&x);
  xw_check(&x, xmlTextWriterEndDocument(x.w));
  xmlFreeTextWriter(x.w); /* flushes into buf */
  if (x.failed) fprintf(stderr, "devharness conformance: JUnit: libxml2's writer failed; the file is incomplete\n");
  dh_sbuf_add(&rep->text, (const char*)xmlBufferContent(buf));
  xmlBufferFree(buf);
}

const dc_reporter_t dc_report_junit = {
    .option = "junit",
    .help = "write JUnit XML to FILE",
    .end = junit_end,
};
