#!/bin/sh
# tests/backends/vulkan/stage_threshold.sh — DEVHARNESS_VULKAN_STAGE_PINNED_MAX, the
# pinned H2D staging threshold of the Vulkan backend (vulkan_internal.h
# DH_VULKAN_H2D_STAGE_MAX), TAP: a value that is not a byte count leaves the backend with no
# device and says why (variable and escaped value); at 0 (every pinned source read by
# the device, the call waiting for it) and at 1 GiB (every pinned source staged) the
# copy and capability clauses still pass, the host-source ones included.
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
case "$BUILD" in /*) b=$BUILD ;; *) b=$root/$BUILD ;; esac
DH=${DEVHARNESS:-$b/bin/devharness}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
echo "TAP version 13"
echo "1..3"
why=$(env -u DEVHARNESS_VULKAN_STAGE_PINNED_MAX "$DH" info 2>&1 | sed -n '/^backend vulkan /,/^backend /s/^  unavailable: //p' | head -1)
if [ -n "$why" ] || ! env -u DEVHARNESS_VULKAN_STAGE_PINNED_MAX "$DH" info 2>&1 | grep -q "^backend vulkan "; then
    for i in 1 2 3; do echo "ok $i - stage threshold $i # SKIP no Vulkan device: ${why:-vulkan backend not loaded}"; done
    exit 0
fi
got=$(DEVHARNESS_VULKAN_STAGE_PINNED_MAX="$(printf '12k\001')" "$DH" info 2>&1 | sed -n '/^backend vulkan /,/^backend /s/^  unavailable: //p' | head -1)
case "$got" in
    "DEVHARNESS_VULKAN_STAGE_PINNED_MAX='12k?': not a byte count (decimal digits, e.g. 262144)")
        echo "ok 1 - a threshold that is not a byte count: no device, the variable and its escaped value named" ;;
    *) echo "not ok 1 - a threshold that is not a byte count: no device, the variable and its escaped value named"
       echo "# got: $got" ;;
esac
n=1
for t in 0 1073741824; do
    n=$((n + 1))
    out=$(DEVHARNESS_VULKAN_STAGE_PINNED_MAX=$t "$DH" conformance --device vulkan:0 --filter 'copy.*,cap.*' 2>&1)
    rc=$?
    if [ "$rc" = 0 ] && echo "$out" | grep -q "0 devices with violations" && ! echo "$out" | grep -q "^ *not ok"; then
        echo "ok $n - threshold $t: the copy and capability clauses pass ($(echo "$out" | grep -c '^    ok') cases)"
    else
        echo "not ok $n - threshold $t: the copy and capability clauses pass"
        echo "$out" | grep "not ok" | head -5 | sed 's/^/# /'
    fi
done
