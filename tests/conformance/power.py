#!/usr/bin/python3
"""Proof-of-power table of the conformance suite (docs/conformance.md).

For every clause: the faulty backends (tests/conformance/faulty_*.c, expectations in
faulty.t FAULTS) and the sim mutants (tests/conformance/mutate.py, results of the last
full `make mutate` in $BUILD/mutate-results.tsv) that it catches, marking the ones only
it catches; a clause nothing catches says why (NOTES below).

  power.py --write   regenerates conformance/power.c from those inputs (then rebuild
                     and regenerate docs/conformance.md with
                     `devharness conformance --list --format markdown`)
  power.py           (default, run by `make test`) prints TAP: every clause of the
                     catalogue is in conformance/power.c, its faulty-backend column
                     matches faulty.t, every mutant it names exists in mutate.py, and a
                     clause without a catcher has a reason.
Needs $DEVHARNESS (for --list).
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
POWER_C = os.path.join(ROOT, "conformance", "power.c")

# Why a clause has no faulty backend or mutant that fails it.
CORE = ("checked by the core before any backend is called (runtime/device_api.c), so no "
        "backend fault can reach it")
RUNTIME_PACKED = ("exercises the runtime's shared echo/raise (runtime/backend_funcs.c), not the "
                  "backend; to reach the backend's own functions when the runtime calls them through libtvm_ffi")
NOTES = {
    "attr.exist_valid": ("subsumed: the runner counts a device only when kExist is 1 for it, so a "
                         "device kExist denies is never run; attr.exist_count names that fault"),
    "attr.types": None,
    "attr.target_match": "runs only with --target; tests/conformance/suite.t feeds it a mismatching target",
    "mem.alignment": ("needs DH_CAP_HOST_POINTER_ARITHMETIC (addresses observable); the sim's handles "
                      "are opaque, and no faulty cpu backend exists yet"),
    "mem.default_alignment": ("needs DH_CAP_HOST_POINTER_ARITHMETIC; the sim's handles are opaque, and "
                              "no faulty cpu backend exists yet"),
    "cap.host_pointer": ("applies only to backends claiming DH_CAP_HOST_POINTER_ARITHMETIC (cpu); no "
                         "faulty cpu backend exists yet"),
    "mem.sizes_small": "no faulty backend or mutant yet (an allocator short by a few bytes would corrupt the heap rather than fail cleanly)",
    "mem.realloc_cycle": "no faulty backend or mutant yet",
    "mem.workspace": "no faulty backend or mutant yet (the sim leaves workspaces to the core's data-space fallback)",
    "copy.size_mismatch": CORE,
    "copy.non_contiguous": CORE,
    "copy.null_tensor": CORE,
    "packed.unknown_function": "the core's function lookup (runtime/device_api.c dh_device_call) answers before the backend",
    "packed.noop": "equivalent: an empty kernel that is not queued cannot be observed (mutate.py noop_not_queued survives for that reason)",
    "device.set_each": "subsumed: the runner counts a device only when set_device accepts it; attr.exist_count names a refusing id",
    "device.each_id_works": "no faulty backend or mutant yet",
    "device.registry_same": "tests the runtime's registry (runtime/plugin.c), not the backend",
    "device.registry_function": "tests the runtime's registry (runtime/plugin.c), not the backend",
    "device.init_twice": "no faulty backend or mutant yet (the sim's init is idempotent by design)",
    "device.unknown_backend": "tests the runtime's registry (runtime/plugin.c), not the backend",
    "device.format_parse": "tests the runtime's device formatting and parsing, not the backend",
}


def catalogue():
    dh = os.environ.get("DEVHARNESS", "")
    p = subprocess.run([dh, "conformance", "--list"], stdout=subprocess.PIPE, text=True, check=True)
    return [l.split()[0] for l in p.stdout.splitlines() if l.strip()]


def faults():
    src = open(os.path.join(HERE, "faulty.t")).read()
    ns = {}
    start = src.index("FAULTS = {")
    body = src[start:src.index("\n}\n", start) + 3]  # the FAULTS dict literal, closed at column 0
    exec(body, ns)
    out = {}
    for f, (cl, _) in ns["FAULTS"].items():
        cls = cl if isinstance(cl, tuple) else (cl,)
        for c in cls:
            out.setdefault(c, []).append(("faulty_" + f, len(cls)))
    return out


def mutants():
    src = open(os.path.join(HERE, "mutate.py")).read()
    return set(re.findall(r'^    \("([a-z0-9_]+)", [BDS],', src, re.M))


def mutant_results():
    path = os.environ.get("MUTATE_RESULTS", os.path.join(os.environ.get("BUILD", "build"),
                                                         "mutate-results.tsv"))
    out = {}
    for line in open(path):
        name, status, clauses = line.rstrip("\n").split("\t")
        if status != "caught":
            continue
        cls = [c for c in clauses.split(",") if c]
        for c in cls:
            out.setdefault(c, []).append((name, len(cls)))
    return out


def cell(items):
    """'a (only), b' from [(name, n_clauses)]: "only" when n == 1."""
    items = sorted(items, key=lambda x: (x[1] != 1, x[0]))
    return ", ".join("%s%s" % (n, " (only)" if k == 1 else "") for n, k in items)


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write():
    ids = catalogue()
    fa, mu = faults(), mutant_results()
    lines = ["/* conformance/power.c — GENERATED by tests/conformance/power.py --write; do not edit.",
             " *",
             " * Proof of power, one row per clause: the faulty backends (tests/conformance/faulty_*.c)",
             " * and the sim mutants (tests/conformance/mutate.py, `make mutate`) that fail it; \"(only)\"",
             " * marks a fault that fails this clause alone. A clause nothing fails says why. */",
             '#include "check.h"', "",
             "const dc_power_t dc_power[] = {"]
    for i in ids:
        f, m = cell(fa.get(i, [])), cell(mu.get(i, []))
        note = NOTES.get(i) or ""
        if not note and i.startswith(("packed.echo_", "packed.raise_", "packed.error_then")):
            note = RUNTIME_PACKED
        if f or m:
            note = ""
        elif not note:
            note = "no faulty backend or mutant yet"
        lines.append("    {%s, %s, %s, %s}," % (c_str(i), c_str(f), c_str(m), c_str(note)))
    lines += ["};", "const size_t dc_power_count = sizeof dc_power / sizeof dc_power[0];", ""]
    open(POWER_C, "w").write("\n".join(lines))
    print("wrote %s (%d clauses)" % (POWER_C, len(ids)))


def check():
    num = 0
    bad = []

    def ok(cond, name, diag=""):
        nonlocal num
        num += 1
        print(("ok" if cond else "not ok") + " %d - %s" % (num, name))
        if not cond:
            for l in str(diag).splitlines()[:30]:
                print("# " + l)

    if not os.environ.get("DEVHARNESS") or not os.path.exists(os.environ["DEVHARNESS"]):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        return 0
    print("1..4")
    ids = catalogue()
    rows = re.findall(r'^    \{"([^"]+)", "([^"]*)", "([^"]*)", "((?:[^"\\]|\\.)*)"\},$',
                      open(POWER_C).read(), re.M)
    got = [r[0] for r in rows]
    ok(got == ids, "conformance/power.c has one row per clause, in catalogue order",
       "missing: %s\nextra: %s\nregenerate: tests/conformance/power.py --write" %
       (sorted(set(ids) - set(got)), sorted(set(got) - set(ids))))
    fa = faults()
    diff = [(r[0], r[1], cell(fa.get(r[0], []))) for r in rows if r[1] != cell(fa.get(r[0], []))]
    ok(not diff, "the faulty-backend column matches tests/conformance/faulty.t FAULTS",
       "\n".join("%s: table %r, faulty.t %r" % d for d in diff))
    names = mutants()
    unknown = sorted({n.replace(" (only)", "") for r in rows for n in r[2].split(", ") if n} - names)
    ok(not unknown, "every mutant named exists in tests/conformance/mutate.py", unknown)
    silent = [r[0] for r in rows if not r[1] and not r[2] and not r[3]]
    ok(not silent, "a clause no fault fails says why", silent)
    return 0


if __name__ == "__main__":
    if "--write" in sys.argv:
        write()
    else:
        sys.exit(check())
