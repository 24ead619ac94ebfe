/*
 * module/main.c — `devharness module check LIB.so [--device SPEC]...` and
 * `devharness module list LIB.so`: the command, its options and the loop over
 * functions, devices and cases, each case in a forked child with a timeout
 * (base/child.c, as the conformance runner runs its cases). Calls cases.c, symbols.c
 * and report.c.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/child.h"
#include "cmdline/cmdline.h"
#include "module/check.h"
#include "module/command.h"

#define MAX_DEVICES 32

static const char kUsage[] =
    "usage: devharness module check LIB.so [--device SPEC]... [--tap FILE] [--junit FILE]\n"
    "                                [--timeout SECONDS] [-q]\n"
    "       devharness module list LIB.so\n"
    "\n"
    "Checks a tvm-ffi kernel library (its __tvm_ffi_<name> functions) from its own type\n"
    "signatures (__tvm_ffi__metadata_<name>, TVM_FFI_DLL_EXPORT_INCLUDE_METADATA=1): for\n"
    "each function and device, each case in a forked child with a timeout. `list` prints\n"
    "the functions and their signatures. docs/kernel-libraries.md explains every case.\n"
    "\n"
    "  --device SPEC     a device to check on, e.g. cpu:0, sim:0 (repeatable; default:\n"
    "                    every device)\n"
    "  --tap FILE        also write the TAP to FILE\n"
    "  --junit FILE      write JUnit XML to FILE\n"
    "  --timeout SECONDS one case's limit (default 30)\n"
    "  -q, --quiet       print only errors and the verdict line\n"
    "  --no-fork         run every case in this process (for a debugger: a crash ends\n"
    "                    the run)\n"
    "\n"
    "exit codes: 0 every case passed or was skipped, 1 a case failed (or the library\n"
    "            crashed while loading), 2 usage or input error (unreadable or not a\n"
    "            tvm-ffi library, bad option or device spec), 3 no device\n";

typedef struct opts {
  const char* sub;
  const char* lib;
  const char* devices[MAX_DEVICES];
  int n_devices;
  const char* tap;
  const char* junit;
  long timeout;
  int quiet;
  int no_fork;
} opts_t;

static int parse(int argc, char** argv, opts_t* o) {
  static const struct option lo[] = {{"device", required_argument, NULL, 'd'}, {"tap", required_argument, NULL, 't'},
                                     {"junit", required_argument, NULL, 'j'},  {"timeout", required_argument, NULL, 'T'},
                                     {"quiet", no_argument, NULL, 'q'},        {"help", no_argument, NULL, 'h'},
                                     {"no-fork", no_argument, NULL, 'F'},
                                     {NULL, 0, NULL, 0}};
  memset(o, 0, sizeof *o);
  o->timeout = 30;
  if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) return fputs(kUsage, stdout), -1;
  if (argc < 2 || (strcmp(argv[1], "check") != 0 && strcmp(argv[1], "list") != 0))
    return dh_cmdline_usage_error("module", "expected 'check' or 'list', got %s%s%s (see devharness module --help)",
                                  argc < 2 ? "" : "'", argc < 2 ? "nothing" : dh_cmdline_quote(argv[1]), argc < 2 ? "" : "'");
  o->sub = argv[1];
  dh_cmdline_getopt_begin();
  int c;
  while ((c = getopt_long(argc - 1, argv + 1, "qh", lo, NULL)) != -1) {
    if (c == 'h') return fputs(kUsage, stdout), -1;
    if (c == 'q') o->quiet = 1;
    else if (c == 'F') o->no_fork = 1;
    else if (c == 't') o->tap = optarg;
    else if (c == 'j') o->junit = optarg;
    else if (c == 'T' && dh_cmdline_parse_long(optarg, 1, 3600, &o->timeout) != 0)
      return dh_cmdline_usage_error("module", "--timeout: expected 1..3600 seconds, got '%s'", dh_cmdline_quote(optarg));
    else if (c == 'd' && o->n_devices >= MAX_DEVICES)
      return dh_cmdline_usage_error("module", "--device: at most %d", MAX_DEVICES);
    else if (c == 'd') o->devices[o->n_devices++] = optarg;
    else if (c == '?' || c == ':') return dh_cmdline_bad_option("module", lo, argc - 1, argv + 1);
  }
  if (optind + 1 != argc - 1)
    return dh_cmdline_usage_error("module", "expected one library (LIB.so), got %d operand(s)", argc - 1 - optind);
  o->lib = argv[optind + 1];
  return 0;
}

/* The child that loads the library and reads every function's metadata. */
typedef struct meta_job {
  const char* lib;
  dm_func_t* funcs;
  size_t n;
} meta_job_t;

static void meta_child(void* arg, int fd) {
  meta_job_t* j = arg;
  if (dm_read_metadata(j->lib, j->funcs, j->n) != 0) {
    fprintf(stderr, "%s\n", dh_error_message());
    _exit(1);
  }
  dh_write_all(fd, j->funcs, j->n * sizeof *j->funcs);
}

/* Lists the exports (this process, a file read) and their metadata (a child). */
static int load_functions(const opts_t* o, dm_func_t* funcs, size_t* n) {
  struct stat st;
  if (stat(o->lib, &st) != 0 || !S_ISREG(st.st_mode))
    return dh_cmdline_usage_error("module", "'%s': not a readable file", dh_cmdline_quote(o->lib));
  if (dm_list_exports(o->lib, funcs, DM_MAX_FUNCS, n) != 0)
    return dh_cmdline_usage_error("module", "%s", dh_error_message());
  if (*n == 0)
    return dh_cmdline_usage_error("module", "'%s' exports no tvm-ffi function (no __tvm_ffi_<name> symbol)",
                                  dh_cmdline_quote(o->lib));
  meta_job_t j = {o->lib, funcs, *n};
  dh_child_result_t r;
  dh_child_run(meta_child, &j, (int)o->timeout, &r);
  int ok = r.status == DH_CHILD_ANSWERED && r.size == *n * sizeof *funcs;
  if (ok) memcpy(funcs, r.data, r.size);
  else fprintf(stderr, "devharness module: %s: loading it failed: %s%s%s\n", o->lib, r.note, r.err_tail[0] ? ": " : "",
               r.err_tail);
  free(r.data);
  return ok ? DH_EXIT_OK : DH_EXIT_VIOLATION;
}

/* The devices to check on: each --device (or every device), plus for each one another
 * device for module.wrong_device (cpu for an accelerator, an accelerator for cpu). */
typedef struct devices {
  DLDevice dev[MAX_DEVICES];
  DLDevice alt[MAX_DEVICES];
  int n;
} devices_t;

static int select_devices(const opts_t* o, devices_t* ds) {
  dh_device_select_params_t p = {NULL, DH_SELECT_PROBE_IN_CHILD, 0, NULL, NULL};
  dh_device_list_t all = {0}, one;
  int rc = dh_cmdline_select_devices("module check", &p, &all);
  for (int i = 0; rc == DH_EXIT_OK && i < (o->n_devices ? o->n_devices : 1); i++) {
    p.spec = o->n_devices ? o->devices[i] : NULL;
    dh_device_list_t* l = &all;
    if (p.spec != NULL && (rc = dh_cmdline_select_devices("module check", &p, &one)) != DH_EXIT_OK) break;
    if (p.spec != NULL) l = &one;
    for (size_t e = 0; e < l->count && ds->n < MAX_DEVICES; e++)
      if (l->entries[e].device.device_id >= 0) ds->dev[ds->n++] = l->entries[e].device;
      else if (p.spec != NULL) fprintf(stderr, "devharness module check: NO DEVICE: %s: %s\n", l->entries[e].name, l->entries[e].reason);
    if (p.spec != NULL) dh_device_list_free(&one);
  }
  for (int i = 0; i < ds->n; i++) {
    int found = 0;
    ds->alt[i] = (DLDevice){(DLDeviceType)0, -1}; /* device_id -1: none */
    /* the checked devices first, then the sim's (cheap to start), then any */
    for (int pass = 0; pass < 3 && !found; pass++)
      for (size_t e = 0; e < (pass ? all.count : (size_t)ds->n) && !found; e++) {
        DLDevice d = pass ? all.entries[e].device : ds->dev[e];
        if (pass == 1 && strcmp(all.entries[e].backend->name, "sim") != 0) continue;
        found = d.device_id >= 0 && (ds->dev[i].device_type == kDLCPU) != (d.device_type == kDLCPU);
        if (found) ds->alt[i] = d;
      }
  }
  dh_device_list_free(&all);
  if (rc == DH_EXIT_OK && ds->n == 0) {
    fprintf(stderr, "devharness module check: no device: no selected backend has a device\n");
    rc = DH_EXIT_NO_DEVICE;
  }
  return rc;
}

typedef struct case_job {
  const dm_case_t* c;
  dm_target_t t;
} case_job_t;

static void case_child(void* arg, int fd) {
  case_job_t* j = arg;
  dm_verdict_t v;
  memset(&v, 0, sizeof v);
  v.code = 'n';
  j->c->run(&j->t, &v);
  dh_write_all(fd, &v, sizeof v);
}

/* Runs one case in a child into r (a crash, hang or exit fails it, saying which). */
static void run_case(const opts_t* o, const dm_case_t* c, const dm_target_t* t, dm_result_t* r) {
  case_job_t j = {c, *t};
  dh_child_result_t cr;
  memset(r, 0, sizeof *r);
  snprintf(r->name, sizeof r->name, "%s", c->name);
  snprintf(r->func, sizeof r->func, "%s", t->func->name);
  if (c->per_device) dh_device_format(t->dev, r->device, sizeof r->device);
  if (o->no_fork) {
    j.c->run(&j.t, &r->v);
    return;
  }
  dh_child_run(case_child, &j, (int)o->timeout, &cr);
  if (cr.status == DH_CHILD_ANSWERED && cr.size == sizeof r->v) {
    memcpy(&r->v, cr.data, sizeof r->v);
  } else {
    char* nl = strchr(cr.err_tail, '\n');
    if (nl) *nl = '\0';
    r->v.code = 'n';
    int n = snprintf(r->v.message, sizeof r->v.message, "%s%s", cr.status == DH_CHILD_ANSWERED ? "no verdict" : cr.note,
                     cr.err_tail[0] ? ": " : "");
    if (n > 0 && (size_t)n < sizeof r->v.message)
      memcpy(r->v.message + n, cr.err_tail, strnlen(cr.err_tail, sizeof r->v.message - (size_t)n - 1));
  }
  r->ms = cr.ms;
  free(cr.data);
}

static void print_functions(FILE* f, const char* lead, const dm_func_t* funcs, size_t n) {
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%s%-24s %s\n", lead, funcs[i].name, funcs[i].has_schema ? funcs[i].signature : "(no type schema)");
}

/* Every case of every function on every device; returns the exit code. */
static int check(const opts_t* o, const dm_func_t* funcs, size_t nf, const devices_t* ds) {
  size_t nc, total = 0, done = 0, fails = 0, skips = 0;
  const dm_case_t* cases = dm_cases(&nc);
  for (size_t c = 0; c < nc; c++) total += nf * (cases[c].per_device ? (size_t)ds->n : 1);
  dm_result_t* rs = calloc(total, sizeof *rs);
  if (rs == NULL) return fprintf(stderr, "devharness module check: out of memory\n"), DH_EXIT_VIOLATION;
  if (!o->quiet) printf("TAP version 13\n1..%zu\n# %s: %zu function(s)\n", total, o->lib, nf);
  if (!o->quiet) print_functions(stdout, "#   ", funcs, nf);
  for (size_t f = 0; f < nf; f++)
    for (size_t c = 0; c < nc; c++)
      for (int d = 0; d < (cases[c].per_device ? ds->n : 1); d++) {
        dm_target_t t = {o->lib, &funcs[f], ds->dev[d], ds->alt[d]};
        run_case(o, &cases[c], &t, &rs[done]);
        fails += rs[done].v.code == 'n', skips += rs[done].v.code == 's';
        if (!o->quiet) dm_tap_line(stdout, done + 1, &rs[done]), fflush(stdout);
        done++;
      }
  int rc = fails ? DH_EXIT_VIOLATION : DH_EXIT_OK;
  if (o->tap && dm_write_tap(o->tap, rs, done) != 0) rc = dh_cmdline_usage_error("module check", "--tap: %s", dh_error_message());
  if (o->junit && dm_write_junit(o->junit, o->lib, rs, done) != 0)
    rc = dh_cmdline_usage_error("module check", "--junit: %s", dh_error_message());
  fprintf(o->quiet ? stdout : stderr, "devharness module check: %s: %zu function(s) x %d device(s): %zu case(s), %zu pass, %zu fail, %zu skip (exit %d)\n",
          o->lib, nf, ds->n, done, done - fails - skips, fails, skips, rc);
  free(rs);
  return rc;
}

int dh_module_main(int argc, char** argv) {
  opts_t o;
  int rc = parse(argc, argv, &o);
  if (rc != 0) return rc < 0 ? DH_EXIT_OK : rc;
  dm_func_t* funcs = calloc(DM_MAX_FUNCS, sizeof *funcs);
  size_t nf = 0;
  devices_t ds;
  memset(&ds, 0, sizeof ds);
  if (funcs == NULL) return fprintf(stderr, "devharness module: out of memory\n"), DH_EXIT_VIOLATION;
  dh_plugins_load_default();
  rc = load_functions(&o, funcs, &nf);
  if (rc == DH_EXIT_OK && strcmp(o.sub, "list") == 0) print_functions(stdout, "", funcs, nf);
  else if (rc == DH_EXIT_OK && (rc = select_devices(&o, &ds)) == DH_EXIT_OK) {
    /* One tvm-ffi error raised here first: tvm-ffi reads its debug information for
     * the backtrace of the first error of a process (0.6 s here), and every case
     * child, forked from this one, inherits it read. */
    char* none = NULL;
    dh_func_get_metadata("devharness.module.no_such_function", &none);
    dh_error_clear();
    free(none);
    rc = check(&o, funcs, nf, &ds);
  }
  free(funcs);
  return rc;
}
