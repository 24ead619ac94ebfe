/* conformance/report/report.c — the reporters of `devharness conformance`: the TAP
 * stream (TAP-14 subtests, YAML diagnostics), JUnit XML, and the clause list (text, and
 * the markdown that is docs/conformance.md) (conformance/runner/runner.h has the file map). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline/cmdline.h"
#include "runner/runner.h"

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

void dc_emit(dh_sbuf_t* all, FILE* out, dh_sbuf_t* piece) {
  if (piece->len) {
    fwrite(piece->s, 1, piece->len, out);
    fflush(out);
    dh_sbuf_add(all, piece->s);
  }
  dh_sbuf_clear(piece);
}

void dc_tap_case(dh_sbuf_t* b, int num, const dc_case_t* k) {
  const char* ind = "    ";
  int ok = k->status != DC_FAIL;
  dh_sbuf_addf(b, "%s%s %d - ", ind, ok ? "ok" : "not ok", num);
  dc_tap_text(b, k->clause->id);
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
  if (k->status == DC_FAIL) {
    dh_sbuf_addf(b, "%s  ---\n%s  clause: %s\n%s  level: %s\n%s  profile: %s\n%s  message: ", ind, ind,
           k->clause->id, ind, k->clause->level == DC_MUST ? "must" : "should", ind,
           dc_profile_name(k->clause->profile), ind);
    yq(b, k->r.message);
    dh_sbuf_addf(b, "\n%s  expected: ", ind);
    yq(b, k->r.expected);
    dh_sbuf_addf(b, "\n%s  got: ", ind);
    yq(b, k->r.got);
    char at[200];
    if (k->r.line) dc_fmt(at, sizeof at, "%s:%d", k->r.file, k->r.line);
    else dc_fmt(at, sizeof at, "%s", k->r.file);
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
}

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

int dc_write_file(const char* path, const char* text, size_t n) {
  char tmp[4096];
  dc_fmt(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  FILE* f = fopen(tmp, "w");
  if (!f) {
    fprintf(stderr, "devharness conformance: cannot write %s: %s\n", tmp, strerror(errno));
    return -1;
  }
  int ok = fwrite(text, 1, n, f) == n;
  ok = (fclose(f) == 0) && ok;
  if (!ok || rename(tmp, path) != 0) {
    fprintf(stderr, "devharness conformance: cannot write %s: %s\n", path, strerror(errno));
    unlink(tmp);
    return -1;
  }
  return 0;
}

/* A crash or a timeout is a JUnit <error> (the case could not finish), a violated clause a
 * <failure>; an xfail (todo) and a skip are <skipped>, the reason as element text (GitLab
 * reads it) and as message attribute (Jenkins, GitHub reporters). Validates against the
 * Jenkins xunit plugin's junit-10.xsd (tests/conformance/junit-jenkins.xsd says how). */
static int is_error_case(const dc_case_t* k) {
  return k->status == DC_FAIL && !k->todo && k->note[0];
}

void dc_junit(dh_sbuf_t* x, const dc_device_t* devs, size_t nd, dc_case_t* const* cases, size_t nc) {
  size_t t_all = 0, f_all = 0, e_all = 0;
  double time_all = 0;
  for (size_t i = 0; i < nd; i++)
    for (size_t j = 0; j < nc; j++) {
      t_all++;
      if (is_error_case(&cases[i][j])) e_all++;
      else if (cases[i][j].status == DC_FAIL && !cases[i][j].todo) f_all++;
      time_all += cases[i][j].ms / 1000.0;
    }
  dh_sbuf_addf(x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  /* <testsuites> has no `skipped` attribute in the Jenkins schema: only on <testsuite> */
  dh_sbuf_addf(x, "<testsuites name=\"devharness conformance\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
            "time=\"%.3f\">\n", t_all, f_all, e_all, time_all);
  for (size_t i = 0; i < nd; i++) {
    size_t f = 0, s = 0, e = 0;
    double t = 0;
    for (size_t j = 0; j < nc; j++) {
      if (is_error_case(&cases[i][j])) e++;
      else if (cases[i][j].status == DC_FAIL && !cases[i][j].todo) f++;
      else if (cases[i][j].status == DC_SKIP || cases[i][j].todo) s++;
      t += cases[i][j].ms / 1000.0;
    }
    dh_sbuf_addf(x, "  <testsuite name=\"");
    xml_esc(x, devs[i].name);
    dh_sbuf_addf(x, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n", nc,
           f, e, s, t);
    dh_sbuf_addf(x, "    <properties><property name=\"profile\" value=\"%s\"/></properties>\n",
           dc_profile_name(devs[i].profile));
    for (size_t j = 0; j < nc; j++) {
      const dc_case_t* k = &cases[i][j];
      dh_sbuf_addf(x, "    <testcase classname=\"");
      xml_esc(x, devs[i].name);
      dh_sbuf_addf(x, "\" name=\"");
      xml_esc(x, k->clause->id);
      dh_sbuf_addf(x, "\" time=\"%.3f\"", k->ms / 1000.0);
      if (k->status == DC_PASS && !k->todo) {
        dh_sbuf_addf(x, "/>\n");
        continue;
      }
      dh_sbuf_addf(x, ">\n");
      if (k->status == DC_SKIP || k->todo) {
        char m[1200];
        if (k->status == DC_SKIP) dc_fmt(m, sizeof m, "%s", k->reason);
        else
          dc_fmt(m, sizeof m, "expected failure (xfail: %s)%s%s", k->reason,
              k->status == DC_FAIL ? ": " : " passed", k->status == DC_FAIL ? k->r.message : "");
        dh_sbuf_addf(x, "      <skipped message=\"");
        xml_esc(x, m);
        dh_sbuf_addf(x, "\">");
        xml_esc(x, m);
        dh_sbuf_addf(x, "</skipped>\n");
      } else {
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
      dh_sbuf_addf(x, "    </testcase>\n");
    }
    dh_sbuf_addf(x, "  </testsuite>\n");
  }
  dh_sbuf_addf(x, "</testsuites>\n");
}

static const char* needs_text(uint32_t needs) {
  static char buf[128];
  buf[0] = 0;
  if (needs & DC_NEED_MULTI_QUEUE) strcat(buf, "multi-queue ");
  if (needs & DC_NEED_HOST_PTR) strcat(buf, "host-pointer ");
  if (needs & DC_NEED_TWO_DEVICES) strcat(buf, "2 devices ");
  if (needs & DC_NEED_TARGET) strcat(buf, "--target ");
  if (needs & DC_NEED_PINNED_HOST) strcat(buf, "pinned-host ");
  if (needs & DC_NEED_FUNCTIONS) strcat(buf, "functions ");
  if (needs & DC_NEED_OPAQUE) strcat(buf, "opaque-handles ");
  size_t n = strlen(buf);
  if (n) buf[n - 1] = 0;
  else strcpy(buf, "-");
  return buf;
}

static void md_cell(const char* s) {
  for (; *s; s++) {
    if (*s == '|') fputs("\\|", stdout);
    else putchar(*s);
  }
}

int dc_list(const dc_opts_t* o, const dh_clause_t* const* cl, size_t n) {
  if (!o->markdown) {
    for (size_t i = 0; i < n; i++)
      if (dc_selected(o, cl[i]->id) && (!o->profile || cl[i]->profile <= o->profile))
        printf("%-28s %-6s %-6s %s\n", cl[i]->id, cl[i]->level == DC_MUST ? "must" : "should",
               dc_profile_name(cl[i]->profile), cl[i]->statement);
    return DH_EXIT_OK;
  }
  const char* fams[] = {"attr", "mem", "copy", "stream", "packed", "device", "event", "cap"};
  enum { NFAM = sizeof fams / sizeof fams[0] };
  size_t counts[NFAM] = {0};
  size_t total = 0, n_tvm = 0;
  for (size_t i = 0; i < n; i++) {
    if (!dc_selected(o, cl[i]->id)) continue;
    total++;
    if (cl[i]->profile == DC_PROFILE_TVM) n_tvm++;
    for (int f = 0; f < NFAM; f++)
      if (strncmp(cl[i]->id, fams[f], strlen(fams[f])) == 0 && cl[i]->id[strlen(fams[f])] == '.')
        counts[f]++;
  }
  printf("# Conformance clauses\n\n"
         "<!-- Generated by `devharness conformance --list --format markdown`; do not edit. -->\n\n"
         "Every clause is checked on every device of every loaded backend; the contract\n"
         "they check, method by method, is docs/contract.md.\n"
         "Level *must* is the DeviceAPI contract; *should* is expected behaviour whose absence\n"
         "is still reported. *Needs* names what a device must have for the clause to run;\n"
         "without it the clause is reported as `# SKIP` with the reason.\n\n"
         "*Profile* `tvm` is what TVM's documented DeviceAPI contract requires of every\n"
         "DeviceAPI (apache/tvm docs/arch/device_target_interactions.rst §DeviceAPI, the doc\n"
         "comments of include/tvm/runtime/device_api.h, tvm-ffi's C ABI); `strict` is `tvm`\n"
         "plus devharness's sharper rules. `--profile tvm|strict` picks one; the default is\n"
         "`strict`, except for a backend that declares its own (`default_profile` in\n"
         "devharness/backend.h: the tvm-* backends declare `tvm`). In a `tvm` run the strict\n"
         "clauses report `# SKIP` with the reason; TAP, JUnit and the run summary name the\n"
         "profile of each device. *Source* says exactly where the rule comes from: a TVM docs\n"
         "section with its line numbers (apache/tvm docs/arch/device_target_interactions.rst\n"
         "as of the 0.27 line: unchanged since commit 4d4351d), a TVM file:line of the\n"
         "apache-tvm 0.27.0 package (`apache/tvm 0.27`), tvm-ffi 0.1.15 file:line, an anchor\n"
         "suite (IREE HAL CTS, OpenCL-CTS), or `devharness` for a rule of our own.\n\n"
         "%zu clauses (%zu in profile tvm):", total, n_tvm);
  for (int f = 0; f < NFAM; f++) printf(" %s %zu%s", fams[f], counts[f], f < NFAM - 1 ? "," : ".\n\n");
  printf("| id | level | profile | statement | source | needs |\n|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < n; i++) {
    if (!dc_selected(o, cl[i]->id)) continue;
    printf("| `%s` | %s | %s | ", cl[i]->id, cl[i]->level == DC_MUST ? "must" : "should",
           dc_profile_name(cl[i]->profile));
    md_cell(cl[i]->statement);
    printf(" | ");
    md_cell(cl[i]->source);
    printf(" | %s |\n", needs_text(cl[i]->needs));
  }
  printf("\n## Proof of power\n\n"
         "Generated from tests/conformance/faulty.t (faulty backends: the sim with one fault, each\n"
         "run through the whole suite by `make test`, which checks that exactly the listed clauses\n"
         "fail) and the last `make mutate` (tests/conformance/mutate.py: small faults applied to\n"
         "the sim's sources, each caught in 5 runs of 5). *(only)*: this clause alone fails for\n"
         "that fault (a faulty backend: in the whole suite; a mutant: among the clauses\n"
         "mutate.py runs it against). A clause that no fault fails says why.\n\n"
         "| id | faulty backends | sim mutants | why none |\n|---|---|---|---|\n");
  for (size_t i = 0; i < dc_power_count; i++) {
    if (!dc_selected(o, dc_power[i].id)) continue;
    printf("| `%s` | ", dc_power[i].id);
    md_cell(dc_power[i].faulty[0] ? dc_power[i].faulty : "-");
    printf(" | ");
    md_cell(dc_power[i].mutants[0] ? dc_power[i].mutants : "-");
    printf(" | ");
    md_cell(dc_power[i].note);
    printf(" |\n");
  }
  printf("\n## Running\n\n"
         "```\n"
         "devharness conformance                       # every device of every backend\n"
         "devharness conformance --device sim:0        # one device\n"
         "devharness conformance --plugin ./libdevharness_foo.so --timeout 5\n"
         "devharness conformance --target nvidia/h100 --junit out.xml --tap out.tap\n"
         "devharness conformance --filter 'copy.*,stream.sync_*'\n"
         "devharness conformance --device tvm-cpu:0 --profile strict\n"
         "```\n\n"
         "Each case runs in a forked child (own process group) with a timeout (default 10 s);\n"
         "a crash is `not ok` with `\\# crashed: SIGSEGV` in its description (the `#` escaped as\n"
         "TAP requires: it is no directive), a hang `\\# timed out after 10 s`, with the\n"
         "child's last stderr lines in the YAML diagnostics, and the run goes on; in JUnit both\n"
         "are `<error>`, a violated clause `<failure>`, a skip `<skipped>` with the reason as text.\n"
         "A backend with no device is `ok N - NAME (no device) # SKIP reason` at the outer\n"
         "level too, and the last line says `NO DEVICE` loudly.\n"
         "`--no-fork` runs in-process for debuggers. Exit status: 0 all kept, 1 violations,\n"
         "2 usage or input error, 3 no device (no selected backend has a device: nothing was\n"
         "tested).\n\n"
         "## Waivers\n\n"
         "`targets/waivers/<backend>.json` is loaded automatically for that backend's devices;\n"
         "`--waivers FILE` adds more:\n\n"
         "```json\n"
         "{\"waivers\": [{\"clause\": \"attr.available_*\", \"kind\": \"skip\", \"reason\": \"...\"},\n"
         "             {\"clause\": \"stream.sync_waits\", \"kind\": \"xfail\", \"reason\": \"bug 12\"}]}\n"
         "```\n\n"
         "`skip` reports `# SKIP reason` without running the clause; `xfail` runs it and reports\n"
         "`# TODO reason` (a failure does not fail the run; with `--verify-xfails` a pass does).\n"
         "A waiver without a reason, an unknown kind, a bad glob or malformed JSON is an input\n"
         "error (exit 2) naming the file and line:column or entry index.\n\n"
         "Waived cases are counted: the TAP summary line ends with `N cases waived (S skip, X\n"
         "xfail)`, stderr repeats the count, a waiver whose glob matches every clause is warned\n"
         "about, and `--max-waived N` makes a run with more than N waived cases fail (exit 1), so\n"
         "a CI job can bound what waivers hide.\n");
  return DH_EXIT_OK;
}

