/* conformance/runner/merged.c — the reports of `devharness merge`: the merged bundle's
 * conformance.tap, conformance.junit.xml and conformance.summary.json, written by the
 * suite's reporters (suite/suite.h) from the merged cases as one run of every shard's
 * cases. store/merge.c joins the bundles (store/bundle.h dh_store_merge_main); this
 * file rebuilds the reporters' view: the clauses from the catalogue, the devices from
 * the parts' summaries, each case from its record (and its "detail": the texts the
 * shard's reports showed). docs/results.md "Shards". */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmdline/cmdline.h"
#include "conformance/conformance.h"
#include "runner/runner.h"
#include "store/bundle.h"
#include "suite/suite.h"

/* The merged run as the reporters see it, and what it is built from. */
typedef struct merged {
  const dh_store_merge_t* in;
  ds_info_t* infos;
  ds_group_t* groups;
  ds_case_t** cases;     /* cases[device][clause] */
  char* seen;            /* seen[device * ncl + clause]: a record was found */
  json_t** summaries;    /* each part's conformance.summary.json, or NULL */
  const char** refused;  /* the parts' refused plugins, each once */
  ds_run_view_t view;
  ds_reports_t reps;
  char paths[3][PATH_MAX];
} merged_t;

/* A part's conformance.summary.json (listed in its manifest, so checked whole), or NULL. */
static json_t* part_summary(const dh_store_loaded_bundle_t* b) {
  if (!json_object_get(json_object_get(b->manifest, "files"), "conformance.summary.json")) return NULL;
  char path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/conformance.summary.json", b->dir);
  return json_load_file(path, 0, NULL);
}

static const char* jstr(json_t* o, const char* key) { return json_string_value(json_object_get(o, key)); }
/* A JSON string's text, "" for anything else. */
static const char* text(json_t* v) { return json_is_string(v) ? json_string_value(v) : ""; }

/* The first part summary's record of device name, or NULL. */
static json_t* summary_device(const merged_t* m, const char* name) {
  for (int p = 0; p < m->in->nparts; p++) {
    size_t i;
    json_t* d;
    json_array_foreach(json_object_get(m->summaries[p], "devices"), i, d)
      if (strcmp(text(json_object_get(d, "name")), name) == 0) return d;
  }
  return NULL;
}


/* What the reports show of each clause: the catalogue's entry, or the id alone for a
 * clause this devharness does not have. */
static void fill_infos(merged_t* m, json_t* clauses) {
  size_t n = 0, j;
  const dh_clause_t* const* all = dc_catalogue(&n);
  json_t* id;
  json_array_foreach(clauses, j, id) {
    m->infos[j] = (ds_info_t){.id = text(id)};
    for (size_t k = 0; k < n; k++)
      if (strcmp(all[k]->id, m->infos[j].id) == 0)
        m->infos[j] = (ds_info_t){.id = all[k]->id, .statement = all[k]->statement,
                                  .level = all[k]->level == DC_MUST ? "must" : "should",
                                  .profile = dc_profile_name(all[k]->profile), .source = all[k]->source};
  }
}

/* Device i from the parts' summaries (backend, id, profile, why it had no device); the
 * backend from a case record when no part has a summary. */
static void fill_group(merged_t* m, size_t i, const char* name, json_t* cases) {
  ds_group_t* g = &m->groups[i];
  ds_fmt(g->name, sizeof g->name, "%s", name);
  g->id = -1;
  json_t* d = summary_device(m, name);
  if (d) {
    ds_fmt(g->package, sizeof g->package, "%s", text(json_object_get(d, "backend")));
    if (json_is_integer(json_object_get(d, "id"))) g->id = (int)json_integer_value(json_object_get(d, "id"));
    g->profile = jstr(d, "profile");
    g->profile_from = jstr(d, "profile_from");
    const char* why = jstr(d, "probe_failure") ? jstr(d, "probe_failure") : jstr(d, "no_device");
    g->probe_failed = jstr(d, "probe_failure") != NULL;
    g->no_device = why != NULL;
    ds_fmt(g->reason, sizeof g->reason, "%s", why ? why : "");
    return;
  }
  size_t k;
  json_t* c;
  json_array_foreach(cases, k, c) if (strcmp(text(json_object_get(c, "device")), name) == 0) {
    ds_fmt(g->package, sizeof g->package, "%s", text(json_object_get(c, "backend")));
    break;
  }
}

/* A case record (conformance.cases.json) back into the case the shard reported. */
static void case_from_record(ds_case_t* k, json_t* rec) {
  static const char* const kVerdicts[] = {"pass", "fail", "skip", "xfail"};
  const char* status = text(json_object_get(rec, "status"));
  k->verdict = DS_FAIL;
  for (int v = 0; v < 4; v++)
    if (strcmp(status, kVerdicts[v]) == 0) k->verdict = (ds_verdict_t)v;
  k->counts = k->verdict == DS_FAIL;
  k->ms = json_number_value(json_object_get(rec, "duration_ms"));
  json_t* d = json_object_get(rec, "detail");
  const char* waiver = jstr(d, "waiver");
  if (json_is_true(json_object_get(rec, "waived")))
    k->waived = (waiver ? strcmp(waiver, "skip") == 0 : k->verdict == DS_SKIP) ? DS_WAIVED_SKIP : DS_WAIVED_XFAIL;
  if (!d) { /* a record without detail: its message is the reason, note or failure */
    const char* msg = text(json_object_get(rec, "message"));
    if (k->verdict == DS_SKIP || k->verdict == DS_XFAIL) ds_fmt(k->reason, sizeof k->reason, "%s", msg);
    else ds_fmt(k->message, sizeof k->message, "%s", msg);
    return;
  }
  struct { const char* key; char* dst; size_t n; } kTexts[] = {
      {"reason", k->reason, sizeof k->reason}, {"note", k->note, sizeof k->note},
      {"message", k->message, sizeof k->message}, {"expected", k->expected, sizeof k->expected},
      {"got", k->got, sizeof k->got}, {"file", k->file, sizeof k->file},
      {"details", k->details, sizeof k->details}, {"stderr", k->err_tail, sizeof k->err_tail}};
  for (size_t t = 0; t < sizeof kTexts / sizeof kTexts[0]; t++)
    ds_fmt(kTexts[t].dst, kTexts[t].n, "%s", text(json_object_get(d, kTexts[t].key)));
  k->line = (int)json_integer_value(json_object_get(d, "line"));
  k->xpass = json_is_true(json_object_get(d, "xpass"));
}

/* The index of s in the strings of array a, or -1. */
static long index_of(json_t* a, const char* s) {
  size_t i;
  json_t* v;
  json_array_foreach(a, i, v) if (strcmp(text(v), s) == 0) return (long)i;
  return -1;
}

/* Every case from its record (the first, when a shard was given twice: verify names
 * the repeats); a case no part ran is a failure of the merged run. */
static void fill_cases(merged_t* m, json_t* doc) {
  json_t *devs = json_object_get(doc, "devices"), *cls = json_object_get(doc, "clauses"), *rec;
  size_t r, ncl = m->view.ncase;
  json_array_foreach(json_object_get(doc, "cases"), r, rec) {
    long i = index_of(devs, text(json_object_get(rec, "device"))), j = index_of(cls, text(json_object_get(rec, "clause")));
    if (i < 0 || j < 0 || m->seen[i * ncl + j]) continue;
    m->seen[i * ncl + j] = 1;
    case_from_record(&m->cases[i][j], rec);
  }
  int total = (int)json_integer_value(json_object_get(json_object_get(m->in->parts[0].manifest, "shard"), "total"));
  for (size_t i = 0; i < m->view.ng; i++)
    for (size_t j = 0; j < ncl; j++) {
      ds_case_t* k = &m->cases[i][j];
      if (!m->seen[i * ncl + j]) {
        k->verdict = DS_FAIL;
        k->counts = 1;
        ds_fmt(k->message, sizeof k->message, "not run: shard %d/%d not merged", dc_shard_of(m->groups[i].name,
               m->infos[j].id, total), total < 1 ? 1 : total);
        ds_fmt(k->expected, sizeof k->expected, "the case in one of the bundles merged");
        ds_fmt(k->got, sizeof k->got, "no record of it");
        ds_fmt(k->file, sizeof k->file, "(devharness merge)");
      }
      ds_case_clean(k);
      if (k->counts) m->groups[i].failed = 1;
    }
}

/* The parts' refused plugins, each once; their durations and --max-waived. */
static void from_summaries(merged_t* m, long* max_waived) {
  *max_waived = -1;
  for (int p = 0; p < m->in->nparts; p++) {
    json_t *s = m->summaries[p], *v;
    size_t i;
    m->view.seconds += json_number_value(json_object_get(s, "duration_s"));
    json_t* mw = json_object_get(json_object_get(s, "totals"), "max_waived");
    if (json_is_integer(mw)) *max_waived = (long)json_integer_value(mw);
    json_array_foreach(json_object_get(s, "refused_plugins"), i, v) {
      size_t k = 0;
      while (k < m->view.nrefused && strcmp(m->refused[k], text(v)) != 0) k++;
      if (k == m->view.nrefused && json_string_value(v)) m->refused[m->view.nrefused++] = json_string_value(v);
    }
  }
}

/* The totals and exit code of the merged run: the worst part's, 1 with a violation. */
static void count_totals(merged_t* m, long max_waived) {
  ds_run_view_t* v = &m->view;
  for (size_t i = 0; i < v->ng; i++) {
    v->violations += m->groups[i].failed;
    v->no_device += m->groups[i].no_device && !m->groups[i].failed;
    for (size_t j = 0; j < v->ncase; j++) {
      v->waived_skip += m->cases[i][j].waived == DS_WAIVED_SKIP;
      v->waived_xfail += m->cases[i][j].waived == DS_WAIVED_XFAIL;
    }
  }
  v->o.max_waived = max_waived;
  v->too_many_waived = max_waived >= 0 && v->waived_skip + v->waived_xfail > (size_t)max_waived;
  v->exit_code = v->violations || v->too_many_waived ? DH_EXIT_VIOLATION : m->in->exit_code;
}

/* The earliest start of the parts, each device's JUnit timestamp. */
static time_t first_start(const dh_store_merge_t* in) {
  time_t first = 0;
  for (int p = 0; p < in->nparts; p++) {
    struct tm tm = {0};
    const char* s = jstr(in->parts[p].manifest, "started_at");
    if (!s || !strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm)) continue;
    time_t t = timegm(&tm);
    if (first == 0 || t < first) first = t;
  }
  return first;
}

/* Allocates and fills the view. -1 when out of memory. */
static int build(merged_t* m) {
  json_t* doc = m->in->cases_doc;
  size_t nd = json_array_size(json_object_get(doc, "devices")), ncl = json_array_size(json_object_get(doc, "clauses"));
  size_t nref = 0;
  m->summaries = calloc((size_t)m->in->nparts, sizeof *m->summaries);
  for (int p = 0; m->summaries && p < m->in->nparts; p++)
    if ((m->summaries[p] = part_summary(&m->in->parts[p])))
      nref += json_array_size(json_object_get(m->summaries[p], "refused_plugins"));
  m->infos = calloc(ncl + 1, sizeof *m->infos);
  m->groups = calloc(nd + 1, sizeof *m->groups);
  m->cases = calloc(nd + 1, sizeof *m->cases);
  m->seen = calloc(nd * ncl + 1, 1);
  m->refused = calloc(nref + 1, sizeof *m->refused);
  for (size_t i = 0; m->cases && i < nd; i++)
    if (!(m->cases[i] = calloc(ncl + 1, sizeof **m->cases))) return -1;
  if (!m->summaries || !m->infos || !m->groups || !m->cases || !m->seen || !m->refused) return -1;
  m->view = (ds_run_view_t){.o = {.command = "merge", .schema = "devharness.conformance", .tap_version = 13,
                                  .tap_layout = DS_TAP_FLAT, .tap_summary = 1, .shard_index = 1, .shard_total = 1},
                            .infos = m->infos, .ncase = ncl, .groups = m->groups, .ng = nd, .cases = m->cases,
                            .refused = m->refused};
  fill_infos(m, json_object_get(doc, "clauses"));
  time_t started = first_start(m->in);
  for (size_t i = 0; i < nd; i++) {
    fill_group(m, i, text(json_array_get(json_object_get(doc, "devices"), i)),
               json_object_get(doc, "cases"));
    m->groups[i].started = started;
  }
  fill_cases(m, doc);
  long max_waived;
  from_summaries(m, &max_waived);
  count_totals(m, max_waived);
  return 0;
}

/* Every reporter's calls over the view, as a run makes them, and their files. */
static int report(merged_t* m, const char* dir) {
  static const char* const kFiles[][2] = {
      {"tap", "conformance.tap"}, {"junit", "conformance.junit.xml"}, {"summary", "conformance.summary.json"}};
  for (size_t f = 0; f < 3; f++) {
    int k = ds_reporter_find(kFiles[f][0]);
    ds_fmt(m->paths[f], sizeof m->paths[f], "%s/%s", dir, kFiles[f][1]);
    if (k >= 0) m->reps.paths[k] = m->paths[f];
    if (k >= 0) m->reps.only[k] = 1;
  }
  m->reps.use_only = 1; /* merge writes its own conformance.cases.json */
  m->reps.quiet = 1;
  ds_reports_event(&m->reps, &m->view, DS_EV_BEGIN, 0, 0);
  for (size_t i = 0; i < m->view.ng; i++) {
    ds_reports_event(&m->reps, &m->view, DS_EV_BEGIN_GROUP, i, 0);
    for (size_t j = 0; j < m->view.ncase; j++) ds_reports_event(&m->reps, &m->view, DS_EV_END_CASE, i, j);
    ds_reports_event(&m->reps, &m->view, DS_EV_END_GROUP, i, 0);
  }
  ds_reports_event(&m->reps, &m->view, DS_EV_END, 0, 0);
  return ds_reports_write(&m->reps, "merge");
}

static void merged_free(merged_t* m) {
  for (size_t i = 0; m->cases && i < m->view.ng; i++) free(m->cases[i]);
  for (int p = 0; m->summaries && p < m->in->nparts; p++) json_decref(m->summaries[p]);
  free(m->cases);
  free(m->summaries);
  free(m->infos);
  free(m->groups);
  free(m->seen);
  free(m->refused);
  ds_reports_free(&m->reps);
}

/* dh_store_merge_reports_fn: the merged reports into dir. */
static int merged_reports(const char* dir, dh_store_merge_t* in) {
  merged_t m = {.in = in};
  int rc = build(&m);
  if (rc != 0) fprintf(stderr, "devharness merge: out of memory building the merged reports\n");
  else rc = report(&m, dir);
  if (rc == 0) {
    ds_tally_t t = ds_tally(&m.view, (size_t)-1);
    ds_fmt(in->said, sizeof in->said, "reports: %zu cases, %zu pass, %zu fail, %zu skip, %zu xfail (exit %d)",
           m.view.ng * m.view.ncase, t.pass, t.fail, t.skip, t.xfail, m.view.exit_code);
  }
  merged_free(&m);
  return rc;
}

int dh_conformance_merge_main(int argc, char** argv) { return dh_store_merge_main(argc, argv, merged_reports); }
