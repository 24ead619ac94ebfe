-- store/schema.sql — the schema of the devharness results store (SQLite 3),
-- documented in docs/results.md "The store". Compiled into the devharness command
-- (store/store.c) and read as is by anything else that opens a store.
--
-- Migration scheme. This file is the list of every migration, oldest first. Each
-- starts with a line
--     -- migration N: what it does
-- and holds the statements that take a store from version N-1 to version N. The
-- store's version is MAX(version) of the table schema_version (0 for a new file).
-- Opening a store applies every migration above its version, each in one
-- transaction that also inserts its row into schema_version; a store that already
-- had tables (version >= 1) is first copied to PATH.bak-vOLD (SQLite's backup API),
-- and the copy is kept. A store whose version is newer than the last migration here
-- is refused (written by a newer devharness), never changed. Never edit a migration
-- that has shipped: append a new one.
--
-- Connection settings (set by every writer on open, not stored by this file):
-- PRAGMA journal_mode = WAL, PRAGMA foreign_keys = ON, busy timeout 10 s.
--
-- Times are ISO 8601 UTC text ("2026-11-27T11:00:03Z"); durations in milliseconds.

-- migration 1: runs, machines, devices, clause results, benchmark results
CREATE TABLE schema_version (
  version     INTEGER PRIMARY KEY,           -- the migration number
  applied_at  TEXT NOT NULL,                 -- when this store got it
  description TEXT NOT NULL                  -- the migration's title line
);

-- One row per machine fingerprint (manifest.json "machine").
CREATE TABLE machines (
  machine_id   INTEGER PRIMARY KEY,
  fingerprint  TEXT NOT NULL UNIQUE,         -- sha256 hex of the fields below
  hostname     TEXT NOT NULL,
  os           TEXT NOT NULL,                -- uname sysname
  kernel       TEXT NOT NULL,                -- uname release
  arch         TEXT NOT NULL,                -- uname machine
  cpu_model    TEXT NOT NULL,                -- hwloc CPUModel of the first package
  cores        INTEGER NOT NULL,             -- hwloc cores
  pus          INTEGER NOT NULL,             -- hwloc processing units
  numa_nodes   INTEGER NOT NULL,             -- hwloc NUMA nodes
  memory_bytes INTEGER NOT NULL              -- hwloc total memory
);

-- One row per result bundle (its manifest.json); imported once (uuid is unique).
CREATE TABLE runs (
  run_id             INTEGER PRIMARY KEY,
  uuid               TEXT NOT NULL UNIQUE,   -- manifest run_uuid (RFC 4122 v4 text)
  machine_id         INTEGER NOT NULL REFERENCES machines(machine_id),
  command            TEXT NOT NULL,          -- run | conformance | bench | merge
  command_line       TEXT NOT NULL,          -- JSON array of the arguments
  started_at         TEXT NOT NULL,
  ended_at           TEXT NOT NULL,
  devharness_version TEXT NOT NULL,
  git_commit         TEXT NOT NULL,          -- "" when built outside a git checkout
  shard_index        INTEGER NOT NULL,       -- 1-based; 1 of 1 when not sharded
  shard_total        INTEGER NOT NULL,
  profile            TEXT NOT NULL,          -- default | tvm | strict
  waivers_digest     TEXT NOT NULL,          -- sha256 hex of the waiver files, "" none
  exit_code          INTEGER NOT NULL,
  bundle_schema      INTEGER NOT NULL,       -- manifest schema_version
  imported_at        TEXT NOT NULL
);
CREATE INDEX runs_started ON runs(started_at);

-- One row per stable device identity (manifest.json devices[].stable_id).
CREATE TABLE devices (
  device_id  INTEGER PRIMARY KEY,
  stable_id  TEXT NOT NULL UNIQUE,           -- "uuid:<hex>", "pci:<machine>/0000:01:00.0", "derived:<sha256>"
  backend    TEXT NOT NULL,                  -- cpu, sim, opencl, vulkan, cuda, tvm-...
  name       TEXT NOT NULL,                  -- the device's name as the backend reports it
  pci_bus_id TEXT NOT NULL DEFAULT '',       -- "0000:01:00.0" where the API gives one
  uuid       TEXT NOT NULL DEFAULT ''        -- 32 hex digits where the API gives one
);

-- A device as one run saw it: its spec in that run and what may change between runs.
CREATE TABLE run_devices (
  run_id         INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  device_id      INTEGER NOT NULL REFERENCES devices(device_id),
  spec           TEXT NOT NULL,              -- "sim:0" in this run
  driver_version TEXT NOT NULL,              -- "" when the API gives none
  api_version    TEXT NOT NULL,
  target         TEXT NOT NULL,              -- target tag or kind, "" none
  PRIMARY KEY (run_id, device_id)
);

-- Clause ids and benchmark names, stored once (a night of 8 devices x 116 clauses and
-- 400 benchmarks per device repeats every name 8 times; 1,000 nights would repeat them
-- 8,000 times).
CREATE TABLE clauses (
  clause_id INTEGER PRIMARY KEY,
  clause    TEXT NOT NULL UNIQUE                 -- clause id, e.g. "mem.alloc.alignment"
);
CREATE TABLE benchmarks (
  benchmark_id INTEGER PRIMARY KEY,
  name         TEXT NOT NULL UNIQUE,             -- Google Benchmark run_name
  twin         INTEGER NOT NULL CHECK (twin IN (0, 1))  -- 1: a raw vendor-API twin row
);

-- One row per (run, device, clause) that ran (a shard's cases only). Read it through
-- the view clause_results.
CREATE TABLE clause_values (
  run_id      INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  device_id   INTEGER NOT NULL REFERENCES devices(device_id),
  clause_id   INTEGER NOT NULL REFERENCES clauses(clause_id),
  status      TEXT NOT NULL CHECK (status IN ('pass', 'fail', 'skip', 'xfail')),
  waived      INTEGER NOT NULL CHECK (waived IN (0, 1)),  -- a waiver decided it
  message     TEXT NOT NULL,                     -- failure / skip / xfail reason, "" none
  duration_ms REAL NOT NULL,
  shard_index INTEGER NOT NULL,                  -- the shard that ran it (1-based)
  PRIMARY KEY (run_id, device_id, clause_id)
) WITHOUT ROWID;
CREATE INDEX clause_values_by_clause ON clause_values(device_id, clause_id, run_id);

-- One row per (run, device, benchmark): the harness row and its raw twin are separate
-- benchmarks (benchmarks.twin). Values are per iteration in unit (real time). Read it
-- through the view bench_results.
CREATE TABLE bench_values (
  run_id           INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  device_id        INTEGER NOT NULL REFERENCES devices(device_id),
  benchmark_id     INTEGER NOT NULL REFERENCES benchmarks(benchmark_id),
  unit             TEXT NOT NULL,                -- ns | us | ms | s
  repetitions      INTEGER NOT NULL,             -- repetitions measured
  median           REAL NOT NULL,
  q1               REAL NOT NULL,                -- first quartile (linear interpolation)
  q3               REAL NOT NULL,                -- third quartile
  bytes_per_second REAL,                         -- median, when the benchmark reports it
  PRIMARY KEY (run_id, device_id, benchmark_id)
) WITHOUT ROWID;
CREATE INDEX bench_values_by_benchmark ON bench_values(device_id, benchmark_id, run_id);

-- What readers query: one row per case and per benchmark with the names spelled out.
-- Inserting into a view stores the name once and the row in the table under it.
CREATE VIEW clause_results AS
  SELECT v.run_id, v.device_id, c.clause, v.status, v.waived, v.message, v.duration_ms, v.shard_index
  FROM clause_values v JOIN clauses c USING (clause_id);
CREATE TRIGGER clause_results_insert INSTEAD OF INSERT ON clause_results BEGIN
  INSERT OR IGNORE INTO clauses (clause) VALUES (NEW.clause);
  INSERT INTO clause_values (run_id, device_id, clause_id, status, waived, message, duration_ms, shard_index)
  VALUES (NEW.run_id, NEW.device_id, (SELECT clause_id FROM clauses WHERE clause = NEW.clause), NEW.status,
          NEW.waived, NEW.message, NEW.duration_ms, NEW.shard_index);
END;
CREATE VIEW bench_results AS
  SELECT v.run_id, v.device_id, b.name, b.twin, v.unit, v.repetitions, v.median, v.q1, v.q3, v.bytes_per_second
  FROM bench_values v JOIN benchmarks b USING (benchmark_id);
CREATE TRIGGER bench_results_insert INSTEAD OF INSERT ON bench_results BEGIN
  INSERT OR IGNORE INTO benchmarks (name, twin) VALUES (NEW.name, NEW.twin);
  INSERT INTO bench_values (run_id, device_id, benchmark_id, unit, repetitions, median, q1, q3, bytes_per_second)
  VALUES (NEW.run_id, NEW.device_id, (SELECT benchmark_id FROM benchmarks WHERE name = NEW.name), NEW.unit,
          NEW.repetitions, NEW.median, NEW.q1, NEW.q3, NEW.bytes_per_second);
END;

-- migration 2: indexes for history by commit and for a device's runs
CREATE INDEX runs_by_commit ON runs(git_commit, started_at);
CREATE INDEX run_devices_by_device ON run_devices(device_id, run_id);
