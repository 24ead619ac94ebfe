#!/usr/bin/python3
"""tests/store/lib/synth_bundle.py — writes a synthetic result bundle (docs/results.md) of
a fleet-sized night: DEVICES devices x CLAUSES clauses of conformance cases and
BENCHMARKS benchmarks per device (harness and twin rows, REPS repetitions each), with a
valid manifest (every file's size and SHA-256), for measuring `devharness store
import` and for filling a store with many nights.

usage: synth_bundle.py OUT [--devices 8] [--clauses 116] [--benchmarks 400] [--reps 9]
                           [--night N] [--seed S]
Night N sets the start time (2026-01-01 + N days) and is part of the run UUID, so
nights differ; the same arguments give the same bundle."""
import argparse
import hashlib
import json
import os
import random
import uuid


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--devices", type=int, default=8)
    ap.add_argument("--clauses", type=int, default=116)
    ap.add_argument("--benchmarks", type=int, default=400)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--night", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed * 100003 + a.night)
    os.makedirs(a.out)
    fp = hashlib.sha256(b"synthetic-host").hexdigest()
    specs = ["sim:%d" % i for i in range(a.devices)]
    clauses = ["synth.clause_%03d" % i for i in range(a.clauses)]
    cases = [{"device": s, "backend": "sim", "clause": c, "status": "pass" if rnd.random() > 0.02 else "skip",
              "waived": False, "message": "", "duration_ms": round(rnd.uniform(0.5, 20), 3)}
             for s in specs for c in clauses]
    with open(os.path.join(a.out, "conformance.cases.json"), "w") as f:
        json.dump({"schema": "devharness.conformance.cases", "version": 1, "shard": {"index": 1, "total": 1},
                   "exit_code": 0, "devices": specs, "clauses": clauses, "cases": cases}, f)
    rows = []
    for s in specs:
        for b in range(a.benchmarks // 2):
            for side in ("harness", "raw"):
                base = 10.0 * (1 + b % 17) * (1.1 if side == "harness" else 1.0)
                name = "copy/h2d/b%03d/%s/%s/%d/manual_time" % (b, s, side, 1 << (b % 24))
                for r in range(a.reps):
                    rows.append({"name": name, "run_name": name, "run_type": "iteration", "repetitions": a.reps,
                                 "repetition_index": r, "threads": 1, "iterations": 100,
                                 "real_time": base * rnd.uniform(0.97, 1.03), "cpu_time": 1.0, "time_unit": "us",
                                 "bytes_per_second": 1e9 * rnd.uniform(0.97, 1.03)})
    with open(os.path.join(a.out, "bench.json"), "w") as f:
        json.dump({"context": {"date": "synthetic"}, "benchmarks": rows}, f)
    files = {n: {"bytes": os.path.getsize(os.path.join(a.out, n)), "sha256": sha256(os.path.join(a.out, n))}
             for n in ("conformance.cases.json", "bench.json")}
    day = "2026-%02d-%02dT02:17:00Z" % (1 + (a.night // 28) % 12, 1 + a.night % 28)
    manifest = {
        "schema": "devharness.bundle", "schema_version": 1,
        "run_uuid": str(uuid.UUID(int=rnd.getrandbits(128), version=4)),
        "command": "run", "command_line": ["devharness", "run"], "started_at": day, "ended_at": day,
        "exit_code": 0, "devharness": {"version": "0.1.0", "git_commit": "0" * 40},
        "shard": {"index": 1, "total": 1}, "profile": "default", "waivers_digest": "",
        "machine": {"fingerprint": fp, "hostname": "synthetic", "os": "Linux", "kernel": "6", "arch": "x86_64",
                    "cpu_model": "synthetic", "cores": 2, "pus": 2, "numa_nodes": 1, "memory_bytes": 1 << 33},
        "devices": [{"spec": s, "backend": "sim", "stable_id": "derived:" + hashlib.sha256(s.encode()).hexdigest(),
                     "id_source": "derived", "name": "devharness sim", "driver_version": "synthetic",
                     "api_version": "1", "target": "sim", "pci_bus_id": "", "uuid": ""} for s in specs],
        "files": files, "shards": []}
    with open(os.path.join(a.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
