#!/bin/sh
# Installs every Debian package devharness builds, tests and runs with.
# Usage: ci/install-deps.sh [--print]   (--print: only print the apt-get line)
# Exit: 0 installed (or printed), 1 apt-get failed, 2 not root and not --print.
set -eu

PACKAGES="
build-essential clang libclang-rt-14-dev pkg-config make perl
libjansson-dev libhwloc-dev hwloc libcmocka-dev libdlpack-dev
libbenchmark-dev libbenchmark-tools python3 python3-scipy python3-numpy python3-matplotlib python3-yaml
ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
libvulkan-dev mesa-vulkan-drivers vulkan-tools glslc spirv-tools vulkan-validationlayers
valgrind
"
# shellcheck disable=SC2086
line="apt-get install -y --no-install-recommends $(echo $PACKAGES)"

if [ "${1:-}" = "--print" ]; then
    echo "$line"
    echo "python3 -m pip install apache-tvm-ffi   # optional: tvm-ffi peer benchmark"
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "install-deps: run as root, or install these packages yourself:" >&2
    echo "  sudo apt-get update && sudo $line" >&2
    exit 2
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || { echo "install-deps: apt-get update failed" >&2; exit 1; }
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $PACKAGES >/dev/null || {
    echo "install-deps: apt-get install failed" >&2; exit 1; }
echo "install-deps: all packages installed"

# Optional peer for the call benchmarks and the TVMFFIAny layout test: tvm-ffi from PyPI
# (pip package apache-tvm-ffi). Best effort: without it those two report a SKIP with
# the reason; everything else works.
if ! command -v tvm-ffi-config >/dev/null 2>&1; then
    if python3 -m pip install -q apache-tvm-ffi >/dev/null 2>&1 ||
       python3 -m pip install -q --break-system-packages apache-tvm-ffi >/dev/null 2>&1; then
        echo "install-deps: apache-tvm-ffi installed (tvm-ffi peer benchmarks)"
    else
        echo "install-deps: note: pip install apache-tvm-ffi failed; the tvm-ffi peer benchmark and layout test will SKIP" >&2
    fi
fi
