"""tests/layering/rooms.py — the rooms of the product code and which may include which
(docs/architecture.md "Layers"): the one list every layering test reads.

A room is a top-level folder of product code. Floors, top to bottom (a room includes only
rooms below it, and a lower room only through include/devharness/ unless ALLOWED says so):

    cli                                   the commands
    bench · conformance · module          what the commands run
    machine · suite                       machine facts (ceilings, locality, health);
                                          the case record, forked runner and reporters
    store                                 result bundles, the results store, its readers
    cmdline                               exit codes, option helpers
    runtime · target                      libdevharness.so
    base                                  text, bounded JSON, child processes, errors

Rooms listed here that a checkout does not have yet are skipped by every test."""
import os

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# Every room of product code (backends/ is one room per backend folder).
ROOMS = ("base", "runtime", "target", "cmdline", "store", "suite", "machine",
         "conformance", "module", "bench", "cli", "backends")

# room -> (rooms it may include besides its own and include/, why)
ALLOWED = {
    "base": ((), "base/ is the ground floor: libc, jansson and tvm-ffi only"),
    "runtime": (("base",), "the runtime core sits on base/ and tvm-ffi"),
    "target": (("base",), "the target system uses the runtime through include/devharness/ only"),
    "cmdline": (("base",), "the command-line room sits below every command"),
    "store": (("base", "cmdline"), "the results store sits below the suites and bench"),
    "suite": (("base", "cmdline", "store"), "the suite machinery never includes a suite or a command"),
    "machine": (("base", "cmdline"), "machine facts never include bench/ or cli/"),
    "conformance": (("base", "cmdline", "store", "suite"), "conformance never includes cli/, module/ or bench/"),
    "module": (("base", "cmdline", "store", "suite"), "module never includes cli/, conformance/ or bench/"),
    "bench": (("base", "cmdline", "store", "machine"), "bench never includes cli/, conformance/ or suite/"),
    "cli": (("base", "cmdline", "store", "suite", "machine", "conformance", "module", "bench"),
            "the top floor: calls every command"),
}


def present(rooms=ROOMS):
    """The rooms of `rooms` this checkout has."""
    return tuple(r for r in rooms if os.path.isdir(os.path.join(ROOT, r)))


def product_rooms():
    """Every product room this checkout has, backends/ as one entry."""
    return present()


def product_files(exts, extra=()):
    """(repository-relative path, text) of every file ending in one of exts under the
    rooms this checkout has (and the extra folders), sorted, __pycache__ left out: the
    one walk of the layering checkers that read source text."""
    out = []
    for top in present() + tuple(d for d in extra if os.path.isdir(os.path.join(ROOT, d))):
        for dirpath, dirs, names in os.walk(os.path.join(ROOT, top)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(names):
                if name.endswith(tuple(exts)):
                    rel = os.path.relpath(os.path.join(dirpath, name), ROOT)
                    with open(os.path.join(ROOT, rel), encoding="utf-8", errors="replace") as f:
                        out.append((rel, f.read()))
    return out
