#!/bin/sh
# Installs every Debian package devharness builds, tests and runs with, with progress
# (how many packages, how much to download, how far along).
# Usage: ci/install-deps.sh [--print]
#   --print  only print the commands to run (apt-get update && apt-get install ...), one
#            line that works when pasted after `sudo sh -c '...'` or as root.
# Checks first (dpkg-query, no root needed): with every package installed it says so and
# exits 0 as any user, so a CI job on a non-root runner passes this step when the image
# has them. Only when some are missing does it need root.
# Exit: 0 installed (or already there, or printed), 1 apt-get failed, 2 packages missing
# and not root (the command to run is printed).
set -eu

PACKAGES="
build-essential clang libclang-rt-14-dev pkg-config make perl
libjansson-dev libhwloc-dev hwloc libcmocka-dev libdlpack-dev
libbenchmark-dev libbenchmark-tools python3 python3-venv python3-pip python3-scipy python3-numpy python3-matplotlib python3-yaml
python3-tap libxml2-utils libxml2-dev python3-junitparser node-tap-parser
libsqlite3-dev nettle-dev uuid-dev
ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
libvulkan-dev mesa-vulkan-drivers vulkan-tools glslc spirv-tools vulkan-validationlayers
valgrind chromium
"
# shellcheck disable=SC2086
list=$(echo $PACKAGES)
install="apt-get install -y --no-install-recommends $list"

if [ "${1:-}" = "--print" ]; then
    echo "apt-get update && $install"
    exit 0
fi
nreq=$(echo "$list" | wc -w)
missing=""
for p in $list; do
    case "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)" in
        ii*) ;;
        *) missing="$missing $p" ;;
    esac
done
if [ -z "$missing" ]; then
    echo "install-deps: all $nreq packages already installed"
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "install-deps: $(echo $missing | wc -w) of $nreq packages missing:$missing" >&2
    echo "install-deps: run as root (sudo sh ci/install-deps.sh), or install them yourself:" >&2
    echo "  sudo sh -c 'apt-get update && $install'" >&2
    exit 2
fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: apt-get update (refreshing the Debian package lists)"
apt-get update -qq || { echo "install-deps: apt-get update failed" >&2; exit 1; }

# How many packages (requested + their dependencies) and how many bytes to fetch.
# shellcheck disable=SC2086
n=$(apt-get install -s --no-install-recommends $PACKAGES 2>/dev/null | grep -c '^Inst ' || true)
if [ "$n" = 0 ]; then
    echo "install-deps: all $nreq packages already installed"
    exit 0
fi
# shellcheck disable=SC2086
mb=$(apt-get install -qq --print-uris --no-install-recommends $PACKAGES 2>/dev/null |
     awk '{ s += $3 } END { printf "%d", s / 1048576 }')
echo "install-deps: installing $n Debian packages ($nreq requested + dependencies), ${mb} MB to download"

status=$(mktemp)
trap 'rm -f "$status"' EXIT
# apt-get's own output is reduced to a progress line every ~10% of the packages.
# shellcheck disable=SC2086
{ apt-get install -y -q -o Dpkg::Use-Pty=0 --no-install-recommends $PACKAGES 2>&1
  echo "$?" > "$status"; } |
awk -v n="$n" '
    /^Get:/        { g++; if (g == 1 || g % step == 0 || g == n)
                       printf "install-deps: downloading %d/%d\n", g, n; fflush() }
    /^Setting up / { s++; if (s % step == 0 || s == n)
                       printf "install-deps: installed %d/%d (%s)\n", s, n, $3; fflush() }
    /^E: /         { print; fflush() }
    BEGIN          { step = int(n / 10); if (step < 1) step = 1 }'
rc=$(cat "$status")
if [ "$rc" != 0 ]; then
    echo "install-deps: apt-get install failed (exit $rc); rerun to see apt-get's messages:" >&2
    echo "  apt-get update && $install" >&2
    exit 1
fi
echo "install-deps: all $nreq packages installed"

# Python packages (apache-tvm-ffi, apache-tvm) go into the project-local venv that
# ci/make-venv.sh makes during the build, never into the system Python (PEP 668).
