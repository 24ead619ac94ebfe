#!/bin/sh
# Usage: ci/regression-gate.sh DEVICE NEW.json
# Compares NEW.json with the stored baseline ci/baselines/<DEVICE with : as _>.json
# through `devharness compare` (Mann-Whitney U over >= 9 repetitions). Exit: the
# compare exit code (1 = significant regression); 0 with a notice when no baseline is
# stored yet (store one by copying a trusted run's bench-gate.json there).
set -eu
device=$1
new=$2
here=$(cd "$(dirname "$0")" && pwd)
base="$here/baselines/$(echo "$device" | tr ':' '_').json"
if [ ! -f "$base" ]; then
    echo "regression-gate: no baseline $base yet; skipping the comparison" >&2
    echo "regression-gate: to arm the gate, commit a trusted run's $new as $base" >&2
    exit 0
fi
exec "${DEVHARNESS:-build/bin/devharness}" compare "$base" "$new"
