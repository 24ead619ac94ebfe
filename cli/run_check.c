/*
 * cli/run_check.c — is a results folder complete? Before `devharness run` publishes
 * its folder, every step it ran must have finished (exited, with a status that carries
 * results: a conformance run with violations has them, a crashed or failed bench has
 * not) and every file the README promises must be whole: the JSON files parse, the TAP
 * file has its plan, the JUnit file its closing tag, the bench table and plot log are
 * not empty. A full disk shows up here as a file that stops short. Each file is then
 * fsynced, so what is published is on disk.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/run.h"

/* Size of path, -1 when absent or unreadable. */
static long long file_size(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* 1 when path holds `needle` (a few KiB at its end are read: what a whole file ends with). */
static int ends_with(const char* path, const char* needle) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return 0;
  char tail[4096];
  long long n = file_size(path);
  if (n > (long long)sizeof tail - 1) fseek(f, (long)(n - (long long)sizeof tail + 1), SEEK_SET);
  size_t got = fread(tail, 1, sizeof tail - 1, f);
  fclose(f);
  tail[got] = '\0';
  return strstr(tail, needle) != NULL;
}

/* 1 when the TAP file has a plan line "1..N" at column 0. */
static int tap_has_plan(const char* path) {
  FILE* f = fopen(path, "r");
  if (f == NULL) return 0;
  char line[512];
  int found = 0;
  while (!found && fgets(line, sizeof line, f) != NULL) found = strncmp(line, "1..", 3) == 0;
  fclose(f);
  return found;
}

static int json_whole(const char* path) {
  json_error_t err;
  json_t* j = json_load_file(path, 0, &err);
  json_decref(j);
  return j != NULL;
}

/* Writes into why what is missing from the folder's files; 0 when nothing is. */
static int files_whole(const dh_cli_run_dir_t* d, const dh_cli_run_step_t* steps, int total, char* why, size_t size) {
  char plot_log[PATH_MAX];
  dh_cli_run_path_join(plot_log, d->partial, "plot.log");
  const struct {
    int wanted;
    const char* path;
    int ok;
    const char* what;
  } files[] = {
      {1, d->info_json, json_whole(d->info_json), "does not parse as JSON"},
      {1, d->info_txt, file_size(d->info_txt) > 0, "is empty"},
      {1, d->summary, json_whole(d->summary), "does not parse as JSON"},
      {1, d->cases, json_whole(d->cases), "does not parse as JSON"},
      {1, d->tap, tap_has_plan(d->tap), "has no TAP plan line"},
      {1, d->junit, ends_with(d->junit, "</testsuites>"), "does not end with </testsuites>"},
      {total > 2 && (steps[2].rc == 0 || steps[2].below_floor), d->bench, json_whole(d->bench), "does not parse as JSON"},
      {total > 2 && (steps[2].rc == 0 || steps[2].below_floor), d->bench_txt, file_size(d->bench_txt) > 0, "is empty"},
      {total > 3 && steps[3].rc == 0, plot_log, file_size(plot_log) > 0, "is empty"},
  };
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    if (!files[i].wanted || files[i].ok) continue;
    const char* name = strrchr(files[i].path, '/');
    snprintf(why, size, "%s %s", name ? name + 1 : files[i].path,
             file_size(files[i].path) < 0 ? "is missing" : files[i].what);
    return -1;
  }
  return 0;
}

/* 1 when a step's exit status says its files are there: 0, no device (3), and for
 * conformance violations (1), for bench a device below an --expect floor (1, its
 * bench.json says so); -1 (not run) only for the plots after a bench that had
 * no device. */
static int step_done(const dh_cli_run_step_t* steps, int i) {
  int rc = steps[i].rc;
  if (rc == DH_EXIT_OK || rc == DH_EXIT_NO_DEVICE) return 1;
  if (i == 1 && rc == DH_EXIT_VIOLATION) return 1;
  if (i == 2 && rc == DH_EXIT_VIOLATION && steps[i].below_floor) return 1; /* a device below an --expect floor */
  return i == 3 && rc == -1 && steps[2].rc == DH_EXIT_NO_DEVICE;
}

/* fsync every regular file in the open folder dfd (which stays open). */
static void sync_entries(int dfd) {
  int again = dup(dfd);
  DIR* dir = again >= 0 ? fdopendir(again) : NULL;
  if (dir == NULL) {
    if (again >= 0) close(again);
    return;
  }
  for (struct dirent* e; (e = readdir(dir)) != NULL;) {
    int fd = e->d_type == DT_REG ? openat(dfd, e->d_name, O_RDONLY | O_CLOEXEC) : -1;
    if (fd < 0) continue;
    fsync(fd);
    close(fd);
  }
  closedir(dir);
}

/* fsync every regular file of dir (one level and plots/), then dir itself. */
static void sync_folder(const char* dir) {
  const char* const subdirs[] = {"", "plots"};
  for (size_t s = 0; s < 2; s++) {
    char path[PATH_MAX];
    if (subdirs[s][0]) dh_cli_run_path_join(path, dir, subdirs[s]);
    else snprintf(path, sizeof path, "%s", dir);
    int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) continue;
    sync_entries(dfd);
    fsync(dfd);
    close(dfd);
  }
}

int dh_cli_run_check_complete(const dh_cli_run_dir_t* d, const dh_cli_run_step_t* steps, int total, char* why,
                              size_t size) {
  for (int i = 0; i < total; i++) {
    if (step_done(steps, i)) continue;
    if (steps[i].rc == -1) snprintf(why, size, "step %s did not run", steps[i].title);
    else if (steps[i].rc > 128) snprintf(why, size, "step %s was killed by signal %d", steps[i].title, steps[i].rc - 128);
    else snprintf(why, size, "step %s failed (exit %d)", steps[i].title, steps[i].rc);
    return -1;
  }
  if (files_whole(d, steps, total, why, size) != 0) return -1;
  sync_folder(d->partial);
  return 0;
}

int dh_cli_run_check_modules(const dh_cli_run_opts_t* o, const dh_cli_run_dir_t* d, const dh_cli_run_step_t* msteps,
                             char* why, size_t size) {
  for (int k = 0; k < o->n_modules; k++) {
    int rc = msteps[k].rc;
    char tap[PATH_MAX], junit[PATH_MAX], cases[PATH_MAX];
    if (rc == DH_EXIT_NO_DEVICE) continue; /* no device for it: nothing was run, no files */
    if (rc != DH_EXIT_OK && rc != DH_EXIT_VIOLATION) {
      if (rc > 128) snprintf(why, size, "step %s was killed by signal %d", msteps[k].title, rc - 128);
      else snprintf(why, size, "step %s failed (exit %d)", msteps[k].title, rc);
      return -1;
    }
    dh_cli_run_module_path(tap, d->partial, o->module_names[k], ".tap");
    dh_cli_run_module_path(junit, d->partial, o->module_names[k], ".junit.xml");
    dh_cli_run_module_path(cases, d->partial, o->module_names[k], ".cases.json");
    const char* bad = !tap_has_plan(tap)                       ? tap
                      : !ends_with(junit, "</testsuites>") ? junit
                      : !json_whole(cases)                      ? cases
                                                                : NULL;
    if (bad) {
      snprintf(why, size, "%s %s", strrchr(bad, '/') + 1, file_size(bad) < 0 ? "is missing" : "is not whole");
      return -1;
    }
  }
  return 0;
}
