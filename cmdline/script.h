/*
 * cmdline/script.h — a command that is a Python tool (`devharness plot`, `compare`,
 * `history`, `dashboard`): the script found where the build put it, run under the
 * interpreter it needs, its exit status handed back. Shared by bench/ and store/, whose
 * tools these are; internal to devharness, not installed. Not thread-safe (it forks):
 * call from the command's main thread.
 *
 * Where the scripts are: every tool and the modules it imports sit flat in one folder,
 * <exe dir>/../share/devharness/: the build copies them to $(BUILD)/share/devharness/
 * (the Makefile's SHARE_FILES), `make install` to PREFIX/share/devharness/, so the
 * build tree and an installed tree look alike and a script imports its modules from
 * its own folder.
 */
#ifndef DEVHARNESS_CMDLINE_SCRIPT_H_
#define DEVHARNESS_CMDLINE_SCRIPT_H_

/* One Python tool. */
typedef struct dh_cmdline_script {
  const char* cmd;  /* the command, for messages: "history" */
  const char* env;  /* the variable that names the script instead: "DEVHARNESS_HISTORY_PY" */
  const char* name; /* its file name in share/devharness/: "history.py" */
  int venv;         /* 1: the project venv's Python (the pinned packages of
                       ci/python-requirements.txt), 0: /usr/bin/python3 (Debian's) */
} dh_cmdline_script_t;

/* Runs the tool with argv[1..] (argv[0] = the command name): the script is $env when
 * set, else <exe dir>/../share/devharness/<name>; the interpreter $DEVHARNESS_PYTHON
 * when set, else with venv the build tree's venv (<exe dir>/../venv/bin/python) or the
 * venv this program was built against (a build in another folder sharing it), else
 * /usr/bin/python3. Returns the script's exit status, or DH_EXIT_USAGE after one line
 * "devharness CMD: ..." on stderr when the script is missing or the interpreter
 * cannot start or is killed by a signal. */
int dh_cmdline_run_script(const dh_cmdline_script_t* s, int argc, char** argv);

#endif /* DEVHARNESS_CMDLINE_SCRIPT_H_ */
