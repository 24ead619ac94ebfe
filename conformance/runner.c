/*
 * conformance/runner.c — `devharness conformance`: runs every clause x every device,
 * each case in a forked child with a timeout, and reports TAP / JUnit (the contract:
 * docs/contract.md; the clauses: docs/conformance.md).
 *
 * Fork safety: the parent loads plugins (dlopen only) but never initialises a
 * backend — backends start threads and fork copies only the calling thread. Devices
 * are discovered in a forked probe child per backend; every case runs in a fresh
 * child (own process group) that sets the device, runs the clause, writes its result
 * record to a pipe and _exits. A child that does not answer within --timeout seconds
 * has its process group SIGKILLed.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "conformance.h"
#include "waivers.h"
#include "runtime/text.h"

#define EXIT_OK 0
#define EXIT_VIOLATIONS 1
#define EXIT_USAGE 2
/* Every selected backend has no device (or no backend loaded): nothing was tested. */
#define EXIT_NO_DEVICE 3

/* snprintf that truncates silently (messages are bounded on purpose). */
static void fmt(char* dst, size_t size, const char* f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char* dst, size_t size, const char* f, ...) {
  va_list ap;
  va_start(ap, f);
  vsnprintf(dst, size, f, ap);
  va_end(ap);
}

/*===========================================================================
 * Growable string
 *===========================================================================*/

typedef struct {
  char* p;
  size_t n, cap;
} sbuf_t;

static void sb_add(sbuf_t* b, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(sbuf_t* b, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (k < 0) return;
  if (b->n + (size_t)k + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + (size_t)k + 1) cap *= 2;
    char* np = realloc(b->p, cap);
    if (!np) return;
    b->p = np;
    b->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
  va_end(ap);
  b->n += (size_t)k;
}

/*===========================================================================
 * Options and state
 *===========================================================================*/

typedef struct {
  const dh_backend_t* backend;
  int id;            /* device id, or -1 for a backend without devices */
  int count;         /* devices of the backend */
  char name[96];     /* "sim:0" or "cuda (no device)" */
  char reason[512];  /* why no device / probe failure */
  int probe_failed;  /* the probe itself crashed or errored (a violation) */
  dc_waivers_t waivers; /* backend's automatic waiver file */
  int profile;       /* DC_PROFILE_TVM / DC_PROFILE_STRICT this device runs */
  int profile_from_backend; /* 1 when profile is the backend's default_profile */
} dev_t_;

typedef struct {
  const dh_clause_t* clause;
  int status;       /* DC_PASS / DC_FAIL / DC_SKIP */
  int todo;         /* xfail waiver applied */
  int counts;       /* 1 when it is a violation of the run */
  char reason[512]; /* skip / todo reason */
  char note[96];    /* "crashed: SIGSEGV" / "timed out after 10 s" */
  dh_conf_ctx_t r;
  char err_tail[1024];
  double ms;
  const dc_waiver_t* waiver; /* matching waiver, or NULL */
  int waived;       /* a waiver decided this case (skip applied, or xfail applied) */
} case_t;

typedef struct {
  const char** filters;
  size_t n_filters;
  const char* device_spec;
  const char** plugins;
  size_t n_plugins;
  const char* target_arg;
  const char* tap_path;
  const char* junit_path;
  const char** waiver_paths;
  size_t n_waiver_paths;
  int timeout_s;
  int no_fork;
  int list;
  int markdown;
  int tap_version;
  int verify_xfails;
  int progress;
  int jobs;
  int profile;       /* --profile; 0 = each backend's default (strict unless it declares one) */
  long max_waived;  /* -1: no limit */
} opts_t;

static dh_target_t* g_target;
static dc_waivers_t g_waivers;
/* Everything a run allocates before its last usage check, freed by cleanup(). */
static char** g_owned;   /* option value copies (add_list) */
static size_t g_n_owned;
static opts_t* g_opts;
static const dh_clause_t** g_cl;
static struct dev_list {
  void* devs;
  size_t n;
} g_devs;

static void usage(FILE* f) {
  fprintf(f,
          "usage: devharness conformance [options]\n"
          "\n"
          "Runs every conformance clause on every device of every loaded backend; each case\n"
          "runs in a forked child with a timeout. TAP on stdout (TAP-14 subtests, one per\n"
          "device, under a 'TAP version 13' header unless --tap-version 14).\n"
          "\n"
          "options:\n"
          "  --device NAME:ID     run on this device only (e.g. cpu:0, sim:1)\n"
          "  --plugin PATH        load only this plugin instead of default discovery (repeatable)\n"
          "  --target FILE|TAG    check devices of that kind against the target (attr.target_match)\n"
          "  --filter GLOB        run clauses whose id matches (fnmatch; repeatable, comma-separated)\n"
          "  --waivers FILE       waiver file {\"waivers\": [{clause, kind: skip|xfail, reason}]};\n"
          "                       targets/waivers/<backend>.json is loaded automatically\n"
          "  --verify-xfails      an xfail clause that passes is a failure\n"
          "  --profile tvm|strict clauses to hold devices to: tvm = TVM's documented DeviceAPI\n"
          "                       contract, strict = tvm + devharness's sharper rules (default:\n"
          "                       strict, or the backend's declared default_profile)\n"
          "  --max-waived N       more than N cases decided by a waiver (skip or xfail) is a\n"
          "                       failure of the run (exit 1); the summary always counts them\n"
          "  --timeout SEC        per-case timeout (default 10)\n"
          "  --no-fork            run cases in this process (for debuggers; no timeout)\n"
          "  --jobs N             run up to N cases of a device at once (default 1; output\n"
          "                       order unchanged; timing-sensitive clauses prefer 1)\n"
          "  --tap FILE           also write the TAP stream to FILE\n"
          "  --junit FILE         write JUnit XML to FILE\n"
          "  --tap-version 13|14  header of the TAP stream (default 13: prove 3.44 rejects 14)\n"
          "  --list               list clause ids, levels and statements, run nothing\n"
          "  --format text|markdown  format of --list (markdown: the docs/conformance.md table)\n"
          "  --help               this text\n"
          "\n"
          "exit status: 0 every clause kept, 1 violations, 2 usage or input error,\n"
          "  3 no device: no selected backend has a device, nothing was tested (every\n"
          "  clause and device is # SKIP with the reason)\n");
}

static int usage_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
/* User text in a usage error, escaped and capped (runtime/text.h) so that the reason
 * after it always fits; four rotating buffers, for up to four strings per message. */
static const char* uq(const char* s) {
  static char bufs[4][DH_TEXT_BUF];
  static int next;
  char* b = bufs[next++ & 3];
  return dh_text_quote(s, b, DH_TEXT_BUF);
}

/* One line on stderr: control characters that reached the message from user text
 * (file names, device specs, globs) are written as \n, \xNN, never raw. */
static int usage_error(const char* fmt, ...) {
  char msg[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "devharness conformance: ");
  for (const unsigned char* p = (const unsigned char*)msg; *p; p++) {
    if (*p == '\n') fputs("\\n", stderr);
    else if (*p < 0x20 || *p == 0x7f) fprintf(stderr, "\\x%02x", *p);
    else fputc(*p, stderr);
  }
  fputc('\n', stderr);
  return EXIT_USAGE;
}

/* Appends a comma-separated list to a growable array of strings. */
static int add_list(const char*** arr, size_t* n, const char* value, int split) {
  char* copy = strdup(value);
  if (!copy) return -1;
  char** no = realloc(g_owned, (g_n_owned + 1) * sizeof *no);
  if (!no) {
    free(copy);
    return -1;
  }
  g_owned = no;
  g_owned[g_n_owned++] = copy;
  char* save = NULL;
  for (char* tok = split ? strtok_r(copy, ",", &save) : copy; tok;
       tok = split ? strtok_r(NULL, ",", &save) : NULL) {
    const char** na = realloc(*arr, (*n + 1) * sizeof *na);
    if (!na) return -1;
    *arr = na;
    (*arr)[(*n)++] = tok;
    if (!split) break;
  }
  return 0;
}

static int parse_opts(int argc, char** argv, opts_t* o, int* exit_now) {
  memset(o, 0, sizeof *o);
  o->timeout_s = 10;
  o->tap_version = 13;
  o->jobs = 1;
  o->max_waived = -1;
  *exit_now = -1;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    const char* val = NULL;
    char name[64];
    const char* eq = strchr(a, '=');
    if (strncmp(a, "--", 2) == 0 && eq && (size_t)(eq - a) < sizeof name) {
      memcpy(name, a, (size_t)(eq - a));
      name[eq - a] = 0;
      val = eq + 1;
    } else {
      fmt(name, sizeof name, "%s", a);
    }
    static const char* with_arg[] = {"--device", "--plugin", "--target", "--filter", "--waivers",
                                     "--timeout", "--tap", "--junit", "--tap-version", "--format", "--jobs", "--profile",
                                     "--max-waived",
                                     NULL};
    int takes = 0;
    for (int k = 0; with_arg[k]; k++)
      if (strcmp(name, with_arg[k]) == 0) takes = 1;
    if (takes && !val) {
      if (i + 1 >= argc) return usage_error("option %s needs a value", name);
      val = argv[++i];
    } else if (!takes && val) {
      return usage_error("option %s takes no value", name);
    }
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
      usage(stdout);
      *exit_now = 0;
      return 0;
    } else if (strcmp(name, "--device") == 0) {
      o->device_spec = val;
    } else if (strcmp(name, "--plugin") == 0) {
      if (add_list(&o->plugins, &o->n_plugins, val, 0)) return usage_error("out of memory");
    } else if (strcmp(name, "--target") == 0) {
      o->target_arg = val;
    } else if (strcmp(name, "--filter") == 0) {
      if (add_list(&o->filters, &o->n_filters, val, 1)) return usage_error("out of memory");
    } else if (strcmp(name, "--waivers") == 0) {
      if (add_list(&o->waiver_paths, &o->n_waiver_paths, val, 0)) return usage_error("out of memory");
    } else if (strcmp(name, "--timeout") == 0) {
      char* end = NULL;
      long t = strtol(val, &end, 10);
      if (!*val || *end || t < 1 || t > 86400)
        return usage_error("--timeout: expected whole seconds 1..86400, got \"%s\"", uq(val));
      o->timeout_s = (int)t;
    } else if (strcmp(name, "--jobs") == 0 || strcmp(name, "-j") == 0) {
      char* end = NULL;
      long t = strtol(val, &end, 10);
      if (!*val || *end || t < 1 || t > 64)
        return usage_error("--jobs: expected 1..64 parallel cases, got \"%s\"", uq(val));
      o->jobs = (int)t;
    } else if (strcmp(name, "--max-waived") == 0) {
      char* end = NULL;
      long t = strtol(val, &end, 10);
      if (!*val || *end || t < 0 || t > 100000000)
        return usage_error("--max-waived: expected a count 0..100000000 of waived cases, got \"%s\"", uq(val));
      o->max_waived = t;
    } else if (strcmp(name, "--tap") == 0) {
      o->tap_path = val;
    } else if (strcmp(name, "--junit") == 0) {
      o->junit_path = val;
    } else if (strcmp(name, "--tap-version") == 0) {
      if (strcmp(val, "13") == 0) o->tap_version = 13;
      else if (strcmp(val, "14") == 0) o->tap_version = 14;
      else return usage_error("--tap-version: expected 13 or 14, got \"%s\"", uq(val));
    } else if (strcmp(name, "--format") == 0) {
      if (strcmp(val, "markdown") == 0) o->markdown = 1;
      else if (strcmp(val, "text") == 0) o->markdown = 0;
      else return usage_error("--format: expected text or markdown, got \"%s\"", uq(val));
    } else if (strcmp(name, "--profile") == 0) {
      if (strcmp(val, "tvm") == 0) o->profile = DC_PROFILE_TVM;
      else if (strcmp(val, "strict") == 0) o->profile = DC_PROFILE_STRICT;
      else return usage_error("--profile: expected tvm or strict, got \"%s\"", uq(val));
    } else if (strcmp(name, "--no-fork") == 0) {
      o->no_fork = 1;
    } else if (strcmp(name, "--list") == 0) {
      o->list = 1;
    } else if (strcmp(name, "--verify-xfails") == 0) {
      o->verify_xfails = 1;
    } else {
      return usage_error("unknown option \"%s\" (see --help)", uq(a));
    }
  }
  return 0;
}

/*===========================================================================
 * Clause selection and listing
 *===========================================================================*/

static const char* profile_name(int p) {
  return p == DC_PROFILE_TVM ? "tvm" : p == DC_PROFILE_STRICT ? "strict" : "unset";
}

static int selected(const opts_t* o, const char* id) {
  if (o->n_filters == 0) return 1;
  for (size_t i = 0; i < o->n_filters; i++)
    if (fnmatch(o->filters[i], id, 0) == 0) return 1;
  return 0;
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

static int do_list(const opts_t* o, const dh_clause_t* const* cl, size_t n) {
  if (!o->markdown) {
    for (size_t i = 0; i < n; i++)
      if (selected(o, cl[i]->id) && (!o->profile || cl[i]->profile <= o->profile))
        printf("%-28s %-6s %-6s %s\n", cl[i]->id, cl[i]->level == DC_MUST ? "must" : "should",
               profile_name(cl[i]->profile), cl[i]->statement);
    return EXIT_OK;
  }
  const char* fams[] = {"attr", "mem", "copy", "stream", "packed", "device", "event", "cap"};
  enum { NFAM = sizeof fams / sizeof fams[0] };
  size_t counts[NFAM] = {0};
  size_t total = 0, n_tvm = 0;
  for (size_t i = 0; i < n; i++) {
    if (!selected(o, cl[i]->id)) continue;
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
    if (!selected(o, cl[i]->id)) continue;
    printf("| `%s` | %s | %s | ", cl[i]->id, cl[i]->level == DC_MUST ? "must" : "should",
           profile_name(cl[i]->profile));
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
    if (!selected(o, dc_power[i].id)) continue;
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
  return EXIT_OK;
}

/*===========================================================================
 * Child processes
 *===========================================================================*/

static int write_all(int fd, const void* p, size_t n) {
  const char* c = p;
  while (n) {
    ssize_t k = write(fd, c, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    c += k;
    n -= (size_t)k;
  }
  return 0;
}

static const char* sig_name(int sig, char* buf, size_t n) {
  const char* abbr = sigabbrev_np(sig);
  if (abbr) fmt(buf, n, "SIG%s", abbr);
  else fmt(buf, n, "signal %d", sig);
  return buf;
}

typedef struct {
  int status;        /* 0 answered, 1 crashed, 2 timed out, 3 no answer (exit) */
  char note[96];
  char* data;        /* what the child wrote (malloc'd) */
  size_t size;
  char err_tail[1024];
  double ms;
} child_result_t;

/* Last `lines` lines of the file behind fd (from its start), into out. */
static void tail_of(int fd, char* out, size_t out_size, int lines) {
  out[0] = 0;
  off_t end = lseek(fd, 0, SEEK_END);
  if (end <= 0) return;
  size_t want = (size_t)end < out_size - 1 ? (size_t)end : out_size - 1;
  if (pread(fd, out, want, end - (off_t)want) != (ssize_t)want) {
    out[0] = 0;
    return;
  }
  out[want] = 0;
  size_t len = want;
  while (len && out[len - 1] == '\n') out[--len] = 0;
  int seen = 0;
  for (size_t i = len; i > 0; i--) {
    if (out[i - 1] == '\n' && ++seen == lines) {
      memmove(out, out + i, len - i + 1);
      return;
    }
  }
}

/* Runs fn(arg, fd) in a forked child in its own process group, with stdout/stderr
 * going to a temporary file. Collects what the child writes to fd until EOF or the
 * timeout. */
/* A child in flight. */
typedef struct {
  pid_t pid;
  int rfd;          /* read end of the result pipe; -1 after EOF */
  FILE* errf;       /* the child's stdout+stderr */
  double t0, deadline;
  int timeout_s;
  size_t cap;
  int timed_out;
  int active;       /* started and not yet finished */
  child_result_t r;
} job_t;

/* Forks fn(arg, fd) in its own process group with stdout/stderr going to a temporary
 * file. On failure j->active is 0 and j->r says why. */
static void job_start(job_t* j, void (*fn)(void* arg, int fd), void* arg, int timeout_s) {
  memset(j, 0, sizeof *j);
  j->rfd = -1;
  j->timeout_s = timeout_s;
  int pfd[2];
  FILE* errf = tmpfile();
  if (!errf || pipe(pfd) != 0) {
    j->r.status = 3;
    fmt(j->r.note, sizeof j->r.note, "runner: pipe/tmpfile failed: %s", strerror(errno));
    if (errf) fclose(errf);
    return;
  }
  int errfd = fileno(errf);
  fflush(stdout);
  fflush(stderr);
  j->t0 = dc_now_ms();
  j->deadline = j->t0 + timeout_s * 1000.0;
  pid_t pid = fork();
  if (pid < 0) {
    j->r.status = 3;
    fmt(j->r.note, sizeof j->r.note, "runner: fork failed: %s", strerror(errno));
    close(pfd[0]);
    close(pfd[1]);
    fclose(errf);
    return;
  }
  if (pid == 0) {
    setpgid(0, 0);
    close(pfd[0]);
    dup2(errfd, 1);
    dup2(errfd, 2);
    signal(SIGPIPE, SIG_DFL);
    fn(arg, pfd[1]);
    _exit(0);
  }
  setpgid(pid, pid); /* also here, so the kill below cannot miss the group */
  close(pfd[1]);
  j->pid = pid;
  j->rfd = pfd[0];
  j->errf = errf;
  j->active = 1;
}

/* Reads what is available (after poll said so); 1 at EOF. */
static int job_read(job_t* j) {
  if (j->r.size + 4096 > j->cap) {
    size_t cap = j->cap ? j->cap * 2 : 8192;
    char* nd = realloc(j->r.data, cap);
    if (!nd) return 1;
    j->r.data = nd;
    j->cap = cap;
  }
  ssize_t n = read(j->rfd, j->r.data + j->r.size, j->cap - j->r.size);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return 0;
  if (n <= 0) return 1;
  j->r.size += (size_t)n;
  return 0;
}

/* After EOF or the deadline: reaps the child (killing its group on timeout) and
 * fills j->r. */
static void job_finish(job_t* j) {
  if (j->rfd >= 0) close(j->rfd);
  j->rfd = -1;
  int st = 0;
  if (!j->timed_out) {
    /* EOF seen: the child is exiting; give it until the deadline */
    for (;;) {
      pid_t w = waitpid(j->pid, &st, WNOHANG);
      if (w == j->pid) break;
      if (w < 0 && errno != EINTR) break;
      if (dc_now_ms() > j->deadline) {
        j->timed_out = 1;
        break;
      }
      struct timespec ts = {0, 1000000};
      nanosleep(&ts, NULL);
    }
  }
  child_result_t* r = &j->r;
  if (j->timed_out) {
    kill(-j->pid, SIGKILL);
    kill(j->pid, SIGKILL);
    waitpid(j->pid, &st, 0);
    r->status = 2;
    fmt(r->note, sizeof r->note, "timed out after %d s", j->timeout_s);
  } else if (WIFSIGNALED(st)) {
    char sb[32];
    r->status = 1;
    fmt(r->note, sizeof r->note, "crashed: %s", sig_name(WTERMSIG(st), sb, sizeof sb));
  } else if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
    r->status = 3;
    fmt(r->note, sizeof r->note, "crashed: exit status %d", WEXITSTATUS(st));
  }
  /* anything else left in the group (stray grandchildren) */
  kill(-j->pid, SIGKILL);
  r->ms = dc_now_ms() - j->t0;
  tail_of(fileno(j->errf), r->err_tail, sizeof r->err_tail, 6);
  fclose(j->errf);
  j->errf = NULL;
  j->active = 0;
}

/* Waits until at least one of the n jobs finishes (or none is active); finishes it.
 * Returns the index of a finished job, or -1 when none was active. */
static int jobs_wait_any(job_t* jobs, size_t n) {
  struct pollfd pf[64];
  size_t idx[64];
  for (;;) {
    size_t m = 0;
    double now = dc_now_ms(), next = now + 100000;
    for (size_t i = 0; i < n && m < 64; i++) {
      if (!jobs[i].active) continue;
      if (now >= jobs[i].deadline) {
        jobs[i].timed_out = 1;
        job_finish(&jobs[i]);
        return (int)i;
      }
      if (jobs[i].deadline < next) next = jobs[i].deadline;
      pf[m].fd = jobs[i].rfd;
      pf[m].events = POLLIN;
      pf[m].revents = 0;
      idx[m++] = i;
    }
    if (m == 0) return -1;
    int k = poll(pf, (nfds_t)m, (int)(next - now) + 1);
    if (k < 0 && errno != EINTR) return -1;
    for (size_t q = 0; k > 0 && q < m; q++) {
      if (!pf[q].revents) continue;
      job_t* j = &jobs[idx[q]];
      if (job_read(j)) {
        job_finish(j);
        return (int)idx[q];
      }
    }
  }
}

/* Runs fn(arg, fd) in a forked child and waits for it (see job_start). */
static void run_child(void (*fn)(void* arg, int fd), void* arg, int timeout_s, child_result_t* r) {
  job_t j;
  job_start(&j, fn, arg, timeout_s);
  if (j.active) jobs_wait_any(&j, 1);
  *r = j.r;
}

/*===========================================================================
 * Device discovery
 *===========================================================================*/

static void count_devices(const dh_backend_t* b, int* out_count, char* reason, size_t rsize) {
  reason[0] = 0;
  const char* why = dh_backend_unavailable_reason(b);
  if (why) fmt(reason, rsize, "%s", why);
  /* A device counts when the backend's count (device_count, else kExist) includes it
   * AND set_device accepts its id: an independent route, so a backend that
   * over-reports gets no phantom device (which would fail every clause) and the clauses
   * attr.exist_count / attr.exist_past_last name the over-report instead. */
  int n = 0;
  if (b->device_count != NULL) { /* the backend counts (backend.h, ABI 1.1) */
    if (dh_backend_device_count(b, &n) != 0) {
      fmt(reason, rsize, "device_count failed: %s", dh_error_message());
      n = 0;
    }
  } else {
    for (; n < DH_MAX_DEVICES_PER_BACKEND; n++) {
      DLDevice d = {b->device_type, n};
      dh_any_t v = dh_any_none();
      if (dh_device_get_attr(d, DH_ATTR_EXIST, &v) != 0) break;
      if (v.type_index != DH_TYPE_INT || v.v_int64 != 1) break;
    }
  }
  for (int id = 0; id < n; id++) {
    DLDevice d = {b->device_type, id};
    if (dh_device_set_device(d) != 0) {
      n = id;
      break;
    }
  }
  dh_error_clear();
  if (n == 0 && !reason[0]) fmt(reason, rsize, "backend reports no device (kExist 0 for id 0)");
  *out_count = n;
}

static void probe_child(void* arg, int fd) {
  const dh_backend_t* b = arg;
  int count = 0;
  char reason[512];
  count_devices(b, &count, reason, sizeof reason);
  char buf[600];
  fmt(buf, sizeof buf, "%d\n%s", count, reason);
  int k = (int)strlen(buf);
  write_all(fd, buf, (size_t)k);
}

static void probe(const opts_t* o, const dh_backend_t* b, int* count, char* reason, size_t rsize,
                  int* failed) {
  *failed = 0;
  if (o->no_fork) {
    count_devices(b, count, reason, rsize);
    return;
  }
  child_result_t r;
  run_child(probe_child, (void*)b, o->timeout_s, &r);
  if (r.status != 0 || r.size == 0) {
    *count = 0;
    *failed = 1;
    fmt(reason, rsize, "device probe (init, kExist) %s", r.status ? r.note : "gave no answer");
    if (r.err_tail[0]) {
      strncat(reason, "; stderr: ", rsize - strlen(reason) - 1);
      strncat(reason, r.err_tail, rsize - strlen(reason) - 1);
    }
  } else {
    char* text = malloc(r.size + 1);
    memcpy(text, r.data, r.size);
    text[r.size] = 0;
    *count = atoi(text);
    char* nl = strchr(text, '\n');
    fmt(reason, rsize, "%s", nl ? nl + 1 : "");
    free(text);
  }
  free(r.data);
}

/*===========================================================================
 * Running one case
 *===========================================================================*/

typedef struct {
  dh_conf_ctx_t ctx;
} case_arg_t;

static void execute(dh_conf_ctx_t* c) {
  c->status = DC_PASS;
  c->message[0] = c->expected[0] = c->got[0] = c->file[0] = c->details[0] = 0;
  c->line = 0;
  dh_error_clear();
  if (dh_device_set_device(c->dev) != 0) {
    dc_fail_call(c, __FILE__, __LINE__, "set_device before the clause");
    return;
  }
  c->clause->run(c);
}

static void case_child(void* arg, int fd) {
  case_arg_t* a = arg;
  execute(&a->ctx);
  write_all(fd, &a->ctx, sizeof a->ctx);
}

static const char* need_reason(uint32_t missing, const dev_t_* d, const char* target_why) {
  if (missing & DC_NEED_MULTI_QUEUE) return "single queue: create_stream returns NULL";
  if (missing & DC_NEED_HOST_PTR)
    return "opaque handles: no DH_CAP_HOST_POINTER_ARITHMETIC, addresses are not observable";
  if (missing & DC_NEED_TWO_DEVICES) return d->count == 1 ? "only one device" : "needs two devices";
  if (missing & DC_NEED_TARGET) return target_why;
  if (missing & DC_NEED_PINNED_HOST)
    return "no pinned host memory: no DH_CAP_PINNED_HOST (alloc_host/free_host)";
  if (missing & DC_NEED_FUNCTIONS)
    return "no module functions: the backend lists none (noop/fill/echo/raise absent)";
  if (missing & DC_NEED_OPAQUE)
    return "handles are host addresses (DH_CAP_HOST_POINTER_ARITHMETIC, as TVM's CPU DeviceAPI): "
           "a freed handle cannot be told from a live one";
  return "requirement missing";
}

/* Decides skips and builds the child's context. Returns 1 when the case must run
 * (a is filled), 0 when *out is already final. */
static int case_prepare(const opts_t* o, const dev_t_* d, const dh_clause_t* cl, case_t* out,
                        case_arg_t* a) {
  memset(out, 0, sizeof *out);
  out->clause = cl;
  /* waivers: --waivers first, then the backend's own file */
  const dc_waiver_t* w = dc_waivers_match(&g_waivers, cl->id);
  if (!w) w = dc_waivers_match(&d->waivers, cl->id);
  out->waiver = w;
  if (d->id < 0) {
    out->status = d->probe_failed ? DC_FAIL : DC_SKIP;
    fmt(out->reason, sizeof out->reason, "%s", d->reason);
    if (d->probe_failed) {
      fmt(out->r.message, sizeof out->r.message, "%s", d->reason);
      fmt(out->r.expected, sizeof out->r.expected, "backend init and kExist answer");
      fmt(out->r.got, sizeof out->r.got, "%s", "no answer");
      fmt(out->r.file, sizeof out->r.file, "%s", "(device probe)");
      out->counts = 1;
    }
    return 0;
  }
  if (cl->profile > d->profile) {
    out->status = DC_SKIP;
    out->waiver = NULL;
    fmt(out->reason, sizeof out->reason, "profile %s clause (%s); this run holds %s to profile %s",
        profile_name(cl->profile), cl->source, d->name, profile_name(d->profile));
    return 0;
  }
  if (w && w->kind == DC_WAIVE_SKIP) {
    out->status = DC_SKIP;
    out->waived = 1;
    fmt(out->reason, sizeof out->reason, "%s", w->reason);
    return 0;
  }
  /* requirements */
  uint32_t missing = 0;
  const char* target_why = "no --target given";
  char twhy[256];
  int target_applies = 0;
  if (g_target) {
    const char* k = dh_target_kind_name(g_target);
    if (d->backend->target_kind && k && strcmp(d->backend->target_kind, k) == 0) {
      target_applies = 1;
    } else {
      fmt(twhy, sizeof twhy, "target kind %s does not apply to backend %s (kind %s)",
               k ? k : "?", d->backend->name,
               d->backend->target_kind ? d->backend->target_kind : "none");
      target_why = twhy;
    }
  }
  if ((cl->needs & DC_NEED_MULTI_QUEUE) && (d->backend->caps & DH_CAP_SINGLE_QUEUE))
    missing |= DC_NEED_MULTI_QUEUE;
  if ((cl->needs & DC_NEED_HOST_PTR) && !(d->backend->caps & DH_CAP_HOST_POINTER_ARITHMETIC))
    missing |= DC_NEED_HOST_PTR;
  if ((cl->needs & DC_NEED_TWO_DEVICES) && d->count < 2) missing |= DC_NEED_TWO_DEVICES;
  if ((cl->needs & DC_NEED_TARGET) && !target_applies) missing |= DC_NEED_TARGET;
  if ((cl->needs & DC_NEED_PINNED_HOST) &&
      (!(d->backend->caps & DH_CAP_PINNED_HOST) || !d->backend->alloc_host || !d->backend->free_host))
    missing |= DC_NEED_PINNED_HOST;
  if ((cl->needs & DC_NEED_FUNCTIONS) && d->backend->num_functions == 0) missing |= DC_NEED_FUNCTIONS;
  if ((cl->needs & DC_NEED_OPAQUE) && (d->backend->caps & DH_CAP_HOST_POINTER_ARITHMETIC))
    missing |= DC_NEED_OPAQUE;
  if (missing) {
    out->status = DC_SKIP;
    fmt(out->reason, sizeof out->reason, "%s", need_reason(missing, d, target_why));
    return 0;
  }
  memset(a, 0, sizeof *a);
  a->ctx.dev.device_type = d->backend->device_type;
  a->ctx.dev.device_id = d->id;
  a->ctx.backend = d->backend;
  a->ctx.num_devices = d->count;
  a->ctx.target = target_applies ? g_target : NULL;
  a->ctx.target_name = o->target_arg;
  a->ctx.clause = cl;
  return 1;
}

/* Fills *out from a child's answer (or its crash / timeout). Frees r->data. */
static void case_from_child(const opts_t* o, case_t* out, const case_arg_t* a, child_result_t* r_) {
  child_result_t r = *r_;
  {
    out->ms = r.ms;
    fmt(out->err_tail, sizeof out->err_tail, "%s", r.err_tail);
    if (r.status == 0 && r.size == sizeof(dh_conf_ctx_t)) {
      memcpy(&out->r, r.data, sizeof out->r);
    } else {
      out->r = a->ctx;
      out->r.status = DC_FAIL;
      if (r.status == 0) fmt(r.note, sizeof r.note, "crashed: exited without a result");
      fmt(out->note, sizeof out->note, "%s", r.note);
      fmt(out->r.message, sizeof out->r.message, "%s", r.note);
      fmt(out->r.expected, sizeof out->r.expected, "a result within %d s", o->timeout_s);
      fmt(out->r.got, sizeof out->r.got, "%s", r.note);
      fmt(out->r.file, sizeof out->r.file, "%s", "(child process)");
    }
    free(r.data);
    r_->data = NULL;
  }
}

/* Applies xfail waivers and decides whether the case counts as a violation. */
static void case_finalize(const opts_t* o, case_t* out) {
  const dc_waiver_t* w = out->waiver;
  out->r.message[sizeof out->r.message - 1] = 0;
  out->r.expected[sizeof out->r.expected - 1] = 0;
  out->r.got[sizeof out->r.got - 1] = 0;
  out->r.file[sizeof out->r.file - 1] = 0;
  out->r.details[sizeof out->r.details - 1] = 0;
  out->status = out->r.status;
  if (out->status == DC_SKIP) fmt(out->reason, sizeof out->reason, "%s", out->r.message);
  if (w && w->kind == DC_WAIVE_XFAIL) {
    out->todo = 1;
    out->waived = 1;
    fmt(out->reason, sizeof out->reason, "%s", w->reason);
    if (out->status == DC_PASS && o->verify_xfails) {
      out->todo = 0;
      out->status = DC_FAIL;
      out->counts = 1;
      fmt(out->r.message, sizeof out->r.message,
               "expected failure (xfail: %s) passed; remove the waiver (%s)", w->reason, w->origin);
      fmt(out->r.expected, sizeof out->r.expected, "a failure (xfail waiver)");
      fmt(out->r.got, sizeof out->r.got, "pass");
      fmt(out->r.file, sizeof out->r.file, "%s", w->origin);
      out->r.line = 0;
    }
  } else if (out->status == DC_FAIL) {
    out->counts = 1;
  }
}

static void run_case(const opts_t* o, const dev_t_* d, const dh_clause_t* cl, case_t* out) {
  case_arg_t a;
  if (!case_prepare(o, d, cl, out, &a)) return;
  if (o->no_fork) {
    double t0 = dc_now_ms();
    execute(&a.ctx);
    out->ms = dc_now_ms() - t0;
    out->r = a.ctx;
  } else {
    child_result_t r;
    run_child(case_child, &a, o->timeout_s, &r);
    case_from_child(o, out, &a, &r);
  }
  case_finalize(o, out);
}

/* Runs every case of one device with up to o->jobs children at a time, emitting
 * TAP lines in clause order as soon as they are known. */
static void tap_case(sbuf_t* b, int num, const case_t* k);
static void emit(sbuf_t* all, FILE* out, sbuf_t* piece);
static void run_device_parallel(const opts_t* o, const dev_t_* d, const dh_clause_t** cl, size_t ncl,
                                case_t* cases, sbuf_t* tap, sbuf_t* piece, int* dev_fail) {
  size_t nj = (size_t)o->jobs > 64 ? 64 : (size_t)o->jobs;
  job_t jobs[64];
  case_arg_t args[64];
  size_t job_case[64];
  char* done = calloc(ncl ? ncl : 1, 1);
  memset(jobs, 0, sizeof jobs);
  size_t next = 0, emitted = 0;
  while (emitted < ncl) {
    for (size_t slot = 0; slot < nj && next < ncl; slot++) {
      if (jobs[slot].active) continue;
      while (next < ncl && !case_prepare(o, d, cl[next], &cases[next], &args[slot])) done[next++] = 1;
      if (next >= ncl) break;
      job_start(&jobs[slot], case_child, &args[slot], o->timeout_s);
      job_case[slot] = next;
      if (!jobs[slot].active) { /* could not fork: report it as the case's failure */
        case_from_child(o, &cases[next], &args[slot], &jobs[slot].r);
        case_finalize(o, &cases[next]);
        done[next] = 1;
      }
      next++;
    }
    while (emitted < ncl && done[emitted]) {
      if (cases[emitted].counts) *dev_fail = 1;
      if (o->progress)
        fprintf(stderr, "\r\033[K%s %zu/%zu %s", d->name, emitted + 1, ncl, cl[emitted]->id);
      tap_case(piece, (int)emitted + 1, &cases[emitted]);
      emit(tap, stdout, piece);
      emitted++;
    }
    if (emitted >= ncl) break;
    int i = jobs_wait_any(jobs, nj);
    if (i < 0) continue;
    size_t k = job_case[i];
    case_from_child(o, &cases[k], &args[i], &jobs[i].r);
    case_finalize(o, &cases[k]);
    done[k] = 1;
  }
  free(done);
}

/*===========================================================================
 * Output
 *===========================================================================*/

/* YAML double-quoted scalar. */
static void yq(sbuf_t* b, const char* s) {
  sb_add(b, "\"");
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') sb_add(b, "\\%c", ch);
    else if (ch == '\n') sb_add(b, "\\n");
    else if (ch == '\t') sb_add(b, "\\t");
    else if (ch < 0x20 || ch == 0x7f) sb_add(b, "\\x%02x", ch);
    else sb_add(b, "%c", ch);
  }
  sb_add(b, "\"");
}

/* One-line text for a TAP description or directive reason: '#' and '\\' escaped as
 * '\\#' and '\\\\' (TAP 14 specification, "Escaping"; TAP 13 consumers read the same),
 * line breaks, tabs and other control characters as spaces. */
static void tap_text(sbuf_t* b, const char* s) {
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch < 0x20 || ch == 0x7f) ch = ' ';
    if (ch == '#' || ch == '\\') sb_add(b, "\\%c", ch);
    else sb_add(b, "%c", ch);
  }
}

static void emit(sbuf_t* all, FILE* out, sbuf_t* piece) {
  if (piece->n) {
    fwrite(piece->p, 1, piece->n, out);
    fflush(out);
    sb_add(all, "%s", piece->p);
  }
  piece->n = 0;
  if (piece->p) piece->p[0] = 0;
}

static void tap_case(sbuf_t* b, int num, const case_t* k) {
  const char* ind = "    ";
  int ok = k->status != DC_FAIL;
  sb_add(b, "%s%s %d - ", ind, ok ? "ok" : "not ok", num);
  tap_text(b, k->clause->id);
  if (k->note[0] && (k->status == DC_SKIP || k->todo)) {
    sb_add(b, " \\# ");
    tap_text(b, k->note);
  }
  if (k->status == DC_SKIP) {
    sb_add(b, " # SKIP ");
    tap_text(b, k->reason);
  } else if (k->todo) {
    sb_add(b, " # TODO ");
    tap_text(b, k->reason);
  } else if (k->note[0]) {
    /* "crashed: SIGSEGV" is part of the description, not a directive: '#' escaped */
    sb_add(b, " \\# ");
    tap_text(b, k->note);
  }
  sb_add(b, "\n");
  if (k->status == DC_FAIL) {
    sb_add(b, "%s  ---\n%s  clause: %s\n%s  level: %s\n%s  profile: %s\n%s  message: ", ind, ind,
           k->clause->id, ind, k->clause->level == DC_MUST ? "must" : "should", ind,
           profile_name(k->clause->profile), ind);
    yq(b, k->r.message);
    sb_add(b, "\n%s  expected: ", ind);
    yq(b, k->r.expected);
    sb_add(b, "\n%s  got: ", ind);
    yq(b, k->r.got);
    char at[200];
    if (k->r.line) fmt(at, sizeof at, "%s:%d", k->r.file, k->r.line);
    else fmt(at, sizeof at, "%s", k->r.file);
    sb_add(b, "\n%s  at: ", ind);
    yq(b, at);
    sb_add(b, "\n%s  source: ", ind);
    yq(b, k->clause->source);
    sb_add(b, "\n%s  duration_ms: %.3f\n", ind, k->ms);
    if (k->r.details[0]) {
      sb_add(b, "%s  details:\n", ind);
      char tmp[DC_MSG_MAX];
      fmt(tmp, sizeof tmp, "%s", k->r.details);
      char* save = NULL;
      for (char* l = strtok_r(tmp, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        sb_add(b, "%s    - ", ind);
        yq(b, l);
        sb_add(b, "\n");
      }
    }
    if (k->err_tail[0]) {
      sb_add(b, "%s  stderr: ", ind);
      yq(b, k->err_tail);
      sb_add(b, "\n");
    }
    sb_add(b, "%s  ...\n", ind);
  }
}

static void xml_esc(sbuf_t* b, const char* s) {
  const unsigned char* p = (const unsigned char*)s;
  while (*p) {
    unsigned char ch = *p;
    int len = ch < 0x80 ? 1 : (ch >> 5) == 6 ? 2 : (ch >> 4) == 14 ? 3 : (ch >> 3) == 30 ? 4 : 0;
    int valid = len > 0;
    for (int i = 1; valid && i < len; i++) valid = (p[i] & 0xc0) == 0x80;
    if (!valid) {
      sb_add(b, "?");
      p++;
      continue;
    }
    if (len > 1) {
      sb_add(b, "%.*s", len, (const char*)p);
      p += len;
      continue;
    }
    switch (ch) {
      case '&': sb_add(b, "&amp;"); break;
      case '<': sb_add(b, "&lt;"); break;
      case '>': sb_add(b, "&gt;"); break;
      case '"': sb_add(b, "&quot;"); break;
      case '\'': sb_add(b, "&apos;"); break;
      case '\n': sb_add(b, "&#10;"); break;
      case '\t': sb_add(b, "&#9;"); break;
      default:
        if (ch >= 0x20 && ch != 0x7f) sb_add(b, "%c", ch);
        else sb_add(b, " ");
    }
    p++;
  }
}

/* Writes text to path through a temporary name + rename. */
static int write_file(const char* path, const char* text, size_t n) {
  char tmp[4096];
  fmt(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
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
static int is_error_case(const case_t* k) {
  return k->status == DC_FAIL && !k->todo && k->note[0];
}

static void junit(sbuf_t* x, dev_t_* devs, size_t nd, case_t** cases, size_t nc) {
  size_t t_all = 0, f_all = 0, e_all = 0;
  double time_all = 0;
  for (size_t i = 0; i < nd; i++)
    for (size_t j = 0; j < nc; j++) {
      t_all++;
      if (is_error_case(&cases[i][j])) e_all++;
      else if (cases[i][j].status == DC_FAIL && !cases[i][j].todo) f_all++;
      time_all += cases[i][j].ms / 1000.0;
    }
  sb_add(x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  /* <testsuites> has no `skipped` attribute in the Jenkins schema: only on <testsuite> */
  sb_add(x, "<testsuites name=\"devharness conformance\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
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
    sb_add(x, "  <testsuite name=\"");
    xml_esc(x, devs[i].name);
    sb_add(x, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n", nc,
           f, e, s, t);
    sb_add(x, "    <properties><property name=\"profile\" value=\"%s\"/></properties>\n",
           profile_name(devs[i].profile));
    for (size_t j = 0; j < nc; j++) {
      const case_t* k = &cases[i][j];
      sb_add(x, "    <testcase classname=\"");
      xml_esc(x, devs[i].name);
      sb_add(x, "\" name=\"");
      xml_esc(x, k->clause->id);
      sb_add(x, "\" time=\"%.3f\"", k->ms / 1000.0);
      if (k->status == DC_PASS && !k->todo) {
        sb_add(x, "/>\n");
        continue;
      }
      sb_add(x, ">\n");
      if (k->status == DC_SKIP || k->todo) {
        char m[1200];
        if (k->status == DC_SKIP) fmt(m, sizeof m, "%s", k->reason);
        else
          fmt(m, sizeof m, "expected failure (xfail: %s)%s%s", k->reason,
              k->status == DC_FAIL ? ": " : " passed", k->status == DC_FAIL ? k->r.message : "");
        sb_add(x, "      <skipped message=\"");
        xml_esc(x, m);
        sb_add(x, "\">");
        xml_esc(x, m);
        sb_add(x, "</skipped>\n");
      } else {
        /* the note ("crashed: SIGSEGV") once, even when the message already is the note */
        char m[1200];
        if (k->note[0] && strcmp(k->note, k->r.message) != 0 && k->r.message[0])
          fmt(m, sizeof m, "%s: %s", k->note, k->r.message);
        else fmt(m, sizeof m, "%s", k->note[0] ? k->note : k->r.message);
        const char* el = k->note[0] ? "error" : "failure";
        sb_add(x, "      <%s message=\"", el);
        xml_esc(x, m);
        sb_add(x, "\" type=\"%s\">", k->note[0] ? (strncmp(k->note, "timed out", 9) == 0 ? "timeout" : "crash")
                                             : k->clause->level == DC_MUST ? "must" : "should");
        char body[4096];
        fmt(body, sizeof body,
                 "clause: %s\nprofile: %s\nlevel: %s\nexpected: %s\ngot: %s\nat: %s:%d\nsource: %s\n"
                 "duration_ms: %.3f\n%s%s",
                 k->clause->id, profile_name(k->clause->profile), k->clause->level == DC_MUST ? "must" : "should",
                 k->r.expected, k->r.got, k->r.file, k->r.line, k->clause->source, k->ms,
                 k->r.details[0] ? "details:\n" : "", k->r.details);
        xml_esc(x, body);
        sb_add(x, "</%s>\n", el);
        if (k->err_tail[0]) {
          sb_add(x, "      <system-err>");
          xml_esc(x, k->err_tail);
          sb_add(x, "</system-err>\n");
        }
      }
      sb_add(x, "    </testcase>\n");
    }
    sb_add(x, "  </testsuite>\n");
  }
  sb_add(x, "</testsuites>\n");
}

/*===========================================================================
 * Main
 *===========================================================================*/

/* Splits "NAME:ID" without initialising any backend. -1 with *why saying what is wrong. */
static int parse_spec(const char* spec, char* name, size_t nsize, int* id, const char** why) {
  const char* colon = strrchr(spec, ':');
  if (!colon) return *why = "missing ':' between backend name and device id", -1;
  if (colon == spec) return *why = "empty backend name before ':'", -1;
  if ((size_t)(colon - spec) >= nsize) return *why = "backend name too long", -1;
  if (!colon[1]) return *why = "missing device id after ':'", -1;
  if (colon[1] == '-') return *why = "device id is negative", -1;
  for (const char* p = colon + 1; *p; p++)
    if (*p < '0' || *p > '9') return *why = "device id is not a decimal integer", -1;
  if (strlen(colon + 1) > 7 || strtol(colon + 1, NULL, 10) > 1000000)
    return *why = "device id is out of range (0..1000000)", -1;
  long v = strtol(colon + 1, NULL, 10);
  memcpy(name, spec, (size_t)(colon - spec));
  name[colon - spec] = 0;
  *id = (int)v;
  return 0;
}

/* dc_waivers_load, then checks that every new waiver's glob names a real clause. */
static int load_waivers_checked(dc_waivers_t* w, const char* path, char* err, size_t esize) {
  size_t first = w->n;
  if (dc_waivers_load(w, path, err, esize) != 0) return -1;
  size_t n = 0;
  const dh_clause_t* const* all = dc_catalogue(&n);
  const char** ids = malloc((n ? n : 1) * sizeof *ids);
  if (ids == NULL) {
    snprintf(err, esize, "%s: out of memory", path);
    return -1;
  }
  for (size_t i = 0; i < n; ++i) ids[i] = all[i]->id;
  int rc = dc_waivers_check_clauses(w, first, ids, n, err, esize);
  /* a waiver matching every clause hides the whole suite: say so (the run summary
   * also counts waived cases, and --max-waived can fail the run) */
  for (size_t k = first; rc == 0 && k < w->n; k++) {
    size_t m = 0;
    for (size_t i = 0; i < n; ++i)
      if (fnmatch(w->v[k].glob, ids[i], 0) == 0) m++;
    if (m == n)
      fprintf(stderr, "devharness conformance: warning: %s: waiver \"%s\" (%s) matches all %zu "
              "clauses\n", w->v[k].origin, w->v[k].glob, w->v[k].kind == DC_WAIVE_SKIP ? "skip" : "xfail", n);
  }
  free(ids);
  return rc;
}

static void load_backend_waivers(dev_t_* d, int* bad, char* err, size_t esize) {
  const char* dir = dh_targets_dir();
  if (!dir) return;
  char path[4096];
  fmt(path, sizeof path, "%s/waivers/%s.json", dir, d->backend->name);
  struct stat st;
  if (stat(path, &st) != 0) return;
  if (load_waivers_checked(&d->waivers, path, err, esize) != 0) *bad = 1;
}

static int conformance_main(int argc, char** argv) {
  static opts_t o;
  g_opts = &o;
  int exit_now;
  int rc = parse_opts(argc, argv, &o, &exit_now);
  if (rc) return rc;
  if (exit_now >= 0) return exit_now;

  size_t ncl_all;
  const dh_clause_t* const* all = dc_catalogue(&ncl_all);
  for (size_t i = 0; i < o.n_filters; i++) {
    const char* why;
    if (!dc_glob_valid(o.filters[i], &why))
      return usage_error("--filter \"%s\": %s", uq(o.filters[i]), why);
    size_t m = 0;
    for (size_t j = 0; j < ncl_all; j++)
      if (fnmatch(o.filters[i], all[j]->id, 0) == 0) m++;
    if (!m) return usage_error("--filter \"%s\" matches no clause (see --list)", uq(o.filters[i]));
  }
  if (o.list) return do_list(&o, all, ncl_all);

  const dh_clause_t** cl = malloc(ncl_all * sizeof *cl);
  g_cl = cl;
  size_t ncl = 0;
  for (size_t i = 0; i < ncl_all; i++)
    if (selected(&o, all[i]->id)) cl[ncl++] = all[i];

  for (size_t i = 0; i < o.n_waiver_paths; i++) {
    char err[1024];
    if (load_waivers_checked(&g_waivers, o.waiver_paths[i], err, sizeof err) != 0)
      return usage_error("--waivers: %s", err);
  }

  /* plugins: dlopen only; no backend is initialised in this process */
  if (o.n_plugins) {
    for (size_t i = 0; i < o.n_plugins; i++) {
      if (dh_plugin_load(o.plugins[i], NULL) != 0)
        return usage_error("--plugin %s: %s", uq(o.plugins[i]), dh_error_message());
    }
  } else {
    dh_plugins_load_default();
  }

  if (o.target_arg) {
    if (dh_target_resolve(o.target_arg, &g_target) != 0)
      return usage_error("--target: %s", dh_error_message()); /* the message names the file or tag */
    /* a tag's own waivers: <targets dir>/waivers/<vendor>/<name>.json */
    struct stat st;
    const char* dir = dh_targets_dir();
    if (dir && stat(o.target_arg, &st) != 0) {
      char path[4096], err[1024];
      fmt(path, sizeof path, "%s/waivers/%s.json", dir, o.target_arg);
      if (stat(path, &st) == 0 && load_waivers_checked(&g_waivers, path, err, sizeof err) != 0)
        return usage_error("waiver file: %s", err);
    }
  }

  o.progress = isatty(2);

  /* device list */
  size_t nb = dh_backend_count();
  dev_t_* devs = calloc(nb * DH_MAX_DEVICES_PER_BACKEND + 1, sizeof *devs);
  size_t nd = 0;
  g_devs.devs = devs;
  char want_name[128] = "";
  int want_id = -1;
  const char* spec_why = NULL;
  if (o.device_spec && parse_spec(o.device_spec, want_name, sizeof want_name, &want_id, &spec_why) != 0)
    return usage_error("--device \"%s\": %s (expected NAME:ID, e.g. sim:0)", uq(o.device_spec), spec_why);
  if (o.device_spec) {
    const dh_backend_t* b = NULL;
    if (dh_device_api_get(want_name, &b) != 0)
      return usage_error("--device %s: %s", uq(o.device_spec), dh_error_message());
  }
  int bad_waiver = 0;
  char werr[1024] = "";
  for (size_t i = 0; i < nb; i++) {
    const dh_backend_t* b = dh_backend_at(i);
    g_devs.n = nd;
    if (o.device_spec && strcmp(b->name, want_name) != 0) continue;
    int count = 0, failed = 0;
    char reason[512] = "";
    if (o.progress) fprintf(stderr, "\r\033[Kprobing %s...", b->name);
    probe(&o, b, &count, reason, sizeof reason, &failed);
    dev_t_ proto;
    memset(&proto, 0, sizeof proto);
    proto.backend = b;
    proto.count = count;
    proto.probe_failed = failed;
    proto.profile = o.profile;
    if (!proto.profile) {
      const char* bp = b->default_profile;
      proto.profile = bp && strcmp(bp, "tvm") == 0 ? DC_PROFILE_TVM : DC_PROFILE_STRICT;
      proto.profile_from_backend = bp != NULL;
    }
    fmt(proto.reason, sizeof proto.reason, "%s", reason);
    load_backend_waivers(&proto, &bad_waiver, werr, sizeof werr);
    if (bad_waiver) {
      dc_waivers_free(&proto.waivers);
      return usage_error("waiver file: %s", werr);
    }
    if (o.device_spec) {
      if (want_id >= count) {
        dc_waivers_free(&proto.waivers);
        return usage_error("--device %s: no such device (%s has %d device%s%s%s)", uq(o.device_spec),
                           b->name, count, count == 1 ? "" : "s", reason[0] ? ": " : "", reason);
      }
      devs[nd] = proto;
      devs[nd].id = want_id;
      fmt(devs[nd].name, sizeof devs[nd].name, "%s:%d", b->name, want_id);
      nd++;
      g_devs.n = nd;
    } else if (count == 0) {
      devs[nd] = proto;
      devs[nd].id = -1;
      fmt(devs[nd].name, sizeof devs[nd].name, "%s (no device)", b->name);
      nd++;
    } else {
      for (int id = 0; id < count; id++) {
        devs[nd] = proto;
        devs[nd].id = id;
        fmt(devs[nd].name, sizeof devs[nd].name, "%s:%d", b->name, id);
        nd++;
      }
    }
  }

  g_devs.n = nd;
  sbuf_t tap = {0}, piece = {0};
  sb_add(&piece, "TAP version %d\n", o.tap_version);
  for (size_t i = 0; i < dh_plugin_refusal_count(); i++) {
    sb_add(&piece, "# refused plugin: ");
    tap_text(&piece, dh_plugin_refusal(i));
    sb_add(&piece, "\n");
  }
  if (nd == 0) sb_add(&piece, "1..0 # SKIP no backend loaded (no libdevharness_*.so found)\n");
  else sb_add(&piece, "1..%zu\n", nd);
  emit(&tap, stdout, &piece);

  case_t** cases = calloc(nd ? nd : 1, sizeof *cases);
  int violations = 0;
  size_t no_device = 0;
  double t_start = dc_now_ms();
  for (size_t i = 0; i < nd; i++) {
    dev_t_* d = &devs[i];
    cases[i] = calloc(ncl ? ncl : 1, sizeof **cases);
    sb_add(&piece, "# Subtest: ");
    tap_text(&piece, d->name);
    sb_add(&piece, "\n");
    if (d->id < 0 && d->reason[0]) {
      sb_add(&piece, "    # %s: ", d->name);
      tap_text(&piece, d->reason);
      sb_add(&piece, "\n");
    }
    sb_add(&piece, "    # profile: %s (%s)\n", profile_name(d->profile),
           d->profile_from_backend ? "the backend's default" : o.profile ? "--profile" : "default");
    sb_add(&piece, "    1..%zu\n", ncl);
    emit(&tap, stdout, &piece);
    int dev_fail = 0;
    if (o.jobs > 1 && !o.no_fork) {
      run_device_parallel(&o, d, cl, ncl, cases[i], &tap, &piece, &dev_fail);
    } else {
      for (size_t j = 0; j < ncl; j++) {
        if (o.progress)
          fprintf(stderr, "\r\033[K[%zu/%zu] %s %zu/%zu %s", i + 1, nd, d->name, j + 1, ncl, cl[j]->id);
        run_case(&o, d, cl[j], &cases[i][j]);
        if (cases[i][j].counts) dev_fail = 1;
        tap_case(&piece, (int)j + 1, &cases[i][j]);
        emit(&tap, stdout, &piece);
      }
    }
    if (dev_fail) violations++;
    sb_add(&piece, "%s %zu - ", dev_fail ? "not ok" : "ok", i + 1);
    tap_text(&piece, d->name);
    if (d->id < 0 && !dev_fail) {
      /* a backend that cannot run is a skip at the outer level too, never a pass */
      no_device++;
      sb_add(&piece, " # SKIP ");
      tap_text(&piece, d->reason[0] ? d->reason : "no device");
    }
    sb_add(&piece, "\n");
    emit(&tap, stdout, &piece);
  }
  if (o.progress) fprintf(stderr, "\r\033[K");
  /* waiver accounting: a wildcard waiver must not pass silently */
  size_t w_skip = 0, w_xfail = 0;
  for (size_t i = 0; i < nd; i++)
    for (size_t j = 0; j < ncl; j++)
      if (cases[i][j].waived) {
        if (cases[i][j].todo || cases[i][j].waiver->kind == DC_WAIVE_XFAIL) w_xfail++;
        else w_skip++;
      }
  size_t waived = w_skip + w_xfail;
  sb_add(&piece, "# %zu clause%s x %zu device%s in %.1f s; %d device%s with violations; %zu case%s "
         "waived (%zu skip, %zu xfail)\n", ncl, ncl == 1 ? "" : "s", nd, nd == 1 ? "" : "s",
         (dc_now_ms() - t_start) / 1000.0, violations, violations == 1 ? "" : "s", waived,
         waived == 1 ? "" : "s", w_skip, w_xfail);
  for (size_t i = 0; i < nd; i++) {
    size_t skipped = 0;
    for (size_t j = 0; j < ncl; j++)
      if (cases[i][j].status == DC_SKIP && cases[i][j].clause->profile > devs[i].profile) skipped++;
    sb_add(&piece, "# profile %s: %s", profile_name(devs[i].profile), devs[i].name);
    if (skipped) sb_add(&piece, " (%zu strict clause%s skipped)", skipped, skipped == 1 ? "" : "s");
    sb_add(&piece, "\n");
  }
  int too_many_waived = o.max_waived >= 0 && waived > (size_t)o.max_waived;
  if (too_many_waived)
    sb_add(&piece, "# waived cases: %zu, more than --max-waived %ld: the run fails\n", waived,
           o.max_waived);
  if (no_device) {
    sb_add(&piece, "# NO DEVICE: %zu of %zu backend%s could not run, every clause skipped:", no_device,
           nd, nd == 1 ? "" : "s");
    for (size_t i = 0; i < nd; i++)
      if (devs[i].id < 0) {
        sb_add(&piece, " ");
        tap_text(&piece, devs[i].backend->name);
      }
    sb_add(&piece, "\n");
  }
  emit(&tap, stdout, &piece);
  if (waived)
    fprintf(stderr, "devharness conformance: %zu case%s decided by waivers (%zu skip, %zu xfail)%s\n",
            waived, waived == 1 ? "" : "s", w_skip, w_xfail,
            too_many_waived ? ", more than --max-waived allows" : "");
  if (no_device)
    fprintf(stderr, "devharness conformance: NO DEVICE on %zu backend%s (see the # SKIP reasons)%s\n",
            no_device, no_device == 1 ? "" : "s",
            no_device == nd ? "; nothing was tested (exit 3)" : "");

  int out_rc = violations || too_many_waived ? EXIT_VIOLATIONS
             : (nd == 0 || no_device == nd) ? EXIT_NO_DEVICE : EXIT_OK;
  if (o.tap_path && write_file(o.tap_path, tap.p ? tap.p : "", tap.n) != 0) out_rc = EXIT_USAGE;
  if (o.junit_path) {
    sbuf_t x = {0};
    junit(&x, devs, nd, cases, ncl);
    if (write_file(o.junit_path, x.p ? x.p : "", x.n) != 0) out_rc = EXIT_USAGE;
    free(x.p);
  }

  for (size_t i = 0; i < nd; i++) free(cases[i]);
  free(cases);
  free(tap.p);
  free(piece.p);
  return out_rc;
}

static void cleanup(void) {
  dev_t_* devs = g_devs.devs;
  /* waiver arrays are shared between a backend's devices: free each once */
  for (size_t i = 0; devs && i < g_devs.n; i++) {
    int dup = 0;
    for (size_t j = 0; j < i; j++)
      if (devs[j].waivers.v == devs[i].waivers.v) dup = 1;
    if (!dup) {
      dc_waivers_t w = devs[i].waivers; /* free a copy: later devices compare v */
      dc_waivers_free(&w);
    }
  }
  free(devs);
  g_devs.devs = NULL;
  g_devs.n = 0;
  free(g_cl);
  g_cl = NULL;
  if (g_opts) {
    free(g_opts->filters);
    free(g_opts->plugins);
    free(g_opts->waiver_paths);
    memset(g_opts, 0, sizeof *g_opts);
  }
  for (size_t i = 0; i < g_n_owned; i++) free(g_owned[i]);
  free(g_owned);
  g_owned = NULL;
  g_n_owned = 0;
  dc_waivers_free(&g_waivers);
  dh_target_free(g_target);
  g_target = NULL;
}

int dh_conformance_main(int argc, char** argv) {
  int rc = conformance_main(argc, argv);
  cleanup();
  return rc;
}
