#!/bin/sh
# Installs every Debian package devharness builds, tests and runs with.
# Usage: ci/install-deps.sh [--print]   (--print: only print the apt-get line)
# Exit: 0 installed (or printed), 1 apt-get failed, 2 not root and not --print.
set -eu

PACKAGES="
build-essential clang libclang-rt-14-dev pkg-config make perl
libjansson-dev libhwloc-dev hwloc libcmocka-dev libdlpack-dev
libbenchmark-dev libbenchmark-tools python3 python3-venv python3-pip python3-scipy python3-numpy python3-matplotlib python3-yaml
ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
libvulkan-dev mesa-vulkan-drivers vulkan-tools glslc spirv-tools vulkan-validationlayers
valgrind
"
# shellcheck disable=SC2086
line="apt-get install -y --no-install-recommends $(echo $PACKAGES)"

if [ "${1:-}" = "--print" ]; then
    echo "$line"
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

# Python packages (apache-tvm-ffi, apache-tvm) go into the project-local venv that
# ci/make-venv.sh makes during the build, never into the system Python (PEP 668).
