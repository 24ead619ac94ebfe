#!/bin/sh
# tests/backends/skeleton/skeleton.sh — the in-tree skeleton plugin
# ($BUILD/lib/skeleton/libdevharness_skeleton.so, backends/skeleton/backend.mk) loads;
# `devharness conformance --plugin` reports every clause `# SKIP not implemented` and
# exits 3; a default run does not load it (it is not in the plugin folder). Prints TAP.
set -u
build=${BUILD:-build}
dh=${DEVHARNESS:-$build/bin/devharness}
plugin="$build/lib/skeleton/libdevharness_skeleton.so"
if [ ! -f "$plugin" ] || [ ! -x "$dh" ]; then
    echo "1..0 # SKIP $plugin or $dh not built"
    exit 0
fi
echo "1..2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$dh" conformance --plugin "$plugin" >"$tmp/tap" 2>"$tmp/err"
rc=$?
plan=$(sed -n 's/^    1\.\.\([0-9][0-9]*\)$/\1/p' "$tmp/tap" | head -1)
skips=$(grep -c '^    ok [0-9]* - [a-z_.0-9]* # SKIP not implemented' "$tmp/tap")
if [ "$rc" -eq 3 ] && [ -n "$plan" ] && [ "$plan" -gt 0 ] && [ "$skips" -eq "$plan" ]; then
    echo "ok 1 - conformance --plugin <skeleton>: all $plan clauses # SKIP not implemented, exit 3"
else
    echo "not ok 1 - conformance --plugin <skeleton>: every clause # SKIP not implemented, exit 3"
    echo "# exit $rc, plan ${plan:-none}, SKIP not implemented: $skips"
    head -8 "$tmp/tap" | sed 's/^/# /'
    tail -3 "$tmp/err" | sed 's/^/# /'
fi
"$dh" info >"$tmp/info" 2>&1
if grep -qi skeleton "$tmp/info"; then
    echo "not ok 2 - a default run (devharness info) does not load the skeleton"
    grep -i skeleton "$tmp/info" | head -3 | sed 's/^/# /'
else
    echo "ok 2 - a default run (devharness info) does not load the skeleton"
fi
