#!/bin/sh
# tests/runtime/installed_plugins.sh — a program linked against an installed
# libdevharness.so (PREFIX/lib) finds the plugins in PREFIX/lib/devharness without
# DEVHARNESS_PLUGIN_PATH (runtime/plugin.c: dladdr of the library; issue #15). The
# program lives in another folder, so <exe>/../lib/devharness does not exist. Prints TAP.
set -u
build=${BUILD:-build}
cc=${CC:-cc}
lib="$build/lib/libdevharness.so"
sim="$build/lib/devharness/libdevharness_sim.so"
if [ ! -f "$lib" ] || [ ! -f "$sim" ] || ! command -v "$cc" >/dev/null 2>&1; then
    echo "1..0 # SKIP $lib, $sim or a C compiler missing"
    exit 0
fi
echo "1..2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/prefix/lib/devharness" "$tmp/elsewhere/bin"
cp "$lib" "$tmp/prefix/lib/"
cp "$sim" "$tmp/prefix/lib/devharness/"
cat > "$tmp/probe.c" <<'C'
#include <stdio.h>
#include "devharness/device_api.h"
int main(void) {
  size_t n = dh_plugins_load_default();
  for (size_t i = 0; i < dh_backend_count(); i++) printf("%s\n", dh_backend_at(i)->name);
  return n > 0 ? 0 : 1;
}
C
if ! "$cc" -std=c11 -Iinclude -o "$tmp/elsewhere/bin/probe" "$tmp/probe.c" -L"$tmp/prefix/lib" -ldevharness \
        -Wl,-rpath,"$tmp/prefix/lib" 2>"$tmp/cc.err"; then
    echo "not ok 1 - probe program builds against the installed library"
    sed 's/^/# /' "$tmp/cc.err"
    echo "ok 2 # SKIP the probe program did not build"
    exit 0
fi
echo "ok 1 - probe program builds against the installed library"
out=$(env -u DEVHARNESS_PLUGIN_PATH "$tmp/elsewhere/bin/probe" 2>&1)
if [ "$out" = "sim" ]; then
    echo "ok 2 - the installed library finds PREFIX/lib/devharness/libdevharness_sim.so by itself"
else
    echo "not ok 2 - the installed library finds PREFIX/lib/devharness/libdevharness_sim.so by itself"
    printf '%s\n' "$out" | sed 's/^/# /'
fi
