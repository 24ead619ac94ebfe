/* cli/run_dir.c — the results folder of `devharness run` (cli/run.h). */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/text.h"
#include "cli/cli.h"
#include "cli/run.h"

void dh_run_path_join(char out[PATH_MAX], const char* dir, const char* name) {
  size_t d = strlen(dir), n = strlen(name);
  memcpy(out, dir, d);
  out[d] = '/';
  memcpy(out + d + 1, name, n + 1);
}

static int make_dir(const char* path) {
  if (mkdir(path, 0755) == 0 || errno == EEXIST) return 0;
  return -1;
}

int dh_run_dir_create(const char* output, run_dir_t* d) {
  char q[DH_TEXT_BUF];
  if (strlen(output) >= PATH_MAX - 256) {
    fprintf(stderr, "devharness run: --output: path too long\n");
    return DH_EXIT_USAGE;
  }
  if (make_dir(output) != 0) {
    fprintf(stderr, "devharness run: --output %s: cannot create folder: %s\n", dh_text_quote(output, q, sizeof q), strerror(errno));
    return DH_EXIT_USAGE;
  }
  time_t t = time(NULL);
  strftime(d->stamp, sizeof d->stamp, "%Y%m%d-%H%M%S", localtime(&t));
  char name[96];
  snprintf(name, sizeof name, ".run-%s-%d.partial", d->stamp, (int)getpid());
  dh_run_path_join(d->partial, output, name);
  snprintf(name, sizeof name, "run-%s", d->stamp);
  dh_run_path_join(d->final_dir, output, name);
  if (mkdir(d->partial, 0755) != 0) {
    fprintf(stderr, "devharness run: --output %s: not writable: %s\n", dh_text_quote(output, q, sizeof q), strerror(errno));
    return DH_EXIT_USAGE;
  }
  dh_run_path_join(d->info_txt, d->partial, "info.txt");
  dh_run_path_join(d->info_json, d->partial, "info.json");
  dh_run_path_join(d->tap, d->partial, "conformance.tap");
  dh_run_path_join(d->junit, d->partial, "conformance.junit.xml");
  dh_run_path_join(d->summary, d->partial, "conformance.summary.json");
  dh_run_path_join(d->bench, d->partial, "bench.json");
  dh_run_path_join(d->bench_txt, d->partial, "bench.txt");
  return 0;
}

int dh_run_dir_publish(const char* output, const run_dir_t* d, char latest[PATH_MAX]) {
  if (rename(d->partial, d->final_dir) != 0) {
    fprintf(stderr, "devharness run: cannot rename %s to %s: %s\n", d->partial, d->final_dir, strerror(errno));
    return DH_EXIT_USAGE;
  }
  char latest_tmp[PATH_MAX], target[96], name[96];
  dh_run_path_join(latest, output, "latest");
  snprintf(name, sizeof name, ".latest-%d", (int)getpid());
  dh_run_path_join(latest_tmp, output, name);
  snprintf(target, sizeof target, "run-%s", d->stamp);
  unlink(latest_tmp);
  if (symlink(target, latest_tmp) != 0 || rename(latest_tmp, latest) != 0) {
    fprintf(stderr, "devharness run: warning: cannot update %s: %s\n", latest, strerror(errno));
  }
  return 0;
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

int dh_run_dir_remove(const run_dir_t* d) {
  return nftw(d->partial, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}
