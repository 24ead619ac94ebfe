# tests/ci/tests.mk — the nightly pipeline files (.github/workflows/nightly.yml, .gitlab-ci.yml).
TEST_SCRIPTS += tests/ci/workflows.t
