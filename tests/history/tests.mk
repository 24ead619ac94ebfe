# tests/history/tests.mk — the read side of the results store: history, dashboard and
# the regression gate (compare), on real stores and recorded real runs.
TEST_SCRIPTS += tests/history/history.t
TEST_SCRIPTS += tests/history/gate.t
