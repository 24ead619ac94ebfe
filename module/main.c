/*
 * module/main.c — `devharness module check LIB.so [--device SPEC]...` and
 * `devharness module list LIB.so`: the command, its options, the table of cases
 * (function x case x device) run by the suite's runner, each in a forked child with a
 * timeout, --jobs at a time, and reported by the suite's reporters (suite/suite.h: TAP
 * on stdout and --tap, JUnit) as conformance runs and reports its clauses. Calls
 * cases.c and symbols.c.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/child.h"
#include "cmdline/cmdline.h"
#include "store/bundle.h"
#include "suite/suite.h"
#include "module/check.h"
#include "module/command.h"

#define MAX_DEVICES 32

static const char kUsage[] =
    "usage: devharness module check LIB.so [--device SPEC]... [--reference DEVICE |\n"
    "           --reference-lib LIB.so[@DEVICE] | --reference-py FILE.py] [--signature SIG]...\n"
    "           [--seed N] [--rtol X] [--atol X] [--tap FILE] [--junit FILE] [--cases FILE]\n"
    "           [--bundle DIR] [--timeout SECONDS] [--jobs N] [-q]\n"
    "       devharness module list LIB.so\n"
    "\n"
    "Checks a tvm-ffi kernel library (its __tvm_ffi_<name> functions) from its own type\n"
    "signatures (__tvm_ffi__metadata_<name>, TVM_FFI_DLL_EXPORT_INCLUDE_METADATA=1): for\n"
    "each function and device, each case in a forked child with a timeout. `list` prints\n"
    "the functions and their signatures. docs/kernel-libraries.md explains every case.\n"
    "\n"
    "  --device SPEC     a device to check on, e.g. cpu:0, sim:0 (repeatable; default:\n"
    "                    every device)\n"
    "  --reference DEVICE  module.results compares with the same library on DEVICE\n"
    "                    (default: cpu:0 when the checked device is not the CPU)\n"
    "  --reference-lib LIB.so[@DEVICE]  ... with the same function of another library\n"
    "                    on DEVICE (default cpu:0)\n"
    "  --reference-py FILE.py  ... with the NumPy function of the same name in FILE.py\n"
    "                    (def vadd(a, b, c): c[...] = a + b), run in the project venv\n"
    "  --signature SIG   the parameters of a function without a type schema, as TVM\n"
    "                    prints them: 'vadd(A: Tensor([n], float32), B: Tensor([n],\n"
    "                    float32), C: Tensor([n], float32))' (repeatable; TVM-compiled\n"
    "                    functions report theirs themselves)\n"
    "  --seed N          the inputs' seed (default 1)\n"
    "  --tolerance NAME=RTOL,ATOL  module.results' tolerance for function NAME's float\n"
    "                    tensors (repeatable; over --rtol/--atol)\n"
    "  --nondeterministic NAME  NAME may give different results for the same inputs:\n"
    "                    module.deterministic is skipped for it (repeatable)\n"
    "  --rtol X, --atol X  module.results' tolerance for every float tensor (default:\n"
    "                    per dtype, torch.testing.assert_close's; integers exact)\n"
    "  --tap FILE        also write the TAP to FILE\n"
    "  --junit FILE      write JUnit XML to FILE\n"
    "  --cases FILE      write one JSON record per case to FILE (docs/results.md)\n"
    "  --bundle DIR      write a result bundle to DIR (a new folder): manifest.json,\n"
    "                    info.json, module.tap, module.junit.xml, module.cases.json\n"
    "                    (docs/results.md; `devharness verify` and `store import` read it)\n"
    "  --timeout SECONDS one case's limit (default 30)\n"
    "  --jobs N          run up to N cases at once (default 1; output order unchanged)\n"
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
  const char* cases;  /* --cases FILE */
  const char* bundle; /* --bundle DIR */
  long timeout;
  long jobs;
  int quiet;
  int no_fork;
  const char* signatures[DM_MAX_FUNCS];
  int n_signatures;
  const char* reference;     /* --reference DEVICE */
  const char* reference_lib; /* --reference-lib LIB.so[@DEVICE] */
  const char* reference_py;  /* --reference-py FILE.py */
  uint64_t seed;
  dm_tolerance_t tol;
  dm_reference_t ref;        /* resolved from the reference options (resolve_reference) */
  const char* tol_names[DM_MAX_FUNCS]; /* --tolerance NAME=RTOL,ATOL */
  dm_tolerance_t tols[DM_MAX_FUNCS];
  int n_tols;
  const char* nondet[DM_MAX_FUNCS];    /* --nondeterministic NAME */
  int n_nondet;
} opts_t;

/* --tolerance NAME=RTOL,ATOL and --nondeterministic NAME. */
static int parse_function_option(int c, const char* arg, opts_t* o) {
  static char names[DM_MAX_FUNCS][128];
  double rt, at;
  int used = 0;
  if (c == 'N') {
    if (o->n_nondet >= DM_MAX_FUNCS) return dh_cmdline_usage_error("module", "--nondeterministic: at most %d", DM_MAX_FUNCS);
    o->nondet[o->n_nondet++] = arg;
    return 0;
  }
  const char* eq = strchr(arg, '=');
  if (o->n_tols >= DM_MAX_FUNCS || eq == NULL || eq == arg || eq - arg >= 128 ||
      sscanf(eq + 1, "%lf,%lf%n", &rt, &at, &used) != 2 || eq[1 + used] != '\0' || !(rt >= 0) || !(at >= 0))
    return dh_cmdline_usage_error("module", "--tolerance: expected NAME=RTOL,ATOL (numbers >= 0), got '%s'",
                                  dh_cmdline_quote(arg));
  snprintf(names[o->n_tols], sizeof names[0], "%.*s", (int)(eq - arg), arg);
  o->tol_names[o->n_tols] = names[o->n_tols];
  o->tols[o->n_tols++] = (dm_tolerance_t){rt, at};
  return 0;
}

/* Each name --tolerance and --nondeterministic give is an exported function. */
static int check_function_names(const opts_t* o, const dm_func_t* funcs, size_t n) {
  for (int k = 0; k < o->n_tols + o->n_nondet; k++) {
    const char* name = k < o->n_tols ? o->tol_names[k] : o->nondet[k - o->n_tols];
    size_t i = 0;
    while (i < n && strcmp(funcs[i].name, name) != 0) i++;
    if (i == n)
      return dh_cmdline_usage_error("module", "%s: %s exports no function '%s'",
                                    k < o->n_tols ? "--tolerance" : "--nondeterministic", o->lib, dh_cmdline_quote(name));
  }
  return DH_EXIT_OK;
}

/* --seed, --rtol, --atol; the reference options (at most one). */
static int parse_result_option(int c, const char* arg, opts_t* o) {
  long v;
  char* end;
  if (c == 'S') {
    if (dh_cmdline_parse_long(arg, 0, 2147483647L, &v) != 0)
      return dh_cmdline_usage_error("module", "--seed: expected 0..2147483647, got '%s'", dh_cmdline_quote(arg));
    o->seed = (uint64_t)v;
    return 0;
  }
  if (c == 'r' || c == 'a') {
    double x = strtod(arg, &end);
    if (*arg == '\0' || *end != '\0' || !(x >= 0) || x > 1e6)
      return dh_cmdline_usage_error("module", "--%s: expected a number >= 0, got '%s'", c == 'r' ? "rtol" : "atol",
                                    dh_cmdline_quote(arg));
    *(c == 'r' ? &o->tol.rtol : &o->tol.atol) = x;
    return 0;
  }
  if (c == 'g') {
    if (o->n_signatures >= DM_MAX_FUNCS) return dh_cmdline_usage_error("module", "--signature: at most %d", DM_MAX_FUNCS);
    o->signatures[o->n_signatures++] = arg;
    return 0;
  }
  if ((o->reference != NULL) + (o->reference_lib != NULL) + (o->reference_py != NULL) > 0)
    return dh_cmdline_usage_error("module", "--reference, --reference-lib and --reference-py: give one");
  *(c == 'R' ? &o->reference : c == 'L' ? &o->reference_lib : &o->reference_py) = arg;
  return 0;
}

static int parse(int argc, char** argv, opts_t* o) {
  static const struct option lo[] = {{"device", required_argument, NULL, 'd'}, {"tap", required_argument, NULL, 't'},
                                     {"junit", required_argument, NULL, 'j'},  {"timeout", required_argument, NULL, 'T'},
                                     {"quiet", no_argument, NULL, 'q'},        {"help", no_argument, NULL, 'h'},
                                     {"no-fork", no_argument, NULL, 'F'},      {"jobs", required_argument, NULL, 'J'},
                                     {"reference", required_argument, NULL, 'R'},
                                     {"reference-lib", required_argument, NULL, 'L'},
                                     {"reference-py", required_argument, NULL, 'P'},
                                     {"signature", required_argument, NULL, 'g'},
                                     {"seed", required_argument, NULL, 'S'},  {"rtol", required_argument, NULL, 'r'},
                                     {"atol", required_argument, NULL, 'a'},
                                     {"tolerance", required_argument, NULL, 'o'},
                                     {"nondeterministic", required_argument, NULL, 'N'},  {"cases", required_argument, NULL, 'C'},
                                     {"bundle", required_argument, NULL, 'B'}, {NULL, 0, NULL, 0}};
  memset(o, 0, sizeof *o);
  o->timeout = 30;
  o->jobs = 1;
  o->seed = 1;
  o->tol = (dm_tolerance_t){-1, -1};
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
    else if (c == 'C') o->cases = optarg;
    else if (c == 'B') o->bundle = optarg;
    else if (c == 'T' && dh_cmdline_parse_long(optarg, 1, 3600, &o->timeout) != 0)
      return dh_cmdline_usage_error("module", "--timeout: expected 1..3600 seconds, got '%s'", dh_cmdline_quote(optarg));
    else if (c == 'J' && dh_cmdline_parse_long(optarg, 1, 64, &o->jobs) != 0)
      return dh_cmdline_usage_error("module", "--jobs: expected 1..64, got '%s'", dh_cmdline_quote(optarg));
    else if (c == 'd' && o->n_devices >= MAX_DEVICES)
      return dh_cmdline_usage_error("module", "--device: at most %d", MAX_DEVICES);
    else if (c == 'd') o->devices[o->n_devices++] = optarg;
    else if ((c == 'o' || c == 'N') && parse_function_option(c, optarg, o) != 0) return DH_EXIT_USAGE;
    else if (c == 'o' || c == 'N') continue;
    else if (strchr("RLPgSra", c) != NULL && c != 0) {
      if (parse_result_option(c, optarg, o) != 0) return DH_EXIT_USAGE;
    }
    else if (c == '?' || c == ':') return dh_cmdline_bad_option("module", lo, argc - 1, argv + 1);
  }
  if (optind + 1 != argc - 1)
    return dh_cmdline_usage_error("module", "expected one library (LIB.so), got %d operand(s)", argc - 1 - optind);
  o->lib = argv[optind + 1];
  /* dlopen searches the library path for a name without '/': "vadd.so" is ./vadd.so */
  static char here[4096];
  if (strchr(o->lib, '/') == NULL && snprintf(here, sizeof here, "./%s", o->lib) < (int)sizeof here) o->lib = here;
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

static void probe_child(void* arg, int fd) {
  meta_job_t* j = arg;
  if (dm_probe_signatures(j->lib, j->funcs, j->n) != 0) _exit(1);
  dh_write_all(fd, j->funcs, j->n * sizeof *j->funcs);
}

/* Functions without a schema: the signature TVM-compiled ones report when called with
 * no arguments (a child: a function that does not check its arity may crash; then
 * none has one), and --signature's, which override it. */
static int add_signatures(const opts_t* o, dm_func_t* funcs, size_t n) {
  static dh_func_signature_t sg;
  meta_job_t j = {o->lib, funcs, n};
  dh_child_result_t r;
  dh_child_run(probe_child, &j, (int)o->timeout, &r);
  if (r.status == DH_CHILD_ANSWERED && r.size == n * sizeof *funcs) memcpy(funcs, r.data, r.size);
  free(r.data);
  for (size_t i = 0; i < n; i++) /* TVM's `__tvm_ffi_main` reports its module's function */
    for (size_t k = 0; funcs[i].has_sig && k < n; k++)
      if (k != i && strcmp(funcs[i].sig_name, funcs[i].name) != 0 && strcmp(funcs[k].name, funcs[i].sig_name) == 0)
        funcs[i].alias = 1;
  for (int k = 0; k < o->n_signatures; k++) {
    size_t i = 0;
    if (dh_func_signature_parse(o->signatures[k], &sg) != 0)
      return dh_cmdline_usage_error("module", "--signature '%s': %s", dh_cmdline_quote(o->signatures[k]), dh_error_message());
    while (i < n && strcmp(funcs[i].name, sg.name) != 0) i++;
    if (i == n)
      return dh_cmdline_usage_error("module", "--signature: %s exports no function '%s'", o->lib, dh_cmdline_quote(sg.name));
    if (dm_func_from_signature(&sg, &funcs[i]) != 0)
      return dh_cmdline_usage_error("module", "--signature: %s", dh_error_message());
    funcs[i].has_schema = 0; /* the user's word over the schema's */
  }
  return DH_EXIT_OK;
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
  return ok ? add_signatures(o, funcs, *n) : DH_EXIT_VIOLATION;
}

/* One device from a spec (the reference's): DH_EXIT_NO_DEVICE when it has none. */
static int one_device(const char* opt, const char* spec, DLDevice* out) {
  dh_device_select_params_t p = {spec, DH_SELECT_PROBE_IN_CHILD, 0, NULL, NULL};
  dh_device_list_t l = {0};
  int rc = dh_cmdline_select_devices("module check", &p, &l);
  size_t e = 0;
  while (rc == DH_EXIT_OK && e < l.count && l.entries[e].device.device_id < 0) e++;
  if (rc == DH_EXIT_OK && e == l.count) {
    fprintf(stderr, "devharness module check: %s %s: no device\n", opt, dh_cmdline_quote(spec));
    rc = DH_EXIT_NO_DEVICE;
  }
  if (rc == DH_EXIT_OK) *out = l.entries[e].device;
  dh_device_list_free(&l);
  return rc;
}

/* The reference options as a dm_reference_t (files checked, devices selected). */
static int resolve_reference(opts_t* o) {
  struct stat st;
  char lib[4096];
  const char* at;
  dm_reference_t* r = &o->ref;
  r->dev = (DLDevice){kDLCPU, 0};
  if (o->reference != NULL) return r->kind = DM_REF_DEVICE, one_device("--reference", o->reference, &r->dev);
  if (o->reference_py != NULL) {
    if (stat(o->reference_py, &st) != 0 || !S_ISREG(st.st_mode))
      return dh_cmdline_usage_error("module", "--reference-py '%s': not a readable file", dh_cmdline_quote(o->reference_py));
    return r->kind = DM_REF_PY, r->path = o->reference_py, DH_EXIT_OK;
  }
  if (o->reference_lib == NULL) return DH_EXIT_OK;
  at = strrchr(o->reference_lib, '@');
  snprintf(lib, sizeof lib, "%.*s", at ? (int)(at - o->reference_lib) : (int)strlen(o->reference_lib), o->reference_lib);
  if (stat(lib, &st) != 0 || !S_ISREG(st.st_mode))
    return dh_cmdline_usage_error("module", "--reference-lib '%s': not a readable file", dh_cmdline_quote(lib));
  r->kind = DM_REF_LIB;
  r->path = strdup(lib);
  return at ? one_device("--reference-lib", at + 1, &r->dev) : DH_EXIT_OK;
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

/* One case of the table: which case, on which function and device. */
typedef struct case_job {
  const dm_case_t* c;
  dm_target_t t;
} case_job_t;

/* The run of `module check`: the table of cases and what the reporters read. */
typedef struct check_run {
  const opts_t* o;
  case_job_t* jobs;  /* jobs[case], in report order: function, case, device */
  ds_info_t* infos;  /* infos[case] */
  char (*subject)[256]; /* "add cpu:0" */
  char (*classname)[256]; /* "add.cpu:0" */
  size_t n;
  ds_group_t group;  /* the library */
  ds_case_t* cases;
  ds_case_t* rows[1]; /* the view's cases[group]: the one group's row */
  ds_run_view_t view;
  ds_reports_t reps;
} check_run_t;

static void case_child(void* arg, int fd) {
  case_job_t* j = arg;
  dm_verdict_t v;
  memset(&v, 0, sizeof v);
  v.verdict = DS_FAIL;
  j->c->run(&j->t, &v);
  if (v.unresolved && v.verdict == DS_FAIL && strcmp(j->c->name, "module.call_valid") != 0) {
    char why[sizeof v.message];
    snprintf(why, sizeof why, "%s", v.message);
    dm_verdict(&v, DS_SKIP, "no call was accepted (module.call_valid fails: %.900s)", why);
  }
  dh_write_all(fd, &v, sizeof v);
}

static int case_prepare(void* user, size_t i, void* arg) {
  check_run_t* r = user;
  memcpy(arg, &r->jobs[i], sizeof r->jobs[i]);
  return 1;
}

/* Case i's record from its child's answer; a crash, hang or exit fails it, saying
 * which. */
static void case_finish(void* user, size_t i, void* arg, dh_child_result_t* cr) {
  check_run_t* r = user;
  ds_case_t* k = &r->cases[i];
  (void)arg;
  memset(k, 0, sizeof *k);
  k->ms = cr->ms;
  if (cr->status == DH_CHILD_ANSWERED && cr->size == sizeof(dm_verdict_t)) {
    const dm_verdict_t* v = (const dm_verdict_t*)cr->data;
    k->verdict = v->verdict == DS_PASS || v->verdict == DS_SKIP ? v->verdict : DS_FAIL;
    ds_fmt(k->verdict == DS_SKIP ? k->reason : k->message, sizeof k->message, "%.*s", (int)sizeof v->message - 1,
           v->message);
  } else {
    char* nl = strchr(cr->err_tail, '\n');
    if (nl) *nl = '\0';
    k->verdict = DS_FAIL;
    ds_fmt(k->message, sizeof k->message, "%s%s%s", cr->status == DH_CHILD_ANSWERED ? "no verdict" : cr->note,
           cr->err_tail[0] ? ": " : "", cr->err_tail);
  }
  k->counts = k->verdict == DS_FAIL;
}

static void case_done(void* user, size_t i) {
  check_run_t* r = user;
  ds_case_clean(&r->cases[i]);
  if (r->cases[i].counts) r->group.failed = 1;
  ds_reports_event(&r->reps, &r->view, DS_EV_END_CASE, 0, i);
}

/* The functions and their signatures, one line each after lead (`module list`, and
 * the TAP preamble of `module check`). */
static void list_functions(dh_sbuf_t* b, const char* lead, const dm_func_t* funcs, size_t n) {
  for (size_t i = 0; i < n; i++)
    dh_sbuf_addf(b, "%s%-24s %s\n", lead, funcs[i].name, funcs[i].has_schema || funcs[i].has_sig ? funcs[i].signature : "(no type schema)");
}

/* The table: every case of every function on every device (once per function for a
 * case without a device), what reports show of each. -1 when out of memory. */
static int build_table(check_run_t* r, const dm_func_t* funcs, size_t nf, const devices_t* ds) {
  size_t nc;
  const dm_case_t* cases = dm_cases(&nc);
  for (size_t f = 0; f < nf; f++) /* an alias: module.metadata alone */
    for (size_t c = 0; c < nc; c++) r->n += cases[c].per_device ? (funcs[f].alias ? 0 : (size_t)ds->n) : 1;
  r->jobs = calloc(r->n ? r->n : 1, sizeof *r->jobs);
  r->infos = calloc(r->n ? r->n : 1, sizeof *r->infos);
  r->subject = calloc(r->n ? r->n : 1, sizeof *r->subject);
  r->classname = calloc(r->n ? r->n : 1, sizeof *r->classname);
  r->cases = calloc(r->n ? r->n : 1, sizeof *r->cases);
  if (!r->jobs || !r->infos || !r->subject || !r->classname || !r->cases) return -1;
  size_t k = 0;
  for (size_t f = 0; f < nf; f++)
    for (size_t c = 0; c < nc; c++)
      for (int d = 0; d < (!cases[c].per_device ? 1 : funcs[f].alias ? 0 : ds->n); d++, k++) {
        char dev[96] = "";
        if (cases[c].per_device) dh_device_format(ds->dev[d], dev, sizeof dev);
        dm_reference_t ref = r->o->ref;
        if (ref.kind == DM_REF_NONE && ds->dev[d].device_type != kDLCPU)
          ref = (dm_reference_t){DM_REF_DEVICE, {kDLCPU, 0}, NULL, 1}; /* the default */
        r->jobs[k] = (case_job_t){&cases[c], {r->o->lib, &funcs[f], ds->dev[d], ds->alt[d], ref, r->o->seed, r->o->tol, 0}};
        for (int x = 0; x < r->o->n_tols; x++)
          if (strcmp(r->o->tol_names[x], funcs[f].name) == 0) r->jobs[k].t.tol = r->o->tols[x];
        for (int x = 0; x < r->o->n_nondet; x++) r->jobs[k].t.nondeterministic |= strcmp(r->o->nondet[x], funcs[f].name) == 0;
        ds_fmt(r->subject[k], sizeof r->subject[k], "%s%s%s", funcs[f].name, dev[0] ? " " : "", dev);
        ds_fmt(r->classname[k], sizeof r->classname[k], "%s%s%s", funcs[f].name, dev[0] ? "." : "", dev);
        r->infos[k] = (ds_info_t){.id = cases[c].name, .subject = r->subject[k], .classname = r->classname[k],
                                  .statement = cases[c].what};
      }
  return 0;
}

/* The reporters' view: one group (the library), the case table, TAP in the cases
 * layout after the list of functions. */
static void build_view(check_run_t* r, const dm_func_t* funcs, size_t nf, dh_sbuf_t* preamble) {
  ds_fmt(r->group.name, sizeof r->group.name, "%s", r->o->lib);
  ds_fmt(r->group.package, sizeof r->group.package, "module");
  dh_text_clean(r->group.name, sizeof r->group.name);
  r->group.id = -1;
  r->group.started = time(NULL);
  dh_sbuf_addf(preamble, "# %s: %zu function(s)\n", r->group.name, nf);
  list_functions(preamble, "#   ", funcs, nf);
  r->rows[0] = r->cases;
  ds_report_opts_t ro = {.command = "module check", .schema = "devharness.module", .tap_version = 13,
                         .tap_layout = DS_TAP_CASES, .verbosity = r->o->quiet ? -1 : 0, .max_waived = -1,
                         .shard_index = 1, .shard_total = 1};
  r->view = (ds_run_view_t){.o = ro, .preamble = dh_sbuf_str(preamble), .infos = r->infos, .ncase = r->n,
                            .groups = &r->group, .ng = 1, .cases = r->rows};
  r->reps.use_only = 1;
  r->reps.quiet = r->o->quiet;
  r->reps.only[ds_reporter_find("tap")] = r->reps.only[ds_reporter_find("junit")] = 1;
  r->reps.only[ds_reporter_find("cases")] = 1;
  r->reps.paths[ds_reporter_find("tap")] = r->o->tap;
  r->reps.paths[ds_reporter_find("junit")] = r->o->junit;
  r->reps.paths[ds_reporter_find("cases")] = r->o->cases;
}

static void check_free(check_run_t* r) {
  free(r->jobs), free(r->infos), free(r->subject), free(r->classname), free(r->cases);
  ds_reports_free(&r->reps);
}

/* Every case of every function on every device; returns the exit code. */
static int check(const opts_t* o, const dm_func_t* funcs, size_t nf, const devices_t* ds) {
  check_run_t r = {.o = o};
  dh_sbuf_t preamble = {0};
  if (build_table(&r, funcs, nf, ds) != 0) {
    check_free(&r);
    return fprintf(stderr, "devharness module check: out of memory\n"), DH_EXIT_VIOLATION;
  }
  build_view(&r, funcs, nf, &preamble);
  ds_reports_event(&r.reps, &r.view, DS_EV_BEGIN, 0, 0);
  ds_reports_event(&r.reps, &r.view, DS_EV_BEGIN_GROUP, 0, 0);
  ds_runner_t run = {.n = r.n, .jobs = (int)o->jobs, .timeout_s = (int)o->timeout, .no_fork = o->no_fork,
                     .arg_size = sizeof(case_job_t), .user = &r, .prepare = case_prepare, .child = case_child,
                     .finish = case_finish, .done = case_done};
  int rc = ds_run(&run) != 0 ? DH_EXIT_VIOLATION : DH_EXIT_OK;
  ds_tally_t t = ds_tally(&r.view, 0);
  if (rc == DH_EXIT_OK) rc = t.fail ? DH_EXIT_VIOLATION : DH_EXIT_OK;
  r.view.violations = r.group.failed;
  r.view.exit_code = rc;
  ds_reports_event(&r.reps, &r.view, DS_EV_END_GROUP, 0, 0);
  ds_reports_event(&r.reps, &r.view, DS_EV_END, 0, 0);
  if (ds_reports_write(&r.reps, "module check") != 0) rc = DH_EXIT_USAGE;
  fprintf(o->quiet ? stdout : stderr, "devharness module check: %s: %zu function(s) x %d device(s): %zu case(s), %zu pass, %zu fail, %zu skip (exit %d)\n",
          o->lib, nf, ds->n, r.n, t.pass, t.fail, t.skip, rc);
  check_free(&r);
  free(preamble.s);
  return rc;
}

/* --bundle DIR (docs/results.md "The bundle"): the folder, begun before anything runs
 * (one line and exit 2 when it already holds a bundle), and the reports that go into it
 * (the paths given with --tap, --junit or --cases win). */
static dh_store_bundle_t g_bundle;
static char g_bundle_paths[3][PATH_MAX];

static int bundle_begin(opts_t* o, int argc, char** argv) {
  if (!o->bundle) return DH_EXIT_OK;
  if (strcmp(o->sub, "check") != 0) return dh_cmdline_usage_error("module", "--bundle: only with 'module check'");
  int rc = dh_store_bundle_begin(&g_bundle, "module check", o->bundle, argc, argv);
  if (rc != 0) return rc;
  const char** slots[] = {&o->tap, &o->junit, &o->cases};
  static const char* const kNames[] = {"module.tap", "module.junit.xml", "module.cases.json"};
  for (size_t i = 0; i < 3; i++)
    if (*slots[i] == NULL) {
      snprintf(g_bundle_paths[i], PATH_MAX, "%.3900s/%s", g_bundle.dir, kNames[i]);
      *slots[i] = g_bundle_paths[i];
    }
  return DH_EXIT_OK;
}

/* After the run: info.json (of the one --device, else every device), then
 * manifest.json. A usage error leaves no bundle (its folder removed when this command
 * made it and it is empty); one that cannot be finished is an exit 1 unless the run
 * already failed worse. */
static int bundle_end(const opts_t* o, int rc) {
  if (!o->bundle) return rc;
  if (rc == DH_EXIT_USAGE) return dh_store_bundle_discard(&g_bundle), rc;
  dh_store_bundle_meta_t m = {.shard_index = 1, .shard_total = 1, .profile = "default", .exit_code = rc};
  if (dh_store_bundle_write_info(&g_bundle, o->n_devices == 1 ? o->devices[0] : NULL, NULL, 0) != 0 ||
      dh_store_bundle_finish(&g_bundle, &m) != 0)
    return rc == DH_EXIT_OK || rc == DH_EXIT_NO_DEVICE ? DH_EXIT_VIOLATION : rc;
  return rc;
}

int dh_module_main(int argc, char** argv) {
  opts_t o;
  int rc = parse(argc, argv, &o);
  if (rc != 0) return rc < 0 ? DH_EXIT_OK : rc;
  if ((rc = bundle_begin(&o, argc, argv)) != DH_EXIT_OK) return rc;
  dm_func_t* funcs = calloc(DM_MAX_FUNCS, sizeof *funcs);
  size_t nf = 0;
  devices_t ds;
  memset(&ds, 0, sizeof ds);
  if (funcs == NULL) return fprintf(stderr, "devharness module: out of memory\n"), DH_EXIT_VIOLATION;
  dh_plugins_load_default();
  rc = load_functions(&o, funcs, &nf);
  if (rc == DH_EXIT_OK) rc = check_function_names(&o, funcs, nf);
  if (rc == DH_EXIT_OK && strcmp(o.sub, "list") == 0) {
    dh_sbuf_t b = {0};
    list_functions(&b, "", funcs, nf);
    fputs(dh_sbuf_str(&b), stdout);
    free(b.s);
  }
  else if (rc == DH_EXIT_OK && (rc = resolve_reference(&o)) == DH_EXIT_OK &&
           (rc = select_devices(&o, &ds)) == DH_EXIT_OK) {
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
  free((char*)o.ref.path == o.reference_py ? NULL : (char*)o.ref.path);
  return bundle_end(&o, rc);
}
