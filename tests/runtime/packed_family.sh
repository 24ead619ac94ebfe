#!/bin/sh
# tests/runtime/packed_family.sh — the conformance packed family (noop, fill, echo,
# raise through tvm-ffi) on every device this machine has (TAP): one line per device,
# "ok" only when every packed.* clause is kept; a device `devharness info` lists as
# unavailable is "# SKIP <reason>" (issue 11, test 5).
dh=${DEVHARNESS:-build/bin/devharness}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$dh" conformance --filter 'packed.*' >"$out" 2>&1
rc=$?
n=0
fail=0
# top-level TAP lines of the conformance run are one per device
while IFS= read -r line; do
    case $line in
        "ok "*|"not ok "*)
            n=$((n + 1))
            dev=${line#*- }
            case $line in
                "not ok"*) fail=1; echo "not ok $n - packed family on $dev" ;;
                *"(no device)"*) echo "ok $n - packed family on $dev # SKIP no device" ;;
                *) echo "ok $n - packed family on $dev" ;;
            esac ;;
    esac
done <<EOF2
$(grep -E '^(not )?ok ' "$out")
EOF2
n=$((n + 1))
if [ $rc -eq 0 ] && [ $fail -eq 0 ]; then echo "ok $n - devharness conformance --filter 'packed.*' exits 0"
else echo "not ok $n - devharness conformance --filter 'packed.*' exits $rc"; sed 's/^/# /' "$out" | grep -A12 'not ok' | head -60; fi
for want in cpu:0 sim:0 opencl:0 vulkan:0; do
    n=$((n + 1))
    if grep -qE "^ok [0-9]+ - $want( |\$)" "$out"; then echo "ok $n - $want ran the packed family"
    elif grep -qE "^ok [0-9]+ - ${want%%:*} .*# SKIP" "$out"; then echo "ok $n - $want # SKIP $(grep -E "^ok [0-9]+ - ${want%%:*}" "$out" | sed 's/.*# SKIP //')"
    else echo "not ok $n - $want ran the packed family"; fi
done
echo "1..$n"
