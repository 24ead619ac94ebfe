/* conformance/report/tap.c — the TAP reporter: the stream on stdout and --tap FILE
 * (report/report.h). Two layouts (--tap-layout): subtests, the default, one TAP-14
 * subtest per device with YAML diagnostics for a failure and one outer line per device;
 * flat, one top-level test point per device x clause with a failure's diagnostics as
 * '#' lines, for consumers that count only top-level lines (prove, tap.py). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/device_api.h"
#include "report/report.h"

/* YAML double-quoted scalar. */
static void yq(dh_sbuf_t* b, const char* s) {
  dh_sbuf_addf(b, "\"");
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') dh_sbuf_addf(b, "\\%c", ch);
    else if (ch == '\n') dh_sbuf_addf(b, "\\n");
    else if (ch == '\t') dh_sbuf_addf(b, "\\t");
    else if (ch < 0x20 || ch == 0x7f) dh_sbuf_addf(b, "\\x%02x", ch);
    else dh_sbuf_addf(b, "%c", ch);
  }
  dh_sbuf_addf(b, "\"");
}

/* One-line text for a TAP description or directive reason: '#' and '\\' escaped as
 * '\\#' and '\\\\' (TAP 14 specification, "Escaping"; TAP 13 consumers read the same),
 * line breaks, tabs and other control characters as spaces. */
void dc_tap_text(dh_sbuf_t* b, const char* s) {
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch < 0x20 || ch == 0x7f) ch = ' ';
    if (ch == '#' || ch == '\\') dh_sbuf_addf(b, "\\%c", ch);
    else dh_sbuf_addf(b, "%c", ch);
  }
}

/* What follows a case's description: the crash or timeout note (part of the
 * description, '#' escaped: no directive), or the SKIP / TODO directive with its
 * reason; then the line break. */
static void tap_directive(dh_sbuf_t* b, const dc_case_t* k) {
  if (k->note[0] && (k->status == DC_SKIP || k->todo)) {
    dh_sbuf_addf(b, " \\# ");
    dc_tap_text(b, k->note);
  }
  if (k->status == DC_SKIP) {
    dh_sbuf_addf(b, " # SKIP ");
    dc_tap_text(b, k->reason);
  } else if (k->todo) {
    dh_sbuf_addf(b, " # TODO ");
    dc_tap_text(b, k->reason);
  } else if (k->note[0]) {
    /* "crashed: SIGSEGV" is part of the description, not a directive: '#' escaped */
    dh_sbuf_addf(b, " \\# ");
    dc_tap_text(b, k->note);
  }
  dh_sbuf_addf(b, "\n");
}

/* "file:line" of a failure, or the file alone (a waiver's origin, "(child process)"). */
static void tap_at(char* at, size_t n, const dc_case_t* k) {
  if (k->r.line) dc_fmt(at, n, "%s:%d", k->r.file, k->r.line);
  else dc_fmt(at, n, "%s", k->r.file);
}

/* A failed case's YAML diagnostics, indented under its line in a device's subtest. */
static void tap_yaml(dh_sbuf_t* b, const dc_case_t* k, const char* ind) {
  dh_sbuf_addf(b, "%s  ---\n%s  clause: %s\n%s  level: %s\n%s  profile: %s\n%s  message: ", ind, ind,
               k->clause->id, ind, k->clause->level == DC_MUST ? "must" : "should", ind,
               dc_profile_name(k->clause->profile), ind);
  yq(b, k->r.message);
  dh_sbuf_addf(b, "\n%s  expected: ", ind);
  yq(b, k->r.expected);
  dh_sbuf_addf(b, "\n%s  got: ", ind);
  yq(b, k->r.got);
  char at[200];
  tap_at(at, sizeof at, k);
  dh_sbuf_addf(b, "\n%s  at: ", ind);
  yq(b, at);
  dh_sbuf_addf(b, "\n%s  source: ", ind);
  yq(b, k->clause->source);
  dh_sbuf_addf(b, "\n%s  duration_ms: %.3f\n", ind, k->ms);
  if (k->r.details[0]) {
    dh_sbuf_addf(b, "%s  details:\n", ind);
    char tmp[DC_MSG_MAX];
    dc_fmt(tmp, sizeof tmp, "%s", k->r.details);
    char* save = NULL;
    for (char* l = strtok_r(tmp, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
      dh_sbuf_addf(b, "%s    - ", ind);
      yq(b, l);
      dh_sbuf_addf(b, "\n");
    }
  }
  if (k->err_tail[0]) {
    dh_sbuf_addf(b, "%s  stderr: ", ind);
    yq(b, k->err_tail);
    dh_sbuf_addf(b, "\n");
  }
  dh_sbuf_addf(b, "%s  ...\n", ind);
}

/* --verbose: a diagnostic under a case that did not fail, "# kept: STATEMENT (must,
 * profile strict, 0.123 ms)" ("# skipped: " for a skip). */
static void tap_verbose(dh_sbuf_t* b, const dc_case_t* k, const char* ind) {
  dh_sbuf_addf(b, "%s# %s: ", ind, k->status == DC_SKIP ? "skipped" : k->todo ? "xfail" : "kept");
  dc_tap_text(b, k->clause->statement);
  dh_sbuf_addf(b, " (%s, profile %s, %.3f ms)\n", k->clause->level == DC_MUST ? "must" : "should",
               dc_profile_name(k->clause->profile), k->ms);
}

/* One case as a TAP line of a device's subtest (YAML diagnostics for a failure). */
static void tap_case(dh_sbuf_t* b, int num, const dc_case_t* k, int verbose) {
  dh_sbuf_addf(b, "    %s %d - ", k->status != DC_FAIL ? "ok" : "not ok", num);
  dc_tap_text(b, k->clause->id);
  tap_directive(b, k);
  if (k->status == DC_FAIL) tap_yaml(b, k, "    ");
  else if (verbose) tap_verbose(b, k, "    ");
}

/* "# name: text" for each line of text (a flat-layout diagnostic). */
static void tap_diag(dh_sbuf_t* b, const char* name, const char* text) {
  const char* p = text;
  do {
    size_t n = strcspn(p, "\n");
    dh_sbuf_addf(b, "# %s%s%.*s\n", p == text ? name : "  ", p == text ? ": " : "", (int)n, p);
    p += n;
    if (*p == '\n') p++;
  } while (*p);
}

/* The short reason of a failure: the note ("crashed: SIGSEGV") or the message, on one
 * line, at most 160 bytes (cut at a UTF-8 boundary, "..." added). */
static void short_reason(char* out, size_t n, const dc_case_t* k) {
  const char* m = k->note[0] && !k->todo ? k->note : k->r.message;
  size_t len = strcspn(m, "\n"), max = n - 4 < 160 ? n - 4 : 160;
  if (len > max) {
    len = max;
    while (len > 0 && ((unsigned char)m[len] & 0xC0) == 0x80) len--;
    dc_fmt(out, n, "%.*s...", (int)len, m);
  } else {
    dc_fmt(out, n, "%.*s", (int)len, m);
  }
}

/* One case as a top-level test point of the flat layout, "DEVICE CLAUSE", a failure's
 * short reason after it ("DEVICE CLAUSE: REASON": prove prints a failing line's
 * description in its "Failed test" detail with -v only, tap.py always) and its
 * diagnostics as '#' lines under it (prove prints them with --comments or -v). A
 * failure (not an xfail) is also one line on stderr, "devharness conformance: not ok N
 * - DEVICE CLAUSE: REASON (expected ..., got ..., at FILE:LINE)", which prove shows
 * without -v. */
static void tap_flat_case(dh_sbuf_t* b, int num, const dc_device_t* d, const dc_case_t* k, int verbose) {
  dh_sbuf_addf(b, "%s %d - ", k->status != DC_FAIL ? "ok" : "not ok", num);
  dc_tap_text(b, d->name);
  dh_sbuf_add(b, " ");
  dc_tap_text(b, k->clause->id);
  char reason[200];
  if (k->status == DC_FAIL) {
    short_reason(reason, sizeof reason, k);
    if (reason[0]) {
      dh_sbuf_add(b, ": ");
      dc_tap_text(b, reason);
    }
  }
  tap_directive(b, k);
  if (k->status != DC_FAIL) {
    if (verbose) tap_verbose(b, k, "");
    return;
  }
  char at[200];
  tap_at(at, sizeof at, k);
  if (!k->todo) {
    dh_sbuf_t e = {0};
    dh_sbuf_addf(&e, "devharness conformance: not ok %d - %s %s: ", num, d->name, k->clause->id);
    dc_tap_text(&e, reason);
    dh_sbuf_add(&e, " (expected ");
    dc_tap_text(&e, k->r.expected);
    dh_sbuf_add(&e, ", got ");
    dc_tap_text(&e, k->r.got);
    dh_sbuf_addf(&e, ", at %s)\n", at);
    fflush(stdout); /* after the TAP written so far, when both go to one terminal */
    fputs(dh_sbuf_str(&e), stderr);
    free(e.s);
  }
  dh_sbuf_addf(b, "# clause: %s (%s, profile %s)\n", k->clause->id, k->clause->level == DC_MUST ? "must" : "should",
               dc_profile_name(k->clause->profile));
  tap_diag(b, "message", k->r.message);
  tap_diag(b, "expected", k->r.expected);
  tap_diag(b, "got", k->r.got);
  tap_diag(b, "at", at);
  if (k->r.details[0]) tap_diag(b, "details", k->r.details);
  if (k->err_tail[0]) tap_diag(b, "stderr", k->err_tail);
}

/* The version header and the plan: one subtest per device (flat: one test point per
 * device x clause), then one skipped test point per refused plugin. */
static void tap_begin(dc_report_t* rep) {
  const dc_run_view_t* r = rep->run;
  dh_sbuf_addf(&rep->text, "TAP version %d\n", r->o->tap_version);
  if (r->nd == 0 && r->nrefused == 0)
    dh_sbuf_add(&rep->text, "1..0 # SKIP no backend loaded (no libdevharness_*.so found)\n");
  else dh_sbuf_addf(&rep->text, "1..%zu\n", (r->o->tap_flat ? r->nd * r->ncl : r->nd) + r->nrefused);
}

/* Each refused plugin as a skipped test point after the devices' ones, "refused plugin
 * PATH # SKIP REASON": no device of it was tested, and every consumer counts and shows
 * it (a comment alone is invisible to most). */
static void tap_refused(dc_report_t* rep) {
  const dc_run_view_t* r = rep->run;
  size_t first = (r->o->tap_flat ? r->nd * r->ncl : r->nd) + 1;
  for (size_t i = 0; i < r->nrefused; i++) {
    char plugin[1024];
    const char* reason = dc_refusal_split(r->refused[i], plugin, sizeof plugin);
    dh_sbuf_addf(&rep->text, "ok %zu - refused plugin ", first + i);
    dc_tap_text(&rep->text, plugin);
    dh_sbuf_add(&rep->text, " # SKIP refused: ");
    dc_tap_text(&rep->text, reason);
    dh_sbuf_add(&rep->text, "\n");
  }
}

/* A device's subtest header: its name, why it has no device, its profile, the plan; in
 * the flat layout the same as comments. */
static void tap_begin_device(dc_report_t* rep, size_t i) {
  const dc_device_t* d = &rep->run->devs[i];
  dh_sbuf_t* b = &rep->text;
  if (rep->run->o->tap_flat) {
    dh_sbuf_add(b, "# device ");
    dc_tap_text(b, d->name);
    dh_sbuf_addf(b, ": profile %s (%s)", dc_profile_name(d->profile),
                 d->profile_from_backend ? "the backend's default" : rep->run->o->profile ? "--profile" : "default");
    if (d->id < 0 && d->reason[0]) {
      dh_sbuf_add(b, "; ");
      dc_tap_text(b, d->reason);
    }
    dh_sbuf_add(b, "\n");
    return;
  }
  dh_sbuf_add(b, "# Subtest: ");
  dc_tap_text(b, d->name);
  dh_sbuf_add(b, "\n");
  if (d->id < 0 && d->reason[0]) {
    dh_sbuf_addf(b, "    # %s: ", d->name);
    dc_tap_text(b, d->reason);
    dh_sbuf_add(b, "\n");
  }
  dh_sbuf_addf(b, "    # profile: %s (%s)\n", dc_profile_name(d->profile),
               d->profile_from_backend ? "the backend's default" : rep->run->o->profile ? "--profile" : "default");
  dh_sbuf_addf(b, "    1..%zu\n", rep->run->ncl);
}

static void tap_end_case(dc_report_t* rep, size_t i, size_t j) {
  if (rep->run->o->tap_flat)
    tap_flat_case(&rep->text, (int)(i * rep->run->ncl + j + 1), &rep->run->devs[i], &rep->run->cases[i][j],
                  rep->run->o->verbosity > 0);
  else tap_case(&rep->text, (int)j + 1, &rep->run->cases[i][j], rep->run->o->verbosity > 0);
}

/* The device's outer test line; a backend that cannot run is a skip at the outer level
 * too, never a pass. */
static void tap_end_device(dc_report_t* rep, size_t i) {
  const dc_device_t* d = &rep->run->devs[i];
  if (rep->run->o->tap_flat) return; /* no outer line: its cases are the test points */
  dh_sbuf_addf(&rep->text, "%s %zu - ", d->failed ? "not ok" : "ok", i + 1);
  dc_tap_text(&rep->text, d->name);
  if (d->id < 0 && !d->failed) {
    dh_sbuf_add(&rep->text, " # SKIP ");
    dc_tap_text(&rep->text, d->reason[0] ? d->reason : "no device");
  }
  dh_sbuf_add(&rep->text, "\n");
}

/* The summary comments: counts and waivers, each device's profile, --max-waived, the
 * backends without a device. */
static void tap_end(dc_report_t* rep) {
  const dc_run_view_t* r = rep->run;
  dh_sbuf_t* b = &rep->text;
  size_t nd = r->nd, ncl = r->ncl, waived = r->waived_skip + r->waived_xfail;
  tap_refused(rep);
  dh_sbuf_addf(b, "# %zu clause%s x %zu device%s in %.1f s; %d device%s with violations; %zu case%s "
               "waived (%zu skip, %zu xfail)\n", ncl, ncl == 1 ? "" : "s", nd, nd == 1 ? "" : "s",
               r->seconds, r->violations, r->violations == 1 ? "" : "s", waived, waived == 1 ? "" : "s",
               r->waived_skip, r->waived_xfail);
  for (size_t i = 0; i < nd; i++) {
    size_t skipped = 0;
    for (size_t j = 0; j < ncl; j++)
      if (r->cases[i][j].status == DC_SKIP && r->cases[i][j].clause->profile > r->devs[i].profile) skipped++;
    dh_sbuf_addf(b, "# profile %s: %s", dc_profile_name(r->devs[i].profile), r->devs[i].name);
    if (skipped) dh_sbuf_addf(b, " (%zu strict clause%s skipped)", skipped, skipped == 1 ? "" : "s");
    dh_sbuf_add(b, "\n");
  }
  if (r->too_many_waived)
    dh_sbuf_addf(b, "# waived cases: %zu, more than --max-waived %ld: the run fails\n", waived,
                 r->o->max_waived);
  if (r->no_device) {
    dh_sbuf_addf(b, "# NO DEVICE: %zu of %zu backend%s could not run, every clause skipped:", r->no_device,
                 nd, nd == 1 ? "" : "s");
    for (size_t i = 0; i < nd; i++)
      if (r->devs[i].id < 0) {
        dh_sbuf_add(b, " ");
        dc_tap_text(b, r->devs[i].backend_name);
      }
    dh_sbuf_add(b, "\n");
  }
  if (r->nrefused)
    dh_sbuf_addf(b, "# refused plugins: %zu, each a skipped test point above\n", r->nrefused);
}

const dc_reporter_t dc_report_tap = {
    .option = "tap",
    .help = "also write the TAP stream to FILE",
    .to_stdout = 1,
    .begin = tap_begin,
    .begin_device = tap_begin_device,
    .end_case = tap_end_case,
    .end_device = tap_end_device,
    .end = tap_end,
};
