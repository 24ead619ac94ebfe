#!/usr/bin/python3
"""tests/layering/vtable_calls.t — one road to a backend: the dispatch API.

Nothing outside runtime/ calls a backend's vtable (the function pointers of
dh_backend_t and dh_raw_twin_t in include/devharness/backend.h) directly: commands,
the conformance suite, the benchmarks and the target system go through
include/devharness/device_api.h (dh_device_*), which resolves the backend, runs its
init once and prefixes errors. The exceptions, each for a reason:
  - runtime/ is the dispatch;
  - include/devharness/device_api.h: dh_device_raw_run is the twin's call, inline so
    the timed loop pays no dispatch;
  - conformance/clauses/abi.c: the helpers that test the ABI below the dispatch;
  - backends/ implement the vtable (they call their own functions, not a vtable).
Reading fields (caps, name, whether an entry is NULL) is not a call and is allowed.
The first point checks the checker on made-up lines. Prints TAP."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import count, ok  # noqa: E402
from rooms import ROOMS, present  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCANNED = present(tuple(r for r in ROOMS if r not in ("runtime", "backends")))
ALLOWED_FILES = {"conformance/clauses/abi.c"}
# member names other structs of the tree also use for their own function pointers
# (a clause's run, ...): a call of one counts only on a receiver that names a backend
AMBIGUOUS = {"run", "setup", "teardown", "init", "shutdown"}
BACKENDISH = re.compile(r"(?:^|[^A-Za-z0-9_])(b|be|backend|raw|twin)$")


def members():
    """Function-pointer members of dh_backend_t and dh_raw_twin_t."""
    with open(os.path.join(ROOT, "include", "devharness", "backend.h"), encoding="utf-8") as f:
        text = f.read()
    found = set()
    for struct in ("dh_raw_twin", "dh_backend"):
        m = re.search(r"typedef struct %s \{(.*?)\} %s_t;" % (struct, struct), text, re.S)
        found.update(re.findall(r"\(\*\s*(\w+)\)\s*\(", m.group(1)))
    return found


MEMBERS = members()
CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*(?:(?:->|\.)[A-Za-z_][A-Za-z0-9_]*|\[[^\]]*\])*)\s*(->|\.)\s*(\w+)\s*\(")


def strip(text):
    text = re.sub(r"/\*.*?\*/", lambda m: " " * len(m.group(0)), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def vtable_calls(text):
    """(line, receiver.member) of each call of a vtable member in C text."""
    out = []
    for n, line in enumerate(strip(text).split("\n"), 1):
        for m in CALL.finditer(line):
            receiver, member = m.group(1), m.group(3)
            if member not in MEMBERS:
                continue
            if member in AMBIGUOUS and not BACKENDISH.search(receiver):
                continue
            out.append((n, "%s%s%s(" % (receiver, m.group(2), member)))
    return out


sample = "x = b->copy_data_from_to(a);\nc->clause->run(c);\nd->backend->raw->run(ctx, 1, 0);\n" \
         "if (b->alloc_host && b->free_host) {}\ndh_device_alloc_host(dev, n, &p);\n/* b->free_host(p) */\n"
ok([n for n, _ in vtable_calls(sample)] == [1, 3] and "get_attr" in MEMBERS and "run" in MEMBERS,
   "the checker flags b->copy_data_from_to( and ...->raw->run(, not a clause's run, a NULL test, "
   "a dispatch call or a comment")

bad, files = [], 0
for top in SCANNED:
    for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
        for name in sorted(names):
            if not name.endswith((".c", ".h", ".cc")):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), ROOT)
            if rel in ALLOWED_FILES:
                continue
            files += 1
            with open(os.path.join(ROOT, rel), encoding="utf-8", errors="replace") as f:
                for n, call in vtable_calls(f.read()):
                    bad.append("%s:%d: %s calls a backend's vtable; use devharness/device_api.h" % (rel, n, call))
ok(files > 0 and not bad, "no vtable call in %d files of %s (only runtime/ and conformance/clauses/abi.c call it)"
   % (files, ", ".join(s + "/" for s in SCANNED)), "\n".join(bad))
print("1..%d" % count())
