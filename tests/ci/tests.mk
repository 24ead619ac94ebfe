# tests/ci/tests.mk — the nightly pipeline files (ci/github, ci/gitlab and their copies).
TEST_SCRIPTS += tests/ci/workflows.t
