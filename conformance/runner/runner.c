/*
 * conformance/runner/runner.c — `devharness conformance`: runs every clause x every device,
 * each case in a forked child with a timeout, and reports TAP / JUnit (the contract:
 * docs/contract.md; the clauses: docs/conformance.md). This file is the run itself:
 * clause selection, waivers, device discovery, the loop over devices, the summary and
 * the exit code; conformance/runner/runner.h has the map of the other runner files.
 */
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/bundle.h"
#include "cmdline/cmdline.h"
#include "conformance/conformance.h"
#include "runner/runner.h"
#include "suite/suite.h"

/* Everything one run holds, freed by run_free() whatever the exit path. */
typedef struct run {
  dc_opts_t o;
  const dh_clause_t** cl; /* the selected clauses */
  size_t ncl;
  dc_device_t* devs;
  ds_group_t* groups; /* groups[device]: what reports show of it (devs[i].g) */
  size_t nd;
  ds_info_t* infos;   /* infos[clause]: what reports show of the clause */
  ds_case_t** cases;  /* cases[device][clause] */
  ds_run_view_t view; /* what the reporters read */
  char** refused;     /* the loader's refusals, cleaned (view.refused) */
  ds_reports_t reps;  /* the reporters' texts and files */
} run_t;

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

static void load_backend_waivers(dc_device_t* d, int* bad, char* err, size_t esize) {
  const char* dir = dh_targets_dir();
  if (!dir) return;
  char path[4096];
  ds_fmt(path, sizeof path, "%s/waivers/%s.json", dir, d->backend->name);
  struct stat st;
  if (stat(path, &st) != 0) return;
  if (load_waivers_checked(&d->waivers, path, err, esize) != 0) *bad = 1;
}

/* Every --filter glob is valid and matches a clause. */
static int check_filters(const dc_opts_t* o, const dh_clause_t* const* all, size_t n) {
  for (size_t i = 0; i < o->n_filters; i++) {
    const char* why;
    if (!dc_glob_valid(o->filters[i], &why))
      return dc_usage_error("--filter \"%s\": %s", dh_cmdline_quote(o->filters[i]), why);
    size_t m = 0;
    for (size_t j = 0; j < n; j++)
      if (fnmatch(o->filters[i], all[j]->id, 0) == 0) m++;
    if (!m) return dc_usage_error("--filter \"%s\" matches no clause (see --list)", dh_cmdline_quote(o->filters[i]));
  }
  return DH_EXIT_OK;
}

/* --waivers files, the plugins (dlopen only: no backend is initialised in this
 * process), --target and a tag's own waivers. */
static int load_inputs(const dc_opts_t* o) {
  for (size_t i = 0; i < o->n_waiver_paths; i++) {
    char err[1024];
    if (load_waivers_checked(&dc_run_waivers, o->waiver_paths[i], err, sizeof err) != 0)
      return dc_usage_error("--waivers: %s", err);
  }
  if (o->n_plugins) {
    for (size_t i = 0; i < o->n_plugins; i++) {
      if (dh_plugin_load(o->plugins[i], NULL) != 0)
        return dc_usage_error("--plugin %s: %s", dh_cmdline_quote(o->plugins[i]), dh_error_message());
    }
  } else {
    dh_plugins_load_default();
  }
  dh_cmdline_device_options_end(); /* the backends the device options name are found now */
  if (!o->target_arg) return DH_EXIT_OK;
  if (dh_target_resolve(o->target_arg, &dc_run_target) != 0)
    return dc_usage_error("--target: %s", dh_error_message()); /* the message names the file or tag */
  /* a tag's own waivers: <targets dir>/waivers/<vendor>/<name>.json */
  struct stat st;
  const char* dir = dh_targets_dir();
  if (dir && stat(o->target_arg, &st) != 0) {
    char path[4096], err[1024];
    ds_fmt(path, sizeof path, "%s/waivers/%s.json", dir, o->target_arg);
    if (stat(path, &st) == 0 && load_waivers_checked(&dc_run_waivers, path, err, sizeof err) != 0)
      return dc_usage_error("waiver file: %s", err);
  }
  return DH_EXIT_OK;
}

/* Fills the device record of one selected entry: its profile (--profile, else the
 * backend's default) and its backend's waiver file, loaded once per backend (shared
 * with the entries before it of the same backend). */
static int device_from_entry(const dc_opts_t* o, const dh_device_entry_t* e, const dc_device_t* prev,
                             dc_device_t* d, ds_group_t* g) {
  memset(d, 0, sizeof *d);
  memset(g, 0, sizeof *g);
  d->g = g;
  d->backend = e->backend;
  d->id = g->id = e->device.device_id;
  g->no_device = d->id < 0;
  d->count = e->device_count;
  g->probe_failed = e->probe_failed;
  ds_fmt(g->name, sizeof g->name, "%s", e->name);
  ds_fmt(g->reason, sizeof g->reason, "%s", e->reason);
  d->profile = o->profile;
  g->profile_from = o->profile ? "--profile" : "default";
  if (!d->profile) {
    const char* bp = e->backend->default_profile;
    d->profile = bp && strcmp(bp, "tvm") == 0 ? DC_PROFILE_TVM : DC_PROFILE_STRICT;
    if (bp != NULL) g->profile_from = "backend";
  }
  g->profile = dc_profile_name(d->profile);
  if (prev != NULL && prev->backend == e->backend) {
    d->waivers = prev->waivers;
    return DH_EXIT_OK;
  }
  int bad_waiver = 0;
  char werr[1024] = "";
  load_backend_waivers(d, &bad_waiver, werr, sizeof werr);
  if (bad_waiver) {
    dc_waivers_free(&d->waivers);
    return dc_usage_error("waiver file: %s", werr);
  }
  return DH_EXIT_OK;
}

static void probe_progress(const dh_backend_t* b, void* user) {
  if (*(const int*)user) fprintf(stderr, "\r\033[Kprobing %s...", b->name);
}

/* The devices to run (dh_device_select): every device of every backend (a backend
 * without one as one "(no device)" entry), or the one --device names. Devices are
 * counted in forked probes (this process must not initialise a backend), in process
 * with --no-fork. */
static int discover(run_t* r) {
  const dc_opts_t* o = &r->o;
  dh_device_list_t sel;
  dh_device_select_params_t params = {
      .spec = o->device_spec,
      .flags = (o->no_fork ? 0u : DH_SELECT_PROBE_IN_CHILD) | (o->n_plugins ? DH_SELECT_LOADED_ONLY : 0u),
      .probe_timeout_s = o->timeout_s,
      .progress = probe_progress,
      .progress_user = (void*)&o->progress,
  };
  int rc = dh_cmdline_select_devices("conformance", &params, &sel);
  if (rc != DH_EXIT_OK) return rc;
  r->devs = calloc(sel.count + 1, sizeof *r->devs);
  r->groups = calloc(sel.count + 1, sizeof *r->groups);
  if (!r->devs || !r->groups) rc = dc_usage_error("out of memory");
  for (size_t i = 0; rc == DH_EXIT_OK && i < sel.count; i++) {
    rc = device_from_entry(o, &sel.entries[i], i ? &r->devs[i - 1] : NULL, &r->devs[i], &r->groups[i]);
    if (rc == DH_EXIT_OK) dc_device_clean(&r->devs[r->nd++]);
  }
  dh_device_list_free(&sel);
  dc_run_once_device = NULL;
  for (size_t i = r->nd; i-- > 0;)
    if (r->devs[i].id >= 0 && (dc_run_once_device == NULL || r->devs[i].profile >= DC_PROFILE_STRICT ||
                               dc_run_once_device->profile < DC_PROFILE_STRICT))
      dc_run_once_device = &r->devs[i];
  return rc;
}

/* What the parallel run of a device reports for each case, in clause order. */
typedef struct device_run {
  run_t* r;
  size_t dev;
} device_run_t;

/* A case is known: its text cleaned (the one place, ds_case_clean), then reported. */
static void case_done(size_t k, void* user) {
  device_run_t* dr = user;
  run_t* r = dr->r;
  if (r->o.progress)
    fprintf(stderr, "\r\033[K[%zu/%zu] %s %zu/%zu %s", dr->dev + 1, r->nd, r->groups[dr->dev].name, k + 1, r->ncl,
            r->cl[k]->id);
  ds_case_clean(&r->cases[dr->dev][k]);
  if (r->cases[dr->dev][k].counts) r->groups[dr->dev].failed = 1;
  ds_reports_event(&r->reps, &r->view, DS_EV_END_CASE, dr->dev, k);
}

/* One device: every case, reported as each is known. Returns 1 when the device has
 * violations; *no_device counts a backend that could not run. */
static int run_device(run_t* r, size_t i, size_t* no_device) {
  const dc_opts_t* o = &r->o;
  dc_device_t* d = &r->devs[i];
  d->g->started = time(NULL);
  ds_reports_event(&r->reps, &r->view, DS_EV_BEGIN_GROUP, i, 0);
  device_run_t dr = {r, i};
  dc_run_device(o, d, r->cl, r->ncl, r->cases[i], case_done, &dr);
  /* a backend that cannot run is a skip, never a pass */
  if (d->id < 0 && !d->g->failed) (*no_device)++;
  ds_reports_event(&r->reps, &r->view, DS_EV_END_GROUP, i, 0);
  return d->g->failed;
}

/* Waiver accounting (a wildcard waiver must not pass silently) and the run's exit
 * code, into the reporters' view. */
static void count_totals(run_t* r, int violations, size_t no_device, double seconds) {
  ds_run_view_t* v = &r->view;
  for (size_t i = 0; i < r->nd; i++)
    for (size_t j = 0; j < r->ncl; j++) {
      v->waived_xfail += r->cases[i][j].waived == DS_WAIVED_XFAIL;
      v->waived_skip += r->cases[i][j].waived == DS_WAIVED_SKIP;
    }
  size_t waived = v->waived_skip + v->waived_xfail;
  v->violations = violations;
  v->no_device = no_device;
  v->seconds = seconds;
  v->too_many_waived = r->o.max_waived >= 0 && waived > (size_t)r->o.max_waived;
  v->exit_code = violations || v->too_many_waived ? DH_EXIT_VIOLATION
               : (r->nd == 0 || no_device == r->nd) ? DH_EXIT_NO_DEVICE : DH_EXIT_OK;
}

/* The waiver count and NO DEVICE lines on stderr. */
static void say_totals(const run_t* r) {
  const ds_run_view_t* v = &r->view;
  size_t waived = v->waived_skip + v->waived_xfail;
  if (waived && r->o.verbosity >= 0)
    fprintf(stderr, "devharness conformance: %zu case%s decided by waivers (%zu skip, %zu xfail)%s\n",
            waived, waived == 1 ? "" : "s", v->waived_skip, v->waived_xfail,
            v->too_many_waived ? ", more than --max-waived allows" : "");
  if (v->no_device)
    fprintf(stderr, "devharness conformance: NO DEVICE on %zu backend%s (see the # SKIP reasons)%s\n",
            v->no_device, v->no_device == 1 ? "" : "s",
            v->no_device == r->nd ? "; nothing was tested (exit 3)" : "");
}

/* --quiet and --verbose: one verdict line, the counts of every case; on stdout with
 * --quiet (it is all stdout has), on stderr with --verbose (stdout stays TAP). */
static void say_verdict(const run_t* r, FILE* f) {
  const ds_run_view_t* v = &r->view;
  if (r->o.verbosity < 0) /* --quiet: a refused plugin or server is an error line, never silent */
    for (size_t i = 0; i < dh_plugin_refusal_count(); ++i) {
      char q[DH_TEXT_BUF];
      fprintf(stderr, "devharness conformance: refused %s\n", dh_text_quote(dh_plugin_refusal(i), q, sizeof q));
    }
  ds_tally_t t = ds_tally(v, (size_t)-1);
  char shard[96] = "";
  if (r->o.shard_total > 1)
    ds_fmt(shard, sizeof shard, "; shard %d/%d, %zu cases in other shards", r->o.shard_index, r->o.shard_total,
           ds_other_shard_cases(v, (size_t)-1));
  fprintf(f, "devharness conformance: %zu clause%s x %zu device%s: %zu pass, %zu fail, %zu skip, %zu xfail; "
         "%d device%s with violations%s%s (exit %d)\n",
         v->ncase, v->ncase == 1 ? "" : "s", v->ng, v->ng == 1 ? "" : "s", t.pass, t.fail, t.skip, t.xfail,
         v->violations, v->violations == 1 ? "" : "s", v->no_device == v->ng ? ", nothing tested (no device)" : "",
         shard, v->exit_code);
  fflush(f);
}

/* Every device, the reporters' ends and their files; returns the exit code. */
/* What the reporters read of the run: the report options, each clause's id, statement,
 * level, profile and source, the devices' groups, the case records. -1 when out of
 * memory. */
static int build_view(run_t* r) {
  const dc_opts_t* o = &r->o;
  r->cases = calloc(r->nd ? r->nd : 1, sizeof *r->cases);
  r->infos = calloc(r->ncl ? r->ncl : 1, sizeof *r->infos);
  for (size_t i = 0; r->cases && i < r->nd; i++)
    if ((r->cases[i] = calloc(r->ncl ? r->ncl : 1, sizeof **r->cases)) == NULL) return -1;
  if (!r->cases || !r->infos) return -1;
  for (size_t i = 0; i < r->nd; i++) /* other shards' cases known before the plans are written */
    for (size_t j = 0; j < r->ncl; j++) dc_case_other_shard(o, r->groups[i].name, r->cl[j]->id, &r->cases[i][j]);
  for (size_t j = 0; j < r->ncl; j++) {
    const dh_clause_t* c = r->cl[j];
    const dc_clause_source_t* src = o->junit_file_line ? dc_clause_source(c->id) : NULL;
    r->infos[j] = (ds_info_t){.id = c->id, .statement = c->statement, .level = c->level == DC_MUST ? "must" : "should",
                              .profile = dc_profile_name(c->profile), .source = c->source,
                              .src_file = src ? src->file : NULL, .src_line = src ? src->line : 0};
  }
  ds_report_opts_t ro = {.command = "conformance", .schema = "devharness.conformance", .tap_version = o->tap_version,
                         .tap_layout = o->tap_flat ? DS_TAP_FLAT : DS_TAP_SUBTESTS, .tap_summary = 1,
                         .verbosity = o->verbosity, .max_waived = o->max_waived,
                         .shard_index = o->shard_index, .shard_total = o->shard_total};
  r->view = (ds_run_view_t){.o = ro, .infos = r->infos, .ncase = r->ncl, .groups = r->groups, .ng = r->nd,
                            .cases = r->cases};
  for (size_t k = 0; k < ds_reporter_count; k++) r->reps.paths[k] = o->report_paths[k];
  r->reps.quiet = o->verbosity < 0; /* --quiet: the files only */
  return 0;
}

static int run_all(run_t* r) {
  if (build_view(r) != 0) return dc_usage_error("out of memory");
  /* the loader's refusal messages name plugin files and carry their text: cleaned too */
  size_t nref = dh_plugin_refusal_count();
  r->refused = calloc(nref ? nref : 1, sizeof *r->refused);
  for (size_t i = 0; r->refused && i < nref; i++) {
    size_t size = strlen(dh_plugin_refusal(i)) + 1;
    if ((r->refused[i] = malloc(size)) == NULL) break;
    memcpy(r->refused[i], dh_plugin_refusal(i), size);
    dh_text_clean(r->refused[i], size);
    r->view.nrefused = i + 1;
  }
  r->view.refused = (const char* const*)r->refused;
  ds_reports_event(&r->reps, &r->view, DS_EV_BEGIN, 0, 0);
  int violations = 0;
  size_t no_device = 0;
  double t_start = dc_now_ms();
  for (size_t i = 0; i < r->nd; i++) violations += run_device(r, i, &no_device);
  if (r->o.progress) fprintf(stderr, "\r\033[K");
  count_totals(r, violations, no_device, (dc_now_ms() - t_start) / 1000.0);
  ds_reports_event(&r->reps, &r->view, DS_EV_END, 0, 0);
  say_totals(r);
  if (r->o.verbosity != 0) say_verdict(r, r->o.verbosity < 0 ? stdout : stderr);
  return ds_reports_write(&r->reps, "conformance") != 0 ? DH_EXIT_USAGE : r->view.exit_code;
}

/* --bundle DIR: the folder and the report files that go into it (the paths given with
 * --tap, --junit, --summary or --cases win). */
static dh_store_bundle_t g_bundle;
static char g_bundle_paths[DS_REPORTERS_MAX][PATH_MAX];

static int bundle_begin(run_t* r, int argc, char** argv) {
  if (!r->o.bundle_dir) return DH_EXIT_OK;
  int rc = dh_store_bundle_begin(&g_bundle, "conformance", r->o.bundle_dir, argc, argv);
  if (rc != 0) return rc;
  static const char* const kFiles[][2] = {{"tap", "conformance.tap"}, {"junit", "conformance.junit.xml"},
                                          {"summary", "conformance.summary.json"},
                                          {"cases", "conformance.cases.json"}};
  for (size_t k = 0; k < ds_reporter_count; k++)
    for (size_t f = 0; f < sizeof kFiles / sizeof kFiles[0]; f++)
      if (!r->o.report_paths[k] && strcmp(ds_reporters[k]->option, kFiles[f][0]) == 0) {
        ds_fmt(g_bundle_paths[k], PATH_MAX, "%s/%s", g_bundle.dir, kFiles[f][1]);
        r->o.report_paths[k] = g_bundle_paths[k];
      }
  return DH_EXIT_OK;
}

/* After the run: info.json, then manifest.json. A bundle that cannot be finished is
 * an exit 1 (the run's results are incomplete) unless the run already failed worse. */
static int bundle_end(run_t* r, int rc) {
  if (!r->o.bundle_dir) return rc;
  const char* profile = r->o.profile == 0 ? "default" : dc_profile_name(r->o.profile);
  dh_store_bundle_meta_t m = {.shard_index = r->o.shard_index,
                              .shard_total = r->o.shard_total,
                              .profile = profile,
                              .waiver_paths = r->o.waiver_paths,
                              .n_waivers = r->o.n_waiver_paths,
                              .exit_code = rc};
  if (dh_store_bundle_write_info(&g_bundle, r->o.device_spec, r->o.plugins, r->o.n_plugins) != 0 || dh_store_bundle_finish(&g_bundle, &m) != 0)
    return rc == DH_EXIT_OK || rc == DH_EXIT_NO_DEVICE ? DH_EXIT_VIOLATION : rc;
  return rc;
}

static int conformance_main(run_t* r, int argc, char** argv) {
  int rc = dc_opts_parse(argc, argv, &r->o);
  if (rc >= 0) return rc;
  size_t ncl_all;
  const dh_clause_t* const* all = dc_catalogue(&ncl_all);
  if ((rc = check_filters(&r->o, all, ncl_all)) != DH_EXIT_OK) return rc;
  if (r->o.list) return dc_list(&r->o, all, ncl_all);
  r->cl = malloc((ncl_all ? ncl_all : 1) * sizeof *r->cl);
  if (!r->cl) return dc_usage_error("out of memory");
  for (size_t i = 0; i < ncl_all; i++)
    if (dc_selected(&r->o, all[i]->id)) r->cl[r->ncl++] = all[i];
  if ((rc = load_inputs(&r->o)) != DH_EXIT_OK) return rc;
  r->o.progress = isatty(2) && r->o.verbosity >= 0;
  if ((rc = bundle_begin(r, argc, argv)) != DH_EXIT_OK) return rc;
  if ((rc = discover(r)) != DH_EXIT_OK) {
    if (r->o.bundle_dir) dh_store_bundle_discard(&g_bundle); /* a bad --device: no bundle, not even its folder */
    return rc;
  }
  return bundle_end(r, run_all(r));
}

static void run_free(run_t* r) {
  /* waiver arrays are shared between a backend's devices: free each once */
  for (size_t i = 0; r->devs && i < r->nd; i++) {
    int dup = 0;
    for (size_t j = 0; j < i; j++)
      if (r->devs[j].waivers.v == r->devs[i].waivers.v) dup = 1;
    if (!dup) {
      dc_waivers_t w = r->devs[i].waivers; /* free a copy: later devices compare v */
      dc_waivers_free(&w);
    }
  }
  for (size_t i = 0; r->cases && i < r->nd; i++) free(r->cases[i]);
  free(r->infos);
  free(r->groups);
  for (size_t i = 0; r->refused && i < r->view.nrefused; i++) free(r->refused[i]);
  free(r->refused);
  free(r->cases);
  free(r->devs);
  free(r->cl);
  ds_reports_free(&r->reps);
  dc_opts_free(&r->o);
  memset(r, 0, sizeof *r);
  dc_waivers_free(&dc_run_waivers);
  dh_target_free(dc_run_target);
  dc_run_target = NULL;
}

int dh_conformance_main(int argc, char** argv) {
  static run_t r;
  int rc = conformance_main(&r, argc, argv);
  run_free(&r);
  return rc;
}
