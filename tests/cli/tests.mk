# tests/cli/tests.mk — the `devharness run` results folder (tests/cli/run_results.t).
TEST_SCRIPTS += tests/cli/run_results.t
