/* conformance/report/junit.c — the JUnit XML reporter (--junit FILE; report/report.h).
 * A crash or a timeout is a JUnit <error> (the case could not finish), a violated clause a
 * <failure>; an xfail (todo) and a skip are <skipped>, the reason as element text (GitLab
 * reads it) and as message attribute (Jenkins, GitHub reporters). Validates against the
 * Jenkins xunit plugin's junit-10.xsd (tests/conformance/junit-jenkins.xsd says how). */
#include <string.h>

#include "report/report.h"

static void xml_esc(dh_sbuf_t* b, const char* s) {
  const unsigned char* p = (const unsigned char*)s;
  while (*p) {
    unsigned char ch = *p;
    int len = ch < 0x80 ? 1 : (ch >> 5) == 6 ? 2 : (ch >> 4) == 14 ? 3 : (ch >> 3) == 30 ? 4 : 0;
    int valid = len > 0;
    for (int i = 1; valid && i < len; i++) valid = (p[i] & 0xc0) == 0x80;
    if (!valid) {
      dh_sbuf_addf(b, "?");
      p++;
      continue;
    }
    if (len > 1) {
      dh_sbuf_addf(b, "%.*s", len, (const char*)p);
      p += len;
      continue;
    }
    switch (ch) {
      case '&': dh_sbuf_addf(b, "&amp;"); break;
      case '<': dh_sbuf_addf(b, "&lt;"); break;
      case '>': dh_sbuf_addf(b, "&gt;"); break;
      case '"': dh_sbuf_addf(b, "&quot;"); break;
      case '\'': dh_sbuf_addf(b, "&apos;"); break;
      case '\n': dh_sbuf_addf(b, "&#10;"); break;
      case '\t': dh_sbuf_addf(b, "&#9;"); break;
      default:
        if (ch >= 0x20 && ch != 0x7f) dh_sbuf_addf(b, "%c", ch);
        else dh_sbuf_addf(b, " ");
    }
    p++;
  }
}

static int is_error_case(const dc_case_t* k) {
  return k->status == DC_FAIL && !k->todo && k->note[0];
}

static int is_failure_case(const dc_case_t* k) {
  return k->status == DC_FAIL && !k->todo && !k->note[0];
}

/* <skipped> of a skip or an xfail, the reason as attribute and text. */
static void junit_skipped(dh_sbuf_t* x, const dc_case_t* k) {
  char m[1200];
  if (k->status == DC_SKIP) dc_fmt(m, sizeof m, "%s", k->reason);
  else
    dc_fmt(m, sizeof m, "expected failure (xfail: %s)%s%s", k->reason, k->status == DC_FAIL ? ": " : " passed",
           k->status == DC_FAIL ? k->r.message : "");
  dh_sbuf_addf(x, "      <skipped message=\"");
  xml_esc(x, m);
  dh_sbuf_addf(x, "\">");
  xml_esc(x, m);
  dh_sbuf_addf(x, "</skipped>\n");
}

/* <error> (crash, timeout) or <failure> (violated clause) with the diagnostics, and the
 * child's stderr tail. */
static void junit_failed(dh_sbuf_t* x, const dc_case_t* k) {
  /* the note ("crashed: SIGSEGV") once, even when the message already is the note */
  char m[1200];
  if (k->note[0] && strcmp(k->note, k->r.message) != 0 && k->r.message[0])
    dc_fmt(m, sizeof m, "%s: %s", k->note, k->r.message);
  else dc_fmt(m, sizeof m, "%s", k->note[0] ? k->note : k->r.message);
  const char* el = k->note[0] ? "error" : "failure";
  dh_sbuf_addf(x, "      <%s message=\"", el);
  xml_esc(x, m);
  dh_sbuf_addf(x, "\" type=\"%s\">", k->note[0] ? (strncmp(k->note, "timed out", 9) == 0 ? "timeout" : "crash")
                                     : k->clause->level == DC_MUST ? "must" : "should");
  char body[4096];
  dc_fmt(body, sizeof body,
         "clause: %s\nprofile: %s\nlevel: %s\nexpected: %s\ngot: %s\nat: %s:%d\nsource: %s\n"
         "duration_ms: %.3f\n%s%s",
         k->clause->id, dc_profile_name(k->clause->profile), k->clause->level == DC_MUST ? "must" : "should",
         k->r.expected, k->r.got, k->r.file, k->r.line, k->clause->source, k->ms,
         k->r.details[0] ? "details:\n" : "", k->r.details);
  xml_esc(x, body);
  dh_sbuf_addf(x, "</%s>\n", el);
  if (k->err_tail[0]) {
    dh_sbuf_addf(x, "      <system-err>");
    xml_esc(x, k->err_tail);
    dh_sbuf_addf(x, "</system-err>\n");
  }
}

static void junit_case(dh_sbuf_t* x, const dc_device_t* d, const dc_case_t* k) {
  dh_sbuf_addf(x, "    <testcase classname=\"");
  xml_esc(x, d->name);
  dh_sbuf_addf(x, "\" name=\"");
  xml_esc(x, k->clause->id);
  dh_sbuf_addf(x, "\" time=\"%.3f\"", k->ms / 1000.0);
  if (k->status == DC_PASS && !k->todo) {
    dh_sbuf_addf(x, "/>\n");
    return;
  }
  dh_sbuf_addf(x, ">\n");
  if (k->status == DC_SKIP || k->todo) junit_skipped(x, k);
  else junit_failed(x, k);
  dh_sbuf_addf(x, "    </testcase>\n");
}

/* One <testsuite> per device, with its profile as a property. */
static void junit_suite(dh_sbuf_t* x, const dc_device_t* d, const dc_case_t* cases, size_t nc) {
  size_t f = 0, s = 0, e = 0;
  double t = 0;
  for (size_t j = 0; j < nc; j++) {
    if (is_error_case(&cases[j])) e++;
    else if (is_failure_case(&cases[j])) f++;
    else if (cases[j].status == DC_SKIP || cases[j].todo) s++;
    t += cases[j].ms / 1000.0;
  }
  dh_sbuf_addf(x, "  <testsuite name=\"");
  xml_esc(x, d->name);
  dh_sbuf_addf(x, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n", nc, f, e,
               s, t);
  dh_sbuf_addf(x, "    <properties><property name=\"profile\" value=\"%s\"/></properties>\n",
               dc_profile_name(d->profile));
  for (size_t j = 0; j < nc; j++) junit_case(x, d, &cases[j]);
  dh_sbuf_addf(x, "  </testsuite>\n");
}

static void junit_end(dc_report_t* rep) {
  const dc_run_view_t* r = rep->run;
  dh_sbuf_t* x = &rep->text;
  size_t t_all = 0, f_all = 0, e_all = 0;
  double time_all = 0;
  for (size_t i = 0; i < r->nd; i++)
    for (size_t j = 0; j < r->ncl; j++) {
      t_all++;
      if (is_error_case(&r->cases[i][j])) e_all++;
      else if (is_failure_case(&r->cases[i][j])) f_all++;
      time_all += r->cases[i][j].ms / 1000.0;
    }
  dh_sbuf_addf(x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  /* <testsuites> has no `skipped` attribute in the Jenkins schema: only on <testsuite> */
  dh_sbuf_addf(x, "<testsuites name=\"devharness conformance\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
               "time=\"%.3f\">\n", t_all, f_all, e_all, time_all);
  for (size_t i = 0; i < r->nd; i++) junit_suite(x, &r->devs[i], r->cases[i], r->ncl);
  dh_sbuf_addf(x, "</testsuites>\n");
}

const dc_reporter_t dc_report_junit = {
    .option = "junit",
    .help = "write JUnit XML to FILE",
    .end = junit_end,
};
