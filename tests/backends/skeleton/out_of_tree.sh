#!/bin/sh
# tests/backends/skeleton/out_of_tree.sh — backends/skeleton builds OUT OF TREE, as
# docs/adding-a-backend.md says: `make install PREFIX=<tmp>` installs the headers,
# libdevharness and devharness.pc; the skeleton's sources, copied to another folder,
# compile with `pkg-config --cflags --libs devharness` alone (PKG_CONFIG_PATH pointing
# at the installed .pc); the plugin exports only dh_backend_entry; the installed
# devharness loads it and the conformance suite reports every clause
# `# SKIP not implemented: ...` (exit 3: no device, nothing tested). Prints TAP.
set -u
build=${BUILD:-build}
cc=${CC:-cc}
if ! command -v pkg-config >/dev/null 2>&1; then
    echo "1..0 # SKIP pkg-config not installed (ci/install-deps.sh installs it)"
    exit 0
fi
if [ ! -f "$build/lib/libdevharness.so" ] || [ ! -x "$build/bin/devharness" ]; then
    echo "1..0 # SKIP $build/lib/libdevharness.so or $build/bin/devharness not built"
    exit 0
fi
echo "1..6"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"

# 1: install into a fresh prefix (the nested make must not join make test's jobserver)
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} -s --no-print-directory install \
        BUILD="$build" PREFIX="$prefix" >"$tmp/install.log" 2>&1 &&
   [ -f "$prefix/lib/pkgconfig/devharness.pc" ] && [ -f "$prefix/include/devharness/backend.h" ]; then
    echo "ok 1 - make install PREFIX=<tmp> installs devharness.pc and the headers"
else
    echo "not ok 1 - make install PREFIX=<tmp> installs devharness.pc and the headers"
    tail -20 "$tmp/install.log" | sed 's/^/# /'
    exit 0
fi

# 2: the copied sources compile with pkg-config's flags only
mkdir "$tmp/src"
cp backends/skeleton/*.c backends/skeleton/*.h "$tmp/src/"
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs devharness)
plugin="$tmp/libdevharness_skeleton.so"
if (cd "$tmp/src" && $cc -std=c11 -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden \
        -o "$plugin" ./*.c $flags) >"$tmp/cc.log" 2>&1; then
    echo "ok 2 - the skeleton's sources, copied out of the tree, build with pkg-config --cflags --libs devharness"
else
    echo "not ok 2 - the skeleton's sources, copied out of the tree, build with pkg-config --cflags --libs devharness"
    echo "# flags: $flags"
    tail -20 "$tmp/cc.log" | sed 's/^/# /'
    exit 0
fi

# 3: one exported symbol
exports=$(nm -D --defined-only "$plugin" | awk '$2 == "T" { print $3 }' | sort | tr '\n' ' ')
if [ "$exports" = "dh_backend_entry " ]; then
    echo "ok 3 - the plugin exports dh_backend_entry only"
else
    echo "not ok 3 - the plugin exports dh_backend_entry only"
    echo "# exported functions: $exports"
fi

# 4-6: the installed devharness loads it; every clause is SKIP "not implemented"
"$prefix/bin/devharness" conformance --plugin "$plugin" >"$tmp/tap" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 3 ]; then
    echo "ok 4 - devharness conformance --plugin <skeleton> exits 3 (no device: nothing tested)"
else
    echo "not ok 4 - devharness conformance --plugin <skeleton> exits 3 (no device: nothing tested)"
    echo "# exit $rc"
    tail -5 "$tmp/err" | sed 's/^/# /'
fi
plan=$(sed -n 's/^    1\.\.\([0-9][0-9]*\)$/\1/p' "$tmp/tap" | head -1)
skips=$(grep -c '^    ok [0-9]* - [a-z_.0-9]* # SKIP not implemented' "$tmp/tap")
if [ -n "$plan" ] && [ "$plan" -gt 0 ] && [ "$skips" -eq "$plan" ]; then
    echo "ok 5 - all $plan clauses report # SKIP not implemented"
else
    echo "not ok 5 - every clause reports # SKIP not implemented"
    echo "# plan ${plan:-none}, SKIP not implemented: $skips"
    head -12 "$tmp/tap" | sed 's/^/# /'
fi
if grep -q '^ *not ok' "$tmp/tap"; then
    echo "not ok 6 - no clause fails on the skeleton"
    grep '^ *not ok' "$tmp/tap" | head -5 | sed 's/^/# /'
else
    echo "ok 6 - no clause fails on the skeleton"
fi
