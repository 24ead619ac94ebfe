# tests/cli/tests.mk — the command line: the `devharness run` results folder (run_results.t), its behaviour against golden files (same_results.t).
TEST_SCRIPTS += tests/cli/run_results.t tests/cli/same_results.t
# make install PREFIX=<tmp> runs with the build folder and venv hidden
TEST_SCRIPTS += tests/cli/install_standalone.sh
# -h and --help on every command, with every exit code named
TEST_SCRIPTS += tests/cli/help.t
# run publishes complete results or nothing: concurrent runs, a full disk, a killed run
TEST_SCRIPTS += tests/cli/run_complete.t
# --quiet (errors and the verdict line) and --verbose (diagnostics, step commands)
TEST_SCRIPTS += tests/cli/verbosity.t
# run --expect: a target with an impossible floor fails the run with measured, ceiling and floor
TEST_SCRIPTS += tests/cli/run_expect.t
# info and targets detect ask a backend in a child: a crashing get_attr costs one line
TEST_SCRIPTS += tests/cli/isolated.t
