#!/usr/bin/python3
"""tests/docs/walkthrough.t — docs/architecture.md "How a call flows" stays true: every
`file:function` in its table names a function defined in that file (a line starting
in column 0 that declares the name and reaches "{" before ";"), and the command line
of the section's sh block runs with exit 0 (the build's devharness: $DEVHARNESS, else
build/bin/devharness). Prints TAP."""
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DOC = os.path.join(ROOT, "docs", "architecture.md")
results = []


def check(ok, desc, diag=""):
    results.append((bool(ok), desc, diag))


def defines(path, func):
    """1 when `path` has a definition of `func` at column 0."""
    lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    pat = re.compile(r"^[A-Za-z_].*(?<![\w.>])%s\s*\(" % re.escape(func))
    for i, l in enumerate(lines):
        if not pat.match(l) or l.lstrip().startswith(("return", "#")):
            continue
        rest = "\n".join(lines[i:i + 30])
        brace, semi = rest.find("{"), rest.find(";")
        if brace >= 0 and (semi < 0 or brace < semi):
            return True
    return False


text = open(DOC, encoding="utf-8").read()
m = re.search(r"^## How a call flows\n(.*?)(?=^## )", text, re.S | re.M)
check(m, "docs/architecture.md has a section \"How a call flows\"")
section = m.group(1) if m else ""

refs = []
for row in section.splitlines():
    if not row.startswith("|") or row.startswith("|---"):
        continue
    cells = [c.strip() for c in row.strip("|").split("|")]
    if len(cells) < 3 or cells[0] == "step":
        continue
    mm = re.fullmatch(r"`([\w./-]+):(\w+)`", cells[1])
    check(mm, "step %s names one file:function" % cells[0], "got %r" % cells[1])
    if mm:
        refs.append((cells[0], mm.group(1), mm.group(2)))
check(len(refs) >= 10, "the table has at least 10 steps (%d)" % len(refs))
for step, path, func in refs:
    full = os.path.join(ROOT, path)
    check(os.path.isfile(full) and defines(full, func),
          "step %s: %s defines %s" % (step, path, func),
          "%s %s" % (path, "has no definition of " + func if os.path.isfile(full) else "does not exist"))

blk = re.search(r"```sh\n(devharness [^\n]+)\n```", section)
check(blk, "the section shows the command line in a sh block")
if blk:
    exe = os.environ.get("DEVHARNESS") or os.path.join(ROOT, "build", "bin", "devharness")
    argv = shlex.split(blk.group(1))
    if not os.access(exe, os.X_OK):
        results.append((True, "the command line exits 0 # SKIP %s is not built" % exe, ""))
    else:
        p = subprocess.run([exe] + argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=300)
        check(p.returncode == 0, "`%s` exits 0" % blk.group(1),
              "exit %d\n%s%s" % (p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
        f = re.search(r"--filter (\S+)", blk.group(1))
        check(f and re.search(r"^    ok \d+ - %s$" % re.escape(f.group(1)), p.stdout, re.M),
              "the filtered clause ran and passed", p.stdout[-2000:])

print("1..%d" % len(results))
for i, (ok, desc, diag) in enumerate(results, 1):
    print("%s %d - %s" % ("ok" if ok else "not ok", i, desc))
    if not ok and diag:
        for d in diag.splitlines():
            print("# " + d)
sys.exit(0)
