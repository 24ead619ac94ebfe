#!/usr/bin/python3
"""tests/layering/store.t — nothing outside store/ opens the results store
(docs/architecture.md "Layers"; store/README.md).

The SQLite store is the results room's: its schema, migrations, import and readers live
in store/, and every other room reaches it through store/store.h (C) or store/py/
dh_store.py (Python). So no product file outside store/ (every room of
tests/layering/rooms.py, plus examples/, ci/ and mk/) includes <sqlite3.h> or calls
sqlite3_open*() (C, C++), and no Python file there calls sqlite3.connect() or imports
connect from sqlite3. Tests are not product code and may open a store to check it.
The first points check the checker on made-up lines. Prints TAP."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import count, ok  # noqa: E402
from rooms import product_files  # noqa: E402

OWNER = "store"
EXTRA = ("examples", "ci", "mk")  # product code that is no room of rooms.py
C_RULES = ((re.compile(r"^\s*#\s*include\s*[<\"]sqlite3\.h[>\"]"), "includes sqlite3.h"),
           (re.compile(r"\bsqlite3_open\w*\s*\("), "calls sqlite3_open*()"))
PY_RULES = ((re.compile(r"\bsqlite3\s*\.\s*connect\s*\("), "calls sqlite3.connect()"),
            (re.compile(r"^\s*from\s+sqlite3\s+import\s+.*\bconnect\b"), "imports sqlite3.connect"))


def rules_for(name):
    if name.endswith((".c", ".h", ".cc")):
        return C_RULES
    if name.endswith(".py"):
        return PY_RULES
    return ()


def breaches(rel, text):
    """'rel:line: what' for every line of text that opens the store, [] for store/'s files."""
    if rel.split("/", 1)[0] == OWNER:
        return []
    out = []
    rules = rules_for(rel)
    for n, line in enumerate(text.splitlines(), 1):
        for rx, what in rules:
            if rx.search(line):
                out.append("%s:%d: %s (only %s/ opens the store)" % (rel, n, what, OWNER))
    return out


ok(breaches("cli/run_record.c", "#include <sqlite3.h>\n") and
   breaches("bench/main.c", "  int rc = sqlite3_open_v2(p, &db, 0, NULL);\n") and
   breaches("bench/scripts/compare.py", "db = sqlite3.connect(path)\n") and
   breaches("cmdline/py/dh_args.py", "from sqlite3 import connect\n"),
   "the checker refuses sqlite3.h, sqlite3_open_v2(), sqlite3.connect() and 'from sqlite3 import connect' "
   "outside store/")
ok(not breaches("store/store.c", "#include <sqlite3.h>\nsqlite3_open_v2(a, b, c, d);\n") and
   not breaches("store/py/dh_store.py", "db = sqlite3.connect(path)\n") and
   not breaches("cli/run_record.c", "/* recorded by dh_store_record (store/store.h) */\n"),
   "the checker allows store/'s own files and a mere mention of the store")

files = product_files((".c", ".h", ".cc", ".py"), EXTRA)
bad = [b for rel, text in files for b in breaches(rel, text)]
ok(files and not bad, "%d product files: none outside store/ opens the results store" % len(files), "\n".join(bad))
print("1..%d" % count())
