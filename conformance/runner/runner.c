/*
 * conformance/runner/runner.c — `devharness conformance`: runs every clause x every device,
 * each case in a forked child with a timeout, and reports TAP / JUnit (the contract:
 * docs/contract.md; the clauses: docs/conformance.md). This file is the run itself:
 * clause selection, waivers, device discovery, the loop over devices, the summary and
 * the exit code; conformance/runner/runner.h has the map of the other runner files.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmdline/cmdline.h"
#include "conformance/conformance.h"
#include "runner.h"

/* Everything one run holds, freed by run_free() whatever the exit path. */
typedef struct run {
  dc_opts_t o;
  const dh_clause_t** cl; /* the selected clauses */
  size_t ncl;
  dc_device_t* devs;
  size_t nd;
  dc_case_t** cases; /* cases[device][clause] */
  dh_sbuf_t tap, piece; /* the whole TAP stream; the piece not yet written */
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
  dc_fmt(path, sizeof path, "%s/waivers/%s.json", dir, d->backend->name);
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
  if (!o->target_arg) return DH_EXIT_OK;
  if (dh_target_resolve(o->target_arg, &dc_run_target) != 0)
    return dc_usage_error("--target: %s", dh_error_message()); /* the message names the file or tag */
  /* a tag's own waivers: <targets dir>/waivers/<vendor>/<name>.json */
  struct stat st;
  const char* dir = dh_targets_dir();
  if (dir && stat(o->target_arg, &st) != 0) {
    char path[4096], err[1024];
    dc_fmt(path, sizeof path, "%s/waivers/%s.json", dir, o->target_arg);
    if (stat(path, &st) == 0 && load_waivers_checked(&dc_run_waivers, path, err, sizeof err) != 0)
      return dc_usage_error("waiver file: %s", err);
  }
  return DH_EXIT_OK;
}

/* Fills the device record of one selected entry: its profile (--profile, else the
 * backend's default) and its backend's waiver file, loaded once per backend (shared
 * with the entries before it of the same backend). */
static int device_from_entry(const dc_opts_t* o, const dh_device_entry_t* e, const dc_device_t* prev,
                             dc_device_t* d) {
  memset(d, 0, sizeof *d);
  d->backend = e->backend;
  d->id = e->device.device_id;
  d->count = e->device_count;
  d->probe_failed = e->probe_failed;
  dc_fmt(d->name, sizeof d->name, "%s", e->name);
  dc_fmt(d->reason, sizeof d->reason, "%s", e->reason);
  d->profile = o->profile;
  if (!d->profile) {
    const char* bp = e->backend->default_profile;
    d->profile = bp && strcmp(bp, "tvm") == 0 ? DC_PROFILE_TVM : DC_PROFILE_STRICT;
    d->profile_from_backend = bp != NULL;
  }
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
  if (!r->devs) rc = dc_usage_error("out of memory");
  for (size_t i = 0; rc == DH_EXIT_OK && i < sel.count; i++) {
    rc = device_from_entry(o, &sel.entries[i], i ? &r->devs[i - 1] : NULL, &r->devs[i]);
    if (rc == DH_EXIT_OK) r->nd++;
  }
  dh_device_list_free(&sel);
  return rc;
}

/* What the parallel run of a device reports for each case, in clause order. */
typedef struct device_run {
  run_t* r;
  const dc_device_t* d;
  dc_case_t* cases;
  int dev_fail;
} device_run_t;

static void case_done(size_t k, void* user) {
  device_run_t* dr = user;
  run_t* r = dr->r;
  if (dr->cases[k].counts) dr->dev_fail = 1;
  if (r->o.progress)
    fprintf(stderr, "\r\033[K%s %zu/%zu %s", dr->d->name, k + 1, r->ncl, r->cl[k]->id);
  dc_tap_case(&r->piece, (int)k + 1, &dr->cases[k]);
  dc_emit(&r->tap, stdout, &r->piece);
}

/* One device's subtest: its header, every case, its outer test line. Returns 1 when
 * the device has violations; *no_device counts a backend that could not run. */
static int run_device(run_t* r, size_t i, size_t* no_device) {
  const dc_opts_t* o = &r->o;
  dc_device_t* d = &r->devs[i];
  dh_sbuf_t* piece = &r->piece;
  r->cases[i] = calloc(r->ncl ? r->ncl : 1, sizeof **r->cases);
  dh_sbuf_add(piece, "# Subtest: ");
  dc_tap_text(piece, d->name);
  dh_sbuf_add(piece, "\n");
  if (d->id < 0 && d->reason[0]) {
    dh_sbuf_addf(piece, "    # %s: ", d->name);
    dc_tap_text(piece, d->reason);
    dh_sbuf_add(piece, "\n");
  }
  dh_sbuf_addf(piece, "    # profile: %s (%s)\n", dc_profile_name(d->profile),
               d->profile_from_backend ? "the backend's default" : o->profile ? "--profile" : "default");
  dh_sbuf_addf(piece, "    1..%zu\n", r->ncl);
  dc_emit(&r->tap, stdout, piece);
  device_run_t dr = {r, d, r->cases[i], 0};
  if (o->jobs > 1 && !o->no_fork) {
    dc_run_device_parallel(o, d, r->cl, r->ncl, r->cases[i], case_done, &dr);
  } else {
    for (size_t j = 0; j < r->ncl; j++) {
      if (o->progress)
        fprintf(stderr, "\r\033[K[%zu/%zu] %s %zu/%zu %s", i + 1, r->nd, d->name, j + 1, r->ncl, r->cl[j]->id);
      dc_run_case(o, d, r->cl[j], &r->cases[i][j]);
      if (r->cases[i][j].counts) dr.dev_fail = 1;
      dc_tap_case(piece, (int)j + 1, &r->cases[i][j]);
      dc_emit(&r->tap, stdout, piece);
    }
  }
  dh_sbuf_addf(piece, "%s %zu - ", dr.dev_fail ? "not ok" : "ok", i + 1);
  dc_tap_text(piece, d->name);
  if (d->id < 0 && !dr.dev_fail) {
    /* a backend that cannot run is a skip at the outer level too, never a pass */
    (*no_device)++;
    dh_sbuf_add(piece, " # SKIP ");
    dc_tap_text(piece, d->reason[0] ? d->reason : "no device");
  }
  dh_sbuf_add(piece, "\n");
  dc_emit(&r->tap, stdout, piece);
  return dr.dev_fail;
}

/* The summary lines at the end of the TAP stream and on stderr; returns 1 when more
 * cases were waived than --max-waived allows. */
static int summarize(run_t* r, int violations, size_t no_device, double seconds) {
  dh_sbuf_t* piece = &r->piece;
  size_t nd = r->nd, ncl = r->ncl;
  /* waiver accounting: a wildcard waiver must not pass silently */
  size_t w_skip = 0, w_xfail = 0;
  for (size_t i = 0; i < nd; i++)
    for (size_t j = 0; j < ncl; j++)
      if (r->cases[i][j].waived) {
        if (r->cases[i][j].todo || r->cases[i][j].waiver->kind == DC_WAIVE_XFAIL) w_xfail++;
        else w_skip++;
      }
  size_t waived = w_skip + w_xfail;
  dh_sbuf_addf(piece, "# %zu clause%s x %zu device%s in %.1f s; %d device%s with violations; %zu case%s "
               "waived (%zu skip, %zu xfail)\n", ncl, ncl == 1 ? "" : "s", nd, nd == 1 ? "" : "s",
               seconds, violations, violations == 1 ? "" : "s", waived, waived == 1 ? "" : "s", w_skip, w_xfail);
  for (size_t i = 0; i < nd; i++) {
    size_t skipped = 0;
    for (size_t j = 0; j < ncl; j++)
      if (r->cases[i][j].status == DC_SKIP && r->cases[i][j].clause->profile > r->devs[i].profile) skipped++;
    dh_sbuf_addf(piece, "# profile %s: %s", dc_profile_name(r->devs[i].profile), r->devs[i].name);
    if (skipped) dh_sbuf_addf(piece, " (%zu strict clause%s skipped)", skipped, skipped == 1 ? "" : "s");
    dh_sbuf_add(piece, "\n");
  }
  int too_many_waived = r->o.max_waived >= 0 && waived > (size_t)r->o.max_waived;
  if (too_many_waived)
    dh_sbuf_addf(piece, "# waived cases: %zu, more than --max-waived %ld: the run fails\n", waived,
                 r->o.max_waived);
  if (no_device) {
    dh_sbuf_addf(piece, "# NO DEVICE: %zu of %zu backend%s could not run, every clause skipped:", no_device,
                 nd, nd == 1 ? "" : "s");
    for (size_t i = 0; i < nd; i++)
      if (r->devs[i].id < 0) {
        dh_sbuf_add(piece, " ");
        dc_tap_text(piece, r->devs[i].backend->name);
      }
    dh_sbuf_add(piece, "\n");
  }
  dc_emit(&r->tap, stdout, piece);
  if (waived)
    fprintf(stderr, "devharness conformance: %zu case%s decided by waivers (%zu skip, %zu xfail)%s\n",
            waived, waived == 1 ? "" : "s", w_skip, w_xfail,
            too_many_waived ? ", more than --max-waived allows" : "");
  if (no_device)
    fprintf(stderr, "devharness conformance: NO DEVICE on %zu backend%s (see the # SKIP reasons)%s\n",
            no_device, no_device == 1 ? "" : "s",
            no_device == nd ? "; nothing was tested (exit 3)" : "");
  return too_many_waived;
}

/* Every device's subtest, the summary, --tap and --junit; returns the exit code. */
static int run_all(run_t* r) {
  dh_sbuf_addf(&r->piece, "TAP version %d\n", r->o.tap_version);
  for (size_t i = 0; i < dh_plugin_refusal_count(); i++) {
    dh_sbuf_add(&r->piece, "# refused plugin: ");
    dc_tap_text(&r->piece, dh_plugin_refusal(i));
    dh_sbuf_add(&r->piece, "\n");
  }
  if (r->nd == 0) dh_sbuf_add(&r->piece, "1..0 # SKIP no backend loaded (no libdevharness_*.so found)\n");
  else dh_sbuf_addf(&r->piece, "1..%zu\n", r->nd);
  dc_emit(&r->tap, stdout, &r->piece);

  r->cases = calloc(r->nd ? r->nd : 1, sizeof *r->cases);
  int violations = 0;
  size_t no_device = 0;
  double t_start = dc_now_ms();
  for (size_t i = 0; i < r->nd; i++) violations += run_device(r, i, &no_device);
  if (r->o.progress) fprintf(stderr, "\r\033[K");
  int too_many_waived = summarize(r, violations, no_device, (dc_now_ms() - t_start) / 1000.0);

  int rc = violations || too_many_waived ? DH_EXIT_VIOLATION
         : (r->nd == 0 || no_device == r->nd) ? DH_EXIT_NO_DEVICE : DH_EXIT_OK;
  if (r->o.tap_path && dc_write_file(r->o.tap_path, dh_sbuf_str(&r->tap), r->tap.len) != 0) rc = DH_EXIT_USAGE;
  if (r->o.junit_path) {
    dh_sbuf_t x = {0};
    dc_junit(&x, r->devs, r->nd, r->cases, r->ncl);
    if (dc_write_file(r->o.junit_path, dh_sbuf_str(&x), x.len) != 0) rc = DH_EXIT_USAGE;
    free(x.s);
  }
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
  r->o.progress = isatty(2);
  if ((rc = discover(r)) != DH_EXIT_OK) return rc;
  return run_all(r);
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
  free(r->cases);
  free(r->devs);
  free(r->cl);
  free(r->tap.s);
  free(r->piece.s);
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
