# tests/store/tests.mk — the results room (store/; docs/results.md, docs/history.md), on
# real bundles and real stores. Helpers (not tests) are in tests/store/lib/:
# bundle_common.py (running devharness, manifests, the schema validator), synth_bundle.py
# (a synthetic bundle of any size), fixture_store.py (twelve nightly bundles imported).
#   shards.t            conformance --shard bundles, merge, verify
#   store.t             store import and stats: rows, idempotence, migrations, backups, locks
#   merge_and_report.t  ci/merge-and-report.sh: shards merged, verified, recorded
#   merge_reports.t     merge's TAP, JUnit and summary = the unsharded run's (prove, xmllint);
#                       each shard's own reports hold only its cases
#   identity.t          stable device identities across runs and machines
#   disk_full.t         a full disk during store import: one line, exit 1, the store intact
#   history.t           devharness history and dashboard: the default diff of the last night (40
#                       lines) and --all, flips, flaky clauses, change points,
#                       waived cases, one schema version for C and Python, the
#                       dashboard's first screen (a seeded failing night) in Chromium
#   gate.t              devharness compare's regression gate, --baseline store:last=N included
#   export.t            devharness export (BMF against docs/bmf.schema.json, CSV, OpenMetrics), the
#                       Grafana queries of docs/results.md, compare --format markdown|json
#   bundle_hostile.t    FIFOs, links, unlisted devices, reused UUIDs, bad times: refused, store intact
#   readonly.t          history, dashboard, export on a read-only store; stats and import write nothing
#                       to a path that is not a store
#   history_text.t      history's output with hostile device names and clause ids: escaped, cut
#   installed.sh        make install puts what history and dashboard need in share/devharness
TEST_SCRIPTS += tests/store/shards.t tests/store/store.t tests/store/merge_and_report.t tests/store/merge_reports.t \
    tests/store/identity.t tests/store/disk_full.t tests/store/history.t tests/store/gate.t tests/store/export.t \
    tests/store/history_text.t tests/store/bundle_hostile.t tests/store/readonly.t \
    tests/store/installed.sh
