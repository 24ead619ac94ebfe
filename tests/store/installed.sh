#!/bin/sh
# tests/store/installed.sh — `make install PREFIX=<tmp>` installs what the installed
# `devharness history`, `dashboard` and `export` need (store/py/ and the modules they import,
# cmdline/py/dh_args.py, dh_units.py, the generated dh_store_schema.py, the dashboard
# template) into <prefix>/share/devharness/, and the installed command runs them there on
# a store it filled itself (tests/store/lib/fixture_store.py). Prints TAP.
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case "$BUILD" in /*) b=$BUILD ;; *) b=$root/$BUILD ;; esac
py=${DEVHARNESS_VENV_PY:-$b/venv/bin/python}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
unset DEVHARNESS_HISTORY_PY DEVHARNESS_DASHBOARD_PY DEVHARNESS_EXPORT_PY DEVHARNESS_PYTHON

if [ ! -x "$b/bin/devharness" ]; then
    echo "1..0 # SKIP $b/bin/devharness not built"
    exit 0
fi
if ! "$py" -c 'import ruptures, jinja2, scipy' 2>/dev/null; then
    echo "1..0 # SKIP the project venv ($py) lacks ruptures/jinja2/scipy: make deps"
    exit 0
fi
echo "1..5"
tmp=$(mktemp -d /tmp/dh_store_installed.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
n=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; [ -f "$tmp/log" ] && tail -5 "$tmp/log" | sed 's/^/# /'; fi; }

# the nested make must not join make test's jobserver
(cd "$root" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} -s --no-print-directory install \
    BUILD="$b" PREFIX="$prefix") >"$tmp/log" 2>&1
share=$prefix/share/devharness
missing=
for f in history.py dashboard.py dashboard.html.j2 export.py benchjson.py dh_store.py dh_store_schema.py dh_args.py \
    dh_units.py; do
    [ -f "$share/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] || echo "missing from $share:$missing" >>"$tmp/log"
[ -z "$missing" ]
ok $? "make install puts history.py, dashboard.py, export.py and everything they import in share/devharness"

dh=$prefix/bin/devharness
"$py" "$here/lib/fixture_store.py" "$tmp/s.sqlite" --devharness "$dh" >"$tmp/log" 2>&1 && grep -q "12 imported" "$tmp/log"
ok $? "the installed devharness records twelve nightly bundles (store import)"

"$dh" history --store "$tmp/s.sqlite" --last 12 --all >"$tmp/log" 2>&1 &&
    grep -q "copy.flip      PPPPFFFFFFFF  \[pass->fail on 2026-11-05 aaaaaaa 00000005\]" "$tmp/log"
ok $? "the installed devharness history runs the installed history.py (the flip on night 5)"

"$dh" dashboard --store "$tmp/s.sqlite" -o "$tmp/dash" >"$tmp/log" 2>&1 && grep -q 'data-clause="copy.flip"' "$tmp/dash/index.html"
ok $? "the installed devharness dashboard renders the installed template"

"$dh" export --store "$tmp/s.sqlite" --format openmetrics >"$tmp/log" 2>&1 && tail -1 "$tmp/log" | grep -qx '# EOF' &&
    grep -q '^devharness_bench_latency_seconds{device="sim:0",benchmark="copy/h2d/pageable/sim:0/harness/65536/manual_time",kind="harness"} 2\.[345][0-9]*e-05$' "$tmp/log"
ok $? "the installed devharness export runs the installed export.py (night 12: sim:0 h2d at about 24 us)"
