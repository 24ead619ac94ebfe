/* suite/junit.c — the JUnit XML reporter (--junit FILE; suite/suite.h), written with
 * libxml2's xmlTextWriter, which escapes every attribute and text (the text itself is
 * valid UTF-8 of XML characters already: suite/suite.h ds_case_clean).
 *
 * One <testsuite> per group (a device, a library); a crash or a timeout is an <error> (the case could not
 * finish), a violated clause a <failure>; an xfail (todo) and a skip are <skipped>, the
 * reason as element text (GitLab reads it) and as message attribute (Jenkins, GitHub
 * reporters). A case has at most one of them, and what a crashed child wrote is in the
 * <error> text and in the suite's <system-err>: the generic JUnit schema allows no
 * other child in a <testcase>. The file validates against both the Jenkins xunit
 * plugin's junit-10.xsd and the generic JUnit.xsd of windyroad/JUnit-Schema
 * (tests/conformance/junit-*.xsd): hence <testsuites> has no attributes (the totals
 * are on each <testsuite>) and every <testsuite> has hostname, id, package, timestamp,
 * <properties>, <system-out> and <system-err>. --junit-file-line adds `file` and
 * `line` (the case's code, ds_info_t src_file) to each <testcase>, which annotation actions read
 * but neither schema allows. A plugin the loader refused is a <testcase> with <skipped>
 * in one more suite, "refused plugins". */
#include <libxml/xmlwriter.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "suite/suite.h"

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

static int is_error_case(const ds_case_t* k) { return k->verdict == DS_FAIL && k->note[0]; }

static int is_failure_case(const ds_case_t* k) { return k->verdict == DS_FAIL && !k->note[0]; }

static const char* str(const char* s) { return s ? s : ""; }

/* <skipped> of a skip or an xfail, the reason as attribute and text. */
static void junit_skipped(xw_t* x, const ds_case_t* k) {
  char m[1200];
  if (k->verdict == DS_SKIP) ds_fmt(m, sizeof m, "%s", k->reason);
  else
    ds_fmt(m, sizeof m, "expected failure (xfail: %s)%s%s", k->reason, !k->xpass ? ": " : " passed",
           !k->xpass ? k->message : "");
  xw_start(x, "skipped");
  xw_attr(x, "message", m);
  xw_text(x, m);
  xw_end(x);
}

/* <error> (crash, timeout) or <failure> (violated clause) with the diagnostics and
 * what the child wrote last. */
static void junit_failed(xw_t* x, const ds_info_t* in, const ds_case_t* k) {
  /* the note ("crashed: SIGSEGV") once, even when the message already is the note */
  char m[1200];
  if (k->note[0] && strcmp(k->note, k->message) != 0 && k->message[0]) ds_fmt(m, sizeof m, "%s: %s", k->note, k->message);
  else ds_fmt(m, sizeof m, "%s", k->note[0] ? k->note : k->message);
  xw_start(x, k->note[0] ? "error" : "failure");
  xw_attr(x, "message", m);
  xw_attr(x, "type", k->note[0] ? (strncmp(k->note, "timed out", 9) == 0 ? "timeout" : "crash")
                                 : in->level ? in->level : "failure");
  dh_sbuf_t b = {0};
  dh_sbuf_addf(&b, "clause: %s\n", in->id);
  if (in->profile) dh_sbuf_addf(&b, "profile: %s\nlevel: %s\n", in->profile, str(in->level));
  else dh_sbuf_addf(&b, "message: %s\n", k->message);
  dh_sbuf_addf(&b, "expected: %s\ngot: %s\nat: %s:%d\n", k->expected, k->got, k->file, k->line);
  if (in->source) dh_sbuf_addf(&b, "source: %s\n", in->source);
  dh_sbuf_addf(&b, "duration_ms: %.3f\n%s%s%s%s%s", k->ms, k->details[0] ? "details:\n" : "", k->details,
               k->details[0] ? "\n" : "", k->err_tail[0] ? "stderr:\n" : "", k->err_tail);
  xw_text(x, dh_sbuf_str(&b));
  free(b.s);
  xw_end(x);
}

static void junit_case(xw_t* x, const ds_group_t* g, const ds_info_t* in, const ds_case_t* k) {
  xw_start(x, "testcase");
  xw_attr(x, "classname", in->classname ? in->classname : g->name);
  xw_attr(x, "name", in->id);
  xw_attrf(x, "time", "%.3f", k->ms / 1000.0);
  if (in->src_file) {
    xw_attr(x, "file", in->src_file);
    xw_attrf(x, "line", "%d", in->src_line);
  }
  if (k->verdict == DS_SKIP || k->verdict == DS_XFAIL) junit_skipped(x, k);
  else if (k->verdict == DS_FAIL) junit_failed(x, in, k);
  xw_end(x);
}

/* <system-out>: the group's profile (why it has no device), what each passing case
 * found (module check's "returned without error: ..."; the generic schema allows no
 * output in a <testcase>); <system-err>: what each case's child wrote last, under the
 * case's id. */
static void junit_suite_output(xw_t* x, const ds_run_view_t* r, const ds_group_t* g, const ds_case_t* cases) {
  dh_sbuf_t b = {0};
  if (g->profile)
    dh_sbuf_addf(&b, "%s: profile %s (%s)\n", g->name, g->profile,
                 strcmp(str(g->profile_from), "backend") == 0 ? "the backend's default" : str(g->profile_from));
  if (g->no_device && g->reason[0]) dh_sbuf_addf(&b, "%s: %s\n", g->probe_failed ? "probe failed" : "no device", g->reason);
  for (size_t j = 0; j < r->ncase; j++)
    if (cases[j].verdict == DS_PASS && cases[j].message[0])
      dh_sbuf_addf(&b, "%s%s%s: %s\n", r->infos[j].id, r->infos[j].subject ? " " : "", str(r->infos[j].subject),
                   cases[j].message);
  xw_start(x, "system-out");
  xw_text(x, dh_sbuf_str(&b));
  xw_end(x);
  dh_sbuf_clear(&b);
  for (size_t j = 0; j < r->ncase; j++)
    if (cases[j].err_tail[0])
      dh_sbuf_addf(&b, "--- %s%s%s%s%s ---\n%s\n", r->infos[j].id, r->infos[j].subject ? " " : "",
                   str(r->infos[j].subject), cases[j].note[0] ? ": " : "", cases[j].note, cases[j].err_tail);
  xw_start(x, "system-err");
  xw_text(x, dh_sbuf_str(&b));
  xw_end(x);
  free(b.s);
}

/* A shard's <property> elements: "shard" (I/N) and "other_shard_cases", the group's
 * cases that other shards ran (no <testcase> of this file). */
static void junit_shard_properties(xw_t* x, const ds_run_view_t* r, size_t i) {
  if (r->o.shard_total <= 1) return;
  xw_start(x, "property");
  xw_attr(x, "name", "shard");
  xw_attrf(x, "value", "%d/%d", r->o.shard_index, r->o.shard_total);
  xw_end(x);
  xw_start(x, "property");
  xw_attr(x, "name", "other_shard_cases");
  xw_attrf(x, "value", "%zu", ds_other_shard_cases(r, i));
  xw_end(x);
}

/* One <testsuite> per group shown (ds_group_shown): counts, where and when it ran, its profile as a
 * property, its cases and output. */
static void junit_suite(xw_t* x, const ds_run_view_t* r, size_t i, const char* host) {
  const ds_group_t* g = &r->groups[i];
  const ds_case_t* cases = r->cases[i];
  size_t f = 0, s = 0, e = 0;
  double t = 0;
  for (size_t j = 0; j < r->ncase; j++) {
    if (cases[j].other_shard) continue;
    if (is_error_case(&cases[j])) e++;
    else if (is_failure_case(&cases[j])) f++;
    else if (cases[j].verdict == DS_SKIP || cases[j].verdict == DS_XFAIL) s++;
    t += cases[j].ms / 1000.0;
  }
  char stamp[32] = "1970-01-01T00:00:00";
  struct tm tm;
  if (gmtime_r(&g->started, &tm)) strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
  xw_start(x, "testsuite");
  xw_attr(x, "name", g->name);
  xw_attrf(x, "tests", "%zu", ds_group_cases(r, i));
  xw_attrf(x, "failures", "%zu", f);
  xw_attrf(x, "errors", "%zu", e);
  xw_attrf(x, "skipped", "%zu", s);
  xw_attrf(x, "time", "%.3f", t);
  xw_attr(x, "timestamp", stamp); /* UTC; the generic schema allows no zone */
  xw_attr(x, "hostname", host);
  xw_attrf(x, "id", "%zu", i);
  xw_attr(x, "package", g->package);
  xw_start(x, "properties");
  if (g->profile) {
    xw_start(x, "property");
    xw_attr(x, "name", "profile");
    xw_attr(x, "value", g->profile);
    xw_end(x);
  }
  junit_shard_properties(x, r, i);
  xw_end(x);
  for (size_t j = 0; j < r->ncase; j++)
    if (!cases[j].other_shard) junit_case(x, g, &r->infos[j], &cases[j]);
  junit_suite_output(x, r, g, cases);
  xw_end(x);
}

/* The refused plugins as one more <testsuite>, "refused plugins", each a <testcase>
 * (classname "refused plugin", name its path) <skipped> with the loader's reason. */
static void junit_refused(xw_t* x, const ds_run_view_t* r, const char* host, const char* stamp) {
  xw_start(x, "testsuite");
  xw_attr(x, "name", "refused plugins");
  xw_attrf(x, "tests", "%zu", r->nrefused);
  xw_attr(x, "failures", "0");
  xw_attr(x, "errors", "0");
  xw_attrf(x, "skipped", "%zu", r->nrefused);
  xw_attr(x, "time", "0.000");
  xw_attr(x, "timestamp", stamp);
  xw_attr(x, "hostname", host);
  xw_attrf(x, "id", "%zu", r->ng);
  xw_attr(x, "package", "plugins");
  xw_start(x, "properties");
  xw_end(x);
  for (size_t i = 0; i < r->nrefused; i++) {
    char plugin[1024], m[1200];
    const char* reason = ds_refusal_split(r->refused[i], plugin, sizeof plugin);
    ds_fmt(m, sizeof m, "refused: %s", reason);
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
  if (strspn(h, " \t\n") == strlen(h)) ds_fmt(h, n, "localhost");
}

static void junit_end(ds_report_t* rep) {
  const ds_run_view_t* r = rep->run;
  xmlBufferPtr buf = xmlBufferCreate();
  xw_t x = {buf ? xmlNewTextWriterMemory(buf, 0) : NULL, 0};
  if (!x.w) {
    fprintf(stderr, "devharness %s: JUnit: libxml2 could not start a writer (out of memory)\n", str(r->o.command));
    if (buf) xmlBufferFree(buf);
    return;
  }
  char host[256];
  host_name(host, sizeof host);
  xw_check(&x, xmlTextWriterSetIndent(x.w, 1));
  xw_check(&x, xmlTextWriterSetIndentString(x.w, BAD_CAST "  "));
  xw_check(&x, xmlTextWriterStartDocument(x.w, NULL, "UTF-8", NULL));
  xw_start(&x, "testsuites"); /* no attributes: the generic JUnit schema allows none here */
  for (size_t i = 0; i < r->ng; i++)
    if (ds_group_shown(r, i)) junit_suite(&x, r, i, host);
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
  if (x.failed) fprintf(stderr, "devharness %s: JUnit: libxml2's writer failed; the file is incomplete\n", str(r->o.command));
  dh_sbuf_add(&rep->text, (const char*)xmlBufferContent(buf));
  xmlBufferFree(buf);
}

const ds_reporter_t ds_report_junit = {
    .option = "junit",
    .help = "write JUnit XML to FILE",
    .end = junit_end,
};
