# tests/suite/tests.mk — tests of the suite machinery (suite/):
#   suite_run   the runner of forked cases (suite/run.c): table order, skips, crashes,
#               hangs, run-alone, no_fork; the verdict's spelling and the tally
#               (suite/case.c)
# The reporters are tested through the commands that drive them: tests/conformance/
# (reports.t, summary.t, consumers.t), tests/cli/same_results.t, tests/module/golden.t.
$(eval $(call dh_test,suite_run,tests/suite/test_run.c suite/run.c suite/case.c,$(BASE_LIB) -ljansson -lcmocka))
