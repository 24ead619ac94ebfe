"""store/py/dh_store.py — the read side of the devharness results store (SQLite,
schema store/schema.sql, docs/results.md "The store"), for compare.py
(--baseline store:last=N), history.py and dashboard.py: one reader, so all three see
the same runs in the same order.

Opens the store read-only (never migrates, never writes). Runs are ordered by
started_at, then run_id (import order) for runs that started in the same second.
Every error is a ValueError with one line naming the store.
"""
import collections
import json
import os
import sqlite3
import urllib.parse

from dh_store_schema import SCHEMA_VERSION, STATUSES  # generated from store/schema.sql
from dh_units import UNIT_NS

DEFAULT_STORE = "results/devharness.sqlite"

# One case as the store records it: status is one of STATUSES (the verdict: pass, fail,
# skip, xfail), waived whether a waiver decided it (a column of its own, never a
# status), message the failure, skip or xfail reason ("" none).
Case = collections.namedtuple("Case", "status waived message")


def read_manifest(path):
    """A result bundle's manifest.json (docs/results.md "The bundle") as a dict.
    ValueError: unreadable, not JSON, or no devices array."""
    try:
        with open(path, encoding="utf-8") as f:
            m = json.load(f)
    except (OSError, ValueError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not a readable bundle manifest: {e}") from e
    if not isinstance(m, dict) or not isinstance(m.get("devices"), list):
        raise ValueError(f"{path}: not a bundle manifest (no devices array)")
    return m


def _connect_ro(path):
    """mode=ro, else (a WAL store on read-only media or of another user: its -shm cannot
    be made) immutable=1, SQLite's read-only-media mode: no locks, no files written
    (https://www.sqlite.org/uri.html; a writer at the same time is not seen)."""
    quoted = urllib.parse.quote(os.path.abspath(path))
    try:
        db = sqlite3.connect(f"file:{quoted}?mode=ro", uri=True, timeout=10)
        db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.OperationalError:
        db = sqlite3.connect(f"file:{quoted}?mode=ro&immutable=1", uri=True, timeout=10)
    db.row_factory = sqlite3.Row
    return db


def open_store(path):
    """A read-only sqlite3 connection to the store at `path` (rows as sqlite3.Row).
    ValueError: missing file, not SQLite, no schema_version table, or a schema newer
    than SCHEMA_VERSION (written by a newer devharness)."""
    if not os.path.isfile(path):
        raise ValueError(f"{path}: no such store (record runs with devharness run or "
                         f"devharness store import)")
    try:
        db = _connect_ro(path)
        v = db.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
    except sqlite3.DatabaseError as e:
        raise ValueError(f"{path}: not a devharness store: {e}") from e
    if v is None or v < 1:
        raise ValueError(f"{path}: not a devharness store: schema_version is empty")
    if v > SCHEMA_VERSION:
        raise ValueError(f"{path}: store schema version {v} is newer than this devharness "
                         f"reads ({SCHEMA_VERSION}); use a newer devharness")
    return db


def query(db, path, sql, args=()):
    """db.execute(sql, args).fetchall(), a DatabaseError turned into one ValueError line."""
    try:
        return db.execute(sql, args).fetchall()
    except sqlite3.DatabaseError as e:
        raise ValueError(f"{path}: cannot read the store: {e}") from e


def devices(db, path, device=None):
    """Every device of the store as dicts {device_id, stable_id, backend, name, spec}
    (spec: the spec it had in its latest run), optionally only those whose stable_id
    or latest spec equals `device`. Ordered by latest spec, then stable_id."""
    rows = query(db, path, """
        SELECT d.device_id, d.stable_id, d.backend, d.name,
               (SELECT rd.spec FROM run_devices rd JOIN runs r USING (run_id)
                WHERE rd.device_id = d.device_id
                ORDER BY r.started_at DESC, r.run_id DESC LIMIT 1) AS spec
        FROM devices d""")
    out = [dict(r) for r in rows]
    for d in out:
        d["spec"] = d["spec"] or ""
    if device is not None:
        out = [d for d in out if device in (d["stable_id"], d["spec"])]
    return sorted(out, key=lambda d: (d["spec"], d["stable_id"]))


def _runs_with(db, path, device_id, table, column):
    """The runs of `device_id` that have rows in `table` (clause_results or
    bench_results: fixed names, never user text), oldest first, as dicts of run_id,
    uuid, started_at, git_commit, exit_code and run_devices.`column`."""
    rows = query(db, path, f"""
        SELECT r.run_id, r.uuid, r.started_at, r.git_commit, r.exit_code, rd.{column}
        FROM runs r JOIN run_devices rd USING (run_id)
        WHERE rd.device_id = ? AND EXISTS (SELECT 1 FROM {table} x
                                          WHERE x.run_id = r.run_id AND x.device_id = ?)
        ORDER BY r.started_at, r.run_id""", (device_id, device_id))
    return [dict(r) for r in rows]


def clause_runs(db, path, device_id):
    """The runs that recorded clause results of `device_id`, oldest first: a list of
    dicts {run_id, uuid, started_at, git_commit, exit_code, driver_version, target}."""
    return _runs_with(db, path, device_id, "clause_results", "driver_version, rd.target")


def clause_results(db, path, device_id, run_ids):
    """{(run_id, clause): Case} of `device_id` in `run_ids`, the columns as stored.
    ValueError: a status outside STATUSES (the schema's CHECK forbids it)."""
    out = {}
    for i in range(0, len(run_ids), 500):
        part = run_ids[i:i + 500]
        marks = ",".join("?" * len(part))
        for r in query(db, path, f"""
                SELECT run_id, clause, status, waived, message FROM clause_results
                WHERE device_id = ? AND run_id IN ({marks})""", (device_id, *part)):
            if r["status"] not in STATUSES:
                raise ValueError(f"{path}: clause_results of run {r['run_id']}: unknown status "
                                 f"{r['status']!r}")
            out[(r["run_id"], r["clause"])] = Case(r["status"], bool(r["waived"]), r["message"])
    return out


def bench_runs(db, path, device_id):
    """The runs that recorded benchmark results of `device_id`, oldest first: dicts
    {run_id, uuid, started_at, git_commit, exit_code, spec}."""
    return _runs_with(db, path, device_id, "bench_results", "spec")


def bench_results(db, path, device_id, run_ids):
    """{run_id: {name: row}} of `device_id` in `run_ids`; row is a dict with median_ns,
    q1_ns, q3_ns (converted from the row's unit), repetitions, twin, bytes_per_second."""
    out = {}
    for i in range(0, len(run_ids), 500):
        part = run_ids[i:i + 500]
        marks = ",".join("?" * len(part))
        for r in query(db, path, f"""
                SELECT run_id, name, twin, unit, repetitions, median, q1, q3, bytes_per_second
                FROM bench_results WHERE device_id = ? AND run_id IN ({marks})""",
                       (device_id, *part)):
            f = UNIT_NS.get(r["unit"])
            if f is None:
                raise ValueError(f"{path}: bench_results of run {r['run_id']}: unknown unit "
                                 f"{r['unit']!r}")
            out.setdefault(r["run_id"], {})[r["name"]] = {
                "median_ns": r["median"] * f, "q1_ns": r["q1"] * f, "q3_ns": r["q3"] * f,
                "repetitions": r["repetitions"], "twin": r["twin"],
                "bytes_per_second": r["bytes_per_second"]}
    return out


def respec(name, old_spec, new_spec):
    """A benchmark name recorded with device spec old_spec, written with new_spec (a
    device can be sim:1 in one run and sim:0 in the next; its stable_id says it is the
    same device)."""
    if not old_spec or old_spec == new_spec:
        return name
    parts = name.split("/")
    return "/".join(new_spec if p == old_spec else p for p in parts)


def twin_of(name):
    """The raw twin's name of a harness benchmark (its "harness" name component as
    "raw", as the store's twin rows are named; compare.py pairs them the same way), or
    None for a name without a "harness" component."""
    parts = name.split("/")
    if "harness" not in parts:
        return None
    parts[parts.index("harness")] = "raw"
    return "/".join(parts)
