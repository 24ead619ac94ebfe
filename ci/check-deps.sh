#!/bin/sh
# Checks that every build dependency is present. When one is missing: as root, runs
# ci/install-deps.sh; otherwise prints the apt-get line and exits 2.
set -u
here=$(dirname "$0")
missing=""
for pc in jansson hwloc cmocka benchmark OpenCL vulkan; do
    pkg-config --exists "$pc" 2>/dev/null || missing="$missing pkg-config:$pc"
done
[ -f /usr/include/dlpack/dlpack.h ] || missing="$missing dlpack.h"
[ -f /usr/include/CL/cl.h ] || missing="$missing CL/cl.h"
for prog in glslc prove clinfo vulkaninfo; do
    command -v "$prog" >/dev/null 2>&1 || missing="$missing $prog"
done
/usr/bin/python3 -c 'import matplotlib, scipy, numpy' 2>/dev/null || missing="$missing python3-matplotlib/scipy"
/usr/bin/python3 -c 'import ensurepip' 2>/dev/null || missing="$missing python3-venv"
[ -z "$missing" ] && exit 0
echo "devharness: missing dependencies:$missing" >&2
if [ "$(id -u)" = 0 ]; then
    echo "devharness: installing them with ci/install-deps.sh" >&2
    sh "$here/install-deps.sh" || exit 1
    exit 0
fi
echo "devharness: install them with:" >&2
sh "$here/install-deps.sh" --print | sed 's/^/  sudo /' >&2
exit 2
