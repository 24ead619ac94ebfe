/* cli/run_record.c — `devharness run`'s results folder as a result bundle and its
 * record in the results store (cli/run.h; docs/results.md). */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/run.h"
#include "store/bundle.h"
#include "store/store.h"

int dh_cli_run_bundle_begin(struct dh_store_bundle* b, const dh_cli_run_dir_t* d, int argc, char** argv) {
  return dh_store_bundle_begin(b, "run", d->partial, argc, argv) == 0 ? 0 : -1;
}

int dh_cli_run_bundle_finish(const struct dh_store_bundle* b, const dh_cli_run_step_t* steps, int total) {
  dh_store_bundle_meta_t m = {
      .shard_index = 1, .shard_total = 1, .profile = "default", .exit_code = dh_cli_run_steps_verdict(steps, total)};
  return b->uuid[0] && dh_store_bundle_finish(b, &m) == 0 ? 0 : -1;
}

int dh_cli_run_record(const dh_cli_run_opts_t* o, const dh_cli_run_dir_t* d) {
  if (o->no_store) return 0;
  char path[PATH_MAX], uuid[64];
  if (o->store) snprintf(path, sizeof path, "%s", o->store);
  else snprintf(path, sizeof path, "%.4000s/devharness.sqlite", o->output);
  if (dh_store_record("run", path, d->partial, uuid) != 0) return -1;
  if (o->verbosity >= 0) printf("store: run %s recorded in %s\n", uuid, path);
  return 0;
}
