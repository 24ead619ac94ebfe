/* cmdline/script.c — a Python tool found in share/devharness/ and run under its
 * interpreter (cmdline/script.h). */
#include "cmdline/script.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmdline/cmdline.h"

/* The script: $env, else <exe dir>/../share/devharness/<name> (the build tree's
 * $(BUILD)/share/devharness/ or the installed PREFIX/share/devharness/). 0 found, else
 * -1 with the place looked into buf. */
static int find_script(const char* env, const char* name, char* buf, size_t size) {
  const char* e = getenv(env);
  if (e && *e) {
    snprintf(buf, size, "%s", e);
    return access(buf, R_OK) == 0 ? 0 : -1;
  }
  char exe[PATH_MAX];
  snprintf(exe, sizeof exe, "%s", dh_cmdline_self_path());
  char* slash = strrchr(exe, '/');
  if (!slash) {
    snprintf(buf, size, "share/devharness/%s (the program's own path is unreadable)", name);
    return -1;
  }
  *slash = '\0';
  snprintf(buf, size, "%s/../share/devharness/%s", exe, name);
  return access(buf, R_OK) == 0 ? 0 : -1;
}

#ifndef DH_BUILD_VENV_PYTHON
#define DH_BUILD_VENV_PYTHON "" /* cmdline/cmdline.mk: the venv this program was built against */
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

int dh_cmdline_run_script(const dh_cmdline_script_t* s, int argc, char** argv) {
  char path[PATH_MAX * 2 + 64];
  if (find_script(s->env, s->name, path, sizeof path) != 0) {
    fprintf(stderr, "devharness %s: cannot find %s (looked in %s; set %s)\n", s->cmd, s->name, path, s->env);
    return DH_EXIT_USAGE;
  }
  char pybuf[PATH_MAX];
  const char* py = pick_python(s->venv, pybuf, sizeof pybuf);
  char** args = calloc((size_t)argc + 3, sizeof *args);
  if (!args) return DH_EXIT_USAGE;
  args[0] = (char*)py;
  args[1] = path;
  for (int i = 1; i < argc; ++i) args[i + 1] = argv[i];
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "devharness %s: fork: %s\n", s->cmd, strerror(errno));
    free(args);
    return DH_EXIT_USAGE;
  }
  if (pid == 0) {
    execv(py, args);
    fprintf(stderr, "devharness %s: cannot run %s: %s\n", s->cmd, py, strerror(errno));
    _exit(DH_EXIT_USAGE);
  }
  free(args);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return DH_EXIT_USAGE;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  fprintf(stderr, "devharness %s: %s killed by signal %d\n", s->cmd, s->name, WTERMSIG(status));
  return DH_EXIT_USAGE;
}
