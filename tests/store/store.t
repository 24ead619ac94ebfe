#!/usr/bin/python3
"""The results store (docs/results.md "The store"; store/schema.sql): `store import`
records conformance, bench and merged bundles and is idempotent by run UUID (importing
twice leaves every row count unchanged); `run` writes its results folder as a bundle
and records it; the store is WAL with foreign keys, at the schema's latest version.
Bad input: a truncated bundle, a bundle of a newer schema, a file that is no store, a
store of a newer schema, a store locked by another writer (waits, then one line, exit
1; nothing written) — each refused with one line and the store left as it was. Two
imports at once both land. Prints TAP. Needs $DEVHARNESS (set by `make test`)."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from taplib import count, ok, skip  # noqa: E402
from bundle_common import DH, dh, have_validator, manifest, require_devharness, ROOT, schema_errors  # noqa: E402

require_devharness()

TABLES = ("machines", "runs", "devices", "run_devices", "clause_results", "bench_results")
SEL = ["--device", "sim:0", "--filter", "mem.*,copy.*"]
tmp = tempfile.mkdtemp(prefix="dh-store-")
B = lambda name: os.path.join(tmp, name)  # noqa: E731
STORE = B("s.sqlite")


def counts(path=STORE):
    db = sqlite3.connect(path)
    try:
        return {t: db.execute("SELECT COUNT(*) FROM %s" % t).fetchone()[0] for t in TABLES}
    finally:
        db.close()


def latest_version():
    text = open(os.path.join(ROOT, "store", "schema.sql")).read()
    return max(int(line.split()[2].rstrip(":")) for line in text.splitlines() if line.startswith("-- migration "))


try:
    for i in (1, 2):
        p = dh("conformance", *SEL, "--shard", "%d/2" % i, "--bundle", B("c%d" % i), "-q")
        ok(p.returncode == 0, "conformance shard %d/2 bundle written" % i, p.stderr)
    p = dh("merge", B("c1"), B("c2"), "-o", B("merged"))
    ok(p.returncode == 0, "shards merged", p.stderr)
    p = dh("bench", "--quick", "--device", "sim:0", "--suite", "copy", "--repetitions", "3",
           "--benchmark_filter=h2d/pageable", "--bundle", B("bench"), "-q")
    ok(p.returncode == 0 and os.path.exists(os.path.join(B("bench"), "bench.json")),
       "bench --bundle: bench.json, info.json, manifest.json", p.stdout + p.stderr)
    if have_validator():
        err = schema_errors(B("bench"))
        ok(err == "", "bench bundle's manifest validates against docs/bundle.schema.json", err)
    else:
        skip("bench bundle's manifest validates", "check-jsonschema not in the venv")

    # import, then import again
    bundles = [B("c1"), B("c2"), B("merged"), B("bench")]
    p = dh("store", "import", "--store", STORE, *bundles)
    ok(p.returncode == 0 and p.stdout.count("imported ") == 4, "store import of 4 bundles: exit 0, 4 imported",
       p.stdout + p.stderr)
    first = counts()
    ncases = sum(len(json.load(open(os.path.join(B(c), "conformance.cases.json")))["cases"]) for c in ("c1", "c2"))
    ok(first["runs"] == 4 and first["machines"] == 1 and first["devices"] == 1 and
       first["clause_results"] == 2 * ncases and first["bench_results"] > 0,
       "rows: 4 runs, 1 machine, 1 device, shard cases twice (shards + merged), bench rows",
       json.dumps(first))
    p = dh("store", "import", "--store", STORE, *bundles)
    ok(p.returncode == 0 and p.stdout.count("already in the store") == 4 and counts() == first,
       "importing the same bundles again: exit 0, all skipped, every row count unchanged",
       p.stdout + p.stderr + json.dumps(counts()))
    db = sqlite3.connect(STORE)
    mode = db.execute("PRAGMA journal_mode").fetchone()[0]
    ver = db.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
    rows = db.execute("SELECT name, twin, unit, repetitions, median, q1, q3 FROM bench_results").fetchall()
    merged_run = db.execute("SELECT shard_index, shard_total, command FROM runs WHERE uuid = ?",
                            (manifest(B("merged"))["run_uuid"],)).fetchone()
    shards = db.execute("SELECT DISTINCT c.shard_index FROM clause_results c JOIN runs r USING (run_id) "
                        "WHERE r.command = 'merge' ORDER BY 1").fetchall()
    fk_bad = db.execute("PRAGMA foreign_key_check").fetchall()
    db.close()
    ok(mode == "wal" and ver == latest_version(), "store: WAL journal, schema version %d" % latest_version(),
       "%s %s" % (mode, ver))
    ok(fk_bad == [], "no foreign key violations", str(fk_bad))
    ok(merged_run == (1, 1, "merge") and shards == [(1,), (2,)],
       "the merged bundle is one run whose cases keep their shard (1, 2)", "%s %s" % (merged_run, shards))
    ok(rows and all(r[3] == 3 and r[5] <= r[4] <= r[6] and r[2] in ("ns", "us", "ms", "s") for r in rows)
       and {r[1] for r in rows} == {0, 1},
       "bench rows: 3 repetitions, q1 <= median <= q3, harness and twin rows", "\n".join(map(str, rows[:6])))

    # bad bundles: refused with one line, nothing of them stored
    shutil.copytree(B("c1"), B("newer"))
    m = manifest(B("newer"))
    m["schema_version"] = 99
    m["run_uuid"] = "00000000-0000-4000-8000-000000000001"
    json.dump(m, open(os.path.join(B("newer"), "manifest.json"), "w"))
    p = dh("store", "import", "--store", STORE, B("newer"))
    ok(p.returncode == 2 and "bundle schema version 99 is newer" in p.stderr and counts() == first,
       "a bundle of a newer schema: exit 2, one line, store unchanged", p.stderr)
    shutil.copytree(B("c2"), B("trunc"))
    m = manifest(B("trunc"))
    m["run_uuid"] = "00000000-0000-4000-8000-000000000002"
    json.dump(m, open(os.path.join(B("trunc"), "manifest.json"), "w"))
    path = os.path.join(B("trunc"), "conformance.cases.json")
    with open(path, "r+b") as f:
        f.truncate(100)
    p = dh("store", "import", "--store", STORE, B("trunc"), B("c1"))
    ok(p.returncode == 2 and "truncated or changed" in p.stderr and "already in the store" in p.stdout
       and counts() == first, "a truncated bundle: exit 2 naming it, the others still go on, store unchanged",
       p.stdout + p.stderr)
    os.makedirs(B("manifest-bad"))
    with open(os.path.join(B("manifest-bad"), "manifest.json"), "w") as f:
        f.write('{"schema": "devharness.bundle", ')
    p = dh("store", "import", "--store", STORE, B("manifest-bad"))
    ok(p.returncode == 2 and "manifest.json:1:" in p.stderr and counts() == first,
       "a manifest that does not parse: exit 2, file:line:column", p.stderr)

    # bad stores
    open(B("garbage.sqlite"), "wb").write(b"this is not a database" * 100)
    p = dh("store", "import", "--store", B("garbage.sqlite"), B("c1"))
    ok(p.returncode == 2 and len(p.stderr.splitlines()) == 1 and "not an SQLite database" in p.stderr,
       "a file that is not SQLite: exit 2, one line", p.stderr)
    db = sqlite3.connect(B("other.sqlite"))
    db.execute("CREATE TABLE t (x)")
    db.commit()
    db.close()
    p = dh("store", "import", "--store", B("other.sqlite"), B("c1"))
    ok(p.returncode == 2 and "not a devharness store" in p.stderr, "an SQLite file of another program: exit 2",
       p.stderr)
    shutil.copy(STORE, B("newer.sqlite"))
    db = sqlite3.connect(B("newer.sqlite"))
    db.execute("INSERT INTO schema_version VALUES (99, '2099-01-01T00:00:00Z', 'from the future')")
    db.commit()
    db.close()
    before = counts(B("newer.sqlite"))
    p = dh("store", "import", "--store", B("newer.sqlite"), B("newer"))
    ok(p.returncode == 2 and "schema version 99, newer than this devharness knows" in p.stderr
       and counts(B("newer.sqlite")) == before, "a store of a newer schema: exit 2, left alone", p.stderr)

    # a store of an older schema: migrated on open, a copy of the old one kept
    text = open(os.path.join(ROOT, "store", "schema.sql")).read()
    first_mig = text.split("\n-- migration 2:")[0].split("\n-- migration 1:", 1)[1].split("\n", 1)[1]
    if latest_version() >= 2:
        old = B("old.sqlite")
        con = sqlite3.connect(old)
        con.executescript(first_mig)
        con.execute("INSERT INTO schema_version VALUES (1, '2026-01-01T00:00:00Z', 'v1')")
        con.execute("INSERT INTO machines (fingerprint, hostname, os, kernel, arch, cpu_model, cores, pus, numa_nodes, "
                    "memory_bytes) VALUES ('f', 'old-host', 'Linux', '6', 'x86_64', 'cpu', 1, 1, 1, 1)")
        con.commit()
        con.close()
        p = dh("store", "import", "--store", old, B("c1"))
        con = sqlite3.connect(old)
        ver = con.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
        hosts = con.execute("SELECT COUNT(*) FROM machines").fetchone()[0]
        con.close()
        bak = old + ".bak-v1"
        bver = sqlite3.connect(bak).execute("SELECT MAX(version) FROM schema_version").fetchone()[0] \
            if os.path.exists(bak) else None
        ok(p.returncode == 0 and ver == latest_version() and hosts == 2 and bver == 1
           and "backup kept in" in p.stderr,
           "a version 1 store: migrated to %d on import, its rows kept, the old one kept as .bak-v1"
           % latest_version(), "exit %d ver %s hosts %s backup %s\n%s" % (p.returncode, ver, hosts, bver, p.stderr))

    # a store locked by another writer: waits (busy timeout), then one line, nothing written
    holder = sqlite3.connect(STORE, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    p = dh("store", "import", "--store", STORE, B("c1"), env={"DEVHARNESS_STORE_BUSY_MS": "300"})
    holder.execute("ROLLBACK")
    holder.close()
    ok(p.returncode == 1 and "locked" in p.stderr and counts() == first,
       "a store locked by another writer: exit 1 after the busy timeout, saying locked", p.stdout + p.stderr)

    # two imports at once both land
    for i in (3, 4):
        p = dh("conformance", *SEL, "--bundle", B("c%d" % i), "-q")
    procs = [subprocess.Popen([DH, "store", "import", "--store", B("two.sqlite"), B("c%d" % i)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in (3, 4)]
    outs = [pr.communicate(timeout=120) + (pr.returncode,) for pr in procs]
    ok(all(o[2] == 0 for o in outs) and counts(B("two.sqlite"))["runs"] == 2,
       "two imports into one store at once: both land", "\n".join(o[0] + o[1] for o in outs))

    # run records its results folder
    # (in a GitLab parallel: job: a run is never a shard)
    p = dh("run", *SEL[:2], "--no-bench", "--output", B("results"), "-q",
           env={"CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "3"})
    rs = os.path.join(B("results"), "devharness.sqlite")
    latest = os.path.join(B("results"), "latest")
    ok(p.returncode == 0 and os.path.exists(rs) and os.path.exists(os.path.join(latest, "manifest.json")),
       "run: results folder with manifest.json, recorded in OUTPUT/devharness.sqlite", p.stdout + p.stderr)
    if os.path.exists(rs):
        c = counts(rs)
        n = len(json.load(open(os.path.join(latest, "conformance.cases.json")))["cases"])
        ok(c["runs"] == 1 and c["clause_results"] == n and n > 100, "run's store: 1 run, %d clause results (every case, CI_NODE_* set)" % n,
           json.dumps(c))
    if have_validator():
        err = schema_errors(latest)
        ok(err == "", "run's manifest validates against docs/bundle.schema.json", err)
    p = dh("verify", latest)
    ok(p.returncode == 0, "verify the run's folder: exit 0", p.stdout + p.stderr)
    p = dh("run", *SEL[:2], "--no-bench", "--output", B("results2"), "--no-store", "-q")
    ok(p.returncode == 0 and not os.path.exists(os.path.join(B("results2"), "devharness.sqlite")),
       "run --no-store: no store written", p.stdout + p.stderr)
    # usage errors
    for args, what in ((["store"], "no subcommand"), (["store", "frob"], "unknown subcommand"),
                       (["store", "import", "--store", STORE], "import without a bundle"),
                       (["merge", B("c1")], "merge without -o"), (["verify"], "verify without a bundle")):
        p = dh(*args)
        ok(p.returncode == 2 and len(p.stderr.splitlines()) == 1, "%s: exit 2, one line" % what, p.stderr)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print("1..%d" % count())
