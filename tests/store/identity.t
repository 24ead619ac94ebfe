#!/usr/bin/python3
"""Stable device identity in result bundles (docs/results.md "Device identity"): a
device whose backend reports its PCI bus id (the fake CUDA driver of
tests/backends/cuda, through the cuda backend's pci_bus_id function and
cuDeviceGetPCIBusId) is `pci:<machine>/<bus id>` in the manifest, its bus id in
`info --json`; a sim device is `derived:<sha256>`, the same in two runs; the store
keeps one device row per stable id. Prints TAP. Needs $DEVHARNESS and $BUILD (set by `make test`)."""
import json
import os
import shutil
import sqlite3
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from taplib import count, ok, skip  # noqa: E402
from bundle_common import dh, have_validator, manifest, require_devharness, ROOT, schema_errors  # noqa: E402

require_devharness()
fake = os.path.join(os.path.abspath(os.environ.get("BUILD", os.path.join(ROOT, "build"))), "tests", "cuda-fake", "dev")
tmp = tempfile.mkdtemp(prefix="dh-ident-")
B = lambda name: os.path.join(tmp, name)  # noqa: E731
try:
    for run in ("a", "b"):
        p = dh("conformance", "--device", "sim:0", "--filter", "attr.*", "--bundle", B("sim-" + run), "-q")
        ok(p.returncode == 0, "sim bundle %s written" % run, p.stderr)
    da, db = manifest(B("sim-a"))["devices"][0], manifest(B("sim-b"))["devices"][0]
    ok(da["id_source"] == "derived" and da["stable_id"].startswith("derived:") and da["stable_id"] == db["stable_id"]
       and da["pci_bus_id"] == "" and da["uuid"] == "",
       "sim:0 has a derived stable id, the same in two runs", json.dumps([da, db]))
    if not os.path.exists(os.path.join(fake, "libcuda.so.1")):
        skip("vendor identity through the fake CUDA driver", "fake driver %s not built" % fake)
    else:
        env = {"LD_LIBRARY_PATH": fake}
        p = dh("info", "--json", "--device", "cuda:0", env=env)
        info = json.loads(p.stdout) if p.returncode == 0 else {}
        ident = [d.get("identity") for b in info.get("backends", []) for d in b.get("devices", [])]
        ok(ident == [{"pci_bus_id": "0000:3b:00.0", "uuid": None}],
           "info --json: cuda:0's identity from its pci_bus_id function (cuDeviceGetPCIBusId)",
           p.stdout[-800:] + p.stderr)
        p = dh("conformance", "--device", "cuda:0", "--filter", "attr.*", "--bundle", B("cuda"), "-q", env=env)
        d = manifest(B("cuda"))["devices"][0] if os.path.exists(os.path.join(B("cuda"), "manifest.json")) else {}
        fp = manifest(B("cuda"))["machine"]["fingerprint"] if d else ""
        ok(d.get("id_source") == "pci" and d.get("stable_id") == "pci:%s/0000:3b:00.0" % fp[:16]
           and d.get("pci_bus_id") == "0000:3b:00.0" and d.get("uuid") == "",
           "the manifest keys cuda:0 by this machine and its PCI bus id", json.dumps(d) + p.stderr)
        if have_validator():
            err = schema_errors(B("cuda"))
            ok(err == "", "the cuda bundle's manifest validates against docs/bundle.schema.json", err)
        p = dh("store", "import", "--store", B("s.sqlite"), B("sim-a"), B("sim-b"), B("cuda"))
        con = sqlite3.connect(B("s.sqlite"))
        rows = con.execute("SELECT backend, stable_id, pci_bus_id, uuid FROM devices ORDER BY backend").fetchall()
        con.close()
        ok(p.returncode == 0 and len(rows) == 2 and rows[0][0] == "cuda" and rows[0][2] == "0000:3b:00.0"
           and rows[1][1] == da["stable_id"], "store: one row per stable device (cuda by PCI bus id, sim once for two runs)",
           str(rows) + p.stderr)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print("1..%d" % count())
