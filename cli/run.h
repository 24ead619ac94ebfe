/*
 * cli/run.h — what the files of `devharness run` share (internal to cli/):
 *   run.c          the options, the steps (each a child process of this command) and the flow
 *   run_dir.c      the results folder: created under a temporary name (stale ones of
 *                  dead runs removed), published by rename with OUTPUT/latest
 *                  pointing at it, kept as .failed, or removed
 *   run_check.c    whether the folder is complete: steps finished, files whole
 *   run_health.c   measurement health: snapshots around conformance and bench,
 *                  health.json, the health line of the summary
 *   run_summary.c  the table printed at the end: per-device verdicts (from
 *                  conformance.summary.json), peak copy (from bench.json's
 *                  devharness_summary), steps; the run's exit code from its steps
 *   run_record.c   the folder as a result bundle, recorded in the results store
 */
#ifndef DEVHARNESS_CLI_RUN_H_
#define DEVHARNESS_CLI_RUN_H_

#include <limits.h>
#include <stdio.h>

/* --module LIB.so given at most this often. */
#define DH_CLI_RUN_MAX_MODULES 16

/* The options of `devharness run`. */
typedef struct dh_cli_run_opts {
  const char* output;
  const char* device; /* NULL: every device */
  const char* timeout;
  int no_bench, full_bench;
  int no_plots;      /* --no-plots: the benchmarks without their plots (step 4 left out) */
  const char* expect; /* --expect FILE|TAG, handed to the bench step; NULL: none */
  const char* store; /* --store PATH; NULL: OUTPUT/devharness.sqlite */
  int no_store;      /* --no-store: the run is not recorded */
  int verbosity; /* -1 --quiet: errors and the verdict line only; 1 --verbose: each step's command */
  const char* modules[DH_CLI_RUN_MAX_MODULES]; /* --module LIB.so, in order */
  char module_names[DH_CLI_RUN_MAX_MODULES][128]; /* each one's file name less ".so": module-NAME.* */
  int n_modules;
} dh_cli_run_opts_t;

/* One step: its title in the table, its exit status (-1: not run), its wall time. */
typedef struct dh_cli_run_step {
  const char* title;
  int rc;
  double seconds;
  int below_floor; /* bench: exit 1 because a device is below an --expect floor */
} dh_cli_run_step_t;

/* The results folder: written as OUTPUT/.run-STAMP-PID.partial (locked with flock
 * through lock_fd while the run lives), renamed to OUTPUT/run-STAMP (or run-STAMP-N when
 * another run took that name) when complete, else to OUTPUT/run-STAMP.failed. */
typedef struct dh_cli_run_dir {
  char stamp[32];
  int lock_fd;
  char partial[PATH_MAX], final_dir[PATH_MAX];
  char info_txt[PATH_MAX], info_json[PATH_MAX], tap[PATH_MAX], junit[PATH_MAX], summary[PATH_MAX],
      bench[PATH_MAX], bench_txt[PATH_MAX], cases[PATH_MAX];
} dh_cli_run_dir_t;

/* Creates OUTPUT (when missing) and the partial folder in it, and fills *d; first
 * removes the partial folders of runs that died (their lock is free), saying so. 0, or
 * DH_EXIT_USAGE after one line on stderr. */
int dh_cli_run_dir_create(const char* output, dh_cli_run_dir_t* d);

/* Renames the partial folder to a final name no other run holds (d->final_dir), points
 * OUTPUT/latest at it (a warning when the link cannot be updated) and fsyncs OUTPUT.
 * 0, or DH_EXIT_USAGE after one line. */
int dh_cli_run_dir_publish(const char* output, dh_cli_run_dir_t* d, char latest[PATH_MAX]);

/* Renames the partial folder of an incomplete run to OUTPUT/run-STAMP.failed (or
 * ...failed-N) into d->final_dir; OUTPUT/latest is left alone. -1 when it cannot be
 * renamed (d->final_dir is then the partial folder). */
int dh_cli_run_dir_keep_failed(const char* output, dh_cli_run_dir_t* d);

/* Whether the results folder is complete (cli/run_check.c): every step finished with a
 * status that leaves results (0; 3 no device; 1 for conformance's violations) and every
 * file it promises is whole (JSON parses, the TAP plan and the JUnit closing tag are
 * there, tables and logs are not empty); then each file is fsynced. 0, or -1 with
 * the first thing missing in why. */
int dh_cli_run_check_complete(const dh_cli_run_dir_t* d, const dh_cli_run_step_t* steps, int total, char* why,
                              size_t size);

/* Removes the partial folder and everything in it (nftw, no shell); -1 after one line
 * on stderr when something could not be removed. */
int dh_cli_run_dir_remove(const dh_cli_run_dir_t* d);

/* out = dir + "/" + name (the caller has checked that dir is shorter than PATH_MAX -
 * 128, so it never truncates). */
void dh_cli_run_path_join(char out[PATH_MAX], const char* dir, const char* name);

/* out = dir + "/module-" + name + ext: the files of the step `module check` of
 * --module library k (ext ".tap", ".junit.xml", ".cases.json"). */
void dh_cli_run_module_path(char out[PATH_MAX], const char* dir, const char* name, const char* ext);

/* Whether the module steps left whole files (cli/run_check.c): each finished with 0, 1
 * (failed cases) or 3 (no device: no files), its TAP with a plan, its JUnit closed, its
 * cases JSON parsing. 0, or -1 with the first thing missing in why. */
int dh_cli_run_check_modules(const dh_cli_run_opts_t* o, const dh_cli_run_dir_t* d, const dh_cli_run_step_t* msteps,
                             char* why, size_t size);

/* The failed cases of every module step's module-NAME.cases.json in final_dir, one
 * line each, "  not ok DEVICE CASE FUNCTION: MESSAGE" after a line naming the library
 * and its TAP file; at most max lines per library. Returns the number of failed cases
 * (of every library). Printed to out when out is not NULL. */
int dh_cli_run_print_module_failures(FILE* out, const dh_cli_run_opts_t* o, const char* final_dir, int max);

/* The per-device table (conformance verdicts from conformance.summary.json, peak copy
 * bandwidth from bench.json's devharness_summary.best_copy) and a NO DEVICE line for
 * every backend without a device, from the published folder's files; returns the
 * number of failed cases. f_tap receives the TAP file's path. Printed to out. */
int dh_cli_run_print_devices(FILE* out, const dh_cli_run_opts_t* o, const dh_cli_run_dir_t* d, char f_tap[PATH_MAX]);

/* The failed cases of conformance.cases.json in final_dir, one line each, "  not ok
 * DEVICE CLAUSE: MESSAGE" (its first line, at most 160 bytes), at most max of them and
 * then how many more; nothing when the file is missing. Printed to out. */
void dh_cli_run_print_failures(FILE* out, const char* final_dir, int max);

/* The --expect verdicts of bench.json's devharness_summary.expect (bench/report/expect.h) as
 * TAP lines under a header, printed to out; every failed one also on stderr (with the
 * measured value, ceiling and floor). Returns the number of failed floors (0 when the
 * run had no --expect). */
int dh_cli_run_print_expect(FILE* out, const dh_cli_run_dir_t* d);

/* 1 when the bench JSON at path says some --expect floor failed (bench then exits 1
 * with its files whole). */
int dh_cli_run_bench_below_floor(const char* path);

/* The run's exit code from its steps: 1 when a step that ran failed, else 3 when a
 * step found no device (conformance's NO DEVICE), else 0; a step not run (rc -1)
 * counts for nothing (the step before it failed and said why). */
int dh_cli_run_steps_verdict(const dh_cli_run_step_t* steps, int total);

/* The steps table (title, verdict word, exit status, wall time of each), printed to out. */
void dh_cli_run_print_steps(FILE* out, const dh_cli_run_step_t* steps, int total);

/* Measurement health (cli/run_health.c, machine/health.h): takes snapshot `which` (0/1
 * before/after conformance, 2/3 before/after bench) in this process. */
void dh_cli_run_health_take(int which);
/* Writes health.json into the partial folder (temporary + rename, fsynced): every
 * snapshot taken, "noisy" and "reasons" (the conformance span's and bench.json's
 * devharness.health verdict). 0, or -1 after one line on stderr. */
int dh_cli_run_health_write(const dh_cli_run_dir_t* d);
/* The health line of the summary from final_dir/health.json ("health: NOISY run ...:
 * reasons" or "health: not noisy ..."); nothing when the file is absent. */
void dh_cli_run_print_health(FILE* out, const char* final_dir);
/* The results folder as a result bundle (cli/run_record.c; docs/results.md): begun
 * when the folder is created (the run's UUID and start time), its manifest.json written
 * into the complete partial folder, which is then recorded in the store (--store,
 * default OUTPUT/devharness.sqlite; not with --no-store) before it is published: a run
 * that cannot be recorded is not published. Each returns 0, or -1 after one line on
 * stderr. */
struct dh_store_bundle;
int dh_cli_run_bundle_begin(struct dh_store_bundle* b, const dh_cli_run_dir_t* d, int argc, char** argv);
int dh_cli_run_bundle_finish(const struct dh_store_bundle* b, const dh_cli_run_step_t* steps, int total);
int dh_cli_run_record(const dh_cli_run_opts_t* o, const dh_cli_run_dir_t* d);

#endif /* DEVHARNESS_CLI_RUN_H_ */
