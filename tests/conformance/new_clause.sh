#!/bin/sh
# tests/conformance/new_clause.sh — docs/adding-a-clause.md, followed to the letter: the
# example run function and table row are taken from that page (the fenced blocks after
# its "new_clause.sh:" markers) and added to conformance/clauses/device.c of a copy of
# conformance/; the copy's device.c is compiled with this build's flags
# ($BUILD/tests/conformance/new_code.vars.mk, from tests/conformance/tests.mk) and
# linked with the build's other objects into a devharness, which must list the new
# clause, run it on sim:0 and report it in TAP, JUnit and the summary JSON. Then the
# proof of power of §3: the page's faulty backend is built with the sim core, fails
# exactly the clauses of the page's FAULTS line, and power.py --probe / --write on a
# copy of tests/conformance agree and add exactly the clause's row. Seconds: two
# compiles, two links, one conformance run per faulty backend. Prints TAP.
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case "$BUILD" in /*) b=$BUILD ;; *) b=$root/$BUILD ;; esac
vars=$b/tests/conformance/new_code.vars.mk
doc=$root/docs/adding-a-clause.md

if [ ! -f "$vars" ] || [ ! -x "$b/bin/devharness" ]; then
    echo "1..0 # SKIP $vars or $b/bin/devharness not built (make all)"
    exit 0
fi
echo "1..10"
tmp=$(mktemp -d /tmp/dh_new_clause.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mark_prefix=new_clause.sh
. "$root/tests/doc_example.sh"

# 1: the guide's two steps applied to a copy of conformance/: the function above the
# family's table, the row at the table's end.
clause=device.set_again      # the guide's example
file=conformance/clauses/device.c
mkdir -p "$tmp/tree" "$tmp/out"
cp -R "$root/conformance" "$tmp/tree/"
block "run function" >"$tmp/fn"
block row >"$tmp/row"
awk -v fn="$tmp/fn" -v row="$tmp/row" '
    /^const dh_clause_t dc_device_clauses\[\] = \{$/ { while ((getline l < fn) > 0) print l; print ""; table = 1 }
    table && /^};$/ { while ((getline l < row) > 0) print l; table = 0; added = 1 }
    { print }
    END { exit added ? 0 : 1 }' "$root/$file" >"$tmp/tree/$file"
rc=$?
if [ "$rc" = 0 ] && grep -q "static void set_again" "$tmp/tree/$file" && grep -q "\"$clause\"" "$tmp/tree/$file"; then
    ok "the guide's run function and row go into a copy of $file"
else
    notok "the guide's run function and row go into a copy of $file" "table end found: $rc"
fi

# 2: the copy's device.c compiles with this build's flags and links with its other objects.
printf '%s\n' \
    "include $vars" \
    "\$(OUT)/devharness: \$(OUT)/device.o" \
    "	\$(CXX) \$(LINK_FLAGS) -o \$@ \$^ \$(filter-out \$(OBJDIR)/$(echo $file | sed 's/\.c$/.o/'),\$(LINK_OBJS)) \$(LINK_LIBS)" \
    "\$(OUT)/device.o: \$(TREE)/$file" \
    "	\$(CC) -I\$(TREE)/conformance \$(COMPILE_FLAGS) -c \$< -o \$@" >"$tmp/build.mk"
dh=$tmp/out/devharness
if build_copy "$tmp/build.mk" "$dh" "$tmp/build.log"; then
    ok "the copy builds: $file with the new clause"
else
    notok "the copy builds: $file with the new clause" "$(tail -n 15 "$tmp/build.log")"
    for t in "--list" "run" "JUnit" "summary" "faulty" "its clauses" "probe" "write"; do notok "$t (not built)"; done
    exit 0
fi
export DEVHARNESS_PLUGIN_PATH=$b/lib/devharness

# 3: --list names it with its level and profile; the build's own binary does not know it.
"$b/bin/devharness" conformance --filter "$clause" --list >/dev/null 2>&1
rc0=$?
check "--list shows $clause (should, strict); the build's binary rejects --filter $clause" \
    "$("$dh" conformance --list | awk -v id="$clause" '$1 == id { print $1, $2, $3 }') | $rc0" \
    "$clause should strict | 2"

# 4-6: it runs on sim:0 and every reporter has it.
"$dh" conformance --device sim:0 --filter "$clause" --junit "$tmp/r.xml" --summary "$tmp/s.json" \
    >"$tmp/r.tap" 2>"$tmp/err.txt"
rc=$?
check "it runs on sim:0: exit 0, TAP 'ok 1 - $clause'" "$rc $(grep -c "^    ok 1 - $clause\$" "$tmp/r.tap")" "0 1"
check "JUnit has its testcase, passed" \
    "$(grep -c "<testcase classname=\"sim:0\" name=\"$clause\" time=\"[0-9.]*\"/>" "$tmp/r.xml")" 1
got=$(/usr/bin/python3 - "$tmp/s.json" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["clauses"], d["devices"][0]["pass"], d["exit_code"])
PY
)
check "the summary JSON counts it: 1 clause, 1 pass, exit_code 0" "$got" "1 1 0"

# 7: §3's faulty backend, with its name in CONF_FAULTS, builds as tests.mk builds them:
# the sim core objects plus the file.
fault=$(block CONF_FAULTS)
mkdir -p "$tmp/tree/tests/conformance" "$tmp/build/tests/conformance"
block "faulty backend" >"$tmp/tree/tests/conformance/faulty_$fault.c"
cp "$root/tests/conformance/faulty.h" "$tmp/tree/tests/conformance/"
lib=$tmp/build/tests/conformance/libdevharness_faulty_$fault.so
printf '%s\n' \
    "include $vars" \
    "\$(OUT)/faulty.o: \$(TREE)/tests/conformance/faulty_$fault.c" \
    "	\$(CC) -I\$(TREE) \$(COMPILE_FLAGS) -c \$< -o \$@" \
    "$lib: \$(OUT)/faulty.o" \
    "	\$(CC) -shared \$(LINK_FLAGS) -o \$@ \$^ \$(SIM_CORE_OBJS) \$(LINK_LIBS)" >"$tmp/faulty.mk"
if build_copy "$tmp/faulty.mk" "$lib" "$tmp/faulty.log"; then
    ok "the guide's faulty backend faulty_$fault builds with the sim core"
else
    notok "the guide's faulty backend faulty_$fault builds with the sim core" "$(tail -n 15 "$tmp/faulty.log")"
    for t in "its clauses" "probe" "write"; do notok "$t (not built)"; done
    exit 0
fi

# 8: it fails exactly the clauses of the page's FAULTS line, exit 1, with its text.
block "FAULTS entry" >"$tmp/entry"
"$dh" conformance --plugin "$lib" --device "faulty_$fault:0" --timeout 3 >"$tmp/f.tap" 2>"$tmp/f.err"
rc=$?
got=$(/usr/bin/python3 - "$tmp/entry" "$tmp/f.tap" "$rc" <<'PY'
import re, sys
d = eval("{" + open(sys.argv[1]).read() + "}")
(fault, (clauses, text)), = d.items()
want = sorted(clauses) if isinstance(clauses, tuple) else [clauses]
tap = open(sys.argv[2]).read()
bad = sorted(set(re.findall(r"^    not ok \d+ - (\S+)", tap, re.M)))
print("ok" if bad == want and sys.argv[3] == "1" and text in tap else
      "failed %s (FAULTS says %s), exit %s, text %r %s" % (bad, want, sys.argv[3], text,
                                                       "found" if text in tap else "missing"))
PY
)
check "faulty_$fault fails exactly the clauses of its FAULTS line, exit 1, with its text" "$got" ok

# 9-10: power.py on a copy of tests/conformance with the page's FAULTS line and CONF_FAULTS
# name, the build's faulty backends beside the new one.
for f in power.py faulty.t tests.mk mutate.py; do cp "$root/tests/conformance/$f" "$tmp/tree/tests/conformance/"; done
awk -v entry="$tmp/entry" '
    /^FAULTS = \{$/ { in_f = 1 }
    in_f && /^\}$/ { while ((getline l < entry) > 0) print l; in_f = 0 }
    { print }' "$root/tests/conformance/faulty.t" >"$tmp/tree/tests/conformance/faulty.t"
for l in "$b"/tests/conformance/libdevharness_faulty_*.so; do ln -s "$l" "$tmp/build/tests/conformance/"; done
DEVHARNESS=$dh BUILD=$tmp/build /usr/bin/python3 "$tmp/tree/tests/conformance/power.py" --probe "$clause" \
    >"$tmp/probe.txt" 2>&1
rc=$?
check "power.py --probe $clause: faulty_$fault fails it and FAULTS agrees (exit 0)" \
    "$rc $(grep -c "FAULTS agrees" "$tmp/probe.txt") $(grep -c "faulty backends fail it:.*\b$fault\b" "$tmp/probe.txt")" "0 1 1"
DEVHARNESS=$dh BUILD=$tmp/build /usr/bin/python3 "$tmp/tree/tests/conformance/power.py" --write >"$tmp/write.txt" 2>&1
got=$(diff "$root/conformance/clauses/power.c" "$tmp/tree/conformance/clauses/power.c" | grep '^[<>]')
check "power.py --write adds exactly the row of $clause with faulty_$fault" "$got" \
    "> "'    {"'"$clause"'", "faulty_'"$fault"' (only)", "", ""},'
