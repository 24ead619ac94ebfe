#!/bin/sh
# tests/cli/install_standalone.sh — `make install PREFIX=<tmp>` stands alone:
# devharness.pc names nothing in the checkout, libtvm_ffi.so is installed and the run
# paths of the program and the library look for it there first; and with the build folder and the venv hidden (an empty folder mounted over
# each in a private mount namespace: `unshare -m`, or `unshare -rm` when not root) the
# installed devharness starts, runs a conformance clause on sim:0, and loads a plugin
# built out of tree from the skeleton's sources with `pkg-config --cflags --libs
# devharness` alone. Prints TAP.
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case "$BUILD" in /*) b=$BUILD ;; *) b=$root/$BUILD ;; esac
venv=${VENV:-$b/venv}
cc=${CC:-cc}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
if [ ! -x "$b/bin/devharness" ] || ! command -v pkg-config >/dev/null 2>&1; then
    echo "1..0 # SKIP $b/bin/devharness not built or pkg-config absent"
    exit 0
fi
echo "1..6"
tmp=$(mktemp -d /tmp/dh_install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
n=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; [ -f "$tmp/log" ] && tail -8 "$tmp/log" | sed 's/^/# /'; fi; }

(cd "$root" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} -s --no-print-directory install \
    BUILD="$BUILD" PREFIX="$prefix") >"$tmp/log" 2>&1
ok $? "make install PREFIX=<tmp>"

# devharness.pc names nothing in the checkout; the program and the library look for
# libtvm_ffi.so in the installed tree first ($ORIGIN), the build's venv only after.
readelf -d "$prefix/bin/devharness" "$prefix/lib/libdevharness.so" | grep -i runpath >"$tmp/log" 2>&1
cat "$prefix/lib/pkgconfig/devharness.pc" >>"$tmp/log"
! grep -q "$root" "$prefix/lib/pkgconfig/devharness.pc" && [ -f "$prefix/lib/devharness/tvm_ffi/lib/libtvm_ffi.so" ] &&
    grep -q 'runpath: \[$ORIGIN/../lib:$ORIGIN/../lib/devharness/tvm_ffi/lib' "$tmp/log" &&
    grep -q 'runpath: \[$ORIGIN/devharness/tvm_ffi/lib' "$tmp/log"
ok $? "devharness.pc names nothing in the checkout; libtvm_ffi.so installed and looked for there first"

# The skeleton, copied out of the tree, built with pkg-config's flags only.
mkdir "$tmp/src"
cp "$root"/backends/skeleton/*.c "$root"/backends/skeleton/*.h "$tmp/src/"
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs devharness)
(cd "$tmp/src" && $cc -std=c11 -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden \
    -o "$tmp/libdevharness_skeleton.so" ./*.c $flags) >"$tmp/log" 2>&1
ok $? "the skeleton builds out of tree with pkg-config --cflags --libs devharness alone"

# With the venv in place, the installed tvm-* plugins load TVM's runtime on the
# installed tvm-ffi (before: a second tvm-ffi from the venv, and `info` aborted)
"$prefix/bin/devharness" info >"$tmp/log" 2>&1 && grep -q "^backend tvm-cpu " "$tmp/log"
ok $? "the installed devharness info lists every backend, tvm-cpu included (exit 0)"

if unshare -m true 2>/dev/null; then ns="unshare -m"
elif unshare -rm true 2>/dev/null; then ns="unshare -rm"
else
    for what in "the installed devharness runs sim:0 with the build folder and venv hidden" \
                "the installed devharness loads the out-of-tree plugin with the build folder hidden"; do
        echo "ok $((n += 1)) - $what # SKIP no mount namespace here (unshare -m and -rm refused)"
    done
    exit 0
fi
mkdir "$tmp/empty"
hidden() { # hidden CMD...: CMD with the build folder and the venv out of sight
    $ns sh -c 'mount --bind "$1" "$2" && { [ ! -d "$3" ] || mount --bind "$1" "$3"; } && shift 3 && exec "$@"' \
        sh "$tmp/empty" "$b" "$venv" "$@"
}
hidden "$prefix/bin/devharness" conformance --device sim:0 --filter 'device.*' >"$tmp/log" 2>&1 &&
    grep -q "^    ok .* - device\." "$tmp/log" && hidden "$prefix/bin/devharness" --version >>"$tmp/log" 2>&1
ok $? "the installed devharness runs sim:0 with the build folder and venv hidden"
hidden "$prefix/bin/devharness" conformance --plugin "$tmp/libdevharness_skeleton.so" --filter 'device.*' >"$tmp/log" 2>&1
rc=$?
[ $rc = 3 ] && grep -q "SKIP not implemented" "$tmp/log"
ok $? "the installed devharness loads the out-of-tree plugin with the build folder hidden (exit 3: no device, $rc)"
