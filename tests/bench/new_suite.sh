#!/bin/sh
# tests/bench/new_suite.sh — docs/adding-a-bench-suite.md, followed to the letter: the
# example suite file and its table row are taken from that page (the fenced blocks
# after its "new_suite.sh:" markers) and added to a copy of bench/; bench/bench.mk must
# pick the file up by itself; the copy's bench/suites/suites.c and the new file are compiled
# with this build's flags ($BUILD/tests/bench/new_suite.vars.mk, from
# tests/bench/tests.mk) and linked with the command's other objects into a devharness
# of its own, whose `devharness bench` must accept --suite attr, list it in --help and
# in the --suite error, and register and run its benchmark. Seconds: two compiles, one
# link. Prints TAP.
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case "$BUILD" in /*) b=$BUILD ;; *) b=$root/$BUILD ;; esac
vars=$b/tests/bench/new_suite.vars.mk
doc=$root/docs/adding-a-bench-suite.md
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}

built=${DEVHARNESS:-$b/bin/devharness}    # the build's own command, without attr
if [ ! -f "$vars" ] || [ ! -x "$built" ]; then
    echo "1..0 # SKIP $vars or $built not built (make all)"
    exit 0
fi
echo "1..7"
tmp=$(mktemp -d /tmp/dh_new_suite.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mark_prefix=new_suite.sh
. "$root/tests/doc_example.sh"

# 1: the guide's two steps applied to a copy of bench/: the file, and the row above the
# table's end mark.
mkdir -p "$tmp/tree" "$tmp/out"
suite=attr                   # the guide's example
new=bench/suites/$suite.c    # its file, relative to the copy's root
cp -R "$root/bench" "$tmp/tree/"
block "suite file" >"$tmp/tree/$new"
block row >"$tmp/row"
awk -v row="$(cat "$tmp/row")" '/^  \/\* end of the table \*\/$/ { print row; added = 1 } { print }
    END { exit added ? 0 : 1 }' "$root/bench/suites/suites.h" >"$tmp/tree/bench/suites/suites.h"
rc=$?
if [ "$rc" = 0 ] && [ -s "$tmp/tree/$new" ] && grep -q "ROW(attr," "$tmp/row"; then
    ok "the guide's suite file and row go into a copy of bench/"
else
    notok "the guide's suite file and row go into a copy of bench/" \
        "suite file $(wc -l <"$tmp/tree/$new") lines, row '$(cat "$tmp/row")', end mark found: $rc"
fi

# 2: bench/bench.mk builds the new file with no line added (its list, read in the copy).
srcs=$(cd "$tmp/tree" && printf 'dh_print:\n\t@echo $(BENCH_SRCS)\n' |
       ${MAKE:-make} -s --no-print-directory -f bench/bench.mk -f - dh_print 2>&1)
case " $srcs " in
    *" $new "*) ok "bench/bench.mk picks up the new file by itself" ;;
    *) notok "bench/bench.mk picks up the new file by itself" "BENCH_SRCS: $srcs" ;;
esac

# 3: the copy's suites table and the new suite compile with this build's flags and link
# with its other objects.
printf '%s\n' \
    "include $vars" \
    "\$(OUT)/devharness: \$(OUT)/suites.o \$(OUT)/attr.o" \
    "	\$(CXX) \$(LINK_FLAGS) -o \$@ \$^ \$(LINK_OBJS) \$(LINK_LIBS)" \
    "\$(OUT)/suites.o: \$(TREE)/bench/suites/suites.c \$(TREE)/bench/suites/suites.h" \
    "	\$(CC) -I\$(TREE) \$(COMPILE_FLAGS) -c \$< -o \$@" \
    "\$(OUT)/attr.o: \$(TREE)/bench/suites/attr.c \$(TREE)/bench/suites/suites.h" \
    "	\$(CC) -I\$(TREE) \$(COMPILE_FLAGS) -c \$< -o \$@" >"$tmp/build.mk"
dh=$tmp/out/devharness
if build_copy "$tmp/build.mk" "$dh" "$tmp/build.log"; then
    ok "the copy builds: bench/suites/suites.c with the new row, and the new file"
else
    notok "the copy builds: bench/suites/suites.c with the new row, and the new file" "$(tail -n 15 "$tmp/build.log")"
    for t in "--help" "--suite error" "benchmark list" "run"; do notok "$t (not built)"; done
    exit 0
fi

# 4-5: the usage text and the --suite error list it; the build's own binary does not
# (so these checks can fail).
"$dh" bench --help >"$tmp/help.txt" 2>&1
check "--help lists attr after the suites already there" "$(grep -c 'call,alloc,copy,sync,launch,matrix,module,attr (default: all but' "$tmp/help.txt")" 1
"$dh" bench --suite nosuch >/dev/null 2>"$tmp/err.txt"
rc=$?
"$built" bench --suite attr >/dev/null 2>"$tmp/err0.txt"
rc0=$?
check "--suite nosuch names attr among the known suites; the build's binary rejects --suite attr" \
    "$rc $(cat "$tmp/err.txt") | $rc0" \
    "2 devharness bench: --suite: unknown suite 'nosuch' (known: call, alloc, copy, sync, launch, matrix, module, attr) | 2"

# 6-7: --suite attr registers its benchmark on sim:0, and it runs.
"$dh" bench --suite attr --device sim:0 --quick --benchmark_list_tests=true >"$tmp/list.txt" 2>&1
check "--suite attr --device sim:0 registers attr/sim:0/device_name, no other benchmark" \
    "$? $(grep -E '^[a-z_]+/' "$tmp/list.txt")" "0 attr/sim:0/device_name"
"$dh" bench --suite attr --device sim:0 --quick --benchmark_min_time=0.001 \
    --out "$tmp/attr.json" >"$tmp/run.txt" 2>&1
rc=$?
got=$(/usr/bin/python3 - "$tmp/attr.json" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s:%s" % (b["name"], "error" if b.get("error_occurred") else "ok")
               for b in d["benchmarks"]))
EOF
)
check "it runs: the JSON has attr/sim:0/device_name, measured" "$rc $got" "0 attr/sim:0/device_name:ok"
