#!/usr/bin/python3
"""A full disk during `store import` (docs/results.md "The store"): on a small tmpfs
(a private mount namespace, unshare -m), a store with one run, the disk then filled;
importing another bundle fails with one line and exit 1, the transaction rolled back:
once space is freed the store opens, still holds exactly the first run, and the same
import then succeeds. Prints TAP; SKIP where no mount namespace can be made."""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from taplib import count, ok  # noqa: E402
from bundle_common import DH, dh, require_devharness  # noqa: E402

require_devharness()
ns = None
for cand in (["unshare", "-m"], ["unshare", "-rm"]):
    if subprocess.run(cand + ["true"], stderr=subprocess.DEVNULL).returncode == 0:
        ns = cand
        break
if ns is None:
    print("1..0 # SKIP no mount namespace here (unshare -m and -rm refused)")
    sys.exit(0)

SCRIPT = r'''
set -u
mount -t tmpfs -o size=600k tmpfs "$1" || exit 99
"$DH" store import --store "$1/s.sqlite" "$2" >"$4/a.out" 2>&1; echo $? >"$4/a.rc"
dd if=/dev/zero of="$1/fill" bs=4k 2>/dev/null
"$DH" store import --store "$1/s.sqlite" "$3" >"$4/b.out" 2>&1; echo $? >"$4/b.rc"
rm -f "$1/fill"
cp "$1/s.sqlite" "$4/between.sqlite"
"$DH" store import --store "$1/s.sqlite" "$3" >"$4/c.out" 2>&1; echo $? >"$4/c.rc"
cp "$1/s.sqlite" "$4/after.sqlite"
'''
tmp = tempfile.mkdtemp(prefix="dh-full-")
B = lambda name: os.path.join(tmp, name)  # noqa: E731


def read(name):
    try:
        return open(B(name)).read().strip()
    except OSError:
        return ""


def runs(path):
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT COUNT(*) FROM runs").fetchone()[0], con.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        con.close()


try:
    dh("conformance", "--device", "sim:0", "--filter", "mem.*", "--bundle", B("small"), "-q")
    dh("conformance", "--device", "sim:0", "--bundle", B("big"), "-q", env={"DEVHARNESS_SIM_DEVICES": "2"})
    os.makedirs(B("disk"))
    rc = subprocess.run(ns + ["sh", "-c", SCRIPT, "sh", B("disk"), B("small"), B("big"), tmp],
                        env=dict(os.environ, DH=DH), timeout=300).returncode
    ok(rc != 99 and read("a.rc") == "0", "the first import onto the small disk: exit 0", read("a.out"))
    b_out = read("b.out").splitlines()
    ok(read("b.rc") == "1" and len(b_out) >= 1 and any("full" in line or "disk" in line for line in b_out),
       "the import onto the full disk: exit 1, saying the disk is full", read("b.out"))
    n, integrity = runs(B("between.sqlite")) if os.path.exists(B("between.sqlite")) else (-1, "missing")
    ok(n == 1 and integrity == "ok", "after the failed import the store opens, intact, with only the first run",
       "runs %s, integrity %s" % (n, integrity))
    n, integrity = runs(B("after.sqlite")) if os.path.exists(B("after.sqlite")) else (-1, "missing")
    ok(read("c.rc") == "0" and n == 2 and integrity == "ok", "with space again the same import lands",
       read("c.out") + " runs %s" % n)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print("1..%d" % count())
