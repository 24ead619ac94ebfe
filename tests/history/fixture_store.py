#!/usr/bin/python3
"""tests/history/fixture_store.py — a real results store (SQLite, the schema of
cli/store_schema.sql applied as is) filled with twelve synthetic nightly runs, for the
read side's tests (history, compare --baseline store:last=N, dashboard).

The nights, for devices sim:0 (derived:sim0) and cpu:0 (derived:cpu0), seeded:
  - clause copy.flip passes on nights 1-4 and fails from night 5 on (a real flip);
  - clause sync.flaky changes verdict three times on nights 7-12 (commit bbbb, the
    latest runs' commit): flaky;
  - clause mem.was_flaky changes on every night 1-6 (commit aaaa) and passes on 7-12:
    not flaky (its changes were under another commit);
  - clause copy.steady passes every night; clause launch.skip is skipped (sim:0 only);
  - benchmark copy/h2d/pageable/<dev>/harness/65536/manual_time is 20 % slower from
    night 7 on sim:0 (noise 1 %); every other series is noise only (1-3 %), its raw
    twin included.
usage: fixture_store.py OUT.sqlite [--nights N] [--step-night K] [--flip-night F]
The database is what `devharness store import` writes for bundles of these nights
(docs/results.md); rows are written directly so these tests need nothing but the
schema file."""
import argparse
import hashlib
import os
import random
import sqlite3
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCHEMA = os.path.join(ROOT, "cli", "store_schema.sql")
DEVICES = [("derived:sim0", "sim", "devharness sim", "sim:0"),
           ("derived:cpu0", "cpu", "AMD EPYC", "cpu:0")]
STEP_BENCH = "copy/h2d/pageable/{spec}/harness/65536/manual_time"
BENCHES = [(STEP_BENCH, 0, 20000.0, 0.01),
           ("copy/h2d/pageable/{spec}/raw/65536/manual_time", 1, 15000.0, 0.02),
           ("sync/idle/{spec}/harness/manual_time", 0, 900.0, 0.03),
           ("launch/roundtrip/{spec}/harness/manual_time", 0, 5000.0, 0.015)]


def verdicts(night, flip_night):
    """{clause: (status, waived)} of one night (1-based)."""
    flaky = {7: "pass", 8: "fail", 9: "pass", 10: "pass", 11: "pass", 12: "fail"}
    return {
        "copy.flip": ("pass" if night < flip_night else "fail", 0),
        "copy.steady": ("pass", 0),
        "sync.flaky": (flaky.get(night, "pass"), 0),
        "mem.was_flaky": (("pass", "fail")[night % 2] if night <= 6 else "pass", 0),
        "launch.skip": ("skip", 0),
    }


def build(path, nights=12, step_night=7, flip_night=5, seed=25):
    rnd = random.Random(seed)
    if os.path.exists(path):
        os.unlink(path)
    db = sqlite3.connect(path)
    db.executescript(open(SCHEMA, encoding="utf-8").read())
    db.execute("INSERT INTO schema_version VALUES (1, '2026-11-01T00:00:00Z', 'runs, machines, "
               "devices, clause results, benchmark results')")
    db.execute("INSERT INTO machines VALUES (1, ?, 'ci-7', 'Linux', '6.1.0', 'x86_64', "
               "'AMD EPYC', 2, 2, 1, 8000000000)", (hashlib.sha256(b"ci-7").hexdigest(),))
    for i, (sid, backend, name, _) in enumerate(DEVICES, 1):
        db.execute("INSERT INTO devices VALUES (?, ?, ?, ?)", (i, sid, backend, name))
    for night in range(1, nights + 1):
        commit = "aaaa" if night <= 6 else "bbbb"
        uuid = f"00000000-0000-4000-8000-{night:012d}"
        day = f"2026-11-{night:02d}"
        db.execute("INSERT INTO runs VALUES (?, ?, 1, 'run', '[\"devharness\",\"run\"]', ?, ?, "
                   "'0.1.0', ?, 1, 1, 'default', '', 0, 1, ?)",
                   (night, uuid, f"{day}T02:00:00Z", f"{day}T02:30:00Z", commit, f"{day}T03:00:00Z"))
        for dev_id, (_, backend, _, spec) in enumerate(DEVICES, 1):
            db.execute("INSERT INTO run_devices VALUES (?, ?, ?, ?, '', ?)",
                       (night, dev_id, spec, f"{backend}-drv 1", backend))
            for clause, (status, waived) in verdicts(night, flip_night).items():
                if clause == "launch.skip" and backend != "sim":
                    continue
                db.execute("INSERT INTO clause_results VALUES (?, ?, ?, ?, ?, ?, 1.5, 1)",
                           (night, dev_id, clause, status, waived,
                            "" if status == "pass" else f"{clause} {status}"))
            for tmpl, twin, base, noise in BENCHES:
                name = tmpl.format(spec=spec)
                level = base * (1.2 if tmpl == STEP_BENCH and backend == "sim" and
                                night >= step_night else 1.0)
                med = level * (1 + rnd.gauss(0, noise))
                db.execute("INSERT INTO bench_results VALUES (?, ?, ?, ?, 'ns', 9, ?, ?, ?, NULL)",
                           (night, dev_id, name, twin, med, med * 0.99, med * 1.01))
    db.commit()
    db.close()


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--nights", type=int, default=12)
    ap.add_argument("--step-night", type=int, default=7)
    ap.add_argument("--flip-night", type=int, default=5)
    a = ap.parse_args(argv)
    build(a.out, a.nights, a.step_night, a.flip_night)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
