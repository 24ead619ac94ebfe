#!/bin/sh
# tests/bench/out_file.sh — `bench --out FILE` is complete or absent (bench/report/out_file.c):
# an --out in a folder that does not exist is refused before anything runs (exit 2,
# one line naming it); on a full disk (a private tmpfs of 4, 12 and 40 KiB, mounted
# through `unshare -m`, or `unshare -rm` when not root) bench exits 1 with one line
# "cannot write FILE" and leaves no file and no temporary behind; with room, FILE parses
# and holds the benchmarks and the devharness summary. Prints TAP.
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case "$BUILD" in /*) b=$BUILD ;; *) b=$root/$BUILD ;; esac
dh=${DEVHARNESS:-$b/bin/devharness}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
if [ ! -x "$dh" ]; then
    echo "1..0 # SKIP $dh not built"
    exit 0
fi
tmp=$(mktemp -d /tmp/dh_out_file.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; sed 's/^/# /' "$tmp/err" 2>/dev/null | head -5; fi; }
bench() { "$dh" bench --device sim:0 --suite alloc,copy --quick "$@" >/dev/null 2>"$tmp/err"; }

echo "1..5"
bench --out "$tmp/no/such/dir/b.json"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "no/such/dir/b.json" "$tmp/err"
ok $? "--out in a missing folder: exit 2 ($rc), one line naming it, before any benchmark"

bench --out "$tmp/b.json"
rc=$?
[ $rc = 0 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d['benchmarks'] and 'devharness_summary' in d))" "$tmp/b.json" &&
    [ -z "$(ls "$tmp" | grep partial)" ]
ok $? "--out with room: exit 0 ($rc), the file parses and holds the summary, no temporary left"

# A private mount namespace: the tmpfs is seen by this command only.
if unshare -m true 2>/dev/null; then ns="unshare -m"
elif unshare -rm true 2>/dev/null; then ns="unshare -rm"
else ns=""
fi
for size in 4k 12k 40k; do
    if [ -z "$ns" ]; then
        echo "ok $((n += 1)) - full disk of $size # SKIP no mount namespace here (unshare -m and -rm refused)"
        continue
    fi
    mkdir -p "$tmp/full"
    $ns sh -c 'mount -t tmpfs -o size="$1" tmpfs "$2" && "$3" bench --device sim:0 --suite alloc,copy --quick --out "$2/b.json" >/dev/null 2>"$4"; rc=$?; ls -A "$2" >"$4.ls"; exit $rc' \
        sh "$size" "$tmp/full" "$dh" "$tmp/err"
    rc=$?
    [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "cannot write $tmp/full/b.json" "$tmp/err" &&
        [ ! -s "$tmp/err.ls" ]
    ok $? "full disk of $size: exit 1 ($rc), one line 'cannot write', no file and no temporary left"
done
