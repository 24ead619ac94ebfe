#!/bin/sh
# tests/runtime/installed_plugins.sh — a program linked against an installed
# libdevharness.so (PREFIX/lib) finds the plugins in PREFIX/lib/devharness without
# DEVHARNESS_PLUGIN_PATH (runtime/plugin.c: dladdr of the library). The
# program ($BUILD/tests/installed_probe, built by make with the build's own flags) runs
# from another folder, so <exe>/../lib/devharness does not exist. Prints TAP.
set -u
build=${BUILD:-build}
lib="$build/lib/libdevharness.so"
sim="$build/lib/devharness/libdevharness_sim.so"
probe="$build/tests/installed_probe"
if [ ! -f "$lib" ] || [ ! -f "$sim" ] || [ ! -x "$probe" ]; then
    echo "1..0 # SKIP $lib, $sim or $probe not built"
    exit 0
fi
echo "1..2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/prefix/lib/devharness" "$tmp/elsewhere/bin"
cp -P "$build"/lib/libdevharness.so* "$tmp/prefix/lib/"  # the link and the SONAME file (libdevharness.so.0), as make install
cp "$sim" "$tmp/prefix/lib/devharness/"
cp "$probe" "$tmp/elsewhere/bin/probe"
if [ -d "$tmp/elsewhere/lib/devharness" ]; then
    echo "not ok 1 - the probe's own ../lib/devharness does not exist"
else
    echo "ok 1 - the probe's own ../lib/devharness does not exist"
fi
out=$(env -u DEVHARNESS_PLUGIN_PATH LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/elsewhere/bin/probe" 2>&1)
if [ "$out" = "sim" ]; then
    echo "ok 2 - the installed library finds PREFIX/lib/devharness/libdevharness_sim.so by itself"
else
    echo "not ok 2 - the installed library finds PREFIX/lib/devharness/libdevharness_sim.so by itself"
    printf '%s\n' "$out" | sed 's/^/# /'
fi
