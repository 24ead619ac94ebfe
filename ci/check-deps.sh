#!/bin/sh
# Checks that every build dependency is present. When one is missing: as root (or with
# --sudo as a user who has sudo), runs ci/install-deps.sh; otherwise prints the commands
# to run and exits 2.
# Usage: ci/check-deps.sh [--sudo]
# Exit: 0 all present (or installed), 1 installation failed, 2 missing and not installed.
set -u
here=$(dirname "$0")
use_sudo=0
[ "${1:-}" = "--sudo" ] && use_sudo=1
missing=""
for prog in make cc c++ pkg-config glslc prove clinfo vulkaninfo xmllint tap-parser chromium; do
    command -v "$prog" >/dev/null 2>&1 || missing="$missing $prog"
done
if command -v pkg-config >/dev/null 2>&1; then
    for pc in jansson hwloc cmocka benchmark OpenCL vulkan libxml-2.0 sqlite3 nettle uuid; do
        pkg-config --exists "$pc" 2>/dev/null || missing="$missing pkg-config:$pc"
    done
fi
[ -f /usr/include/dlpack/dlpack.h ] || missing="$missing dlpack.h"
[ -f /usr/include/CL/cl.h ] || missing="$missing CL/cl.h"
if [ -x /usr/bin/python3 ]; then
    /usr/bin/python3 -c 'import matplotlib, scipy, numpy' 2>/dev/null || missing="$missing python3-matplotlib/scipy"
    /usr/bin/python3 -c 'import ensurepip' 2>/dev/null || missing="$missing python3-venv"
    /usr/bin/python3 -c 'import tap' 2>/dev/null || missing="$missing python3-tap"
    /usr/bin/python3 -c 'import junitparser' 2>/dev/null || missing="$missing python3-junitparser"
else
    missing="$missing python3"
fi
[ -z "$missing" ] && exit 0
n=$(echo $missing | wc -w)
echo "devharness: $n dependencies missing:$missing" >&2
if [ "$(id -u)" = 0 ]; then
    echo "devharness: installing them with ci/install-deps.sh" >&2
    sh "$here/install-deps.sh" || exit 1
    exit 0
fi
if [ "$use_sudo" = 1 ] && command -v sudo >/dev/null 2>&1; then
    echo "devharness: installing them with: sudo sh $here/install-deps.sh" >&2
    sudo sh "$here/install-deps.sh" || exit 1
    exit 0
fi
echo "devharness: install them with (then run make again):" >&2
echo "  sudo sh -c '$(sh "$here/install-deps.sh" --print)'" >&2
exit 2
