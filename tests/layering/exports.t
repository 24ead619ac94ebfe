#!/usr/bin/python3
"""tests/layering/exports.t — libdevharness.so exports exactly its public API.

Every symbol the library defines in its dynamic symbol table (`nm -D --defined-only`)
must be declared in an installed header, include/devharness/*.h (its name appears
there outside comments); helpers of base/ (text, JSON reading, child processes) and the
runtime's internals are linked hidden. A symbol exported but declared nowhere is an
undocumented API a program could come to depend on. The first point checks the checker
on a made-up export. Prints TAP."""
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok, skip  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BUILD = os.environ.get("BUILD", "build")
LIB = os.path.join(BUILD if os.path.isabs(BUILD) else os.path.join(ROOT, BUILD), "lib", "libdevharness.so")


def declared_names():
    """Every identifier in include/devharness/*.h outside comments and strings."""
    names = set()
    for h in sorted(glob.glob(os.path.join(ROOT, "include", "devharness", "*.h"))):
        with open(h, encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        text = re.sub(r"//[^\n]*", " ", text)
        text = re.sub(r'"(?:\\.|[^"\\])*"', " ", text)
        names.update(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", text))
    return names


def undeclared(exports, names):
    return sorted(s for s in exports if s not in names and s not in ("_init", "_fini"))


names = declared_names()
ok(undeclared({"dh_device_call", "dh_text_quote"}, names) == ["dh_text_quote"],
   "the checker flags an export that no header declares (dh_text_quote) and not a declared one")
if not os.path.exists(LIB):
    skip("libdevharness.so exports only declared symbols", "%s is not built" % LIB)
else:
    out = subprocess.run(["nm", "-D", "--defined-only", LIB], capture_output=True, text=True, check=True).stdout
    exports = {p[2] for p in (l.split() for l in out.splitlines()) if len(p) == 3 and p[1] in "TDBRWVi"}
    bad = undeclared(exports, names)
    ok(exports and not bad, "libdevharness.so exports %d symbols, each declared in include/devharness/" % len(exports),
       "exported but declared in no installed header:\n" + "\n".join(bad))
print("1..%d" % count())
