# tests/docs/tests.mk — docs and references: tests/docs/references.t checks that every
# reference in code and docs can be followed (docs/contract.md, repository paths, no
# references outside the repository); tests/docs/walkthrough.t checks the table of
# docs/architecture.md "How a call flows"; tests/docs/contract.t checks docs/contract.md
# against the clause catalogue and the backend vtable; tests/docs/citations.t checks every
# file:line a clause cites from TVM or tvm-ffi against the sources the pinned packages install.
TEST_SCRIPTS += tests/docs/references.t
TEST_SCRIPTS += tests/docs/walkthrough.t
TEST_SCRIPTS += tests/docs/contract.t
TEST_SCRIPTS += tests/docs/citations.t
