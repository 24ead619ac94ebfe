#!/usr/bin/python3
"""tests/store/history_text.t — `devharness history` prints text from bundles safely
(store/py/history.py term and cut): a device name and a clause id with an OSC title
sequence, BEL, a clear-screen CSI, a C1 CSI and a bidi override reach the terminal
escaped, never raw; a 20,000-character clause id is cut in its column instead of
padding every line. The store is tests/store/lib/fixture_store.py's (3 nights), edited
with sqlite3 as a hostile bundle would have written it. Needs $DEVHARNESS; prints TAP.
"""
import os
import sqlite3
import subprocess
import sys
import tempfile

DH = os.environ.get("DEVHARNESS", "")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from taplib import ok  # noqa: E402  (tests/taplib.py)

EVIL = "evil\x1b]0;pwned\x07\x1b[2J\u202e\x9b31mname"


def history(store, *args):
    p = subprocess.run([DH, "history", "--store", store] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stdout, p.stderr


def main():
    if not DH or not os.path.exists(DH):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        store = os.path.join(tmp, "s.sqlite")
        b = subprocess.run([sys.executable, os.path.join(HERE, "lib", "fixture_store.py"), store, "--nights", "3",
                            "--flip-night", "3", "--devharness", DH],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
        if b.returncode != 0:
            print("1..1")
            ok(False, "fixture store built", b.stdout)
            return 0
        db = sqlite3.connect(store)
        db.execute("UPDATE devices SET name = ? WHERE backend = 'sim'", (EVIL,))
        db.execute("UPDATE clauses SET clause = ? WHERE clause = 'copy.flip'", ("copy.flip." + EVIL,))
        db.execute("UPDATE clauses SET clause = ? WHERE clause = 'copy.steady'", ("x" * 20000,))
        db.commit()
        db.close()
        print("1..4")
        for args in ((), ("--all",)):
            rc, out, err = history(store, *args)
            ok(rc in (0, 1) and out and b"\x1b" not in out + err and b"\x07" not in out + err
               and "\u202e".encode() not in out and "\x9b".encode() not in out,
               "history %s: no raw ESC, BEL, C1 CSI or bidi override in its output (exit %d, %d bytes)"
               % (" ".join(args) or "(diff)", rc, len(out)), repr(out[-1500:]) + repr(err[-500:]))
        rc, out, err = history(store)
        text = out.decode("utf-8", "replace")
        ok("copy.flip.evil\\x1b]0;pwned\\x07\\x1b[2J\\u202E\\u009B31mname" in text,
           "history shows the hostile clause id escaped, visibly (the new failure)", text)
        rc, out, err = history(store, "--all")
        longest = max((len(l) for l in out.decode("utf-8", "replace").splitlines()), default=0)
        ok(longest < 400 and "x" * 57 + "..." in out.decode("utf-8", "replace"),
           "history --all: a 20,000-character clause id is cut to 60 characters ('...'); longest line %d "
           "characters, %d bytes in all" % (longest, len(out)), out.decode("utf-8", "replace")[:3000])
    return 0


if __name__ == "__main__":
    sys.exit(main())
