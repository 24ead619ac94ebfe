#!/usr/bin/python3
"""tests/store/readonly.t — the store's readers only read (store/py/dh_store.py, store/store.c):
`history`, `dashboard` and `export` work on a store on a read-only bind mount (as root) or
in a folder this user cannot write (otherwise), where SQLite's mode=ro cannot make the
WAL's -shm file; `store stats` of a path that does not exist creates nothing; `store
import` and `store stats` of a foreign SQLite file refuse it without changing a byte.
Needs $DEVHARNESS; prints TAP.
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


def dh(*args):
    p = subprocess.run([DH] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    return p.returncode, p.stdout + p.stderr


def read_only_copy(tmp, store):
    """(path of the store where it cannot be written, how, cleanup) or (None, why, None)."""
    ro = os.path.join(tmp, "ro")
    os.mkdir(ro)
    if os.geteuid() == 0:
        p = subprocess.run(["mount", "--bind", "-o", "ro", os.path.dirname(store), ro],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            return None, "root, but mount --bind -o ro failed: %s" % p.stdout.strip(), None
        return os.path.join(ro, os.path.basename(store)), "a read-only bind mount", \
            lambda: subprocess.run(["umount", ro])
    os.chmod(os.path.dirname(store), 0o555)
    return store, "a folder this user cannot write", lambda: os.chmod(os.path.dirname(store), 0o755)


def main():
    if not DH or not os.path.exists(DH):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        return 0
    print("1..6")
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, "data"))
        store = os.path.join(tmp, "data", "s.sqlite")
        b = subprocess.run([sys.executable, os.path.join(HERE, "lib", "fixture_store.py"), store, "--nights", "3",
                            "--devharness", DH, "--bundles", os.path.join(tmp, "bundles")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
        path, how, undo = read_only_copy(tmp, store) if b.returncode == 0 else (None, "no fixture store", None)
        try:
            if path is None:
                for what in ("history", "dashboard", "export"):
                    ok(True, "# SKIP %s on a store that cannot be written: %s" % (what, how))
            else:
                rc, out = dh("history", "--store", path)
                ok(rc in (0, 1) and "devharness history: 2 device(s)" in out,
                   "history reads a store on %s (exit %d)" % (how, rc), out[-1500:])
                rc, out = dh("dashboard", "--store", path, "-o", os.path.join(tmp, "dash"))
                ok(rc == 0 and os.path.exists(os.path.join(tmp, "dash", "index.html")),
                   "dashboard reads a store on %s (exit %d)" % (how, rc), out[-1500:])
                rc, out = dh("export", "--store", path, "--format", "csv", "-o", os.path.join(tmp, "e.csv"))
                ok(rc == 0 and os.path.getsize(os.path.join(tmp, "e.csv")) > 100,
                   "export reads a store on %s (exit %d)" % (how, rc), out[-1500:])
        finally:
            if undo:
                undo()
        typo = os.path.join(tmp, "typo.sqlite")
        rc, out = dh("store", "stats", "--store", typo)
        ok(rc == 2 and not os.path.exists(typo) and "no such store" in out,
           "store stats --store typo.sqlite: exit 2, 'no such store', nothing created (exit %d)" % rc, out)
        foreign = os.path.join(tmp, "foreign.sqlite")
        db = sqlite3.connect(foreign)
        db.execute("CREATE TABLE t (x)")
        db.commit()
        db.close()
        before = open(foreign, "rb").read()
        rc1, out1 = dh("store", "stats", "--store", foreign)
        rc2, out2 = dh("store", "import", "--store", foreign, os.path.join(tmp, "bundles", sorted(
            os.listdir(os.path.join(tmp, "bundles")))[0]) if os.path.isdir(os.path.join(tmp, "bundles")) else tmp)
        after = open(foreign, "rb").read()
        ok(rc1 == 2 and "not a devharness store" in out1, "store stats of a foreign SQLite file: exit 2, says so",
           out1)
        ok(rc2 == 2 and before == after and not os.path.exists(foreign + "-wal"),
           "store import into a foreign SQLite file: exit 2, its bytes unchanged, no WAL made (exit %d)" % rc2,
           out2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
