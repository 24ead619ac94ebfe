/* suite/run.c — the runner of a table of cases (suite/suite.h ds_run): each case in a
 * forked child with a timeout (base/child.c), up to `jobs` at a time, a case marked
 * alone with no other beside it; every case handed back in table order as soon as it
 * and those before it are known. With no_fork each case runs in this process, its
 * answer through a temporary file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "suite/suite.h"

enum { MAX_JOBS = 64 };

static double now_ms(void) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return tv.tv_sec * 1e3 + tv.tv_usec / 1e3;
}

/* One case in this process: what its child function writes, read back as an answer. */
static void run_here(const ds_runner_t* r, void* arg, dh_child_result_t* out) {
  memset(out, 0, sizeof *out);
  out->status = DH_CHILD_ANSWERED;
  FILE* f = tmpfile();
  if (f == NULL) {
    out->status = DH_CHILD_NO_ANSWER;
    ds_fmt(out->note, sizeof out->note, "runner: no temporary file for the answer");
    return;
  }
  double t0 = now_ms();
  r->child(arg, fileno(f));
  out->ms = now_ms() - t0;
  long size = lseek(fileno(f), 0, SEEK_END);
  if (size > 0 && (out->data = malloc((size_t)size)) != NULL && pread(fileno(f), out->data, (size_t)size, 0) == size)
    out->size = (size_t)size;
  fclose(f);
}

static void finish(const ds_runner_t* r, size_t i, void* arg, dh_child_result_t* res) {
  r->finish(r->user, i, arg, res);
  free(res->data);
  res->data = NULL;
}

/* Starts the next cases that may start; returns the index of the next case to look
 * at. *alone is 1 while a case that runs alone is in flight. */
static size_t start_more(const ds_runner_t* r, dh_child_t* jobs, size_t nj, unsigned char* args, size_t* job_case,
                         char* done, size_t next, size_t* active, int* alone) {
  for (size_t slot = 0; slot < nj && next < r->n && !*alone; slot++) {
    if (jobs[slot].active) continue;
    int needs_alone = r->alone != NULL && r->alone(r->user, next);
    if (needs_alone && *active > 0) break; /* it waits until the running ones are done */
    void* arg = args + slot * r->arg_size;
    while (next < r->n && !r->prepare(r->user, next, arg)) done[next++] = 1;
    if (next >= r->n) break;
    needs_alone = r->alone != NULL && r->alone(r->user, next);
    if (needs_alone && *active > 0) break; /* skips brought a run-alone case up: it waits */
    dh_child_start(&jobs[slot], r->child, arg, r->timeout_s);
    job_case[slot] = next;
    if (!jobs[slot].active) { /* could not fork: the case's failure says why */
      finish(r, next, arg, &jobs[slot].r);
      done[next] = 1;
    } else {
      (*active)++;
      *alone = needs_alone;
    }
    next++;
  }
  return next;
}

int ds_run(const ds_runner_t* r) {
  size_t nj = r->jobs < 1 ? 1 : r->jobs > MAX_JOBS ? MAX_JOBS : (size_t)r->jobs;
  char* done = calloc(r->n ? r->n : 1, 1);
  unsigned char* args = calloc(nj, r->arg_size ? r->arg_size : 1);
  if (done == NULL || args == NULL) return free(done), free(args), -1;
  if (r->no_fork) {
    for (size_t i = 0; i < r->n; i++) {
      dh_child_result_t res;
      if (r->prepare(r->user, i, args)) run_here(r, args, &res), finish(r, i, args, &res);
      r->done(r->user, i);
    }
    return free(done), free(args), 0;
  }
  dh_child_t jobs[MAX_JOBS];
  size_t job_case[MAX_JOBS];
  memset(jobs, 0, sizeof jobs);
  size_t next = 0, emitted = 0, active = 0;
  int alone = 0;
  while (emitted < r->n) {
    next = start_more(r, jobs, nj, args, job_case, done, next, &active, &alone);
    while (emitted < r->n && done[emitted]) r->done(r->user, emitted++);
    if (emitted >= r->n) break;
    int s = dh_children_wait_any(jobs, nj);
    if (s < 0) continue;
    size_t k = job_case[s];
    active--;
    alone = 0; /* an alone case ran by itself; any other leaves it 0 */
    finish(r, k, args + (size_t)s * r->arg_size, &jobs[s].r);
    done[k] = 1;
  }
  free(done);
  free(args);
  return 0;
}
