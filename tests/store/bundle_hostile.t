#!/usr/bin/python3
"""tests/store/bundle_hostile.t — damaged and hostile result bundles (store/bundle_read.c,
store/import.c; docs/results.md "The bundle"): `verify` and `store import` read only
regular files inside the bundle (a FIFO, a link to /dev/zero and a link leaving the
bundle are refused, never read), refuse a case on a device the manifest does not list,
a second bundle under a stored run UUID with other contents, an empty or non-UUID run
id, a start time that is not ISO 8601, `files: {}`, a cases file of a newer version and
a case that is not an object; each within 5 s, in one line naming it, and the store is
unchanged. Needs $DEVHARNESS; prints TAP.
"""
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

DH = os.environ.get("DEVHARNESS", "")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import ok  # noqa: E402  (tests/taplib.py)


def dh(*args):
    t0 = time.monotonic()
    try:
        p = subprocess.run([DH] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=20)
        return p.returncode, p.stdout + p.stderr, time.monotonic() - t0
    except subprocess.TimeoutExpired:
        return None, "timed out after 20 s", time.monotonic() - t0


def redigest(bundle, name):
    """Rewrites the manifest's entry of `name` after the file was edited."""
    mp = os.path.join(bundle, "manifest.json")
    m = json.load(open(mp))
    data = open(os.path.join(bundle, name), "rb").read()
    m["files"][name] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    json.dump(m, open(mp, "w"), indent=2)


def edit_json(bundle, name, fn):
    p = os.path.join(bundle, name)
    doc = json.load(open(p))
    fn(doc)
    json.dump(doc, open(p, "w"), indent=2)
    if name != "manifest.json":
        redigest(bundle, name)


def store_rows(store):
    if not os.path.exists(store):
        return None
    db = sqlite3.connect("file:%s?mode=ro" % store, uri=True)
    rows = [db.execute("SELECT COUNT(*) FROM %s" % t).fetchone()[0] for t in ("runs", "clause_values", "devices")]
    db.close()
    return rows


def main():
    if not DH or not os.path.exists(DH):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        return 0
    tmp = tempfile.mkdtemp(prefix="dh-hostile-bundle-")
    try:
        good = os.path.join(tmp, "good")
        rc, out, _ = dh("conformance", "--device", "sim:0", "--filter", "mem.*", "--bundle", good, "-q")
        if rc not in (0, 1) or not os.path.exists(os.path.join(good, "manifest.json")):
            print("1..1")
            ok(False, "a bundle of sim:0's mem.* clauses", out)
            return 0
        store = os.path.join(tmp, "s.sqlite")
        rc, out, _ = dh("store", "import", "--store", store, good)
        cases = [
            ("a FIFO in place of conformance.tap", "conformance.tap",
             lambda b: (os.unlink(os.path.join(b, "conformance.tap")), os.mkfifo(os.path.join(b, "conformance.tap")))),
            ("a link to /dev/zero in place of conformance.tap", "conformance.tap",
             lambda b: (os.unlink(os.path.join(b, "conformance.tap")),
                        os.symlink("/dev/zero", os.path.join(b, "conformance.tap")))),
            ("a link leaving the bundle", "leaves the bundle",
             lambda b: (shutil.copy(os.path.join(b, "conformance.tap"), os.path.join(tmp, "outside.tap")),
                        os.unlink(os.path.join(b, "conformance.tap")),
                        os.symlink(os.path.join(tmp, "outside.tap"), os.path.join(b, "conformance.tap")))),
            ("a case on a device the manifest does not list", "sim:7",
             lambda b: edit_json(b, "conformance.cases.json", lambda d: d["cases"][0].update(device="sim:7"))),
            ("run_uuid \"\"", "run_uuid", lambda b: edit_json(b, "manifest.json", lambda d: d.update(run_uuid=""))),
            ("a run UUID of 1 MB", "run_uuid",
             lambda b: edit_json(b, "manifest.json", lambda d: d.update(run_uuid="a" * 1000000))),
            ("started_at \"yesterday\"", "started_at",
             lambda b: edit_json(b, "manifest.json", lambda d: d.update(started_at="yesterday"))),
            ("files: {}", "files", lambda b: edit_json(b, "manifest.json", lambda d: d.update(files={}))),
            ("a cases file of version 99", "version",
             lambda b: edit_json(b, "conformance.cases.json", lambda d: d.update(version=99))),
            ("a case that is not an object", "case 0",
             lambda b: edit_json(b, "conformance.cases.json", lambda d: d["cases"].__setitem__(0, "pass"))),
            ("the stored run UUID with another start time", "other contents",
             lambda b: edit_json(b, "manifest.json", lambda d: d.update(started_at="2020-01-01T00:00:00Z"))),
        ]
        print("1..%d" % (1 + 2 * len(cases)))
        before = store_rows(store)
        ok(rc == 0 and before and before[0] == 1, "the good bundle imports (rows %s)" % before, out)
        for i, (what, needle, damage) in enumerate(cases):
            b = os.path.join(tmp, "b%d" % i)
            shutil.copytree(good, b, symlinks=True)
            if "other contents" not in needle:  # a run of its own, not the stored one
                edit_json(b, "manifest.json", lambda d: d.update(run_uuid="%08d-0000-4000-8000-000000000000" % (i + 1)))
            damage(b)
            for cmd in (["verify", b], ["store", "import", "--store", store, b]):
                if cmd[0] == "verify" and "other contents" in needle:
                    rc, out, secs = dh("store", "import", "--store", store, b)  # only import knows the store
                else:
                    rc, out, secs = dh(*cmd)
                lines = [l for l in out.strip().splitlines() if l.startswith("devharness")]
                ok(rc not in (0, None) and secs < 5 and needle in out and len(lines) <= 2
                   and store_rows(store) == before,
                   "%s %s: refused in %.1f s (exit %s), naming '%s'; the store unchanged"
                   % (cmd[0] if cmd[0] == "verify" else "store import", what, secs, rc, needle), out[-1200:])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
