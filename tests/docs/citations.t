#!/usr/bin/python3
"""tests/docs/citations.t — every file:line a clause cites from TVM or tvm-ffi is checked
against the sources the pinned packages install (apache-tvm 0.27 ships include/ and
part of src/runtime/ in the wheel, apache-tvm-ffi 0.1.15 include/ and src/ffi/):

- the file is there (a bare name like `device_api.cc:171-173` is looked up in the
  package the source names last before it: "apache/tvm" or "tvm-ffi");
- the cited lines are inside the file;
- a code name written right after the citation (`GetDataSize`, `kAllocAlignment`,
  `DeviceAPI::AllocDataSpace`, `free_data_space`) occurs within the cited lines (3
  lines of slack on either side).

Citations of files the wheels do not ship (TVM's docs/*.rst, src/backend/...) are
counted in a comment, not checked here. The clause sources come from
`devharness conformance --list --format markdown`. A self-check feeds the checker a
range past the end of a file and a name absent from its lines. Prints TAP; needs
$DEVHARNESS and $VENV (set by `make test`)."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import ok  # noqa: E402

dh = os.environ.get("DEVHARNESS", "")
venv = os.environ.get("VENV", "")
roots = {"tvm": os.path.join(venv, "devharness", "tvm"), "tvm-ffi": os.path.join(venv, "devharness", "tvm_ffi")}
if not dh or not os.path.exists(dh) or not all(os.path.isdir(r) for r in roots.values()):
    print("1..0 # SKIP DEVHARNESS or the venv's tvm / tvm_ffi packages are missing")
    sys.exit(0)

CITE = re.compile(r"((?:[\w.-]+/)*[\w.-]+\.(?:cc|h|rst|py)):(\d+)(?:-(\d+))?")
NAME = re.compile(r"\s+((?:\w+::)*(?:[A-Z][a-z0-9]+[A-Z]\w*|k[A-Z]\w+|[a-z]\w*_\w+))")


def locate(path, package):
    """Files under the package's root that `path` names (a relative path or a bare name)."""
    root = roots[package]
    if "/" in path:
        p = os.path.join(root, path)
        return [p] if os.path.isfile(p) else []
    return sorted(os.path.join(d, path) for d, _, files in os.walk(root) if path in files)


def check(source):
    """-> (checked, not_shipped, problems) of one clause source."""
    checked, missing, problems = 0, [], []
    for m in CITE.finditer(source):
        before = source[:m.start()]
        at_tvm, at_ffi = before.rfind("apache/tvm"), before.rfind("tvm-ffi")
        package = "tvm-ffi" if at_ffi > at_tvm else "tvm"
        path, a, b = m.group(1), int(m.group(2)), int(m.group(3) or m.group(2))
        hits = locate(path, package)
        if not hits:
            missing.append(path)
            continue
        lines = open(hits[0], encoding="utf-8", errors="replace").read().splitlines()
        checked += 1
        if not (1 <= a <= b <= len(lines)):
            problems.append("%s:%d-%d is outside the file (%d lines)" % (path, a, b, len(lines)))
            continue
        n = NAME.match(source[m.end():])
        if n:
            name = n.group(1).split("::")[-1]
            if name not in "\n".join(lines[max(0, a - 4):b + 3]):
                problems.append("%s:%d-%d does not contain %s" % (path, a, b, name))
    return checked, missing, problems


out = subprocess.run([dh, "conformance", "--list", "--format", "markdown"], capture_output=True, text=True,
                     timeout=60).stdout
rows = [r for r in out.split("\n## ")[0].splitlines() if r.startswith("| `")]
cited = [(r.split("|")[1].strip().strip("`"), r.split("|")[5]) for r in rows]
cited = [(cid, src) for cid, src in cited if CITE.search(src)]
print("1..%d" % (len(cited) + 2))
# self-check: the checker can fail
_, _, bad = check("apache/tvm 0.27 src/runtime/device_api.cc:100000 x")
ok(len(bad) == 1, "self-check: a range past the end of device_api.cc is a problem", "; ".join(bad))
_, _, bad = check("apache/tvm 0.27 include/tvm/runtime/device_api.h:1-3 NoSuchFunctionHere")
ok(len(bad) == 1, "self-check: a name absent from the cited lines is a problem", "; ".join(bad))
not_shipped = {}
total = 0
for cid, src in cited:
    n, missing, problems = check(src)
    total += n
    for path in missing:
        not_shipped[path] = not_shipped.get(path, 0) + 1
    ok(not problems, "%s: %d citation(s) checked against the installed sources" % (cid, n), "; ".join(problems))
print("# %d citations checked; not in the installed packages, not checked here: %s" %
      (total, ", ".join("%s (%d)" % kv for kv in sorted(not_shipped.items())) or "none"))
