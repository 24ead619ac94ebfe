#!/usr/bin/python3
"""tests/cli/verbosity.t — --quiet and --verbose (docs: README.md "The command", each
command's --help). --quiet prints only errors and one verdict line; --verbose adds
diagnostics: for conformance a TAP comment under every passing case, for run each
step's command line. Each command's --help names the options it takes; both together
is a usage error (exit 2, one line). Needs $DEVHARNESS (set by `make test`). Prints
TAP."""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok  # noqa: E402

dh = os.environ.get("DEVHARNESS", "")
if not dh or not os.path.exists(dh):
    print("1..0 # SKIP DEVHARNESS not set or missing")
    sys.exit(0)
env = dict(os.environ, DEVHARNESS_SIM_DEVICES="1", COLUMNS="100")
tmp = tempfile.mkdtemp(prefix="dh-verbosity-")


def run(args, **kw):
    return subprocess.run([dh] + args, capture_output=True, text=True, env=env, timeout=600, cwd=tmp, **kw)


def lines(s):
    return [l for l in s.splitlines() if l.strip()]


try:
    # every command's --help names what it takes
    for cmd, opts in ((["conformance"], ("--quiet", "--verbose")), (["run"], ("--quiet", "--verbose")),
                      (["info"], ("--quiet", "--verbose")), (["bench"], ("--quiet", "--verbose")),
                      (["compare"], ("--quiet",)), (["plot"], ("--quiet",))):
        p = run(cmd + ["--help"])
        ok(p.returncode == 0 and all(o in p.stdout for o in opts),
           "%s --help documents %s" % (" ".join(cmd), ", ".join(opts)), p.stdout[-800:])
    for cmd in (["conformance"], ["run"], ["info"]):
        p = run(cmd + ["--quiet", "--verbose"])
        ok(p.returncode == 2 and len(lines(p.stderr)) == 1 and "exclude each other" in p.stderr and not p.stdout,
           "%s --quiet --verbose: exit 2, one line" % " ".join(cmd), "exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))

    # conformance
    args = ["conformance", "--device", "sim:0", "--filter", "device.*,attr.exist*"]
    tap = os.path.join(tmp, "q.tap")
    p = run(args + ["--quiet", "--tap", tap])
    full = open(tap).read() if os.path.exists(tap) else ""
    verdict = re.fullmatch(r"devharness conformance: \d+ clauses x 1 device: (\d+) pass, 0 fail, (\d+) skip, "
                           r"0 xfail; 0 devices with violations \(exit 0\)\n", p.stdout)
    ok(p.returncode == 0 and verdict and p.stderr == "" and re.search(r"^ok 1 - sim:0$", full, re.M),
       "conformance --quiet: stdout is the verdict line alone, nothing on stderr, --tap FILE complete",
       "exit %d\nstdout %r\nstderr %r\ntap %r" % (p.returncode, p.stdout[-500:], p.stderr[-500:], full[-300:]))
    q = run(args)
    n_ok = len(re.findall(r"^    ok \d+ ", q.stdout, re.M))
    ok(verdict and n_ok == int(verdict.group(1)) + int(verdict.group(2)),
       "conformance --quiet: the verdict counts every case the TAP stream shows (%d)" % n_ok, q.stdout[-500:])
    p = run(args + ["--verbose"])
    oks = re.findall(r"^    ok \d+ - \S+.*\n    # (kept|skipped): .+ \((must|should), profile (tvm|strict), "
                     r"[0-9.]+ ms\)$", p.stdout, re.M)
    ok(p.returncode == 0 and n_ok > 0 and len(oks) == n_ok and "devharness conformance:" in p.stderr
       and "devharness conformance:" not in p.stdout,
       "conformance --verbose: a diagnostic under each of the %d passing or skipped cases, the verdict on stderr"
       % n_ok, "exit %d, %d of %d\n%s\n%s" % (p.returncode, len(oks), n_ok, p.stdout[:1500], p.stderr[-300:]))
    ok("# kept:" not in q.stdout, "conformance without --verbose: no such diagnostics", q.stdout[:500])

    # run
    out = os.path.join(tmp, "results")
    p = run(["run", "--device", "sim:0", "--no-bench", "--output", out, "--quiet"])
    ok(p.returncode == 0 and re.fullmatch(r"devharness run: \S+/run-[0-9-]+: 0 failed cases, 0 of 2 steps not ok "
                                          r"\(exit 0\)\n", p.stdout) and p.stderr == "",
       "run --quiet: the verdict line alone, nothing on stderr",
       "exit %d\nstdout %r\nstderr %r" % (p.returncode, p.stdout[-800:], p.stderr[-800:]))
    p = run(["run", "--device", "sim:0", "--no-bench", "--output", out, "--verbose"])
    cmds = re.findall(r"^\+ devharness (info|conformance) .*--device sim:0", p.stderr, re.M)
    ok(p.returncode == 0 and {"info", "conformance"} <= set(cmds) and "devharness run:" in p.stdout
       and "steps:" in p.stdout,
       "run --verbose: each step's command line on stderr, the tables and the verdict line",
       "exit %d\n%s\n%s" % (p.returncode, p.stdout[-800:], p.stderr[-800:]))
    p = run(["run", "--device", "sim:0", "--no-bench", "--output", out])
    ok(p.returncode == 0 and not re.search(r"^\+ devharness", p.stderr, re.M) and "steps:" in p.stdout,
       "run without either: tables, no command lines", p.stderr[-500:])

    # info
    p = run(["info", "--device", "sim:0", "--quiet"])
    ok(p.returncode == 0 and p.stdout == "devharness info: 1 backend, 1 device, 0 without a device, "
       "0 plugins refused (exit 0)\n" and p.stderr == "", "info --quiet: the verdict line alone",
       "exit %d %r %r" % (p.returncode, p.stdout, p.stderr))
    p = run(["info", "--device", "sim:0", "--json", "--verbose"])
    try:
        parsed = json.loads(p.stdout)
    except ValueError:
        parsed = None
    ok(p.returncode == 0 and parsed and "devharness info: 1 backend" in p.stderr,
       "info --json --verbose: stdout stays JSON, the verdict on stderr", p.stderr[-300:])

    # bench
    bj = os.path.join(tmp, "b.json")
    p = run(["bench", "--device", "sim:0", "--suite", "alloc", "--quick", "--quiet", "--out", bj])
    try:
        nb = len([b for b in json.load(open(bj))["benchmarks"] if b.get("run_type") == "iteration"])
    except (OSError, ValueError, KeyError):
        nb = -1
    ok(p.returncode == 0 and p.stdout == "devharness bench: %d benchmark runs (exit 0)\n" % nb and nb > 0,
       "bench --quiet: the verdict line alone (%d runs, as --out FILE has)" % nb,
       "exit %d %r\n%s" % (p.returncode, p.stdout[-500:], p.stderr[-500:]))

    p = run(["bench", "--device", "sim:0", "--suite", "alloc", "--quick"])
    pv = run(["bench", "--device", "sim:0", "--suite", "alloc", "--quick", "--verbose"])
    m = re.search(r"^context: (\d+) devharness\.\* entries", p.stdout, re.M)
    full = re.findall(r"^devharness\.(?!bandwidth_unit)[a-z_.]+: ", pv.stdout, re.M)
    ok(p.returncode == 0 and pv.returncode == 0 and m and full and int(m.group(1)) == len(full)
       and not re.search(r"^devharness\.(?!bandwidth_unit)", p.stdout, re.M)
       and re.search(r"^ceiling sim:0: ", p.stdout, re.M) and re.search(r"^ceiling\.sim:0\.h2d: ", pv.stdout, re.M),
       "bench: the header counts its %s devharness.* entries and gives one ceiling line a device; --verbose "
       "prints all %d and each ceiling" % (m.group(1) if m else "?", len(full)), p.stdout[:3000])

    # compare and plot on synthetic runs (as tests/bench/bench_cli.sh)
    random.seed(3)
    bms = [{"name": "call/packed/3args", "run_name": "call/packed/3args", "run_type": "iteration",
            "repetitions": 9, "repetition_index": i, "iterations": 1000,
            "real_time": 20.0 * (1 + random.uniform(-0.01, 0.01)), "cpu_time": 20.0, "time_unit": "ns"}
           for i in range(9)]
    syn = os.path.join(tmp, "syn.json")
    json.dump({"context": {}, "benchmarks": bms}, open(syn, "w"))
    p = run(["compare", syn, syn, "--quiet"])
    ok(p.returncode == 0 and re.fullmatch(r"1 harness rows tested, 0 regression\(s\) \(.*\)\n", p.stdout),
       "compare --quiet: the verdict line alone", "exit %d %r %r" % (p.returncode, p.stdout, p.stderr[-300:]))
    p = run(["plot", syn, "-o", os.path.join(tmp, "plots"), "--quiet"])
    if p.returncode == 2 and "matplotlib" in p.stderr:
        print("ok %d - plot --quiet # SKIP python3-matplotlib not installed" % (count() + 1))
    else:
        ok(p.returncode == 0 and re.fullmatch(r"devharness plot: \d+ files in \S+\n", p.stdout),
           "plot --quiet: the verdict line alone", "exit %d %r %r" % (p.returncode, p.stdout, p.stderr[-300:]))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print("1..%d" % count())
