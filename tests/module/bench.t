#!/usr/bin/python3
"""`devharness bench --suite module --module LIB.so` on the corpus (tests/module/):
for kl_good.so every exported function gets a harness (through tvm-ffi) and a raw
(direct C call of its symbol) benchmark per device, each measured without error, and
the summary pairs them (a ratio per function; no figure is asserted: a 2-core shared VM
is noisy); kl_nometa.so's benchmarks are skipped saying "no type schema" (it reports
no signature either); TVM-compiled libraries without a type schema, built here with the
venv's TVM (a vadd with a symbolic n, a 16x16 static matmul), are measured from the
signature they report (dh_func_signature_probe), a harness/raw ratio printed for each,
and their `__tvm_ffi_main` alias does not fail the run; --suite module without --module
and an unreadable --module exit 2. Prints TAP. Needs $DEVHARNESS and $BUILD (set by
`make test`); the TVM points are `# SKIP` without the venv's TVM ($DEVHARNESS_VENV_PY,
else $BUILD/venv/bin/python)."""
import json
import math
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok, skip  # noqa: E402

dh = os.environ.get("DEVHARNESS", "")
kl = os.path.join(os.environ.get("BUILD", "build"), "tests", "module")
if not dh or not os.path.exists(dh) or not os.path.exists(os.path.join(kl, "kl_good.so")):
    print("1..0 # SKIP DEVHARNESS not set or the corpus is not built (make test builds it)")
    sys.exit(0)
tmp = tempfile.mkdtemp(prefix="dh-module-bench-")


def bench(lib, out, *extra):
    return subprocess.run([dh, "bench", "--suite", "module", "--module", lib, "--quick", "--out", out, "-q", *extra],
                          capture_output=True, text=True, timeout=600)


def iteration_runs(path):
    """A bench --out JSON ({} when unreadable) and {name: benchmark} of its iteration rows."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        doc = {}
    return doc, {b["name"]: b for b in doc.get("benchmarks", []) if b.get("run_type", "iteration") == "iteration"}


out = os.path.join(tmp, "good.json")
r = bench(os.path.join(kl, "kl_good.so"), out, "--device", "cpu:0", "--benchmark_filter=module/.*/cpu:0/")
ok(r.returncode == 0, "bench --suite module --module kl_good.so --device cpu:0: exit 0", r.stdout + r.stderr)
doc, runs = iteration_runs(out)
for fn in ("add", "fill", "sum"):
    for side in ("harness", "raw"):
        name = "module/%s/cpu:0/%s" % (fn, side)
        b = runs.get(name, {})
        ok(b and not b.get("error_occurred") and b.get("real_time", 0) > 0 and b.get("iterations", 0) > 0,
           "%s measured (%s ns per call)" % (name, b.get("real_time", "-")), json.dumps(b)[:400])
pairs = {p.get("harness"): p for p in doc.get("devharness_summary", {}).get("harness_raw_pairs", [])}
ok(all(pairs.get("module/%s/cpu:0/harness" % fn, {}).get("raw") == "module/%s/cpu:0/raw" % fn
       for fn in ("add", "fill", "sum")), "the summary pairs each harness call with its direct call",
   json.dumps(doc.get("devharness_summary", {}).get("harness_raw_pairs", []))[:600])
ok(doc.get("context", {}).get("devharness.module", "").endswith("kl_good.so"),
   "the JSON context names the library (devharness.module)", json.dumps(doc.get("context", {}))[:300])

out = os.path.join(tmp, "nometa.json")
r = bench(os.path.join(kl, "kl_nometa.so"), out, "--device", "cpu:0")
try:
    with open(out) as f:
        bs = json.load(f)["benchmarks"]
except (OSError, ValueError, KeyError):
    bs = []
ok(len(bs) == 6 and all(b.get("error_occurred") and "no type schema" in b.get("error_message", "") for b in bs),
   "kl_nometa.so: its 6 benchmarks are skipped, each saying 'no type schema'", json.dumps(bs)[:600])

# TVM-compiled, no type schema: measured from the signature the function reports (the
# corpus tests/module/tvm_corpus.py builds).
venv_py = os.environ.get("DEVHARNESS_VENV_PY") or os.path.join(os.environ.get("BUILD", "build"), "venv", "bin", "python")
tvm_missing = None
if not os.path.exists(venv_py):
    tvm_missing = "no venv python (%s)" % venv_py
elif subprocess.run([venv_py, "-c", "import tvm"], capture_output=True, timeout=120).returncode != 0:
    tvm_missing = "the venv's python has no TVM (import tvm failed)"
else:
    r = subprocess.run([venv_py, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tvm_corpus.py"), tmp],
                       capture_output=True, text=True, timeout=300)
    ok(r.returncode == 0, "the venv's TVM builds vadd.so (symbolic n) and matmul.so (16x16), no type schema",
       r.stdout + r.stderr)
for fn, desc in (("vadd", "vadd (A, B, C: Tensor([n], float32))"), ("matmul", "matmul (Tensor([16, 16], float32) x 3)")):
    names = ("%s.so: exit 0 (its __tvm_ffi_main alias included)" % fn,
             "%s measured from its reported signature, harness and raw" % desc,
             "%s: a harness/raw ratio row printed (a real number)" % fn)
    if tvm_missing:
        for name in names:
            skip(name, tvm_missing)
        continue
    out = os.path.join(tmp, fn + ".json")
    r = subprocess.run([dh, "bench", "--suite", "module", "--module", os.path.join(tmp, fn + ".so"), "--device", "cpu:0",
                        "--quick", "--verbose", "--out", out], capture_output=True, text=True, timeout=600)
    ok(r.returncode == 0, names[0], r.stdout + r.stderr)
    doc, runs = iteration_runs(out)
    bs = [runs.get("module/%s/cpu:0/%s" % (fn, side), {}) for side in ("harness", "raw")]
    ok(all(b and not b.get("error_occurred") and b.get("real_time", 0) > 0 and b.get("iterations", 0) > 0 for b in bs),
       names[1] + " (%s / %s ns per call)" % tuple(b.get("real_time", "-") for b in bs), json.dumps(bs)[:600])
    m = re.search(r"^\s+module/%s/cpu:0/harness\s+(\S+)\s+\(harness " % fn, r.stdout, re.M)
    try:
        ratio = float(m.group(1)) if m else float("nan")
    except ValueError:
        ratio = float("nan")
    ok(math.isfinite(ratio) and ratio > 0, names[2] + " (%s)" % (m.group(1) if m else "-"),
       "\n".join(line for line in r.stdout.splitlines() if "module/" in line or "==" in line))

for args, msg in ((["bench", "--suite", "module"], "--suite module needs --module LIB.so"),
                  (["bench", "--module", os.path.join(tmp, "missing.so")], "--module: '")):
    r = subprocess.run([dh, *args], capture_output=True, text=True, timeout=120)
    ok(r.returncode == 2 and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1,
       "%s: exit 2, one line: %s" % (" ".join(args[1:]).replace(tmp, "TMP"), msg), r.stdout + r.stderr)

print("1..%d" % count())
