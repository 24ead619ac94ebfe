/*
 * cli/run_dir.c — the results folder of `devharness run` (cli/run.h): written as
 * OUTPUT/.run-STAMP-PID.partial, locked (flock) for the run's lifetime so that the next
 * run can tell a folder whose run died (its lock is free) from one still being
 * written, then published under a name no other run holds, or kept as .failed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/text.h"
#include "cli/cli.h"
#include "cli/run.h"

void dh_cli_run_path_join(char out[PATH_MAX], const char* dir, const char* name) {
  size_t d = strlen(dir), n = strlen(name);
  memcpy(out, dir, d);
  out[d] = '/';
  memcpy(out + d + 1, name, n + 1);
}

void dh_cli_run_module_path(char out[PATH_MAX], const char* dir, const char* name, const char* ext) {
  snprintf(out, PATH_MAX, "%.3900s/module-%.128s%s", dir, name, ext);
}

static int make_dir(const char* path) {
  if (mkdir(path, 0755) == 0 || errno == EEXIST) return 0;
  return -1;
}

/* nftw callback: removes one entry, children first (FTW_DEPTH); links are removed, never
 * followed (FTW_PHYS). */
static int remove_entry(const char* path, const struct stat* st, int type, struct FTW* ftw) {
  (void)st;
  (void)ftw;
  int rc = type == FTW_DP ? rmdir(path) : unlink(path);
  if (rc != 0) {
    char q[DH_TEXT_BUF];
    fprintf(stderr, "devharness run: cannot remove %s: %s\n", dh_text_quote(path, q, sizeof q), strerror(errno));
  }
  return rc;
}

static int remove_tree(const char* path) { return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1; }

/* Removes every OUTPUT/.run-*.partial whose run is gone: its lock can be taken (a lock
 * dies with the process that held it, whatever killed it). */
static void remove_stale_partials(const char* output) {
  DIR* dir = opendir(output);
  if (dir == NULL) return;
  for (struct dirent* e; (e = readdir(dir)) != NULL;) {
    size_t n = strlen(e->d_name);
    if (strncmp(e->d_name, ".run-", 5) != 0 || n < 13 || strcmp(e->d_name + n - 8, ".partial") != 0) continue;
    char path[PATH_MAX];
    if (strlen(output) + n + 2 > sizeof path) continue;
    dh_cli_run_path_join(path, output, e->d_name);
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) continue;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0 && remove_tree(path) == 0) {
      char q[DH_TEXT_BUF];
      fprintf(stderr, "devharness run: removed %s, left by a run that ended before it finished\n",
              dh_text_quote(path, q, sizeof q));
    }
    close(fd);
  }
  closedir(dir);
}

int dh_cli_run_dir_create(const char* output, dh_cli_run_dir_t* d) {
  char q[DH_TEXT_BUF];
  d->lock_fd = -1;
  if (strlen(output) >= PATH_MAX - 256) {
    fprintf(stderr, "devharness run: --output: path too long\n");
    return DH_EXIT_USAGE;
  }
  if (make_dir(output) != 0) {
    fprintf(stderr, "devharness run: --output %s: cannot create folder: %s\n", dh_text_quote(output, q, sizeof q), strerror(errno));
    return DH_EXIT_USAGE;
  }
  remove_stale_partials(output);
  time_t t = time(NULL);
  strftime(d->stamp, sizeof d->stamp, "%Y%m%d-%H%M%S", localtime(&t));
  char name[96];
  snprintf(name, sizeof name, ".run-%s-%d.partial", d->stamp, (int)getpid());
  dh_cli_run_path_join(d->partial, output, name);
  snprintf(name, sizeof name, "run-%s", d->stamp);
  dh_cli_run_path_join(d->final_dir, output, name);
  if (mkdir(d->partial, 0755) != 0) {
    fprintf(stderr, "devharness run: --output %s: not writable: %s\n", dh_text_quote(output, q, sizeof q), strerror(errno));
    return DH_EXIT_USAGE;
  }
  /* held until this process ends (close-on-exec: the steps it starts do not hold it) */
  d->lock_fd = open(d->partial, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d->lock_fd >= 0) flock(d->lock_fd, LOCK_EX | LOCK_NB);
  dh_cli_run_path_join(d->info_txt, d->partial, "info.txt");
  dh_cli_run_path_join(d->info_json, d->partial, "info.json");
  dh_cli_run_path_join(d->tap, d->partial, "conformance.tap");
  dh_cli_run_path_join(d->junit, d->partial, "conformance.junit.xml");
  dh_cli_run_path_join(d->summary, d->partial, "conformance.summary.json");
  dh_cli_run_path_join(d->bench, d->partial, "bench.json");
  dh_cli_run_path_join(d->bench_txt, d->partial, "bench.txt");
  dh_cli_run_path_join(d->cases, d->partial, "conformance.cases.json");
  return 0;
}

/* Renames the partial folder to OUTPUT/<base><suffix>, the first of "", "-2", "-3", ...
 * that no other folder holds: the name is taken with mkdir (atomic, so two runs in the
 * same second never share one), and rename replaces that empty folder. 0 with the
 * chosen name in out, or -1 with errno. */
static int rename_unique(const char* output, const char* partial, const char* base, char out[PATH_MAX],
                         char name[96]) {
  for (int k = 1; k < 1000; k++) {
    if (k == 1) snprintf(name, 96, "%s", base);
    else snprintf(name, 96, "%s-%d", base, k);
    dh_cli_run_path_join(out, output, name);
    if (mkdir(out, 0755) != 0) {
      if (errno == EEXIST) continue;
      return -1;
    }
    if (rename(partial, out) == 0) return 0;
    int e = errno;
    rmdir(out);
    errno = e;
    return -1;
  }
  errno = EEXIST;
  return -1;
}

int dh_cli_run_dir_publish(const char* output, dh_cli_run_dir_t* d, char latest[PATH_MAX]) {
  char base[64], name[96], q[DH_TEXT_BUF];
  snprintf(base, sizeof base, "run-%s", d->stamp);
  if (rename_unique(output, d->partial, base, d->final_dir, name) != 0) {
    fprintf(stderr, "devharness run: cannot rename %s into place: %s\n", dh_text_quote(d->partial, q, sizeof q),
            strerror(errno));
    return DH_EXIT_USAGE;
  }
  char latest_tmp[PATH_MAX], tmp_name[96];
  dh_cli_run_path_join(latest, output, "latest");
  snprintf(tmp_name, sizeof tmp_name, ".latest-%d", (int)getpid());
  dh_cli_run_path_join(latest_tmp, output, tmp_name);
  unlink(latest_tmp);
  if (symlink(name, latest_tmp) != 0 || rename(latest_tmp, latest) != 0) {
    fprintf(stderr, "devharness run: warning: cannot update %s: %s\n", latest, strerror(errno));
  }
  int dfd = open(output, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return 0;
}

int dh_cli_run_dir_keep_failed(const char* output, dh_cli_run_dir_t* d) {
  char base[64], name[96];
  snprintf(base, sizeof base, "run-%s.failed", d->stamp);
  if (rename_unique(output, d->partial, base, d->final_dir, name) != 0) {
    snprintf(d->final_dir, sizeof d->final_dir, "%s", d->partial);
    return -1;
  }
  return 0;
}

int dh_cli_run_dir_remove(const dh_cli_run_dir_t* d) { return remove_tree(d->partial); }
