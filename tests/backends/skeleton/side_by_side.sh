#!/bin/sh
# tests/backends/skeleton/side_by_side.sh — two backends copied from backends/skeleton
# load side by side (docs/adding-a-backend.md "Device type"): `make install
# PREFIX=<tmp>`, then the doc's recipe (cp -r, rename, sed) makes foo and bar out of
# the tree, each built with the doc's command line and `pkg-config --cflags --libs
# devharness` from the installed devharness.pc. Both declare DH_DEVICE_TYPE_ASSIGN, so
# the loader serves them under two free types of the out-of-tree range 64..127:
# `devharness info` lists both, `conformance` runs both (every clause SKIP, exit 3,
# nothing refused). A copy built with a fixed -DDH_BAZ_DEVICE_TYPE=70 loads beside
# them; one with 200 (outside 1..127) and one with 47 twice are refused with one line
# naming the file. Prints TAP.
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
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for f; do tail -15 "$f" | sed 's/^/# /'; done; }

if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} -s --no-print-directory install \
        BUILD="$build" PREFIX="$prefix" >"$tmp/install.log" 2>&1 &&
   [ -f "$prefix/lib/pkgconfig/devharness.pc" ]; then
    ok "make install PREFIX=<tmp> installs devharness.pc"
else
    notok "make install PREFIX=<tmp> installs devharness.pc" "$tmp/install.log"
    echo "1..$n"
    exit 0
fi
dh="$prefix/bin/devharness"
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs devharness)
case " $flags " in
*" -D_GNU_SOURCE "*) ok "pkg-config --cflags devharness gives -D_GNU_SOURCE (posix_memalign, clock_gettime)" ;;
*) n=$((n + 1)); echo "not ok $n - pkg-config --cflags devharness gives -D_GNU_SOURCE"; echo "# flags: $flags" ;;
esac

# make_copy NAME [EXTRA CFLAGS]: the doc's recipe, out of the tree; the plugin lands
# in $tmp/plugins (DEVHARNESS_PLUGIN_PATH) or, with EXTRA, in $tmp/other
make_copy() {
    name=$1
    shift
    upper=$(echo "$name" | tr a-z A-Z)
    dest=$tmp/plugins
    [ $# -gt 0 ] && dest=$tmp/other
    mkdir -p "$dest"
    (cp -r "$root/backends/skeleton" "$tmp/$name" && cd "$tmp/$name" &&
     for f in skeleton_*; do mv "$f" "${name}_${f#skeleton_}"; done &&
     sed -i "s/skeleton/$name/g; s/SKELETON/$upper/g" ./* &&
     $cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden "$@" \
         -o "$dest/libdevharness_$name.so" "${name}"_*.c $flags) >"$tmp/cc_$name.log" 2>&1
}
if make_copy foo && make_copy bar; then
    ok "two copies of the skeleton (foo, bar) build out of the tree with pkg-config's flags"
else
    notok "two copies of the skeleton (foo, bar) build out of the tree with pkg-config's flags" \
        "$tmp/cc_foo.log" "$tmp/cc_bar.log"
    echo "1..$n"
    exit 0
fi

DEVHARNESS_PLUGIN_PATH=$tmp/plugins "$dh" info >"$tmp/info" 2>&1
rc=$?
tfoo=$(sed -n 's/^backend foo (device type [a-z_]* = \([0-9]*\)).*/\1/p' "$tmp/info")
tbar=$(sed -n 's/^backend bar (device type [a-z_]* = \([0-9]*\)).*/\1/p' "$tmp/info")
if [ "$rc" = 0 ] && [ -n "$tfoo" ] && [ -n "$tbar" ] && [ "$tfoo" != "$tbar" ] &&
   [ "$tfoo" -ge 64 ] && [ "$tfoo" -le 127 ] && [ "$tbar" -ge 64 ] && [ "$tbar" -le 127 ] &&
   ! grep -q 'refused' "$tmp/info"; then
    ok "devharness info loads both: foo and bar served under device types $tfoo and $tbar of 64..127"
else
    notok "devharness info loads both under two device types of 64..127 (exit $rc, foo '$tfoo', bar '$tbar')" "$tmp/info"
fi

"$dh" conformance --plugin "$tmp/plugins/libdevharness_foo.so" --plugin "$tmp/plugins/libdevharness_bar.so" \
    >"$tmp/tap" 2>"$tmp/err"
rc=$?
subs=$(grep -c '^# Subtest: \(foo\|bar\) (no device)$' "$tmp/tap")
skips=$(grep -c '^    ok [0-9]* - [a-z_.0-9]* # SKIP not implemented' "$tmp/tap")
plans=$(sed -n 's/^    1\.\.\([0-9][0-9]*\)$/\1/p' "$tmp/tap" | awk '{ s += $1 } END { print s + 0 }')
if [ "$rc" = 3 ] && [ "$subs" = 2 ] && [ "$plans" -gt 0 ] && [ "$skips" = "$plans" ] &&
   ! grep -q 'refused' "$tmp/tap" "$tmp/err"; then
    ok "conformance --plugin foo --plugin bar: both run, all $plans cases SKIP not implemented, exit 3"
else
    notok "conformance --plugin foo --plugin bar: both run (exit $rc, $subs subtests, $skips of $plans SKIP)" \
        "$tmp/tap" "$tmp/err"
fi

# a fixed type of the out-of-tree range loads beside the assigned ones
if make_copy baz -DDH_BAZ_DEVICE_TYPE=70 &&
   "$dh" conformance --plugin "$tmp/plugins/libdevharness_foo.so" --plugin "$tmp/plugins/libdevharness_bar.so" \
       --plugin "$tmp/other/libdevharness_baz.so" >"$tmp/tap2" 2>"$tmp/err2"; [ $? = 3 ] &&
   [ "$(grep -c '^# Subtest: \(foo\|bar\|baz\) (no device)$' "$tmp/tap2")" = 3 ] &&
   DEVHARNESS_PLUGIN_PATH=$tmp/plugins:$tmp/other "$dh" info 2>&1 | grep -q '^backend baz (device type [a-z_]* = 70)'; then
    ok "a copy built with -DDH_BAZ_DEVICE_TYPE=70 loads beside foo and bar, served under 70"
else
    notok "a copy built with -DDH_BAZ_DEVICE_TYPE=70 loads beside foo and bar" "$tmp/cc_baz.log" "$tmp/tap2" "$tmp/err2"
fi

# out of range: refused, one line naming the file
make_copy qux -DDH_QUX_DEVICE_TYPE=200
"$dh" conformance --plugin "$tmp/other/libdevharness_qux.so" >"$tmp/tap3" 2>"$tmp/err3"
rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err3")" = 1 ] &&
   grep -q "$tmp/other/libdevharness_qux.so.*device_type 200 is outside 1\.\.127 (64\.\.127 for out-of-tree" "$tmp/err3"; then
    ok "device type 200: refused with one line naming the file and the ranges (exit 2)"
else
    notok "device type 200: refused with one line naming the file and the ranges (exit $rc)" "$tmp/err3"
fi

# the clash the assignment removes: two copies with one fixed type
rm -rf "$tmp/other"
make_copy quux -DDH_QUUX_DEVICE_TYPE=47 && mv "$tmp/other/libdevharness_quux.so" "$tmp/q1.so"
make_copy corge -DDH_CORGE_DEVICE_TYPE=47
"$dh" conformance --plugin "$tmp/q1.so" --plugin "$tmp/other/libdevharness_corge.so" >"$tmp/tap4" 2>"$tmp/err4"
rc=$?
if [ "$rc" = 2 ] && grep -q "libdevharness_corge.so.*device type 47 (unknown) is already served by backend 'quux'" "$tmp/err4"; then
    ok "two copies built with the same fixed type 47 still clash: the second is refused naming both (exit 2)"
else
    notok "two copies with the same fixed type 47: the second refused (exit $rc)" "$tmp/err4"
fi
echo "1..$n"
