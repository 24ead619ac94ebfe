# tests/results/tests.mk — result bundles, shards, merge, verify and the results store (docs/results.md).
TEST_SCRIPTS += tests/results/shards.t tests/results/store.t tests/results/merge_and_report.t tests/results/identity.t \
    tests/results/disk_full.t
