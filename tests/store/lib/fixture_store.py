#!/usr/bin/python3
"""tests/store/lib/fixture_store.py — twelve synthetic nightly result bundles (manifest.json,
conformance.cases.json, bench.json; docs/results.md "The bundle") recorded into a real
results store with `devharness store import`, for the read side's tests (history,
compare --baseline store:last=N, dashboard).

The nights, for devices sim:0 and cpu:0 of one machine, seeded:
  - clause copy.flip passes on nights 1-4 and fails from night 5 on (a real flip);
  - clause sync.flaky changes verdict three times on nights 7-12 (devharness commit
    bbbb, the latest runs' commit): flaky;
  - clause mem.was_flaky changes on every night 1-6 (commit aaaa) and passes on 7-12:
    not flaky (its changes were under another commit);
  - clause copy.steady passes every night; clause launch.skip is skipped (sim:0 only),
    from night --waived-night on (default: never) by a waiver (status skip, waived);
  - benchmark copy/h2d/pageable/<dev>/harness/65536/manual_time is 20 % slower from
    night 7 on sim:0 (noise 1 %); every other series is noise only (1.5-3 %), its raw
    twin included. Each benchmark has 9 repetitions a night;
  - --extra-clauses N more clauses steady.NNN that pass every night, and --extra-flips M
    clauses flip.NNN that fail from night --flip-night on like copy.flip (default 0:
    a store as big as a real night's, for history's line budget);
  - --seed-fail S (default 0: none): on night S clause copy.steady fails on sim:0 alone
    with the message SEEDED_MESSAGE (a new failure, for the dashboard's first screen);
  - run UUIDs NNNNNNNN-0000-4000-8000-00000000NNNN (N the night), so that their first 8
    digits, history's short run id, differ.
usage: fixture_store.py OUT.sqlite [--nights N] [--step-night K] [--flip-night F]
                        [--waived-night W] [--extra-clauses N] [--extra-flips M] [--seed-fail S]
                        [--bundles DIR] [--devharness PATH]
The bundles are written into DIR (default OUT.sqlite.bundles), then imported."""
import argparse
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MACHINE = {"fingerprint": hashlib.sha256(b"ci-7").hexdigest(), "hostname": "ci-7", "os": "Linux",
           "kernel": "6.1.0", "arch": "x86_64", "cpu_model": "AMD EPYC", "cores": 2, "pus": 2,
           "numa_nodes": 1, "memory_bytes": 8000000000}
DEVICES = [{"spec": "sim:0", "backend": "sim", "stable_id": "derived:" + "5" * 64, "id_source": "derived",
            "name": "devharness sim", "driver_version": "devharness-sim 0.1", "api_version": "1",
            "target": "sim"},
           {"spec": "cpu:0", "backend": "cpu", "stable_id": "derived:" + "c" * 64, "id_source": "derived",
            "name": "AMD EPYC", "driver_version": "6.1.0", "api_version": "", "target": "cpu"}]
STEP_BENCH = "copy/h2d/pageable/{spec}/harness/65536/manual_time"
BENCHES = [(STEP_BENCH, 20000.0, 0.01),
           ("copy/h2d/pageable/{spec}/raw/65536/manual_time", 15000.0, 0.02),
           ("sync/idle/{spec}/harness/manual_time", 900.0, 0.03),
           ("launch/roundtrip/{spec}/harness/manual_time", 5000.0, 0.015)]
SEEDED_MESSAGE = "copy.steady: byte 40961 of 65536 differs after d2h (wrote 0xa5, read 0x5a)"
FLAKY = {7: "pass", 8: "fail", 9: "pass", 10: "pass", 11: "pass", 12: "fail"}


def verdicts(night, flip_night, extra=(0, 0)):
    """{clause: status} of one night (1-based); extra: (--extra-clauses, --extra-flips)."""
    v = {"copy.flip": "pass" if night < flip_night else "fail",
         "copy.steady": "pass",
         "sync.flaky": FLAKY.get(night, "pass"),
         "mem.was_flaky": ("pass", "fail")[night % 2] if night <= 6 else "pass",
         "launch.skip": "skip"}
    v.update({f"steady.{i:03d}": "pass" for i in range(extra[0])})
    v.update({f"flip.{i:03d}": v["copy.flip"] for i in range(extra[1])})
    return v


def write_json(folder, name, doc, files):
    path = os.path.join(folder, name)
    data = json.dumps(doc, indent=1).encode()
    with open(path, "wb") as f:
        f.write(data)
    files[name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def bundle(folder, night, step_night, flip_night, rnd, waived_night=99, extra=(0, 0), seed_fail=0):
    os.makedirs(folder)
    day = f"2026-11-{night:02d}"
    commit = ("a" if night <= 6 else "b") * 40
    cases, bms = [], []
    for d in DEVICES:
        for clause, status in verdicts(night, flip_night, extra).items():
            if clause == "launch.skip" and d["backend"] != "sim":
                continue
            message = "" if status == "pass" else f"{clause}: {status}"
            if night == seed_fail and clause == "copy.steady" and d["backend"] == "sim":
                status, message = "fail", SEEDED_MESSAGE
            cases.append({"device": d["spec"], "backend": d["backend"], "clause": clause, "status": status,
                          "waived": clause == "launch.skip" and night >= waived_night,
                          "message": message, "duration_ms": 1.5})
        for tmpl, base, noise in BENCHES:
            name = tmpl.format(spec=d["spec"])
            level = base * (1.2 if tmpl == STEP_BENCH and d["backend"] == "sim" and night >= step_night else 1.0)
            for i in range(9):
                bms.append({"name": name, "run_name": name, "run_type": "iteration", "repetitions": 9,
                            "repetition_index": i, "iterations": 1000, "time_unit": "ns",
                            "real_time": level * (1 + rnd.gauss(0, noise)), "cpu_time": level})
    files = {}
    specs = [d["spec"] for d in DEVICES]
    write_json(folder, "conformance.cases.json",
               {"schema": "devharness.conformance.cases", "version": 1, "shard": {"index": 1, "total": 1},
                "exit_code": 1 if any(c["status"] == "fail" for c in cases) else 0, "devices": specs,
                "clauses": sorted(verdicts(night, flip_night, extra)), "cases": cases}, files)
    ctx = {f"device.{d['spec']}": f"backend={d['backend']}; name={d['name']}; driver={d['driver_version']}; "
           f"target={d['target']}" for d in DEVICES}
    write_json(folder, "bench.json", {"context": ctx, "benchmarks": bms}, files)
    manifest = {"schema": "devharness.bundle", "schema_version": 1,
                "run_uuid": f"{night:08d}-0000-4000-8000-{night:012d}", "command": "run",
                "command_line": ["devharness", "run"], "started_at": f"{day}T02:00:00Z",
                "ended_at": f"{day}T02:30:00Z", "exit_code": 0,
                "devharness": {"version": "0.1.0", "git_commit": commit},
                "shard": {"index": 1, "total": 1}, "profile": "default", "waivers_digest": "",
                "machine": MACHINE, "devices": DEVICES, "files": files, "shards": []}
    with open(os.path.join(folder, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


def build(out, dh, nights=12, step_night=7, flip_night=5, bundles=None, seed=25, waived_night=99, extra=(0, 0),
          seed_fail=0):
    """Writes the bundles and imports them into `out` (replaced); returns the
    CompletedProcess of `devharness store import`."""
    rnd = random.Random(seed)
    bundles = bundles or out + ".bundles"
    shutil.rmtree(bundles, ignore_errors=True)
    for p in (out, out + "-wal", out + "-shm"):
        if os.path.exists(p):
            os.unlink(p)
    paths = []
    for night in range(1, nights + 1):
        paths.append(os.path.join(bundles, f"night-{night:02d}"))
        bundle(paths[-1], night, step_night, flip_night, rnd, waived_night, extra, seed_fail)
    return subprocess.run([dh, "store", "import", "--store", out, *paths], capture_output=True, text=True)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--nights", type=int, default=12)
    ap.add_argument("--step-night", type=int, default=7)
    ap.add_argument("--flip-night", type=int, default=5)
    ap.add_argument("--waived-night", type=int, default=99)
    ap.add_argument("--extra-clauses", type=int, default=0)
    ap.add_argument("--extra-flips", type=int, default=0)
    ap.add_argument("--seed-fail", type=int, default=0)
    ap.add_argument("--bundles", default=None)
    ap.add_argument("--devharness", default=os.environ.get("DEVHARNESS") or
                    os.path.join(HERE, "..", "..", "..", "build", "bin", "devharness"))
    a = ap.parse_args(argv)
    p = build(a.out, a.devharness, a.nights, a.step_night, a.flip_night, a.bundles, waived_night=a.waived_night,
              extra=(a.extra_clauses, a.extra_flips), seed_fail=a.seed_fail)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    return p.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
