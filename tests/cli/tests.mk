# tests/cli/tests.mk — the `devharness run` results folder (run_results.t) and its behaviour against golden files (same_results.t).
TEST_SCRIPTS += tests/cli/run_results.t tests/cli/same_results.t
