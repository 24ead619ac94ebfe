#!/bin/sh
# tests/bench/installed_scripts.sh — `devharness plot` and `devharness compare` find their
# scripts, and the modules those import (bench/scripts/benchjson.py and charts.py, cmdline/py/dh_args.py
# and dh_units.py), where cmdline/script.c looks: <exe dir>/../share/devharness/, after
# `make install PREFIX=<tmp>` and in the build tree (the copies the build stages there).
# Both scripts read a run through the one bench/scripts/benchjson.py load(), so a
# malformed file gets the same message from each. Prints TAP.
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case "$BUILD" in /*) b=$BUILD ;; *) b=$root/$BUILD ;; esac
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
unset DEVHARNESS_PLOT_PY DEVHARNESS_COMPARE_PY DEVHARNESS_PYTHON

if [ ! -x "$b/bin/devharness" ]; then
    echo "1..0 # SKIP $b/bin/devharness not built"
    exit 0
fi
echo "1..5"
tmp=$(mktemp -d /tmp/dh_installed_scripts.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
installed() { # installed FILE...: each is in <prefix>/share/devharness
    for f in "$@"; do [ -f "$prefix/share/devharness/$f" ] || return 1; done
}

# 1: make install puts both scripts and their modules in <prefix>/share/devharness (the
# nested make must not join make test's jobserver).
if (cd "$root" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} -s --no-print-directory \
        install BUILD="$b" PREFIX="$prefix") >"$tmp/install.log" 2>&1 &&
   installed plot.py compare.py benchjson.py dh_args.py dh_units.py matrix_heatmap.py charts.py; then
    echo "ok 1 - make install puts plot.py, compare.py, benchjson.py, dh_args.py, dh_units.py, matrix_heatmap.py and charts.py in share/devharness"
else
    echo "not ok 1 - make install puts plot.py, compare.py, benchjson.py, dh_args.py, dh_units.py, matrix_heatmap.py and charts.py in share/devharness"
    tail -n 5 "$tmp/install.log" | sed 's/^/# /'
    ls "$prefix/share/devharness" 2>&1 | sed 's/^/# /'
fi

/usr/bin/python3 - "$tmp" <<'EOF'
import json, sys
bms = []
for i in range(9):
    for name, t in (("copy/h2d/pageable/x:0/harness/4096/manual_time", 1000.0),
                    ("call/packed/3args", 20.0)):
        bms.append({"name": name, "run_name": name, "run_type": "iteration",
                    "repetitions": 9, "repetition_index": i, "iterations": 100,
                    "real_time": t * (1 + 0.001 * i), "cpu_time": t, "time_unit": "ns",
                    "bytes_per_second": 4096e9 / t})
json.dump({"context": {}, "benchmarks": bms}, open(sys.argv[1] + "/run.json", "w"))
open(sys.argv[1] + "/bad.json", "w").write('{"benchmarks": [\n  {"name": }\n]}\n')
EOF

# 2-3: the installed binary runs the installed scripts; the build tree's its staged copies.
n=1
for exe in "$prefix/bin/devharness" "$b/bin/devharness"; do
    n=$((n + 1))
    where=installed; [ "$exe" = "$b/bin/devharness" ] && where="build tree"
    rm -rf "$tmp/plots"
    if "$exe" compare "$tmp/run.json" "$tmp/run.json" >"$tmp/cmp.txt" 2>&1 &&
       "$exe" plot "$tmp/run.json" -o "$tmp/plots" >"$tmp/plot.txt" 2>&1 &&
       [ -s "$tmp/plots/bandwidth_x_0.png" ]; then
        echo "ok $n - $where devharness: compare and plot find their scripts and run"
    else
        echo "not ok $n - $where devharness: compare and plot find their scripts and run"
        tail -n 3 "$tmp/cmp.txt" "$tmp/plot.txt" | sed 's/^/# /'
    fi
done

# 4-5: a file that is not JSON: exit 2 from both, with the one reader's message.
want="$tmp/bad.json: not JSON: line 2 column 12: Expecting value"
"$b/bin/devharness" compare "$tmp/bad.json" "$tmp/run.json" >"$tmp/c.out" 2>"$tmp/c.err"
rc_c=$?
"$b/bin/devharness" plot "$tmp/bad.json" -o "$tmp/p" >"$tmp/p.out" 2>"$tmp/p.err"
rc_p=$?
if [ "$rc_c,$rc_p" = "2,2" ]; then
    echo "ok 4 - compare and plot exit 2 on a file that is not JSON"
else
    echo "not ok 4 - compare and plot exit 2 on a file that is not JSON"
    echo "# exit $rc_c (compare), $rc_p (plot)"
fi
if [ "$(cat "$tmp/c.err")" = "devharness compare: $want" ] &&
   [ "$(cat "$tmp/p.err")" = "devharness plot: $want" ]; then
    echo "ok 5 - both say where the JSON breaks, in the same words (benchjson.load)"
else
    echo "not ok 5 - both say where the JSON breaks, in the same words (benchjson.load)"
    cat "$tmp/c.err" "$tmp/p.err" | sed 's/^/# /'
fi
