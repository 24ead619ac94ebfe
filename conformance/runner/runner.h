/*
 * conformance/runner/runner.h — what the files of `devharness conformance` share (internal to
 * conformance/; the runner's public entry is conformance/conformance.h).
 *
 * Files (one job each; calls run down this list, never up):
 *   runner/runner.c   dh_conformance_main: clause selection, waivers, device discovery,
 *                     the run over every device, the summary and exit code
 *   runner/options.c  the options (getopt_long, cmdline/cmdline.h) and --help
 *   report/           the reporters the run drives (report/report.h: TAP, JUnit, the
 *                     summary JSON) and the clause list (--list)
 *   runner/case.c     one case: skips and waivers, the child that runs the clause, its
 *                     result; a device's cases run --jobs at a time
 *   runner/waivers.c  waiver files (waivers.h)
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
#include "waivers.h"

/* snprintf that truncates silently (messages are bounded on purpose). */
static inline void dc_fmt(char* dst, size_t size, const char* f, ...) __attribute__((format(printf, 3, 4)));
static inline void dc_fmt(char* dst, size_t size, const char* f, ...) {
  va_list ap;
  va_start(ap, f);
  vsnprintf(dst, size, f, ap);
  va_end(ap);
}

/*--- options (runner/options.c) ---*/

/* Room for the report formats of report/report.c dc_reporters[]. */
enum { DC_REPORTERS_MAX = 8 };

typedef struct dc_opts {
  const char** filters;
  size_t n_filters;
  const char* device_spec;
  const char** plugins;
  size_t n_plugins;
  const char* target_arg;
  const char* report_paths[DC_REPORTERS_MAX]; /* --<option> FILE of dc_reporters[k], or NULL */
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
  uint32_t caps;     /* the backend's DH_CAP_* as its device probe found them (query_caps,
                        backend.h ABI 1.5), which this process, never initialising the
                        backend, cannot read from backend->caps */
  char name[96];     /* "sim:0" or "cuda (no device)" */
  char backend_name[64]; /* the backend's name as reports show it (dc_device_clean) */
  char reason[512];  /* why no device / probe failure */
  int probe_failed;  /* the probe itself crashed or errored (a violation) */
  dc_waivers_t waivers; /* backend's automatic waiver file */
  int profile;       /* DC_PROFILE_TVM / DC_PROFILE_STRICT this device runs */
  int profile_from_backend; /* 1 when profile is the backend's default_profile */
  int failed;        /* the device has violations (set when its last case is known) */
  time_t started;    /* wall-clock time its first case started (JUnit timestamp) */
} dc_device_t;

typedef struct dc_case {
  const dh_clause_t* clause;
  int status;       /* DC_PASS / DC_FAIL / DC_SKIP */
  int todo;         /* xfail waiver applied */
  int counts;       /* 1 when it is a violation of the run */
  char reason[512]; /* skip / todo reason */
  char note[96];    /* "crashed: SIGSEGV" / "timed out after 10 s" */
  dh_conf_ctx_t r;
  char err_tail[2048]; /* base/child.h dh_child_result_t.err_tail */
  double ms;
  const dc_waiver_t* waiver; /* matching waiver, or NULL */
  int waived;       /* a waiver decided this case (skip applied, or xfail applied) */
  int other_shard;  /* not run: another shard's case (a skip no report counts) */
} dc_case_t;

/* The one place where text from a backend, a driver, a file or a child's output is made
 * fit for every report (base/text.h dh_text_clean: valid UTF-8 of XML characters, odd
 * bytes as visible \xNN escapes), called by the runner before any reporter sees the
 * device or the case: a device's name, backend name and reason; a case's reason, note,
 * message, expected, got, file, details and captured output. */
void dc_device_clean(dc_device_t* d);
void dc_case_clean(dc_case_t* k);

/* The run's --target (NULL: none) and --waivers list, set by runner.c before the first
 * case. */
extern dh_target_t* dc_run_target;
extern dc_waivers_t dc_run_waivers;
/* The device that runs the harness self-tests (DC_ONCE clauses): the first device with
 * an id held to strict, else the first with an id; NULL when none. Set by runner.c. */
extern const dc_device_t* dc_run_once_device;

/* Runs clause cl on device d (a forked child unless --no-fork) into *out. */
void dc_run_case(const dc_opts_t* o, const dc_device_t* d, const dh_clause_t* cl, dc_case_t* out);
/* Runs every case of one device with up to o->jobs children at a time; on_done(k, user)
 * is called for the cases in clause order, each as soon as it and those before it are
 * known. */
void dc_run_device_parallel(const dc_opts_t* o, const dc_device_t* d, const dh_clause_t** cl,
                            size_t ncl, dc_case_t* cases,
                            void (*on_done)(size_t k, void* user), void* user);

#endif /* DEVHARNESS_CONFORMANCE_RUNNER_H_ */
