#!/bin/sh
# tests/conformance/new_report_format.sh — docs/adding-a-report-format.md, followed to
# the letter: the example reporter file and its table line are taken from that page
# (the fenced blocks after its "new_report_format.sh:" markers) and added to a copy of
# suite/; suite/suite.mk must pick the file up by itself; the copy's
# suite/report.c and the new file are compiled with this build's flags
# ($BUILD/tests/conformance/new_code.vars.mk, from tests/conformance/tests.mk) and
# linked with the build's other objects into a devharness, which must list --csv FILE
# in --help and write one CSV line per case of a sim:0 run. Seconds: two compiles, one
# link. Prints TAP.
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case "$BUILD" in /*) b=$BUILD ;; *) b=$root/$BUILD ;; esac
vars=$b/tests/conformance/new_code.vars.mk
doc=$root/docs/adding-a-report-format.md

if [ ! -f "$vars" ] || [ ! -x "$b/bin/devharness" ]; then
    echo "1..0 # SKIP $vars or $b/bin/devharness not built (make all)"
    exit 0
fi
echo "1..6"
tmp=$(mktemp -d /tmp/dh_new_report.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mark_prefix=new_report_format.sh
. "$root/tests/doc_example.sh"

# 1: the guide's two steps applied to a copy of conformance/: the file, and the line
# above the table's end mark.
format=csv                         # the guide's example
new=suite/$format.c                # its file, relative to the copy's root
table=suite/report.c
mkdir -p "$tmp/tree" "$tmp/out"
cp -R "$root/suite" "$tmp/tree/"
block "reporter file" >"$tmp/tree/$new"
block "table line" >"$tmp/line"
awk -v line="$(cat "$tmp/line")" '/^  \/\* end of the table \*\/$/ { print line; added = 1 } { print }
    END { exit added ? 0 : 1 }' "$root/$table" >"$tmp/tree/$table"
rc=$?
if [ "$rc" = 0 ] && [ -s "$tmp/tree/$new" ] && grep -q "X(csv)" "$tmp/line"; then
    ok "the guide's reporter file and table line go into a copy of suite/"
else
    notok "the guide's reporter file and table line go into a copy of suite/" \
        "reporter file $(wc -l <"$tmp/tree/$new") lines, line '$(cat "$tmp/line")', end mark found: $rc"
fi

# 2: suite/suite.mk builds the new file with no line added (its list, read in the
# copy).
srcs=$(cd "$tmp/tree" && printf 'obj = $(1)\ndh_print:\n\t@echo $(SUITE_SRCS)\n' |
       ${MAKE:-make} -s --no-print-directory -f - -f suite/suite.mk dh_print 2>&1)
case " $srcs " in
    *" $new "*) ok "suite/suite.mk picks up the new file by itself" ;;
    *) notok "suite/suite.mk picks up the new file by itself" "SUITE_SRCS: $srcs" ;;
esac

# 3: the copy's table and the new reporter compile with this build's flags and link
# with its other objects.
printf '%s\n' \
    "include $vars" \
    "\$(OUT)/devharness: \$(OUT)/report.o \$(OUT)/$format.o" \
    "	\$(CXX) \$(LINK_FLAGS) -o \$@ \$^ \$(filter-out \$(OBJDIR)/suite/report.o,\$(LINK_OBJS)) \$(LINK_LIBS)" \
    "\$(OUT)/%.o: \$(TREE)/suite/%.c" \
    "	\$(CC) -I\$(TREE) \$(COMPILE_FLAGS) -c \$< -o \$@" >"$tmp/build.mk"
dh=$tmp/out/devharness
if build_copy "$tmp/build.mk" "$dh" "$tmp/build.log"; then
    ok "the copy builds: suite/report.c with the new line, and the new file"
else
    notok "the copy builds: suite/report.c with the new line, and the new file" "$(tail -n 15 "$tmp/build.log")"
    for t in "--help" "run" "other reports"; do notok "$t (not built)"; done
    exit 0
fi
export DEVHARNESS_PLUGIN_PATH=$b/lib/devharness

# 4: --help lists --csv FILE; the build's own binary rejects --csv (so this can fail).
"$b/bin/devharness" conformance --csv "$tmp/x.csv" --list >/dev/null 2>&1
rc0=$?
check "--help lists --csv FILE; the build's binary rejects --csv" \
    "$("$dh" conformance --help | grep -c '^  --csv FILE  *write one CSV line per case to FILE$') | $rc0" "1 | 2"

# 5: a sim:0 run writes the header and one line per case.
"$dh" conformance --device sim:0 --filter 'device.*' --csv "$tmp/r.csv" --tap "$tmp/r.tap" \
    >/dev/null 2>"$tmp/err.txt"
rc=$?
cases=$(grep -c '^    \(not \)\?ok ' "$tmp/r.tap")
lines=$(grep -c '^sim:0,device\.[a-z_]*,\(pass\|fail\|skip\|xfail\)$' "$tmp/r.csv")
check "--csv FILE: exit 0, the header and one line per case of the TAP stream" \
    "$rc $(head -n 1 "$tmp/r.csv") $lines" "0 device,clause,status $cases"

# 6: the other reporters are unchanged by the new one: the TAP file is the build's own.
"$b/bin/devharness" conformance --device sim:0 --filter 'device.*' --tap "$tmp/r0.tap" >/dev/null 2>&1
strip() { sed 's/ in [0-9.]* s;/ in X s;/' "$1"; }
check "the TAP stream equals the build's binary's (times aside)" "$(strip "$tmp/r.tap" | cksum)" \
    "$(strip "$tmp/r0.tap" | cksum)"
