/* suite/cases.c — the per-case JSON reporter (--cases FILE; suite/suite.h): one record
 * per (group, case) case this run (or this shard) ran,
 * what a result bundle's store import, merge and verify read (docs/results.md).
 * Cases of other shards (--shard) are left out. */
#include <jansson.h>
#include <stdlib.h>

#include "suite/suite.h"

/* The case's one-line reason: skip/xfail reason, crash note or failure message. */
static const char* case_message(const ds_case_t* k) {
  if (k->verdict == DS_SKIP || k->verdict == DS_XFAIL) return k->reason;
  if (k->verdict == DS_PASS) return "";
  return k->note[0] ? k->note : k->message;
}

/* The case record's texts as the reports show them, each only when set, or NULL when
 * none is (a plain pass): what `devharness merge` writes the merged TAP and JUnit
 * from. */
static json_t* case_detail(const ds_case_t* k) {
  json_t* d = json_object();
  const struct { const char* key; const char* text; } kTexts[] = {
      {"reason", k->reason}, {"note", k->note}, {"message", k->message}, {"expected", k->expected},
      {"got", k->got}, {"file", k->file}, {"details", k->details}, {"stderr", k->err_tail}};
  for (size_t i = 0; i < sizeof kTexts / sizeof kTexts[0]; i++)
    if (kTexts[i].text[0]) json_object_set_new(d, kTexts[i].key, json_string(kTexts[i].text));
  if (k->line) json_object_set_new(d, "line", json_integer(k->line));
  if (k->xpass) json_object_set_new(d, "xpass", json_true());
  if (k->waived) json_object_set_new(d, "waiver", json_string(k->waived == DS_WAIVED_SKIP ? "skip" : "xfail"));
  if (json_object_size(d) == 0) json_decref(d), d = NULL;
  return d;
}

static void cases_end(ds_report_t* rep) {
  const ds_run_view_t* r = rep->run;
  json_t* cases = json_array();
  for (size_t i = 0; i < r->ng; i++)
    for (size_t j = 0; j < r->ncase; j++) {
      const ds_case_t* k = &r->cases[i][j];
      if (k->other_shard) continue;
      json_t* rec = json_pack("{s:s, s:s, s:s, s:s, s:b, s:s, s:f}", "device", r->groups[i].name, "backend",
                              r->groups[i].package, "clause", r->infos[j].id, "status", ds_verdict_name(k->verdict),
                              "waived", k->waived, "message", case_message(k), "duration_ms", k->ms);
      /* what the case ran on within its group, as TAP names it ("add cpu:0": module check) */
      if (r->infos[j].subject) json_object_set_new(rec, "subject", json_string(r->infos[j].subject));
      json_t* detail = case_detail(k);
      if (detail) json_object_set_new(rec, "detail", detail);
      json_array_append_new(cases, rec);
    }
  /* the whole selection, every shard's: what verify checks the shards against */
  json_t* devices = json_array();
  json_t* clauses = json_array();
  for (size_t i = 0; i < r->ng; i++) json_array_append_new(devices, json_string(r->groups[i].name));
  for (size_t j = 0; j < r->ncase; j++) json_array_append_new(clauses, json_string(r->infos[j].id));
  char schema[96];
  ds_fmt(schema, sizeof schema, "%s.cases", r->o.schema ? r->o.schema : "devharness.suite");
  json_t* root = json_pack("{s:s, s:i, s:{s:i, s:i}, s:i, s:o, s:o, s:o}", "schema", schema,
                           "version", 1, "shard", "index", r->o.shard_index, "total", r->o.shard_total,
                           "exit_code", r->exit_code, "devices", devices, "clauses", clauses, "cases", cases);
  ds_report_json(rep, root, 1);
}

const ds_reporter_t ds_report_cases = {
    .option = "cases",
    .help = "one JSON record per case run to FILE (docs/results.md)",
    .end = cases_end,
};
