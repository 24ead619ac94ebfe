#!/bin/sh
# tests/machine/health.sh — measurement health and NUMA placement (machine/health.h,
# machine/locality.c; docs/benchmarks.md "Measurement health", "Placement"), on cpu:0 with
# the fake NVML (tests/machine/fake_nvml.c, through DEVHARNESS_NVML_LIB) reporting a
# throttled GPU: bench's summary and JSON context flag the run noisy with the
# throttle reasons (the acceptance test of issue 27); an idle GPU does not; no NVML, or
# an NVML that fails to start, is a line, not a failure; --noisy-cv; --pin auto names
# its node and why; plot notes a noisy run; compare calls no regression from one; run's
# summary and health.json flag it too. Prints TAP.
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case "$BUILD" in /*) b=$BUILD ;; *) b=$root/$BUILD ;; esac
dh=${DEVHARNESS:-$b/bin/devharness}
fake=$b/tests/machine/fake-nvml/libnvidia-ml.so.1
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
PY=/usr/bin/python3
if [ ! -x "$dh" ]; then
    echo "1..0 # SKIP $dh not built"
    exit 0
fi
if [ ! -f "$fake" ]; then
    echo "1..0 # SKIP fake NVML $fake not built (make all)"
    exit 0
fi
tmp=$(mktemp -d /tmp/dh_health.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; sed 's/^/# /' "$tmp/why" 2>/dev/null | tail -20; fi; rm -f "$tmp/why"; }
# ctx FILE.json PYEXPR: exit 0 when PYEXPR (over c, the context) is true, else prints c to why
ctx() {
    "$PY" - "$1" "$2" >"$tmp/why" 2>&1 <<'EOF'
import json, re, sys
c = json.load(open(sys.argv[1]))["context"]
if not eval(sys.argv[2]):
    print("\n".join("%s = %s" % (k, v) for k, v in sorted(c.items()) if "health" in k or "pin" in k))
    sys.exit(1)
EOF
}
bench() { "$dh" bench --device cpu:0 --suite copy --quick "$@"; }

echo "1..14"
DEVHARNESS_NVML_LIB=$fake bench --out "$tmp/thr.json" >"$tmp/thr.out" 2>"$tmp/thr.err"
rc=$?
{ [ $rc = 0 ] && ctx "$tmp/thr.json" 'c["devharness.health.noisy"] == "yes" and re.search(r"gpu0 throttled before and after \(NVML clocks-event reasons 0x24: sw_power_cap, sw_thermal_slowdown\)", c["devharness.health.reasons"])'; } || { cat "$tmp/thr.err" >>"$tmp/why"; false; }
ok $? "fake NVML throttling: exit $rc, context devharness.health.noisy = yes, reasons name gpu0's sw_power_cap and sw_thermal_slowdown"
grep -q '^== measurement health: NOISY: .*gpu0 throttled before and after .*sw_power_cap' "$tmp/thr.out" || { cp "$tmp/thr.out" "$tmp/why"; false; }
ok $? "the bench summary flags the run: '== measurement health: NOISY: ... gpu0 throttled ...'"
ctx "$tmp/thr.json" 'all(c.get("devharness.health.%s.gpu0" % w) == "Fake NVIDIA H100: SM 1755 MHz, memory 2619 MHz, 71 C, 312.5 W, clocks-event (throttle) reasons 0x24 (sw_power_cap, sw_thermal_slowdown)" for w in ("before", "after")) and c["devharness.health.before.nvml"].startswith("NVML of driver 999.99-fake (")'
ok $? "context before and after: the GPU's name, SM and memory clocks, temperature, power and throttle reasons"
ctx "$tmp/thr.json" 'all(re.fullmatch(r"unknown: no cpufreq \(.*\)|[a-z]+ \(CPUs [0-9,]+\)|(cpu[0-9]+ [a-z]+(, )?)+", c["devharness.health.%s.cpu_governor" % w]) and re.fullmatch(r"unknown: no cpufreq \(.*\)|[0-9]+ MHz \(CPU [0-9]+, scaling_cur_freq\)", c["devharness.health.%s.cpu_frequency" % w]) and re.fullmatch(r"[0-9.]+ [0-9.]+ [0-9.]+ \(1, 5, 15 min; [0-9]+ CPUs online\)", c["devharness.health.%s.load_average" % w]) and re.fullmatch(r"CPU [0-9]+, NUMA node [0-9]+ of [0-9]+ \(hwloc\); bound to PUs [0-9,-]+", c["devharness.health.%s.thread" % w]) for w in ("before", "after"))'
ok $? "context: governor and frequency (or 'unknown: no cpufreq (...)'), load average, the benchmark thread's CPU and NUMA node"

DEVHARNESS_NVML_LIB=$fake FAKE_NVML_REASONS=0x3 bench --out "$tmp/idle.json" >/dev/null 2>&1
ctx "$tmp/idle.json" '"throttled" not in c["devharness.health.reasons"] and "(gpu_idle, applications_clocks_setting)" in c["devharness.health.after.gpu0"] and (c["devharness.health.noisy"] == "yes") == bool(c["devharness.health.reasons"])'
ok $? "gpu_idle and applications_clocks_setting are not throttling: no gpu0 reason; noisy = yes exactly when there are reasons"

DEVHARNESS_NVML_LIB=$tmp/no/libnvidia-ml.so.1 bench --out "$tmp/none.json" >/dev/null 2>"$tmp/none.err"
rc=$?
{ [ $rc = 0 ] && ctx "$tmp/none.json" 're.match(r"unknown: no NVML \(/tmp/dh_health\.[^/]+/no/libnvidia-ml\.so\.1 not loaded: ", c["devharness.health.before.nvml"])' && ctx "$tmp/none.json" '"gpu0" not in str(c)'; } || { cat "$tmp/none.err" >>"$tmp/why"; false; }
ok $? "no NVML library: exit $rc, 'unknown: no NVML (... not loaded: ...)', no GPU keys"
DEVHARNESS_NVML_LIB=$fake FAKE_NVML_INIT=9 bench --out "$tmp/init.json" >/dev/null 2>&1
ctx "$tmp/init.json" 'c["devharness.health.before.nvml"] == "unknown: nvmlInit_v2 failed: 9 (Driver Not Loaded)"'
ok $? "nvmlInit_v2 failing: 'unknown: nvmlInit_v2 failed: 9 (Driver Not Loaded)'"

ctx "$tmp/thr.json" 're.match(r"--pin auto: benchmark thread bound with hwloc to (core|PU) [0-9]+ of NUMA node [0-9]+ \(PUs [0-9,-]+\), the devices. NUMA node \((no PCI function.*: node [0-9]+ of [0-9]+|.*PCI function .*numa_node [0-9]+ of [0-9]+ nodes.*)\); host memory ", c["devharness.pinning"])'
ok $? "--pin auto (the default) binds to a core of the devices' NUMA node and says which node and why"

DEVHARNESS_NVML_LIB=$tmp/no.so bench --repetitions 3 --noisy-cv 0.0001 --out "$tmp/cv.json" >/dev/null 2>&1
ctx "$tmp/cv.json" 're.search(r"CV [0-9.]+ % above 0.0001 % on copy/.*/1048576/|copies >= 1 MiB with CV above 0.0001 %", c["devharness.health.reasons"]) and c["devharness.health.cv_threshold_percent"] == "0.0001"'
ok $? "--noisy-cv 0.0001 with 3 repetitions: the 1 MiB copies' CV is a reason"
"$dh" bench --device cpu:0 --noisy-cv 5x >/dev/null 2>"$tmp/err"
rc=$?
{ [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q -- "--noisy-cv wants a percentage 0..1000, got '5x'" "$tmp/err"; } || { cp "$tmp/err" "$tmp/why"; false; }
ok $? "--noisy-cv 5x: exit 2 ($rc), one line naming the option and the value"

"$dh" plot "$tmp/thr.json" -o "$tmp/plots" >"$tmp/plot.out" 2>&1
rc=$?
{ [ $rc = 0 ] && grep -q '^devharness plot: noisy run: gpu0 throttled before and after .* (noted under every plot)$' "$tmp/plot.out"; } || { cp "$tmp/plot.out" "$tmp/why"; false; }
ok $? "plot of a noisy run: exit $rc, says the note it puts under every plot"

# compare: NEW 2x slower than BASE over 9 repetitions; a regression unless a side is noisy
"$PY" - "$tmp" <<'EOF'
import json, sys
for name, t, noisy in (("base", 100.0, "no"), ("new", 200.0, "no"), ("noisy", 200.0, "yes")):
    runs = [{"name": "copy/h2d/pageable/cpu:0/harness/1048576", "run_type": "iteration", "real_time": t + i,
             "time_unit": "ns"} for i in range(9)]
    ctx = {"devharness.health.noisy": noisy, "devharness.health.reasons": "gpu0 throttled" if noisy == "yes" else ""}
    json.dump({"context": ctx, "benchmarks": runs}, open("%s/%s.json" % (sys.argv[1], name), "w"))
EOF
"$dh" compare "$tmp/base.json" "$tmp/new.json" >"$tmp/cmp1" 2>&1
rc1=$?
"$dh" compare "$tmp/base.json" "$tmp/noisy.json" >"$tmp/cmp2" 2>&1
rc2=$?
{ [ $rc1 = 1 ] && [ $rc2 = 4 ] && grep -q "slower (noisy run)" "$tmp/cmp2" &&
  grep -q "^devharness compare: inconclusive: noisy run: NEW $tmp/noisy.json (gpu0 throttled)$" "$tmp/cmp2"; } ||
  { cat "$tmp/cmp1" "$tmp/cmp2" >"$tmp/why"; false; }
ok $? "compare: a 2x slowdown is a regression (exit $rc1); from a noisy run it is inconclusive (exit $rc2, the reason named)"

DEVHARNESS_NVML_LIB=$fake "$dh" run --device cpu:0 --output "$tmp/res" >"$tmp/run.out" 2>&1
rc=$?
{ [ $rc = 0 ] && grep -q '^health: NOISY run (figures may not be representative): conformance: gpu0 throttled before and after .*; bench: gpu0 throttled before and after' "$tmp/run.out"; } || { cp "$tmp/run.out" "$tmp/why"; false; }
ok $? "run --device cpu:0 with a throttled GPU: exit $rc, the run summary flags it with the conformance and bench reasons"
"$PY" - "$tmp/res/latest/health.json" >"$tmp/why" 2>&1 <<'EOF'
import json, sys
h = json.load(open(sys.argv[1]))
want = h["schema"] == "devharness.run.health" and h["noisy"] is True and "bench: gpu0 throttled" in h["reasons"]
want = want and all("gpu0" in h[s][w] and "load_average" in h[s][w] for s in ("conformance", "bench") for w in ("before", "after"))
sys.exit(0 if want else print(json.dumps(h, indent=1)[:3000]) or 1)
EOF
ok $? "health.json in the results folder: snapshots before and after conformance and bench, noisy, reasons"
