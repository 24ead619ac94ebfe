#!/usr/bin/env python3
"""ci/timings.py — how long the project's own jobs take here (a benchmark, never a test).

  ci/timings.py run [--repeat 3] [--devharness build/bin/devharness] [-- RUN-ARGS...]
      `devharness run` wall time: each repetition into a scratch folder with --no-store,
      the median and the range, and the step times of the median run (its progress
      lines "[k/n] step: ... (S s)").
  ci/timings.py test [--log FILE] [--top N] [-- MAKE-ARGS...]
      `make test` wall time and per-file test times from prove's --timer lines, slowest
      first; --log FILE reads a saved `make test` log instead of running it.
  ci/timings.py ci
      `.ci/run` wall time, and its per-file test times from the same kind of lines.

Times are wall-clock seconds on this machine: single noisy figures on a 2-core VM, to
compare before and after a change on the same machine (docs/benchmarks.md says why
ratios, not absolute times, are the project's performance claims).
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# prove --timer: "[14:04:42] tests/module/check.t ...... ok     7481 ms ( ... )"
TIMER_LINE = re.compile(r"^\[\d\d:\d\d:\d\d\] (\S+) \.+ (ok|skipped|Failed|\S+).*?\s(\d+) ms")
# its CPU figure: "( 0.02 usr  0.00 sys +  3.10 cusr  1.20 csys =  4.32 CPU)"
CPU_FIELD = re.compile(r"=\s*([\d.]+) CPU\)")
STEP_LINE = re.compile(r"\[(\d+)/(\d+)\] ([a-z-]+):.*?\(([\d.]+) s\)")


def per_file(text):
    """[(ms, file, verdict)] of every prove --timer line in text, slowest first."""
    out = []
    for line in text.splitlines():
        m = TIMER_LINE.match(line)
        if m:
            c = CPU_FIELD.search(line)
            out.append((int(m.group(3)), m.group(1), m.group(2), float(c.group(1)) if c else None))
    return sorted(out, reverse=True)


def print_files(rows, top):
    """Wall and CPU seconds per file (CPU: the file's processes, user + system, as prove
    counts them; steadier than wall on a shared machine), and the load average now."""
    total = sum(r[0] for r in rows)
    cpu = sum(r[3] or 0 for r in rows)
    print("per-file test times (%d files, %.1f s wall and %.1f CPU-s summed; load average now %s), "
          "slowest first:" % (len(rows), total / 1000, cpu, " ".join("%.2f" % x for x in os.getloadavg())))
    for ms, f, verdict, c in rows[:top] if top else rows:
        print("  %8.1f s %8s  %s%s" % (ms / 1000, "%.1f cpu" % c if c is not None else "", f,
                                       "" if verdict == "ok" else "  (" + verdict + ")"))


def timed(cmd, **kw):
    start = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    return time.monotonic() - start, p.returncode, p.stdout


def cmd_run(a):
    walls, outs = [], []
    for i in range(a.repeat):
        scratch = tempfile.mkdtemp(prefix="dh-timings-")
        try:
            wall, rc, out = timed([a.devharness, "run", "--output", scratch, "--no-store"] + a.rest, cwd=ROOT)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        print("run %d: %.1f s (exit %d)" % (i + 1, wall, rc), flush=True)
        walls.append(wall)
        outs.append(out)
    med = statistics.median(walls)
    print("devharness run: median %.1f s of %d (min %.1f, max %.1f)" % (med, len(walls), min(walls), max(walls)))
    steps = STEP_LINE.findall(outs[walls.index(sorted(walls)[len(walls) // 2])])
    for k, n, step, s in steps:
        print("  [%s/%s] %-12s %6.1f s" % (k, n, step, float(s)))
    return 0


def cmd_test(a):
    if a.log:
        with open(a.log, encoding="utf-8", errors="replace") as f:
            text = f.read()
        print("make test (from %s)" % a.log)
    else:
        wall, rc, text = timed(["make", "test"] + a.rest, cwd=ROOT)
        print("make test: %.1f s (exit %d)" % (wall, rc))
    m = re.search(r"Files=(\d+), Tests=(\d+), +(\d+) wallclock secs", text)
    if m:
        print("prove: %s files, %s tests, %s s wall" % m.groups())
    print_files(per_file(text), a.top)
    return 0


def cmd_ci(a):
    wall, rc, text = timed([os.path.join(ROOT, ".ci", "run")], cwd=ROOT)
    print(".ci/run: %.1f s (exit %d)" % (wall, rc))
    print_files(per_file(text), a.top)
    return 0


def main(argv):
    p = argparse.ArgumentParser(prog="ci/timings.py", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run")
    r.add_argument("--repeat", type=int, default=3)
    r.add_argument("--devharness", default=os.path.join(ROOT, "build", "bin", "devharness"))
    t = sub.add_parser("test")
    t.add_argument("--log")
    for s in (t, sub.add_parser("ci")):
        s.add_argument("--top", type=int, default=25, help="slowest N files (0: all)")
    rest = []
    if "--" in argv:
        rest = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    a = p.parse_args(argv)
    a.rest = rest
    return {"run": cmd_run, "test": cmd_test, "ci": cmd_ci}[a.what](a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
