#!/bin/sh
# Usage: ci/regression-gate.sh DEVICE NEW.json [STORE]
# Gates NEW.json (a `devharness bench --repetitions 9` run of DEVICE) with `devharness
# compare`: Mann-Whitney U per benchmark, Benjamini-Hochberg over the harness rows, a
# 5 % minimum effect and a 2 ns floor; raw twins are context and never gate; a run
# marked noisy (devharness.health.noisy = yes) calls no regression (docs/benchmarks.md
# "Comparing runs").
# With STORE (a results store, docs/results.md; or $DEVHARNESS_STORE) the baseline is
# the last 5 runs of the same device there (compare --baseline store:last=5; NEW's
# bundle manifest.json, when NEW sits in a bundle, names the device stably); without
# one, the stored baseline ci/baselines/<DEVICE with : as _>.json.
# Exit: the compare exit code (1 = significant regression, 2 bad input); 0 with a notice
# when there is no baseline yet (store one by copying a trusted run's bench-gate.json
# there). A noisy run is inconclusive (compare --on-noisy inconclusive: 4), never a
# silent pass: on GitHub Actions a ::warning:: annotation and exit 0, elsewhere exit 4
# (the GitLab job allows exit code 4 as a warning).
set -eu
device=$1
new=$2
store=${3:-${DEVHARNESS_STORE:-}}
here=$(cd "$(dirname "$0")" && pwd)
dh=${DEVHARNESS:-build/bin/devharness}
if [ -n "$store" ]; then
    if [ ! -f "$store" ]; then
        echo "regression-gate: no store $store yet; skipping the comparison" >&2
        exit 0
    fi
    set -- --baseline store:last=5 --store "$store" "$new"
else
    base="$here/baselines/$(echo "$device" | tr ':' '_').json"
    if [ ! -f "$base" ]; then
        echo "regression-gate: no baseline $base yet; skipping the comparison" >&2
        echo "regression-gate: to arm the gate, commit a trusted run's $new as $base" >&2
        exit 0
    fi
    set -- "$base" "$new"
fi
rc=0
"$dh" compare "$@" || rc=$?
if [ "$rc" -eq 4 ]; then
    if [ "${GITHUB_ACTIONS:-}" = true ]; then
        echo "::warning title=regression gate ($device)::inconclusive: the run was noisy (see the compare output)"
        exit 0
    fi
    echo "regression-gate: $device: inconclusive: the run was noisy (exit 4)" >&2
fi
exit "$rc"
