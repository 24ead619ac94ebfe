/* suite/tap.c — the TAP reporter: the stream on stdout and --tap FILE (suite/suite.h).
 * Three layouts (ds_tap_layout_t): subtests, one TAP-14 subtest per group with YAML
 * diagnostics for a failure and one outer line per group; flat, one top-level test
 * point per group x case with a failure's diagnostics as '#' lines, for consumers that
 * count only top-level lines (prove, tap.py); cases, one top-level point per case
 * named by its id and subject, its message as a '#' line under it (module check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suite/suite.h"

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
void ds_tap_text(dh_sbuf_t* b, const char* s) {
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch < 0x20 || ch == 0x7f) ch = ' ';
    if (ch == '#' || ch == '\\') dh_sbuf_addf(b, "\\%c", ch);
    else dh_sbuf_addf(b, "%c", ch);
  }
}

/* The TAP "ok" of a case: everything but a failure and an xfail that failed. */
static int tap_ok(const ds_case_t* k) {
  return k->verdict == DS_PASS || k->verdict == DS_SKIP || (k->verdict == DS_XFAIL && k->xpass);
}

static const char* str(const char* s) { return s ? s : ""; }

/* What follows a case's description: the crash or timeout note (part of the
 * description, '#' escaped: no directive), or the SKIP / TODO directive with its
 * reason; then the line break. */
static void tap_directive(dh_sbuf_t* b, const ds_case_t* k) {
  if (k->note[0] && (k->verdict == DS_SKIP || k->verdict == DS_XFAIL)) {
    dh_sbuf_addf(b, " \\# ");
    ds_tap_text(b, k->note);
  }
  if (k->verdict == DS_SKIP) {
    dh_sbuf_addf(b, " # SKIP ");
    ds_tap_text(b, k->reason);
  } else if (k->verdict == DS_XFAIL) {
    dh_sbuf_addf(b, " # TODO ");
    ds_tap_text(b, k->reason);
  } else if (k->note[0]) {
    /* "crashed: SIGSEGV" is part of the description, not a directive: '#' escaped */
    dh_sbuf_addf(b, " \\# ");
    ds_tap_text(b, k->note);
  }
  dh_sbuf_addf(b, "\n");
}

/* "file:line" of a failure, or the file alone (a waiver's origin, "(child process)"). */
static void tap_at(char* at, size_t n, const ds_case_t* k) {
  if (k->line) ds_fmt(at, n, "%s:%d", k->file, k->line);
  else ds_fmt(at, n, "%s", k->file);
}

/* A failed case's YAML diagnostics, indented under its line in a group's subtest. */
static void tap_yaml(dh_sbuf_t* b, const ds_info_t* in, const ds_case_t* k, const char* ind) {
  dh_sbuf_addf(b, "%s  ---\n%s  clause: %s\n%s  level: %s\n%s  profile: %s\n%s  message: ", ind, ind, in->id, ind,
               str(in->level), ind, str(in->profile), ind);
  yq(b, k->message);
  dh_sbuf_addf(b, "\n%s  expected: ", ind);
  yq(b, k->expected);
  dh_sbuf_addf(b, "\n%s  got: ", ind);
  yq(b, k->got);
  char at[200];
  tap_at(at, sizeof at, k);
  dh_sbuf_addf(b, "\n%s  at: ", ind);
  yq(b, at);
  dh_sbuf_addf(b, "\n%s  source: ", ind);
  yq(b, str(in->source));
  dh_sbuf_addf(b, "\n%s  duration_ms: %.3f\n", ind, k->ms);
  if (k->details[0]) {
    dh_sbuf_addf(b, "%s  details:\n", ind);
    char tmp[DS_MSG_MAX];
    ds_fmt(tmp, sizeof tmp, "%s", k->details);
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
static void tap_verbose(dh_sbuf_t* b, const ds_info_t* in, const ds_case_t* k, const char* ind) {
  dh_sbuf_addf(b, "%s# %s: ", ind, k->verdict == DS_SKIP ? "skipped" : k->verdict == DS_XFAIL ? "xfail" : "kept");
  ds_tap_text(b, str(in->statement));
  dh_sbuf_addf(b, " (%s, profile %s, %.3f ms)\n", str(in->level), str(in->profile), k->ms);
}

/* One case as a TAP line of a group's subtest (YAML diagnostics for a failure). */
static void tap_case(dh_sbuf_t* b, int num, const ds_info_t* in, const ds_case_t* k, int verbose) {
  dh_sbuf_addf(b, "    %s %d - ", tap_ok(k) ? "ok" : "not ok", num);
  ds_tap_text(b, in->id);
  tap_directive(b, k);
  if (!tap_ok(k)) tap_yaml(b, in, k, "    ");
  else if (verbose) tap_verbose(b, in, k, "    ");
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
static void short_reason(char* out, size_t n, const ds_case_t* k) {
  const char* m = k->note[0] && k->verdict != DS_XFAIL ? k->note : k->message;
  size_t len = strcspn(m, "\n"), max = n - 4 < 160 ? n - 4 : 160;
  if (len > max) {
    len = max;
    while (len > 0 && ((unsigned char)m[len] & 0xC0) == 0x80) len--;
    ds_fmt(out, n, "%.*s...", (int)len, m);
  } else {
    ds_fmt(out, n, "%.*s", (int)len, m);
  }
}

/* A failure (not an xfail) as one line on stderr, "devharness COMMAND: not ok N -
 * GROUP ID: REASON (expected ..., got ..., at FILE:LINE)", which prove shows without
 * -v. */
static void tap_flat_stderr(const ds_run_view_t* r, int num, const ds_group_t* g, const ds_info_t* in,
                            const ds_case_t* k, const char* reason, const char* at) {
  dh_sbuf_t e = {0};
  dh_sbuf_addf(&e, "devharness %s: not ok %d - %s %s: ", str(r->o.command), num, g->name, in->id);
  ds_tap_text(&e, reason);
  dh_sbuf_add(&e, " (expected ");
  ds_tap_text(&e, k->expected);
  dh_sbuf_add(&e, ", got ");
  ds_tap_text(&e, k->got);
  dh_sbuf_addf(&e, ", at %s)\n", at);
  fflush(stdout); /* after the TAP written so far, when both go to one terminal */
  fputs(dh_sbuf_str(&e), stderr);
  free(e.s);
}

/* One case as a top-level test point of the flat layout, "GROUP ID", a failure's
 * short reason after it ("GROUP ID: REASON": prove prints a failing line's
 * description in its "Failed test" detail with -v only, tap.py always), its
 * diagnostics as '#' lines under it (prove prints them with --comments or -v) and a
 * failure on stderr too (tap_flat_stderr). */
static void tap_flat_case(const ds_run_view_t* r, dh_sbuf_t* b, int num, const ds_group_t* g, const ds_info_t* in,
                          const ds_case_t* k) {
  dh_sbuf_addf(b, "%s %d - ", tap_ok(k) ? "ok" : "not ok", num);
  ds_tap_text(b, g->name);
  dh_sbuf_add(b, " ");
  ds_tap_text(b, in->id);
  char reason[200];
  if (!tap_ok(k)) {
    short_reason(reason, sizeof reason, k);
    if (reason[0]) {
      dh_sbuf_add(b, ": ");
      ds_tap_text(b, reason);
    }
  }
  tap_directive(b, k);
  if (tap_ok(k)) {
    if (r->o.verbosity > 0) tap_verbose(b, in, k, "");
    return;
  }
  char at[200];
  tap_at(at, sizeof at, k);
  if (k->verdict != DS_XFAIL) tap_flat_stderr(r, num, g, in, k, reason, at);
  dh_sbuf_addf(b, "# clause: %s (%s, profile %s)\n", in->id, str(in->level), str(in->profile));
  tap_diag(b, "message", k->message);
  tap_diag(b, "expected", k->expected);
  tap_diag(b, "got", k->got);
  tap_diag(b, "at", at);
  if (k->details[0]) tap_diag(b, "details", k->details);
  if (k->err_tail[0]) tap_diag(b, "stderr", k->err_tail);
}

/* One case of the cases layout: "ok N - ID SUBJECT", a skip's reason as its
 * directive, else its message (a failure's note first) as one '#' line under it. */
static void tap_cases_case(dh_sbuf_t* b, int num, const ds_info_t* in, const ds_case_t* k) {
  dh_sbuf_addf(b, "%s %d - ", tap_ok(k) ? "ok" : "not ok", num);
  ds_tap_text(b, in->id);
  if (in->subject && in->subject[0]) {
    dh_sbuf_add(b, " ");
    ds_tap_text(b, in->subject);
  }
  if (k->verdict == DS_SKIP || k->verdict == DS_XFAIL) {
    tap_directive(b, k);
    return;
  }
  dh_sbuf_add(b, "\n  # ");
  ds_tap_text(b, k->message);
  dh_sbuf_add(b, "\n");
}

/* Test points before the refused plugins': one per group shown (subtests) or per case
 * of this run (other shards' left out). */
static size_t tap_points(const ds_run_view_t* r) {
  if (r->o.tap_layout != DS_TAP_SUBTESTS) return ds_group_cases(r, (size_t)-1);
  size_t n = 0;
  for (size_t i = 0; i < r->ng; i++) n += (size_t)ds_group_shown(r, i);
  return n;
}

/* "# shard 1/3: 92 cases in other shards (not listed)" under the plan of a shard. */
static void tap_shard_comment(dh_sbuf_t* b, const ds_run_view_t* r) {
  size_t other = ds_other_shard_cases(r, (size_t)-1);
  if (r->o.shard_total > 1)
    dh_sbuf_addf(b, "# shard %d/%d: %zu case%s in other shards (not listed)\n", r->o.shard_index,
                 r->o.shard_total, other, other == 1 ? "" : "s");
}

/* The version header and the plan (then one skipped test point per refused plugin),
 * the shard and preamble comments. */
static void tap_begin(ds_report_t* rep) {
  const ds_run_view_t* r = rep->run;
  size_t points = tap_points(r) + r->nrefused;
  dh_sbuf_addf(&rep->text, "TAP version %d\n", r->o.tap_version);
  if (r->ng == 0 && r->nrefused == 0)
    dh_sbuf_add(&rep->text, "1..0 # SKIP no backend loaded (no libdevharness_*.so found)\n");
  else if (points == 0)
    dh_sbuf_add(&rep->text, "1..0 # SKIP every case of this run is in another shard\n");
  else dh_sbuf_addf(&rep->text, "1..%zu\n", points);
  tap_shard_comment(&rep->text, r);
  if (r->preamble) dh_sbuf_add(&rep->text, r->preamble);
}

/* Each refused plugin as a skipped test point after the groups' ones, "refused plugin
 * PATH # SKIP REASON": no device of it was tested, and every consumer counts and shows
 * it (a comment alone is invisible to most). */
static void tap_refused(ds_report_t* rep) {
  const ds_run_view_t* r = rep->run;
  size_t first = tap_points(r) + 1;
  for (size_t i = 0; i < r->nrefused; i++) {
    char plugin[1024];
    const char* reason = ds_refusal_split(r->refused[i], plugin, sizeof plugin);
    dh_sbuf_addf(&rep->text, "ok %zu - refused plugin ", first + i);
    ds_tap_text(&rep->text, plugin);
    dh_sbuf_add(&rep->text, " # SKIP refused: ");
    ds_tap_text(&rep->text, reason);
    dh_sbuf_add(&rep->text, "\n");
  }
}

/* How a group came to its profile, as a TAP comment says it. */
static const char* profile_from(const ds_group_t* g) {
  const char* f = str(g->profile_from);
  return strcmp(f, "backend") == 0 ? "the backend's default" : f;
}

/* A group's subtest header: its name, why it has no device, its profile, the plan; in
 * the flat layout the same as comments; nothing in the cases layout. */
static void tap_begin_group(ds_report_t* rep, size_t i) {
  const ds_group_t* g = &rep->run->groups[i];
  dh_sbuf_t* b = &rep->text;
  rep->sub_num = 0;
  if (rep->run->o.tap_layout == DS_TAP_CASES || !ds_group_shown(rep->run, i)) return;
  if (rep->run->o.tap_layout == DS_TAP_FLAT) {
    dh_sbuf_add(b, "# device ");
    ds_tap_text(b, g->name);
    dh_sbuf_addf(b, ": profile %s (%s)", str(g->profile), profile_from(g));
    if (g->no_device && g->reason[0]) {
      dh_sbuf_add(b, "; ");
      ds_tap_text(b, g->reason);
    }
    dh_sbuf_add(b, "\n");
    return;
  }
  dh_sbuf_add(b, "# Subtest: ");
  ds_tap_text(b, g->name);
  dh_sbuf_add(b, "\n");
  if (g->no_device && g->reason[0]) {
    dh_sbuf_addf(b, "    # %s: ", g->name);
    ds_tap_text(b, g->reason);
    dh_sbuf_add(b, "\n");
  }
  dh_sbuf_addf(b, "    # profile: %s (%s)\n", str(g->profile), profile_from(g));
  dh_sbuf_addf(b, "    1..%zu\n", ds_group_cases(rep->run, i));
}

/* A case of this run as its test point, numbered in the order they are written; other
 * shards' cases are left out. */
static void tap_end_case(ds_report_t* rep, size_t i, size_t j) {
  const ds_run_view_t* r = rep->run;
  if (r->cases[i][j].other_shard) return;
  if (r->o.tap_layout == DS_TAP_SUBTESTS) {
    tap_case(&rep->text, (int)++rep->sub_num, &r->infos[j], &r->cases[i][j], r->o.verbosity > 0);
    return;
  }
  int num = (int)++rep->num;
  if (r->o.tap_layout == DS_TAP_FLAT) tap_flat_case(r, &rep->text, num, &r->groups[i], &r->infos[j], &r->cases[i][j]);
  else tap_cases_case(&rep->text, num, &r->infos[j], &r->cases[i][j]);
}

/* The group's outer test line (subtests only); a group that cannot run is a skip at
 * the outer level too, never a pass. */
static void tap_end_group(ds_report_t* rep, size_t i) {
  const ds_group_t* g = &rep->run->groups[i];
  if (rep->run->o.tap_layout != DS_TAP_SUBTESTS) return; /* its cases are the test points */
  if (!ds_group_shown(rep->run, i)) return;
  dh_sbuf_addf(&rep->text, "%s %zu - ", g->failed ? "not ok" : "ok", ++rep->num);
  ds_tap_text(&rep->text, g->name);
  if (g->no_device && !g->failed) {
    dh_sbuf_add(&rep->text, " # SKIP ");
    ds_tap_text(&rep->text, g->reason[0] ? g->reason : "no device");
  }
  dh_sbuf_add(&rep->text, "\n");
}

/* Strict cases a group held to tvm skipped. */
static size_t strict_skipped(const ds_run_view_t* r, size_t i) {
  size_t n = 0;
  if (r->groups[i].profile == NULL || strcmp(r->groups[i].profile, "tvm") != 0) return 0;
  for (size_t j = 0; j < r->ncase; j++)
    n += r->cases[i][j].verdict == DS_SKIP && !r->cases[i][j].other_shard && r->infos[j].profile &&
         strcmp(r->infos[j].profile, "strict") == 0;
  return n;
}

/* The summary comments (o.tap_summary): counts and waivers, each group's profile,
 * max_waived, the groups without a device; the refused plugins' points always. */
static void tap_end(ds_report_t* rep) {
  const ds_run_view_t* r = rep->run;
  dh_sbuf_t* b = &rep->text;
  size_t nd = r->ng, ncl = r->ncase, waived = r->waived_skip + r->waived_xfail;
  tap_refused(rep);
  if (!r->o.tap_summary) return;
  dh_sbuf_addf(b, "# %zu clause%s x %zu device%s in %.1f s; %d device%s with violations; %zu case%s "
               "waived (%zu skip, %zu xfail)\n", ncl, ncl == 1 ? "" : "s", nd, nd == 1 ? "" : "s",
               r->seconds, r->violations, r->violations == 1 ? "" : "s", waived, waived == 1 ? "" : "s",
               r->waived_skip, r->waived_xfail);
  tap_shard_comment(b, r);
  for (size_t i = 0; i < nd; i++) {
    size_t skipped = strict_skipped(r, i);
    dh_sbuf_addf(b, "# profile %s: %s", str(r->groups[i].profile), r->groups[i].name);
    if (skipped) dh_sbuf_addf(b, " (%zu strict clause%s skipped)", skipped, skipped == 1 ? "" : "s");
    dh_sbuf_add(b, "\n");
  }
  if (r->too_many_waived)
    dh_sbuf_addf(b, "# waived cases: %zu, more than --max-waived %ld: the run fails\n", waived, r->o.max_waived);
  if (r->no_device) {
    dh_sbuf_addf(b, "# NO DEVICE: %zu of %zu backend%s could not run, every clause skipped:", r->no_device,
                 nd, nd == 1 ? "" : "s");
    for (size_t i = 0; i < nd; i++)
      if (r->groups[i].no_device) {
        dh_sbuf_add(b, " ");
        ds_tap_text(b, r->groups[i].package);
      }
    dh_sbuf_add(b, "\n");
  }
  if (r->nrefused)
    dh_sbuf_addf(b, "# refused plugins: %zu, each a skipped test point above\n", r->nrefused);
}

const ds_reporter_t ds_report_tap = {
    .option = "tap",
    .help = "also write the TAP stream to FILE",
    .to_stdout = 1,
    .begin = tap_begin,
    .begin_group = tap_begin_group,
    .end_case = tap_end_case,
    .end_group = tap_end_group,
    .end = tap_end,
};
