#!/usr/bin/python3
"""tests/layering/includes.t — which room may include which (docs/architecture.md "Layers").

Every #include "..." of the product code (base/, runtime/, target/, cmdline/, cli/,
conformance/, bench/, backends/) is resolved as the compiler does (the including
file's folder, then the repository root, then include/, then the folder's own extra
-I, e.g. -Iconformance) and checked against the rules below. A room reaches a lower
room only through include/devharness/ (the installed API), except where a rule says
otherwise; nothing outside backends/ includes a backend, and a backend includes only
its own folder and backends/common/. The first points check the checker on made-up
includes. Prints TAP."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import count, ok  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from rooms import ALLOWED, ROOMS, present  # noqa: E402

EXTRA_INCLUDE_DIRS = {"conformance": ["conformance"]}

# a backend folder: its own files, backends/common/, include/ (and nothing else)
BACKEND_SHARED = "backends/common"


def room_of(rel):
    top = rel.split("/", 1)[0]
    if top == "backends":
        parts = rel.split("/")
        return "/".join(parts[:2]) if len(parts) > 2 else "backends"
    return top if top in ROOMS else None


def resolve(including, name):
    """The repository-relative path an include resolves to, or None (a system header)."""
    here = os.path.dirname(including)
    dirs = [here, "", "include"] + EXTRA_INCLUDE_DIRS.get(including.split("/", 1)[0], [])
    for d in dirs:
        p = os.path.normpath(os.path.join(d, name))
        if os.path.exists(os.path.join(ROOT, p)):
            return p
    return None


def violation(including, target):
    """None when `including` may include `target` (both repository-relative), else why not."""
    src, dst = room_of(including), room_of(target)
    if target.startswith("include/") or dst is None or src == dst:
        return None
    if src.startswith("backends/"):
        if dst == BACKEND_SHARED:
            return None
        return "a backend includes only its own folder, %s/ and include/" % BACKEND_SHARED
    if dst.startswith("backends"):
        return "nothing outside backends/ includes a backend (only include/devharness/)"
    allowed, why = ALLOWED.get(src, ((), ""))
    return None if dst in allowed else why


def includes(path):
    with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if m:
                yield n, m.group(1)


ok(violation("conformance/runner/runner.c", "cli/cli.h") and violation("bench/main.c", "backends/sim/sim.h")
   and violation("backends/cpu/cpu_raw.c", "backends/sim/sim.h") and violation("runtime/plugin.c", "cmdline/cmdline.h")
   and violation("target/target.c", "runtime/internal.h"),
   "the checker refuses conformance->cli, bench->a backend, cpu->sim, runtime->cmdline, target->runtime internals")
ok(violation("cli/main.c", "conformance/conformance.h") is None and violation("backends/cpu/cpu_raw.c",
   "backends/common/host_memcpy_twin.h") is None and violation("bench/suites/copy.c", "include/devharness/device_api.h") is None,
   "the checker allows cli->conformance, cpu->backends/common, bench->include/")

bad = []
files = 0
for top in present():
    for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
        for name in sorted(names):
            if not name.endswith((".c", ".h", ".cc")):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), ROOT)
            files += 1
            for n, inc in includes(rel):
                target = resolve(rel, inc)
                why = target and violation(rel, target)
                if why:
                    bad.append("%s:%d: includes %s: %s" % (rel, n, target, why))
ok(files > 0 and not bad, "%d product files include only what their room may (tests/layering/rooms.py ALLOWED; "
   "backends through include/ only)" % files, "\n".join(bad))
print("1..%d" % count())
