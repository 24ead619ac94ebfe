/* Not a fault: the sim with a detector of cases running beside each other, for
 * tests/conformance/run_alone.t (the runner's DC_RUN_ALONE under --jobs).
 *
 * Every case process (a child of the runner, not the process that loaded the plugin)
 * takes a shared flock on $DH_ALONE_LOCK at its first get_attr or alloc_data_space and
 * holds it to its exit, after a 200 ms pause so that cases started together overlap.
 * A read of kAvailableGlobalMemory then fails with RuntimeError when another case
 * process holds the lock: the attr.available_* clauses, which run alone, must never
 * see it. With DH_ALONE_ALL=1 every alloc_data_space fails the same way, so clauses
 * that do not run alone show that the detector sees cases running beside each other. */
#include <fcntl.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "faulty.h"

static pid_t loader_pid; /* the process that loaded the plugin: never locks */
static int held_fd = -1; /* this case process's shared lock */

__attribute__((constructor)) static void record_loader(void) { loader_pid = getpid(); }

/* 1 when another case process holds the lock; takes this process's lock first. */
static int others_running(void) {
  const char* path = getenv("DH_ALONE_LOCK");
  if (path == NULL || getpid() == loader_pid) return 0;
  if (held_fd < 0) {
    held_fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
    if (held_fd < 0 || flock(held_fd, LOCK_SH) != 0) return 0;
    struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  flock(held_fd, LOCK_UN);
  int alone = flock(fd, LOCK_EX | LOCK_NB) == 0;
  close(fd);
  flock(held_fd, LOCK_SH);
  return !alone;
}

static int alone_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (others_running() && kind == DH_ATTR_AVAILABLE_GLOBAL_MEMORY)
    return dh_error_set(DH_KIND_RUNTIME_ERROR, "faulty_alone: another case runs beside this one");
  return dh_sim_backend.get_attr(dev, kind, out);
}

static int alone_alloc(DLDevice dev, size_t nbytes, size_t alignment, DLDataType hint, void** out) {
  const char* all = getenv("DH_ALONE_ALL");
  if (others_running() && all != NULL && strcmp(all, "1") == 0)
    return dh_error_set(DH_KIND_RUNTIME_ERROR, "faulty_alone: another case runs beside this one");
  return dh_sim_backend.alloc_data_space(dev, nbytes, alignment, hint, out);
}

FAULTY_ENTRY("alone", (faulty.get_attr = alone_get_attr, faulty.alloc_data_space = alone_alloc))
