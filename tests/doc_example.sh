# tests/doc_example.sh — what the tests that follow a guide end to end share
# (tests/conformance/new_clause.sh, new_report_format.sh, tests/bench/new_suite.sh),
# sourced with `. "$root/tests/doc_example.sh"` after setting doc (the guide) and
# mark_prefix (the marker's name, e.g. new_clause.sh). TAP points: ok, notok (with
# diagnostics), check (expected against got); block NAME prints the fenced code block
# that follows the line "<!-- $mark_prefix: NAME -->" of $doc; build_copy MKFILE TARGET LOG
# makes TARGET of MKFILE (TREE=$tmp/tree OUT=$tmp/out) from $root, outside the calling make.
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/# /'; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else notok "$1" "expected: $3
got: $2"; fi; }
block() {
    awk -v mark="<!-- $mark_prefix: $1 -->" '
        $0 == mark { found = 1; next }
        found == 1 && /^```/ { found = 2; next }
        found == 2 && /^```/ { exit }
        found == 2 { print }' "$doc"
}
build_copy() {
    (cd "$root" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} -s --no-print-directory \
        -f "$1" TREE="$tmp/tree" OUT="$tmp/out" "$2") >"$3" 2>&1
}
