#!/bin/sh
# tests/bench/color.sh — colour in bench's console table follows the conventions: on a
# terminal (script(1) gives one) colour by default, none with NO_COLOR=1 (an empty
# NO_COLOR counts as unset, no-color.org), none with --color never or
# --benchmark_color=false; --color always colours a pipe too. Prints TAP.
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case "$BUILD" in /*) b=$BUILD ;; *) b=$root/$BUILD ;; esac
dh=${DEVHARNESS:-$b/bin/devharness}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
if [ ! -x "$dh" ] || ! command -v script >/dev/null 2>&1; then
    echo "1..0 # SKIP $dh not built or script(1) absent"
    exit 0
fi
esc=$(printf '\033[')
run="$dh bench --device sim:0 --suite alloc --quick"
colours() { grep -cF "$esc" || true; } # lines with an escape sequence
n=0
check() { # check WANT(yes|no) DESCRIPTION COUNT
    n=$((n + 1))
    if { [ "$1" = yes ] && [ "$3" -gt 0 ]; } || { [ "$1" = no ] && [ "$3" = 0 ]; }; then
        echo "ok $n - $2"
    else
        echo "not ok $n - $2"
        echo "# $3 coloured lines"
    fi
}
echo "1..6"
check yes "a terminal: colour" "$(env -u NO_COLOR script -qec "$run" /dev/null | colours)"
check no "a terminal with NO_COLOR=1: none" "$(NO_COLOR=1 script -qec "$run" /dev/null | colours)"
check yes "a terminal with an empty NO_COLOR: colour" "$(NO_COLOR= script -qec "$run" /dev/null | colours)"
check no "a terminal with --color never: none" "$(env -u NO_COLOR script -qec "$run --color never" /dev/null | colours)"
check no "a terminal with --benchmark_color=false: none" \
    "$(env -u NO_COLOR script -qec "$run --benchmark_color=false" /dev/null | colours)"
check yes "a pipe with --color always: colour" "$($run --color always 2>/dev/null | colours)"
