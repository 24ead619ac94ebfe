#!/bin/sh
# ci/merge-and-report.sh — the nightly pipelines' merge-and-report job (docs/ci.md,
# docs/results.md): joins the conformance shard bundles, proves they add up, records
# every bundle in the results store and renders the dashboard.
# Usage: ci/merge-and-report.sh STORE OUT SHARDS_DIR [RESULTS_DIR...]
#   STORE        the results store (kept between nightly runs by the pipeline's cache)
#   OUT          written: OUT/merged (the merged shard bundle, with the merged reports
#                conformance.tap, conformance.junit.xml and conformance.summary.json
#                that `devharness merge` writes: the job's artifact), OUT/dashboard
#   SHARDS_DIR   a folder holding the shard bundles (one subfolder with manifest.json each)
#   RESULTS_DIR  folders searched for other bundles to record (devharness run's
#                results folders; `.failed` folders are left out)
# Exit: 0 merged, verified, recorded, rendered; 1 a step failed (verify: a case missing
# or run twice; the messages say which); 2 usage.
# DEVHARNESS names the command (default build/bin/devharness).
set -u
[ $# -ge 3 ] || { echo "usage: ci/merge-and-report.sh STORE OUT SHARDS_DIR [RESULTS_DIR...]" >&2; exit 2; }
dh=${DEVHARNESS:-build/bin/devharness}
store=$1 out=$2 shards=$3
shift 3
mkdir -p "$out" || exit 1
rc=0
# the shard bundles, in a stable order
parts=$(find "$shards" -name manifest.json -not -path '*.failed*' | sort | sed 's|/manifest.json$||')
[ -n "$parts" ] || { echo "merge-and-report: no shard bundle under $shards" >&2; exit 1; }
# shellcheck disable=SC2086
"$dh" merge $parts -o "$out/merged" || exit 1
for f in conformance.tap conformance.junit.xml conformance.summary.json; do
    [ -s "$out/merged/$f" ] || { echo "merge-and-report: $out/merged/$f missing: this devharness merge writes no merged reports" >&2; rc=1; }
done
echo "merge-and-report: merged reports in $out/merged: conformance.tap, conformance.junit.xml, conformance.summary.json"
"$dh" verify "$out/merged" || rc=1
runs=""
for d in "$@"; do
    runs="$runs $(find "$d" -name manifest.json -not -path '*.failed*' | sort | sed 's|/manifest.json$||')"
done
# shellcheck disable=SC2086
"$dh" store import --store "$store" "$out/merged" $runs || rc=1
"$dh" store stats --store "$store"
if "$dh" dashboard --help >/dev/null 2>&1; then
    "$dh" dashboard --store "$store" -o "$out/dashboard" || rc=1
else
    echo "merge-and-report: this devharness has no dashboard command; no dashboard rendered"
fi
exit $rc
