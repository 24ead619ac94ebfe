/* suite/summary.c — the summary JSON reporter (--summary FILE; suite/suite.h): the
 * run's verdict and per-group counts in one small document for tools (`devharness run`
 * reads it; schema in docs/conformance.md, "Summary JSON"). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "suite/suite.h"

static void tally_set(json_t* o, const ds_tally_t* t) {
  json_object_set_new(o, "pass", json_integer((json_int_t)t->pass));
  json_object_set_new(o, "fail", json_integer((json_int_t)t->fail));
  json_object_set_new(o, "skip", json_integer((json_int_t)t->skip));
  json_object_set_new(o, "xfail", json_integer((json_int_t)t->xfail));
  json_object_set_new(o, "waived", json_integer((json_int_t)t->waived));
  json_object_set_new(o, "violations", json_integer((json_int_t)t->violations));
}

/* One group: what it is, how it ran, its counts. */
static json_t* summary_device(const ds_run_view_t* r, size_t i) {
  const ds_group_t* d = &r->groups[i];
  ds_tally_t t = ds_tally(r, i);
  json_t* o = json_object();
  json_object_set_new(o, "name", json_string(d->name));
  json_object_set_new(o, "backend", json_string(d->package));
  json_object_set_new(o, "id", d->id >= 0 ? json_integer(d->id) : json_null());
  json_object_set_new(o, "profile", d->profile ? json_string(d->profile) : json_null());
  json_object_set_new(o, "profile_from", d->profile_from ? json_string(d->profile_from) : json_null());
  json_object_set_new(o, "failed", json_boolean(d->failed));
  tally_set(o, &t);
  json_object_set_new(o, "other_shards", json_integer((json_int_t)ds_other_shard_cases(r, i)));
  int no_device = d->no_device && !d->failed;
  json_object_set_new(o, "no_device", no_device ? json_string(d->reason[0] ? d->reason : "no device")
                                                : json_null());
  json_object_set_new(o, "probe_failure", d->probe_failed ? json_string(d->reason) : json_null());
  return o;
}

static void summary_end(ds_report_t* rep) {
  const ds_run_view_t* r = rep->run;
  json_t* root = json_object();
  char schema[96];
  ds_fmt(schema, sizeof schema, "%s.summary", r->o.schema ? r->o.schema : "devharness.suite");
  json_object_set_new(root, "schema", json_string(schema));
  json_object_set_new(root, "version", json_integer(1));
  json_object_set_new(root, "exit_code", json_integer(r->exit_code));
  json_object_set_new(root, "clauses", json_integer((json_int_t)r->ncase));
  json_object_set_new(root, "duration_s", json_real(r->seconds));
  json_object_set_new(root, "shard", json_pack("{s:i, s:i}", "index", r->o.shard_total > 1 ? r->o.shard_index : 1,
                                               "total", r->o.shard_total > 1 ? r->o.shard_total : 1));
  json_t* refused = json_array();
  json_t* skipped = json_array();
  for (size_t i = 0; i < r->nrefused; i++) {
    char plugin[1024];
    const char* reason = ds_refusal_split(r->refused[i], plugin, sizeof plugin);
    json_array_append_new(refused, json_string(r->refused[i]));
    json_array_append_new(skipped, json_pack("{s:s, s:s}", "plugin", plugin, "skip", reason));
  }
  json_object_set_new(root, "refused_plugins", refused);
  json_object_set_new(root, "refused_plugins_skipped", skipped);
  ds_tally_t total = ds_tally(r, (size_t)-1);
  json_t* devices = json_array();
  for (size_t i = 0; i < r->ng; i++) json_array_append_new(devices, summary_device(r, i));
  json_t* totals = json_object();
  json_object_set_new(totals, "devices", json_integer((json_int_t)r->ng));
  json_object_set_new(totals, "devices_failed", json_integer(r->violations));
  json_object_set_new(totals, "no_device", json_integer((json_int_t)r->no_device));
  json_object_set_new(totals, "refused_plugins", json_integer((json_int_t)r->nrefused));
  tally_set(totals, &total);
  json_object_set_new(totals, "other_shards", json_integer((json_int_t)ds_other_shard_cases(r, (size_t)-1)));
  json_object_set_new(totals, "waived_skip", json_integer((json_int_t)r->waived_skip));
  json_object_set_new(totals, "waived_xfail", json_integer((json_int_t)r->waived_xfail));
  json_object_set_new(totals, "max_waived", r->o.max_waived >= 0 ? json_integer(r->o.max_waived) : json_null());
  json_object_set_new(totals, "too_many_waived", json_boolean(r->too_many_waived));
  json_object_set_new(root, "totals", totals);
  json_object_set_new(root, "devices", devices);
  ds_report_json(rep, root, 2);
}

const ds_reporter_t ds_report_summary = {
    .option = "summary",
    .help = "write the run's summary as JSON to FILE (docs/conformance.md)",
    .end = summary_end,
};
