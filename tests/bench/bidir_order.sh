#!/bin/sh
# tests/bench/bidir_order.sh — the bench issues the harness's bidirectional pair in the
# order its raw twin names (include/devharness/backend.h dh_raw_twin_t.bidir_order,
# bench/suites/copy.c harness_issue), TAP. Uses the test plugin
# tests/bench/bidirorder.c (the sim, logging each copy's direction): with
# DH_RAW_BIDIR_PAGEABLE_H2D_FIRST a pageable pair is H2D then D2H, a pinned pair D2H
# then H2D; with 0 a pageable pair is D2H then H2D. The log ends with the check after the
# timed loop (bench/suites/copy.c verify_copy): an H2D filling the device source, one
# pair issued as timed, a D2H reading the device destination back; so the next to last
# copy logged is the second of that pair. Also: bidir has a raw_released twin (the twin under the
# harness's host-source contract), as H2D has.
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case "$BUILD" in /*) b=$BUILD ;; *) b=$root/$BUILD ;; esac
DH=${DEVHARNESS:-$b/bin/devharness}
plugdir=$b/tests/bench/plugins
tmp=$(mktemp -d /tmp/dh_bidir_order.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "TAP version 13"
echo "1..4"
if [ ! -f "$plugdir/libdevharness_bidirorder.so" ] || [ ! -x "$DH" ]; then
    for i in 1 2 3 4; do echo "ok $i - bidir order $i # SKIP test plugin or devharness not built (make all)"; done
    exit 0
fi
n=0
# order memory expected-last-copy description
run() {
    n=$((n + 1))
    rm -f "$tmp/log"
    DH_TEST_BIDIR_ORDER=$1 DEVHARNESS_PLUGIN_PATH="$plugdir" DH_TEST_COPY_LOG="$tmp/log" \
        "$DH" bench --suite copy --device bidirorder:0 \
        --benchmark_filter="copy/bidir/$2/bidirorder:0/harness/4/" \
        --benchmark_min_time=0.001 >"$tmp/out" 2>&1
    rc=$?
    last=$(tail -n 2 "$tmp/log" 2>/dev/null | head -n 1)
    pairs=$(grep -c '^d2h$' "$tmp/log" 2>/dev/null)
    if [ "$rc" -eq 0 ] && [ "$last" = "$3" ] && [ "${pairs:-0}" -ge 2 ]; then
        echo "ok $n - $4"
    else
        echo "not ok $n - $4"
        echo "# exit $rc, last copy '$last' (expected '$3'), $pairs D2H copies logged"
        sed 's/^/# /' "$tmp/out" | tail -n 5
    fi
}
run 1 pageable d2h "bidir_order H2D first, pageable: the harness issues H2D then D2H"
run 1 pinned h2d "bidir_order H2D first, pinned: the harness issues D2H then H2D"
run 0 pageable h2d "bidir_order 0, pageable: the harness issues D2H then H2D"
n=$((n + 1))
DEVHARNESS_PLUGIN_PATH="$plugdir" "$DH" bench --suite copy --device bidirorder:0 \
    --benchmark_list_tests=true >"$tmp/list" 2>&1
if grep -qx 'copy/bidir/pageable/bidirorder:0/raw_released/4/manual_time' "$tmp/list" &&
   grep -qx 'copy/bidir/pinned/bidirorder:0/raw_released/4/manual_time' "$tmp/list" &&
   ! grep -q '^copy/d2h/.*/raw_released/' "$tmp/list"; then
    echo "ok $n - bidir has raw_released pairs (pageable and pinned), d2h has none"
else
    echo "not ok $n - bidir has raw_released pairs (pageable and pinned), d2h has none"
    grep '^copy/bidir/' "$tmp/list" | head -n 8 | sed 's/^/# /'
fi
