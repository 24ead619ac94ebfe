# tests/ci/tests.mk — the nightly pipeline files (.github/workflows/nightly.yml, .gitlab-ci.yml).
TEST_SCRIPTS += tests/ci/workflows.t
# ci/install-deps.sh asks for root only when a package is missing
TEST_SCRIPTS += tests/ci/install_deps.t
# both pipelines validate against GitHub's and GitLab's schemas (check-jsonschema, venv)
TEST_SCRIPTS += tests/ci/pipeline_schema.t
# the GitHub workflows pass zizmor's security audits (pinned actions, permissions; venv)
TEST_SCRIPTS += tests/ci/zizmor.t
