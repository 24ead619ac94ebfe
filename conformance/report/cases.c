/* conformance/report/cases.c — the per-case JSON reporter (--cases FILE;
 * report/report.h): one record per (device, clause) case this run (or this shard) ran,
 * what a result bundle's store import, merge and verify read (docs/results.md).
 * Cases of other shards (--shard) are left out. */
#include <jansson.h>
#include <stdlib.h>

#include "report/report.h"

/* pass, fail, skip or xfail, as TAP reports the case (summary.c's order). */
static const char* case_status(const dc_case_t* k) {
  if (k->status == DC_SKIP) return "skip";
  if (k->todo) return "xfail";
  return k->status == DC_PASS ? "pass" : "fail";
}

/* The case's one-line reason: skip/xfail reason, crash note or failure message. */
static const char* case_message(const dc_case_t* k) {
  if (k->status == DC_SKIP || k->todo) return k->reason;
  if (k->status == DC_PASS) return "";
  return k->note[0] ? k->note : k->r.message;
}

static void cases_end(dc_report_t* rep) {
  const dc_run_view_t* r = rep->run;
  json_t* cases = json_array();
  for (size_t i = 0; i < r->nd; i++)
    for (size_t j = 0; j < r->ncl; j++) {
      const dc_case_t* k = &r->cases[i][j];
      if (k->other_shard) continue;
      json_array_append_new(cases, json_pack("{s:s, s:s, s:s, s:s, s:b, s:s, s:f}", "device", r->devs[i].name,
                                             "backend", r->devs[i].backend_name, "clause", r->cl[j]->id,
                                             "status", case_status(k), "waived", k->waived, "message",
                                             case_message(k), "duration_ms", k->ms));
    }
  /* the whole selection, every shard's: what verify checks the shards against */
  json_t* devices = json_array();
  json_t* clauses = json_array();
  for (size_t i = 0; i < r->nd; i++) json_array_append_new(devices, json_string(r->devs[i].name));
  for (size_t j = 0; j < r->ncl; j++) json_array_append_new(clauses, json_string(r->cl[j]->id));
  json_t* root = json_pack("{s:s, s:i, s:{s:i, s:i}, s:i, s:o, s:o, s:o}", "schema", "devharness.conformance.cases",
                           "version", 1, "shard", "index", r->o->shard_index, "total", r->o->shard_total,
                           "exit_code", r->exit_code, "devices", devices, "clauses", clauses, "cases", cases);
  char* s = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
  if (s) {
    dh_sbuf_add(&rep->text, s);
    dh_sbuf_add(&rep->text, "\n");
  }
  free(s);
  json_decref(root);
}

const dc_reporter_t dc_report_cases = {
    .option = "cases",
    .help = "one JSON record per case run to FILE (docs/results.md)",
    .end = cases_end,
};
