/*
 * conformance/runner/runner.h — what the files of `devharness conformance` share (internal to
 * conformance/; the runner's public entry is conformance/conformance.h).
 *
 * Files (one job each; calls run down this list, never up):
 *   runner/runner.c   dh_conformance_main: clause selection, waivers, device discovery,
 *                     the run over every device, the summary and exit code
 *   runner/options.c  the options (getopt_long, cmdline/cmdline.h) and --help
 *   runner/list.c     the clause list (--list, docs/conformance.md's tables)
 *   runner/case.c     one case: skips and waivers, the child that runs the clause, its
 *                     result; a device's cases run --jobs at a time (suite/run.c)
 *   runner/waivers.c  waiver files (waivers.h)
 * The case record, the runner of children and the reporters (TAP, JUnit, the summary
 * and cases JSON) are the suite room's (suite/suite.h), shared with `module check`.
 * Isolated children (fork into an own process group, answer pipe, stdout/stderr to a
 * file, timeout and SIGKILL of the group) are base/child.c.
 *
 * Fork safety: the parent loads plugins (dlopen only) but never initialises a
 * backend — backends start threads and fork copies only the calling thread. Devices
 * are discovered in a forked probe child per backend (dh_device_select,
 * DH_SELECT_PROBE_IN_CHILD); every case runs in a fresh
 * child (own process group) that sets the device, runs the clause, writes its result
 * record to a pipe and _exits. A child that does not answer within --timeout seconds
 * has its process group SIGKILLed.
 */
#ifndef DEVHARNESS_CONFORMANCE_RUNNER_H_
#define DEVHARNESS_CONFORMANCE_RUNNER_H_

#include <stdarg.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "clauses/check.h"
#include "base/child.h"
#include "base/text.h"
#include "suite/suite.h"
#include "waivers.h"

/*--- options (runner/options.c) ---*/

typedef struct dc_opts {
  const char** filters;
  size_t n_filters;
  const char* device_spec;
  const char** plugins;
  size_t n_plugins;
  const char* target_arg;
  const char* report_paths[DS_REPORTERS_MAX]; /* --<option> FILE of ds_reporters[k], or NULL */
  const char** waiver_paths;
  size_t n_waiver_paths;
  int timeout_s;
  int no_fork;
  int list;
  int markdown;
  int tap_version;
  int tap_flat;        /* --tap-layout flat: one top-level test point per device x clause */
  int junit_file_line; /* --junit-file-line: file and line attributes on every <testcase> */
  int verify_xfails;
  int verbosity;    /* -1 --quiet (no TAP on stdout; errors and the verdict line), 0, 1 --verbose */
  int progress;
  int jobs;
  int profile;      /* --profile; 0 = each backend's default (strict unless it declares one) */
  long max_waived;  /* -1: no limit */
  int shard_index;  /* --shard I/N (or CI_NODE_INDEX/CI_NODE_TOTAL): 1-based; 1 of 1 unsharded */
  int shard_total;
  const char* bundle_dir; /* --bundle DIR, or NULL */
} dc_opts_t;

/* The 1-based shard that runs case (device spec, clause id) of a run split in total
 * shards: 1 + FNV-1a-64("<spec>\t<clause>") mod total (docs/results.md "Shards"). */
int dc_shard_of(const char* spec, const char* clause_id, int total);
/* --shard I/N: when case (group name, clause id) belongs to another shard, *out
 * becomes its record (a skip marked other_shard, which no report lists) and 1 is
 * returned; else 0 and *out is untouched. The runner marks every such case before the
 * reporters begin, so their plans count only this shard's cases. */
int dc_case_other_shard(const dc_opts_t* o, const char* group, const char* clause_id, ds_case_t* out);

/* Parses argv into *o. Returns -1 to go on, else the exit code (--help: DH_EXIT_OK,
 * a usage error: DH_EXIT_USAGE after one line on stderr). */
int dc_opts_parse(int argc, char** argv, dc_opts_t* o);
/* Frees what dc_opts_parse allocated and zeroes *o. */
void dc_opts_free(dc_opts_t* o);
/* One line "devharness conformance: <message>" on stderr; returns DH_EXIT_USAGE. */
int dc_usage_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
/* 1 when clause id is selected by the --filter globs (every clause without one). */
static inline int dc_selected(const dc_opts_t* o, const char* id) {
  return dc_clause_matches(o->filters, o->n_filters, id);
}

/*--- devices and cases (runner/case.c) ---*/

typedef struct dc_device {
  const dh_backend_t* backend;
  int id;            /* device id, or -1 for a backend without devices */
  int count;         /* devices of the backend */
  dc_waivers_t waivers; /* backend's automatic waiver file */
  int profile;       /* DC_PROFILE_TVM / DC_PROFILE_STRICT this device runs */
  ds_group_t* g;     /* what reports show of it: name ("sim:0", "cuda (no device)"),
                        backend name, reason, probe failure, failed, start time */
} dc_device_t;

/* Cleans the device's texts (ds_case_clean's rule) and sets its group's backend name. */
void dc_device_clean(dc_device_t* d);

/* The run's --target (NULL: none) and --waivers list, set by runner.c before the first
 * case. */
extern dh_target_t* dc_run_target;
extern dc_waivers_t dc_run_waivers;
/* The device that runs the harness self-tests (DC_ONCE clauses): the first device with
 * an id held to strict, else the first with an id; NULL when none. Set by runner.c. */
extern const dc_device_t* dc_run_once_device;

/* Runs the selected clauses cl[0..ncl) on device d into cases[], up to o->jobs children
 * at a time (one in this process with --no-fork): skips and waivers decided here, the
 * clause in a fresh child. done(k, user) is called for the cases in clause order, each
 * as soon as it and those before it are known. */
void dc_run_device(const dc_opts_t* o, const dc_device_t* d, const dh_clause_t** cl, size_t ncl, ds_case_t* cases,
                   void (*done)(size_t k, void* user), void* user);

/* Where a clause's run function is defined (repository-relative file, line): generated
 * at build time from the clause tables by runner/clause_sources.py (conformance.mk),
 * sorted by id. */
typedef struct dc_clause_source {
  const char* id;
  const char* file;
  int line;
} dc_clause_source_t;
extern const dc_clause_source_t dc_clause_sources[];
extern const size_t dc_clause_source_count;
/* The source of clause id, or NULL when the table has none (runner/list.c). */
const dc_clause_source_t* dc_clause_source(const char* id);

/* --list: the selected clauses as text, or (--format markdown) the generated sections of
 * docs/conformance.md between their marker lines (runner/list.c; runner/md_tables.py
 * splices them into the page). */
int dc_list(const dc_opts_t* o, const dh_clause_t* const* cl, size_t n);

#endif /* DEVHARNESS_CONFORMANCE_RUNNER_H_ */
