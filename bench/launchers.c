/*
 * bench/launchers.c — `devharness plot`, `compare`, `history` and `dashboard`: thin
 * launchers of bench/scripts/plot.py (under /usr/bin/python3, Debian's matplotlib) and
 * compare.py, history.py, dashboard.py (under the project venv's Python, which has the
 * pinned scipy, ruptures and jinja2 of ci/python-requirements.txt) (bench/bench.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "cmdline/cmdline.h"

/* Finds `name`: $env, <exe dir>/../../bench/scripts/<name> (build tree),
 * <exe dir>/../share/devharness/<name> (installed). */
static int find_script(const char* env, const char* name, char* buf, size_t size) {
  const char* e = getenv(env);
  if (e && *e) {
    snprintf(buf, size, "%s", e);
    return access(buf, R_OK) == 0 ? 0 : -1;
  }
  char exe[PATH_MAX];
  snprintf(exe, sizeof exe, "%s", dh_cmdline_self_path());
  char* slash = strrchr(exe, '/');
  if (!slash) return -1; /* /proc/self/exe unreadable */
  *slash = '\0';
  static const char* const kRel[] = {"../../bench/scripts", "../share/devharness",
                                     "../../../bench/scripts"};
  for (size_t i = 0; i < sizeof kRel / sizeof kRel[0]; ++i) {
    snprintf(buf, size, "%s/%s/%s", exe, kRel[i], name);
    if (access(buf, R_OK) == 0) return 0;
  }
  snprintf(buf, size, "%s/../../bench/scripts/%s or %s/../share/devharness/%s", exe, name, exe,
           name);
  return -1;
}

#ifndef DH_BUILD_VENV_PYTHON
#define DH_BUILD_VENV_PYTHON "" /* bench/bench.mk: the venv this program was built against */
#endif

/* The interpreter of a script: $DEVHARNESS_PYTHON; with `venv`, <exe dir>/../venv/bin/python
 * when it is there (the build tree's build/venv), else the venv the build used
 * (DH_BUILD_VENV_PYTHON: a build in another folder, e.g. the sanitizer builds of
 * mk/sanitizers.mk, which share the main build's venv); else /usr/bin/python3. */
static const char* pick_python(int venv, char* buf, size_t size) {
  const char* py = getenv("DEVHARNESS_PYTHON");
  if (py && *py) return py;
  if (venv) {
    snprintf(buf, size, "%s", dh_cmdline_self_path());
    char* slash = strrchr(buf, '/');
    if (slash && (size_t)(slash - buf) + sizeof "/../venv/bin/python" <= size) {
      snprintf(slash, size - (size_t)(slash - buf), "/../venv/bin/python");
      if (access(buf, X_OK) == 0) return buf;
    }
    if (DH_BUILD_VENV_PYTHON[0] && access(DH_BUILD_VENV_PYTHON, X_OK) == 0) return DH_BUILD_VENV_PYTHON;
  }
  return "/usr/bin/python3";
}

/* Runs python SCRIPT argv[1..] (python: pick_python(venv)); returns its exit status
 * (DH_EXIT_USAGE if it cannot start or is killed). */
static int run_script(const char* cmd, const char* env, const char* name, int venv, int argc,
                      char** argv) {
  char path[PATH_MAX * 2 + 64];
  if (find_script(env, name, path, sizeof path) != 0) {
    fprintf(stderr, "devharness %s: cannot find %s (looked in %s; set %s)\n", cmd, name, path,
            env);
    return DH_EXIT_USAGE;
  }
  char pybuf[PATH_MAX];
  const char* py = pick_python(venv, pybuf, sizeof pybuf);
  char** args = calloc((size_t)argc + 3, sizeof *args);
  if (!args) return DH_EXIT_USAGE;
  args[0] = (char*)py;
  args[1] = path;
  for (int i = 1; i < argc; ++i) args[i + 1] = argv[i];
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "devharness %s: fork: %s\n", cmd, strerror(errno));
    free(args);
    return DH_EXIT_USAGE;
  }
  if (pid == 0) {
    execv(py, args);
    fprintf(stderr, "devharness %s: cannot run %s: %s\n", cmd, py, strerror(errno));
    _exit(DH_EXIT_USAGE);
  }
  free(args);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return DH_EXIT_USAGE;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  fprintf(stderr, "devharness %s: %s killed by signal %d\n", cmd, name, WTERMSIG(status));
  return DH_EXIT_USAGE;
}

int dh_plot_main(int argc, char** argv) {
  return run_script("plot", "DEVHARNESS_PLOT_PY", "plot.py", 0, argc, argv);
}

int dh_compare_main(int argc, char** argv) {
  return run_script("compare", "DEVHARNESS_COMPARE_PY", "compare.py", 1, argc, argv);
}

int dh_history_main(int argc, char** argv) {
  return run_script("history", "DEVHARNESS_HISTORY_PY", "history.py", 1, argc, argv);
}

int dh_dashboard_main(int argc, char** argv) {
  return run_script("dashboard", "DEVHARNESS_DASHBOARD_PY", "dashboard.py", 1, argc, argv);
}
