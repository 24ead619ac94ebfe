/*
 * base/child.h — run a function in an isolated child process: forked into its own
 * process group, its answer written to a pipe, its stdout and stderr captured in a
 * temporary file (its crash report or last lines kept), the whole group killed with SIGKILL at a
 * timeout. A crash, a hang or an exit of the child is reported, never shared by the
 * caller. Used by the conformance runner (every case, the device probe) and the
 * runtime's device selection (devharness/device_api.h DH_SELECT_PROBE_IN_CHILD).
 *
 * Part of base/ (static, hidden). Not thread-safe: call from one thread of a process
 * (fork copies only the calling thread; the function run in the child must not need
 * others). The caller's stdout and stderr are flushed before each fork.
 */
#ifndef DEVHARNESS_BASE_CHILD_H_
#define DEVHARNESS_BASE_CHILD_H_

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* dh_child_result_t.status */
#define DH_CHILD_ANSWERED 0  /* the child ran to its end (it may have written nothing) */
#define DH_CHILD_CRASHED 1   /* killed by a signal: note "crashed: SIGSEGV" */
#define DH_CHILD_TIMED_OUT 2 /* no end within the timeout: note "timed out after N s" */
#define DH_CHILD_NO_ANSWER 3 /* exited with a non-zero status (note "crashed: exit status
                                N"), or could not be started (note "runner: ...") */

/* What one child did. data is owned by the caller (free it); the rest is inline. */
typedef struct dh_child_result {
  int status;           /* DH_CHILD_* */
  char note[96];        /* "" when answered; else what happened, for a report */
  char* data;           /* everything the child wrote to its pipe (malloc'd), or NULL */
  size_t size;          /* bytes in data */
  char err_tail[2048];  /* what the child wrote to stdout/stderr: a crash report (signal
                           handler backtrace, sanitizer, traceback) from its header line,
                           the crashing frame first, cut with "..."; else the last 6 lines */
  double ms;            /* wall time from fork to reaping, milliseconds */
} dh_child_result_t;

/* A child in flight (dh_child_start .. dh_children_wait_any). Zero-initialisable;
 * the fields are the runner's bookkeeping, read only `active` and `r`. */
typedef struct dh_child {
  pid_t pid;
  int rfd;          /* read end of the answer pipe; -1 after EOF */
  FILE* errf;       /* the child's stdout+stderr */
  double t0, deadline;
  int timeout_s;
  size_t cap;
  int timed_out;
  int active;       /* started and not yet finished */
  dh_child_result_t r;
} dh_child_t;

/* Forks fn(arg, fd) in its own process group, stdout/stderr to a temporary file; fd is
 * the write end of the answer pipe; the child _exits(0) after fn returns (no atexit
 * handlers run). On failure c->active is 0 and c->r says why (DH_CHILD_NO_ANSWER). */
void dh_child_start(dh_child_t* c, void (*fn)(void* arg, int fd), void* arg, int timeout_s);

/* Waits until one of the n (at most 64) children finishes or reaches its deadline,
 * finishes it (reaped; its group killed; c->r filled) and returns its index; -1 when
 * none is active. */
int dh_children_wait_any(dh_child_t* children, size_t n);

/* dh_child_start + dh_children_wait_any for one child: runs fn(arg, fd) in a child
 * and waits for it (at most timeout_s seconds). *r owns r->data. */
void dh_child_run(void (*fn)(void* arg, int fd), void* arg, int timeout_s, dh_child_result_t* r);

/* write(2) until all n bytes are written (EINTR retried); 0, or -1 on error. */
int dh_write_all(int fd, const void* p, size_t n);

#endif /* DEVHARNESS_BASE_CHILD_H_ */
