#!/usr/bin/python3
"""Proof-of-power table of the conformance suite (docs/conformance.md).

For every clause: the faulty backends (tests/conformance/faulty_*.c, expectations in
faulty.t FAULTS) and the sim mutants (tests/conformance/mutate.py, results of the last
full `make mutate` in $BUILD/mutate-results.tsv) that it catches, marking the ones only
it catches; a clause nothing catches says why (NOTES below).

  power.py --write   regenerates conformance/clauses/power.c from those inputs (then rebuild
                     and splice docs/conformance.md's generated sections in with
                     `make conformance-doc`)
  power.py --probe CLAUSE
                     runs CLAUSE alone against every faulty backend built (listed in
                     faulty.t FAULTS or not) and says which fail it, and which FAULTS
                     entries disagree (docs/adding-a-clause.md §3; `make power CLAUSE=id`
                     runs this, --write, the build and the docs in that order)
  power.py           (default, run by `make test`) prints TAP: every clause of the
                     catalogue is in conformance/clauses/power.c, its faulty-backend column
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
POWER_C = os.path.join(ROOT, "conformance", "clauses", "power.c")
# One row of power.c: clause, faulty backends, mutants, note.
ROW = re.compile(r'^    \{"([^"]+)", "([^"]*)", "([^"]*)", "((?:[^"\\]|\\.)*)"\},$', re.M)

# Why a clause has no faulty backend or mutant that fails it.
CORE = ("checked by the core before any backend is called (runtime/device_api.c), so no "
        "backend fault can reach it")
NOTES = {
    "attr.exist_valid": ("subsumed: the runner counts a device only when kExist is 1 for it, so a "
                         "device kExist denies is never run; attr.exist_count names that fault"),
    "attr.types": None,
    "attr.target_match": "runs only with --target; tests/conformance/suite.t feeds it a mismatching target",
    "mem.sizes_small": ("subsumed: copy.h2d_d2h_sizes allocates and round-trips every one of these "
                        "sizes the same way (alloc, H2D and D2H at offset 0, NULL stream), so a "
                        "backend fault in them fails both"),
    "copy.null_tensor": CORE,
    "packed.unknown_function": "the core's function lookup (runtime/device_api.c dh_device_call) answers before the backend",
    "packed.noop": "equivalent: an empty kernel that is not queued cannot be observed (mutate.py noop_not_queued survives for that reason)",
    "device.set_each": "subsumed: the runner counts a device only when set_device accepts it; attr.exist_count names a refusing id",
    "harness.copy_checks": "a harness self-test: the core's copy checks (runtime/device_api.c), no backend is called",
    "harness.registry_same": "a harness self-test: the runtime's registry (runtime/plugin.c), not the backend",
    "harness.registry_function": "a harness self-test: the runtime's registry (runtime/plugin.c), not the backend",
    "harness.unknown_backend": "a harness self-test: the runtime's registry (runtime/plugin.c), not the backend",
    "device.format_parse": "tests the runtime's device formatting and parsing, not the backend",
}


def catalogue():
    dh = os.environ.get("DEVHARNESS", "")
    p = subprocess.run([dh, "conformance", "--list"], stdout=subprocess.PIPE, text=True, check=True)
    return [l.split()[0] for l in p.stdout.splitlines() if l.strip()]


def faults_table():
    """faulty.t's FAULTS dict: fault -> (clause or tuple of clauses, text)."""
    src = open(os.path.join(HERE, "faulty.t")).read()
    ns = {}
    start = src.index("FAULTS = {")
    body = src[start:src.index("\n}\n", start) + 3]  # the FAULTS dict literal, closed at column 0
    exec(body, ns)
    return ns["FAULTS"]


def faults():
    out = {}
    for f, (cl, _) in faults_table().items():
        cls = cl if isinstance(cl, tuple) else (cl,)
        for c in cls:
            out.setdefault(c, []).append(("faulty_" + f, len(cls)))
    return out


def mutants():
    src = open(os.path.join(HERE, "mutate.py")).read()
    return set(re.findall(r'^    \("([a-z0-9_]+)", [A-Z],', src, re.M))


def table_mutants():
    """mutant -> clauses it fails, as conformance/clauses/power.c records them now."""
    out = {}
    for clause, _, mcol, _ in ROW.findall(open(POWER_C).read()):
        for n in (x.replace(" (only)", "") for x in mcol.split(", ") if x):
            out.setdefault(n, []).append(clause)
    return out


def mutant_results():
    """clause -> [(mutant, n_clauses)] of the caught mutants. A mutant the results do not
    name (no `make mutate` yet, a partial run, MUTATE_RESULTS=/dev/null) keeps the clauses
    power.c gives it now, so --write never drops a column it has no results for."""
    explicit = "MUTATE_RESULTS" in os.environ
    path = os.environ.get("MUTATE_RESULTS", os.path.join(os.environ.get("BUILD", "build"),
                                                         "mutate-results.tsv"))
    caught, seen = {}, set()
    if os.path.exists(path):
        for num, line in enumerate(open(path), 1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3:
                sys.exit("power.py: %s:%d: expected 'mutant<TAB>status<TAB>clauses'" % (path, num))
            name, status, clauses = parts
            seen.add(name)
            if status == "caught":
                caught[name] = [c for c in clauses.split(",") if c]
    elif explicit:
        sys.exit("power.py: MUTATE_RESULTS=%s: no such file" % path)
    kept = {n: cls for n, cls in table_mutants().items() if n not in seen}
    if kept:
        print("power.py: %d mutant(s) have no result in %s (run `make mutate` to refresh them): "
              "their column is kept from %s" % (len(kept), path, os.path.relpath(POWER_C, ROOT)))
    out = {}
    for name, cls in list(caught.items()) + list(kept.items()):
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
    lines = ["/* conformance/clauses/power.c — GENERATED by tests/conformance/power.py --write; do not edit.",
             " *",
             " * Proof of power, one row per clause: the faulty backends (tests/conformance/faulty_*.c)",
             " * and the sim mutants (tests/conformance/mutate.py, `make mutate`) that fail it; \"(only)\"",
             " * marks a fault that fails this clause alone. A clause nothing fails says why. */",
             '#include "check.h"', "",
             "const dc_power_t dc_power[] = {"]
    for i in ids:
        f, m = cell(fa.get(i, [])), cell(mu.get(i, []))
        note = NOTES.get(i) or ""
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
    rows = ROW.findall(open(POWER_C).read())
    got = [r[0] for r in rows]
    ok(got == ids, "conformance/clauses/power.c has one row per clause, in catalogue order",
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


def probe(clause):
    """Runs one clause on every faulty backend; prints who fails it; 0 when that agrees
    with faulty.t FAULTS, 1 when an entry must change, 2 on bad input."""
    dh = os.environ.get("DEVHARNESS", "")
    if clause not in catalogue():
        print("power.py: --probe: no clause %r in `devharness conformance --list`" % clause)
        return 2
    folder = os.path.join(os.environ.get("BUILD", "build"), "tests", "conformance")
    mk = open(os.path.join(HERE, "tests.mk")).read()
    apart = set(re.search(r"^CONF_REPORT_FAULTS := (.*)$", mk, re.M).group(1).split())
    built = sorted(f[len("libdevharness_faulty_"):-3] for f in os.listdir(folder)
                   if f.startswith("libdevharness_faulty_") and f.endswith(".so"))
    names = [f for f in built if f not in apart]
    if not names:
        print("power.py: no faulty backend in %s: run `make conformance-faulty` first" % folder)
        return 2

    def one(fault):
        lib = os.path.join(folder, "libdevharness_faulty_%s.so" % fault)
        p = subprocess.run([dh, "conformance", "--plugin", lib, "--timeout", "3", "--filter", clause,
                            "--device", "faulty_%s:0" % fault], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True, timeout=120)
        if re.search(r"^# Subtest: \S+ \(no device\)$", p.stdout, re.M):
            return fault, None  # its init or probe fails: a fault for the runner's tests
        return fault, re.search(r"^    not ok \d+ - %s\b" % re.escape(clause), p.stdout, re.M) is not None

    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=int(os.environ.get("DH_FAULTY_JOBS", "2"))) as ex:
        results = list(ex.map(one, names))
    failing = sorted(f for f, bad in results if bad)
    nodev = sorted(f for f, bad in results if bad is None)
    names = [f for f, bad in results if bad is not None]
    if nodev:
        print("not counted (no device: init or probe fails): %s" % ", ".join("faulty_" + f for f in nodev))
    want = {name[len("faulty_"):] for name, _ in faults().get(clause, [])}
    print("%s: %d of %d faulty backends fail it: %s" % (clause, len(failing), len(names),
                                                         ", ".join(failing) or "none"))
    table = faults_table()
    todo = []
    for f in failing:
        if f not in table:
            print("  note: faulty_%s fails it and is not in FAULTS (tested elsewhere, e.g. a backend "
                  "whose init fails; if it is your new one, add %r: (%r, \"<text of its failure>\"))"
                  % (f, f, clause))
        elif f not in want:
            todo.append("FAULTS[%r]: add %r to its clauses (it fails this clause too)" % (f, clause))
    for f in sorted(want - set(failing)):
        todo.append("FAULTS[%r] names %s, which it does not fail" % (f, clause))
    if not failing:
        todo.append("no faulty backend fails %s: write tests/conformance/faulty_<x>.c (docs/adding-a-clause.md §3)"
                    % clause)
    for t in todo:
        print("  to do: " + t)
    if not todo:
        print("  faulty.t FAULTS agrees; next: power.py --write")
    return 1 if todo else 0


if __name__ == "__main__":
    if "--probe" in sys.argv:
        i = sys.argv.index("--probe")
        if i + 1 >= len(sys.argv):
            print("power.py: --probe needs a clause id")
            sys.exit(2)
        sys.exit(probe(sys.argv[i + 1]))
    if "--write" in sys.argv:
        write()
    else:
        sys.exit(check())
