#!/bin/sh
# tests/bench/bench_cli.sh — `devharness bench`, `compare` and `plot` end to end (TAP).
# Uses $DEVHARNESS, else $BUILD/bin/devharness. Fast: the quick call suite, one filtered
# sim copy benchmark, and synthetic JSON for compare/plot.
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PY=/usr/bin/python3
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}

case "$BUILD" in /*) DH=${DEVHARNESS:-$BUILD/bin/devharness} ;; *) DH=${DEVHARNESS:-$root/$BUILD/bin/devharness} ;; esac
tmp=$(mktemp -d /tmp/dh_bench_cli.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "TAP version 13"
echo "1..18"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && echo "# $2"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else notok "$1" "expected $3, got $2"; fi; }
# passed DESC RC FILE...: ok when a check script exited 0, else the end of its output.
passed() {
    desc=$1 rc=$2; shift 2
    check "$desc" "$rc" 0
    [ "$rc" = 0 ] || sed 's/^/# /' "$@" | tail -n 20
}

if [ ! -x "$DH" ]; then
    for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18; do skip "bench test $i" "$DH not built"; done
    exit 0
fi
echo "# using $DH"

# 1-3: quick call suite writes JSON with the expected names.
"$DH" bench --quick --suite call --out "$tmp/call.json" >"$tmp/call.txt" 2>&1
check "bench --quick --suite call exits 0" "$?" 0
$PY - "$tmp/call.json" >"$tmp/names.txt" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
names = {b["name"]: b for b in d["benchmarks"]}
want = ["call/direct/3args", "call/indirect/3args", "call/packed/0args", "call/packed/1arg",
        "call/packed/3args", "call/packed/6args", "call/registry_lookup", "call/module/3args",
        "call/tvm_ffi/3args"]
missing = [w for w in want if w not in names]
if missing:
    print("missing:", missing); sys.exit(1)
bad = [w for w in want[:8] if names[w].get("error_occurred") or not names[w]["real_time"] > 0]
if bad:
    print("failed or zero:", bad, [names[w].get("error_message") for w in bad]); sys.exit(1)
s = d.get("devharness_summary", {}).get("call", {})
if not s.get("packed_over_direct", 0) > 0:
    print("no packed/direct ratio in devharness_summary"); sys.exit(1)
ffi = names["call/tvm_ffi/3args"]
print("FFI_SKIPPED " + ffi.get("error_message", "") if ffi.get("error_occurred") else "FFI_OK")
EOF
passed "call suite JSON has every call benchmark, timed, and the packed/direct ratio" $? \
    "$tmp/names.txt" "$tmp/call.txt"
if grep -q '^FFI_OK' "$tmp/names.txt"; then
    ok "tvm-ffi peer call/tvm_ffi/3args ran"
else
    skip "tvm-ffi peer call/tvm_ffi/3args ran" "$(sed -n 's/^FFI_SKIPPED //p' "$tmp/names.txt")"
fi

# 4: usage errors exit 2.
"$DH" bench --suite nosuch >/dev/null 2>&1
check "bench --suite nosuch exits 2" "$?" 2

# 5-6: a harness/raw pair on sim:0 with the ratio in the summary.
if "$DH" bench --quick --suite copy --device sim:0 \
        --benchmark_filter='copy/h2d/pageable/sim:0/.*/65536' --out "$tmp/sim.json" \
        >"$tmp/sim.txt" 2>&1; then
    ok "bench --quick --suite copy --device sim:0 (filtered) exits 0"
    $PY - "$tmp/sim.json" >"$tmp/sim.chk" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
names = {b["name"]: b for b in d["benchmarks"]}
h = "copy/h2d/pageable/sim:0/harness/65536/manual_time"
r = "copy/h2d/pageable/sim:0/raw/65536/manual_time"
assert h in names, f"{h} missing: {sorted(names)}"
assert not names[h].get("error_occurred"), names[h].get("error_message")
# bytes counted once: bytes_per_second * seconds per iteration == size
t = names[h]["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[names[h]["time_unit"]]
assert abs(names[h]["bytes_per_second"] * t / 65536 - 1) < 0.01, "bytes not counted once"
assert "sim:0" in " ".join(d["context"].keys()), "no device context"
if r in names and not names[r].get("error_occurred"):
    pairs = d["devharness_summary"]["harness_raw_pairs"]
    assert any(p["harness"] == h and p["raw"] == r and p["ratio"] > 0 for p in pairs), pairs
    print("PAIR_OK")
else:
    print("NO_RAW")
EOF
    passed "sim copy JSON: bytes counted once, device context, harness/raw ratio" $? "$tmp/sim.chk"
else
    skip "bench --quick --suite copy --device sim:0 (filtered) exits 0" "sim backend unavailable: $(tail -1 "$tmp/sim.txt")"
    skip "sim copy JSON: bytes counted once, device context, harness/raw ratio" "sim backend unavailable"
fi

# 7-10: compare on synthetic runs with 9 repetitions.
$PY - "$tmp" <<'EOF'
import json, random, sys
random.seed(7)
def run(path, scale, reps=9):
    bms = []
    for name, base in (("copy/h2d/pageable/x:0/harness/4096/manual_time", 1000.0),
                       ("call/packed/3args", 20.0)):
        for i in range(reps):
            bms.append({"name": name, "run_name": name, "run_type": "iteration",
                        "repetitions": reps, "repetition_index": i, "iterations": 1000,
                        "real_time": base * scale * (1 + random.uniform(-0.01, 0.01)),
                        "cpu_time": base, "time_unit": "ns", "bytes_per_second": 4096e9 / base})
    json.dump({"context": {}, "benchmarks": bms}, open(path, "w"))
run(sys.argv[1] + "/base.json", 1.0)
run(sys.argv[1] + "/same.json", 1.0)
run(sys.argv[1] + "/slow.json", 1.25)
run(sys.argv[1] + "/few.json", 1.0, reps=3)
EOF
"$DH" compare "$tmp/base.json" "$tmp/same.json" >"$tmp/cmp1.txt" 2>&1
check "compare: equal runs exit 0" "$?" 0
"$DH" compare "$tmp/base.json" "$tmp/slow.json" --threshold 0.05 --alpha 0.05 >"$tmp/cmp2.txt" 2>&1
rc=$?
check "compare: 25% slower runs exit 1" "$rc" 1
if grep -q REGRESSION "$tmp/cmp2.txt"; then ok "compare prints REGRESSION in its table"; else notok "compare prints REGRESSION in its table"; fi
"$DH" compare "$tmp/base.json" "$tmp/nonexistent.json" >/dev/null 2>&1
rc1=$?
"$DH" compare "$tmp/base.json" "$tmp/few.json" >/dev/null 2>&1
rc2=$?
check "compare: missing file and too few repetitions exit 2" "$rc1,$rc2" "2,2"

# 11-12: plot writes PNG (SVG too with --svg) with a bandwidth chart per device.
"$DH" plot "$tmp/base.json" -o "$tmp/plots" --svg >"$tmp/plot.txt" 2>&1
check "plot exits 0" "$?" 0
"$DH" plot "$tmp/base.json" -o "$tmp/plots_png" >/dev/null 2>&1
if [ -s "$tmp/plots/bandwidth_x_0.png" ] && [ -s "$tmp/plots/bandwidth_x_0.svg" ] &&
   [ -s "$tmp/plots/latency_call.png" ] && [ -s "$tmp/plots/latency_call.svg" ] &&
   head -c 8 "$tmp/plots/bandwidth_x_0.png" | grep -q PNG && [ -s "$tmp/plots_png/bandwidth_x_0.png" ] &&
   ! ls "$tmp/plots_png" | grep -q '\.svg$'; then
    ok "plot --svg wrote bandwidth and latency charts as PNG and SVG; without --svg PNG only"
else
    notok "plot --svg wrote bandwidth and latency charts as PNG and SVG; without --svg PNG only" \
        "$(ls "$tmp/plots" "$tmp/plots_png" 2>&1 | tr '\n' ' ')"
fi

# 13: --repetitions N >= 2 interleaves the repetitions unless the user says otherwise, and
# the JSON context says which (sim:0, one filtered copy benchmark pair, quick).
order() {
    $PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["context"].get("devharness.repetition_order", "(missing)"))' "$1" 2>&1
}
f='copy/h2d/pageable/sim:0/.*/4/'
if "$DH" bench --quick --suite copy --device sim:0 --benchmark_filter="$f" --out "$tmp/o1.json" >/dev/null 2>&1 &&
   "$DH" bench --quick --suite copy --device sim:0 --benchmark_filter="$f" --repetitions 2 --out "$tmp/o2.json" >/dev/null 2>&1 &&
   "$DH" bench --quick --suite copy --device sim:0 --benchmark_filter="$f" --repetitions 2 \
        --benchmark_enable_random_interleaving=false --out "$tmp/o3.json" >/dev/null 2>&1; then
    got="$(order "$tmp/o1.json") | $(order "$tmp/o2.json") | $(order "$tmp/o3.json")"
    case "$got" in
        "single repetition | interleaved: "*" | --benchmark_enable_random_interleaving=false")
            ok "bench: repetitions are interleaved by default, the user's flag wins, the context says so" ;;
        *) notok "bench: repetitions are interleaved by default, the user's flag wins, the context says so" "got: $got" ;;
    esac
else
    skip "bench: repetitions are interleaved by default, the user's flag wins, the context says so" "sim copy benchmark did not run"
fi

# 14-15 (docs/benchmarks.md, the ratio table): copies of 1 MiB with 2 interleaved repetitions on cpu:0 — the CV
# summary finds them (names end in /manual_time) and holds the ratio itself; both H2D
# twins (raw, raw_released) are paired; bidir runs with its twin; the context states
# the buffer method and the host-link ceiling.
f='copy/(h2d|bidir)/pageable/cpu:0/.*/1048576/'
if "$DH" bench --quick --suite copy --device cpu:0 --benchmark_filter="$f" --repetitions 2 \
        --out "$tmp/cv.json" >"$tmp/cv.txt" 2>&1; then
    ok "bench --repetitions 2 on cpu:0 copies of 1 MiB exits 0"
    $PY - "$tmp/cv.json" >"$tmp/cv.chk" 2>&1 <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["devharness_summary"]
cvs = {c["name"]: c["cv"] for c in s["copy_cv"]}
h = "copy/h2d/pageable/cpu:0/harness/1048576/manual_time"
assert h in cvs, f"copy_cv lacks {h}: {sorted(cvs)}"
# Google Benchmark's own cv row for the same benchmark
gb = [b for b in d["benchmarks"] if b.get("aggregate_name") == "cv" and b["run_name"] == h]
assert gb and abs(gb[0]["real_time"] - cvs[h]) < 1e-9 * max(1, cvs[h]), (gb, cvs[h])
assert 0 <= cvs[h] < 5, f"cv {cvs[h]} is not a ratio"
twins = {(p["harness"], p.get("twin")) for p in s["harness_raw_pairs"]}
for t in ("raw", "raw_released"):
    assert (h, t) in twins, f"no {t} pair for {h}: {twins}"
b = "copy/bidir/pageable/cpu:0/harness/1048576/manual_time"
assert (b, "raw") in twins, f"no bidir pair: {twins}"
ctx = d["context"]
for k in ("devharness.buffer_alignment", "devharness.buffers", "devharness.helper_threads",
          "ceiling.host_link"):
    assert k in ctx, f"context lacks {k}"
assert "4096" in ctx["devharness.buffer_alignment"]
assert any(x["direction"] == "bidir" and x["GBps"] > 0 for x in s["best_copy"]), s["best_copy"]
EOF2
    passed "CV summary of copies >= 1 MiB, raw/raw_released/bidir pairs, method context" $? "$tmp/cv.chk"
else
    notok "bench --repetitions 2 on cpu:0 copies of 1 MiB exits 0" "$(tail -3 "$tmp/cv.txt")"
    skip "CV summary of copies >= 1 MiB, raw/raw_released/bidir pairs, method context" "bench failed"
fi

# 16: driver threads (bench/measure/pinning.c dh_bench_place_driver_threads): with --pin core bench binds
# PoCL's workers (POCL_AFFINITY=1) unless the environment sets POCL_AFFINITY (kept, and
# escaped in the context), and binds nothing with --pin none; the context says which,
# and the test plugin (tests/bench/bidirorder.c, bidirorder:0) logs what a driver
# loaded by bench sees.
case "$BUILD" in /*) plugdir=$BUILD/tests/bench/plugins ;; *) plugdir=$root/$BUILD/tests/bench/plugins ;; esac
dt() { # dt PIN [VAR=VALUE]: "<context> / <what the plugin saw>"
    pin=$1; shift
    rm -f "$tmp/env.log"
    env -u POCL_AFFINITY DEVHARNESS_PLUGIN_PATH="$plugdir" DH_TEST_ENV_LOG="$tmp/env.log" "$@" \
        "$DH" bench --quick --suite copy --device bidirorder:0 --pin "$pin" \
        --benchmark_filter='copy/h2d/pageable/bidirorder:0/harness/4/' --out "$tmp/dt.json" >"$tmp/dt.txt" 2>&1 &&
    $PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["context"].get("devharness.driver_threads", "(missing)"))' "$tmp/dt.json" 2>&1
    echo " / $(cat "$tmp/env.log" 2>/dev/null || echo 'no env log')"
}
if [ -f "$plugdir/libdevharness_bidirorder.so" ]; then
    a=$(dt core)
    b=$(dt core POCL_AFFINITY="$(printf '0\001')")
    c=$(dt none)
    case "$a|$b|$c" in
        *"POCL_AFFINITY=1, set by devharness bench because --pin core"*" / POCL_AFFINITY=1|"*"POCL_AFFINITY=0\x01 from the environment, left as is"*" / POCL_AFFINITY=0"*"|"*"not bound (--pin none)"*" / POCL_AFFINITY unset")
            ok "bench --pin core binds PoCL's workers unless POCL_AFFINITY is set; --pin none binds none; the context says which" ;;
        *) notok "bench --pin core binds PoCL's workers unless POCL_AFFINITY is set; --pin none binds none; the context says which" "got: $a | $b | $c" ;;
    esac
else
    skip "bench --pin core binds PoCL's workers unless POCL_AFFINITY is set; --pin none binds none; the context says which" "test plugin not built (make all)"
fi

# 17: the launch suite's harness side launches the backend's own noop (bench/suites/launch.c: a
# packed call of "<backend>.noop", the Function fetched once and kept): the test plugin
# logs every noop it runs, at least one per launch timed in the last run (Google
# Benchmark also runs the function while it sizes the iteration count).
if [ -f "$plugdir/libdevharness_bidirorder.so" ]; then
    rm -f "$tmp/noop.log"
    DEVHARNESS_PLUGIN_PATH="$plugdir" DH_TEST_COPY_LOG="$tmp/noop.log" \
        "$DH" bench --quick --suite launch --device bidirorder:0 \
        --benchmark_filter='launch/roundtrip/bidirorder:0/harness' --out "$tmp/launch.json" >"$tmp/launch.txt" 2>&1
    rc=$?
    got=$($PY - "$tmp/launch.json" "$tmp/noop.log" "$rc" 2>&1 <<'EOF'
import json, sys
if sys.argv[3] != "0":
    print("bench exited", sys.argv[3]); sys.exit(0)
d = json.load(open(sys.argv[1]))
it = [b["iterations"] for b in d["benchmarks"]
      if b["name"].startswith("launch/roundtrip/bidirorder:0/harness") and not b.get("error_occurred")]
try:
    lines = open(sys.argv[2]).read().split()
except OSError:
    lines = []
noops = lines.count("noop")
print("ok" if len(it) == 1 and it[0] > 0 and noops >= it[0] and len(lines) == noops
      else "iterations %s, noop lines %d of %d" % (it, noops, len(lines)))
EOF
)
    if [ "$got" = ok ]; then
        ok "bench launch: the harness side runs the backend's noop once per launch"
    else
        notok "bench launch: the harness side runs the backend's noop once per launch" "$got; $(tail -2 "$tmp/launch.txt")"
    fi
else
    skip "bench launch: the harness side runs the backend's noop once per launch" "test plugin not built (make all)"
fi

# 18: helper threads placed alike (bench/measure/pinning.c dh_bench_place_helpers): every thread through which
# the benchmarks make a backend or a twin start a worker (the first stream_sync, which
# starts the sim's default-stream worker; create_stream; the twin's setup) is bound to
# the process's PUs less the pinned benchmark thread's with --pin core (the process's
# PUs when that leaves none), and to the process's PUs with --pin none. The test plugin
# (DH_TEST_PLACE_LOG) logs each binding.
place() { # place PIN: "ok" or what was wrong
    rm -f "$tmp/place.log"
    DEVHARNESS_PLUGIN_PATH="$plugdir" DH_TEST_PLACE_LOG="$tmp/place.log" \
        "$DH" bench --quick --suite sync --device bidirorder:0 --pin "$1" \
        --benchmark_filter='sync/(idle|from_to)/bidirorder:0/' --out "$tmp/place.json" >"$tmp/place.txt" 2>&1
    $PY - "$tmp/place.json" "$tmp/place.log" "$1" "$?" 2>&1 <<'EOF'
import json, os, re, sys
if sys.argv[4] != "0":
    print("bench exited", sys.argv[4]); sys.exit(0)
ctx = json.load(open(sys.argv[1]))["context"]
proc = set(os.sched_getaffinity(0))
want = set(proc)
if sys.argv[3] == "core":
    m = re.search(r"\(PUs ([0-9,-]+)\)", ctx.get("devharness.pinning", ""))
    if not m:
        print("no PUs in devharness.pinning:", ctx.get("devharness.pinning")); sys.exit(0)
    pinned = set()
    for part in m.group(1).split(","):
        a, _, b = part.partition("-")
        pinned.update(range(int(a), int(b or a) + 1))
    want = (proc - pinned) or proc
got = {}
for line in open(sys.argv[2]).read().splitlines():
    what, _, pus = line.partition(" ")
    got.setdefault(what, set()).add(pus)
wants = ",".join(str(i) for i in sorted(want))
bad = {k: v for k, v in got.items() if v != {wants}}
if set(got) != {"first_sync", "create_stream", "twin_setup"} or bad:
    print("want %s for first_sync, create_stream, twin_setup; got %s" % (wants, got)); sys.exit(0)
if ("PUs " + wants) not in ctx.get("devharness.helper_threads", ""):
    print("context devharness.helper_threads does not say PUs", wants); sys.exit(0)
print("ok")
EOF
}
if [ -f "$plugdir/libdevharness_bidirorder.so" ]; then
    a=$(place core)
    b=$(place none)
    if [ "$a|$b" = "ok|ok" ]; then
        ok "bench places the threads that start backend and twin workers alike, off the pinned core"
    else
        notok "bench places the threads that start backend and twin workers alike, off the pinned core" "core: $a | none: $b"
    fi
else
    skip "bench places the threads that start backend and twin workers alike, off the pinned core" "test plugin not built (make all)"
fi
