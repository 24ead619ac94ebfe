/* base/child.c — isolated children (base/child.h): each in its own process group, its
 * answer through a pipe, its stdout/stderr into a temporary file (a crash report from
 * its header, else the last lines, kept for the report), killed with its group at the timeout; the same split as libuv's
 * test runner (libuv v1.48.0 test/runner-unix.c). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/child.h"

int dh_write_all(int fd, const void* p, size_t n) {
  const char* c = p;
  while (n) {
    ssize_t k = write(fd, c, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    c += k;
    n -= (size_t)k;
  }
  return 0;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static const char* sig_name(int sig, char* buf, size_t n) {
  const char* abbr = sigabbrev_np(sig);
  if (abbr) snprintf(buf, n, "SIG%s", abbr);
  else snprintf(buf, n, "signal %d", sig);
  return buf;
}

/* Lines that open a crash report: a backtrace printed by a signal handler (tvm-ffi's
 * "!!!!!!! Segfault encountered !!!!!!!"), a sanitizer's report, a Python traceback. Its
 * first frame is the one that crashed, so such a report is kept from its start. */
static const char* const kCrashHeaders[] = {
    "Segfault encountered", "ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "WARNING: ThreadSanitizer",
    "runtime error:", "Traceback (most recent call last)", "Stack trace", "Backtrace", "backtrace:", NULL};

/* The start of the first line in text that holds a crash header, or NULL. */
static char* crash_header(char* text) {
  char* first = NULL;
  for (size_t i = 0; kCrashHeaders[i]; i++) {
    char* h = strstr(text, kCrashHeaders[i]);
    if (h && (!first || h < first)) first = h;
  }
  if (!first) return NULL;
  while (first > text && first[-1] != '\n') first--;
  return first;
}

/* What a report keeps of the file behind fd (the child's stdout and stderr), into out:
 * read the last DH_CHILD_SCAN_BYTES; when they hold a crash report, as much of it as fits
 * from its header on (the crashing frame first, "..." when cut); otherwise the last
 * `lines` lines. */
#define DH_CHILD_SCAN_BYTES 16384
static void output_of(int fd, char* out, size_t out_size, int lines) {
  static char scan[DH_CHILD_SCAN_BYTES + 1]; /* one child at a time is finished */
  out[0] = 0;
  off_t end = lseek(fd, 0, SEEK_END);
  if (end <= 0) return;
  size_t want = (size_t)end < DH_CHILD_SCAN_BYTES ? (size_t)end : DH_CHILD_SCAN_BYTES;
  if (pread(fd, scan, want, end - (off_t)want) != (ssize_t)want) return;
  scan[want] = 0;
  size_t len = strlen(scan); /* a NUL written by the child ends the text there */
  while (len && scan[len - 1] == '\n') scan[--len] = 0;
  char* h = crash_header(scan);
  if (h) {
    size_t n = strlen(h);
    if (n < out_size) {
      memcpy(out, h, n + 1);
      return;
    }
    size_t cut = out_size - 5; /* room for "\n..." and the NUL */
    while (cut > 0 && h[cut] != '\n') cut--; /* whole lines only */
    snprintf(out, out_size, "%.*s\n...", (int)cut, h);
    return;
  }
  int seen = 0;
  size_t from = 0;
  for (size_t i = len; i > 0; i--)
    if (scan[i - 1] == '\n' && ++seen == lines) {
      from = i;
      break;
    }
  if (len - from >= out_size) from = len - (out_size - 1); /* the last bytes of one long line */
  memcpy(out, scan + from, len - from + 1);
}

void dh_child_start(dh_child_t* j, void (*fn)(void* arg, int fd), void* arg, int timeout_s) {
  memset(j, 0, sizeof *j);
  j->rfd = -1;
  j->timeout_s = timeout_s;
  int pfd[2];
  FILE* errf = tmpfile();
  if (!errf || pipe(pfd) != 0) {
    j->r.status = DH_CHILD_NO_ANSWER;
    snprintf(j->r.note, sizeof j->r.note, "runner: pipe/tmpfile failed: %s", strerror(errno));
    if (errf) fclose(errf);
    return;
  }
  int errfd = fileno(errf);
  fflush(stdout);
  fflush(stderr);
  j->t0 = now_ms();
  j->deadline = j->t0 + timeout_s * 1000.0;
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    j->r.status = DH_CHILD_NO_ANSWER;
    snprintf(j->r.note, sizeof j->r.note, "runner: fork failed: %s", strerror(errno));
    close(pfd[0]);
    close(pfd[1]);
    fclose(errf);
    return;
  }
  if (pid == 0) {
    setpgid(0, 0);
    /* dies with the process that started it: a runner killed by SIGKILL leaves no
     * case or probe running on (it is in its own process group, out of reach of a
     * signal to the runner's group) */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(127);
    close(pfd[0]);
    dup2(errfd, 1);
    dup2(errfd, 2);
    signal(SIGPIPE, SIG_DFL);
    fn(arg, pfd[1]);
    _exit(0);
  }
  setpgid(pid, pid); /* also here, so the kill below cannot miss the group */
  close(pfd[1]);
  j->pid = pid;
  j->rfd = pfd[0];
  j->errf = errf;
  j->active = 1;
}

/* Reads what is available (after poll said so); 1 at EOF. */
static int job_read(dh_child_t* j) {
  if (j->r.size + 4096 > j->cap) {
    size_t cap = j->cap ? j->cap * 2 : 8192;
    char* nd = realloc(j->r.data, cap);
    if (!nd) return 1;
    j->r.data = nd;
    j->cap = cap;
  }
  ssize_t n = read(j->rfd, j->r.data + j->r.size, j->cap - j->r.size);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return 0;
  if (n <= 0) return 1;
  j->r.size += (size_t)n;
  return 0;
}

/* After EOF or the deadline: reaps the child (killing its group on timeout) and
 * fills j->r. */
static void job_finish(dh_child_t* j) {
  if (j->rfd >= 0) close(j->rfd);
  j->rfd = -1;
  int st = 0;
  if (!j->timed_out) {
    /* EOF seen: the child is exiting; give it until the deadline */
    for (;;) {
      pid_t w = waitpid(j->pid, &st, WNOHANG);
      if (w == j->pid) break;
      if (w < 0 && errno != EINTR) break;
      if (now_ms() > j->deadline) {
        j->timed_out = 1;
        break;
      }
      struct timespec ts = {0, 1000000};
      nanosleep(&ts, NULL);
    }
  }
  dh_child_result_t* r = &j->r;
  if (j->timed_out) {
    kill(-j->pid, SIGKILL);
    kill(j->pid, SIGKILL);
    waitpid(j->pid, &st, 0);
    r->status = DH_CHILD_TIMED_OUT;
    snprintf(r->note, sizeof r->note, "timed out after %d s", j->timeout_s);
  } else if (WIFSIGNALED(st)) {
    char sb[32];
    r->status = DH_CHILD_CRASHED;
    snprintf(r->note, sizeof r->note, "crashed: %s", sig_name(WTERMSIG(st), sb, sizeof sb));
  } else if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
    r->status = DH_CHILD_NO_ANSWER;
    snprintf(r->note, sizeof r->note, "crashed: exit status %d", WEXITSTATUS(st));
  }
  /* anything else left in the group (stray grandchildren) */
  kill(-j->pid, SIGKILL);
  r->ms = now_ms() - j->t0;
  output_of(fileno(j->errf), r->err_tail, sizeof r->err_tail, 6);
  fclose(j->errf);
  j->errf = NULL;
  j->active = 0;
}

int dh_children_wait_any(dh_child_t* jobs, size_t n) {
  struct pollfd pf[64];
  size_t idx[64];
  for (;;) {
    size_t m = 0;
    double now = now_ms(), next = now + 100000;
    for (size_t i = 0; i < n && m < 64; i++) {
      if (!jobs[i].active) continue;
      if (now >= jobs[i].deadline) {
        jobs[i].timed_out = 1;
        job_finish(&jobs[i]);
        return (int)i;
      }
      if (jobs[i].deadline < next) next = jobs[i].deadline;
      pf[m].fd = jobs[i].rfd;
      pf[m].events = POLLIN;
      pf[m].revents = 0;
      idx[m++] = i;
    }
    if (m == 0) return -1;
    int k = poll(pf, (nfds_t)m, (int)(next - now) + 1);
    if (k < 0 && errno != EINTR) return -1;
    for (size_t q = 0; k > 0 && q < m; q++) {
      if (!pf[q].revents) continue;
      dh_child_t* j = &jobs[idx[q]];
      if (job_read(j)) {
        job_finish(j);
        return (int)idx[q];
      }
    }
  }
}

void dh_child_run(void (*fn)(void* arg, int fd), void* arg, int timeout_s, dh_child_result_t* r) {
  dh_child_t j;
  dh_child_start(&j, fn, arg, timeout_s);
  if (j.active) dh_children_wait_any(&j, 1);
  *r = j.r;
}

