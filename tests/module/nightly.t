#!/usr/bin/python3
"""`devharness module check` in the nightly (issue 36; docs/kernel-libraries.md "In the
nightly"): `module check --bundle DIR` writes a result bundle (manifest.json of command
"module check", valid against docs/bundle.schema.json, info.json, module.tap,
module.junit.xml, module.cases.json) that `devharness verify` accepts and `store
import` records (the cases on their device as clause CASE@LIB:FUNCTION); a failing
library's bundle holds its failed case; a folder that already holds a bundle is a
one-line usage error (exit 2) that leaves it as it was; `run --module LIB.so` runs
module check after conformance into module-NAME.* of the results folder, fails the
run on a failed case and names it after the results line. Prints TAP. Needs
$DEVHARNESS and $BUILD (set by `make test`)."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok, skip  # noqa: E402

dh = os.environ.get("DEVHARNESS", "")
build = os.environ.get("BUILD", "build")
kl = os.path.join(build, "tests", "module")
if not dh or not os.path.exists(dh) or not os.path.exists(os.path.join(kl, "kl_simoff.so")):
    print("1..0 # SKIP DEVHARNESS not set or the corpus is not built (make test builds it)")
    sys.exit(0)
here = os.path.dirname(os.path.abspath(__file__))
good, simoff = os.path.join(kl, "kl_good.so"), os.path.join(kl, "kl_simoff.so")
tmp = tempfile.mkdtemp(prefix="dh-module-nightly-")
FILES = ["info.json", "manifest.json", "module.cases.json", "module.junit.xml", "module.tap"]


def run(*args, timeout=300):
    return subprocess.run([dh, *args], capture_output=True, text=True, timeout=timeout)


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


# ------------------------------------------------ a passing library's bundle
b1 = os.path.join(tmp, "good")
r = run("module", "check", good, "--device", "cpu:0", "--bundle", b1, "-q")
ok(r.returncode == 0, "module check kl_good.so --device cpu:0 --bundle DIR: exit 0", r.stdout + r.stderr)
files = sorted(os.listdir(b1)) if os.path.isdir(b1) else []
ok(files == FILES, "the bundle holds manifest.json, info.json, module.tap, module.junit.xml, module.cases.json",
   files)
man = load(os.path.join(b1, "manifest.json"))
ok(man.get("command") == "module check" and man.get("exit_code") == 0 and
   sorted(man.get("files", {})) == [f for f in FILES if f != "manifest.json"] and
   man.get("command_line", [])[:3] == ["devharness", "module", "check"],
   "manifest.json: command \"module check\", exit_code 0, every other file listed", json.dumps(man)[:1500])
schema_check = os.path.join(os.environ.get("VENV", os.path.join(build, "venv")), "bin", "check-jsonschema")
if os.path.exists(schema_check):
    v = subprocess.run([schema_check, "--schemafile", os.path.join(here, "..", "..", "docs", "bundle.schema.json"),
                        os.path.join(b1, "manifest.json")], capture_output=True, text=True)
    ok(v.returncode == 0, "manifest.json validates against docs/bundle.schema.json", v.stdout + v.stderr)
else:
    skip("manifest.json validates against docs/bundle.schema.json", "check-jsonschema not in the venv")
cases = load(os.path.join(b1, "module.cases.json"))
recs = cases.get("cases", [])
ok(cases.get("schema") == "devharness.module.cases" and recs and all(c["status"] in ("pass", "skip") for c in recs)
   and {"module.results", "module.call_valid"} <= {c["clause"] for c in recs}
   and any(c.get("subject") == "add cpu:0" for c in recs),
   "module.cases.json: one record per case, each with its subject (\"add cpu:0\"), none failed",
   json.dumps(recs)[:1500])
r = run("verify", b1)
ok(r.returncode == 0 and "%d module cases: each ran once" % len(recs) in r.stdout,
   "verify DIR: exit 0, every module case once", r.stdout + r.stderr)

# ------------------------------------------------ a failing library's bundle, imported
b2 = os.path.join(tmp, "simoff")
r = run("module", "check", simoff, "--device", "sim:0", "--bundle", b2, "-q")
recs = load(os.path.join(b2, "module.cases.json")).get("cases", [])
failed = [c for c in recs if c["status"] == "fail"]
ok(r.returncode == 1 and any(c["clause"] == "module.results" and c.get("subject") == "add sim:0" and c["message"]
                             for c in failed),
   "kl_simoff.so on sim:0: exit 1, module.cases.json holds the failed module.results case of add sim:0 with its message",
   r.stdout + r.stderr + json.dumps(failed)[:1000])
man = load(os.path.join(b2, "manifest.json"))
ok(man.get("exit_code") == 1 and run("verify", b2).returncode == 0,
   "its manifest says exit_code 1; verify accepts the bundle (every case ran once)", json.dumps(man)[:800])
store = os.path.join(tmp, "store.sqlite")
r = run("store", "import", "--store", store, b2)
rows = []
if os.path.exists(store):
    db = sqlite3.connect(store)
    rows = db.execute("SELECT d.spec, c.clause, c.status FROM clause_results c JOIN run_devices d "
                      "USING (run_id, device_id) WHERE c.clause LIKE 'module.%'").fetchall()
    db.close()
ok(r.returncode == 0 and ("sim:0", "module.results@kl_simoff.so:add", "fail") in rows and
   ("sim:0", "module.call_valid@kl_simoff.so:add", "pass") in rows and
   not any(c == "module.metadata@kl_simoff.so:add" for _, c, _ in rows),
   "store import records the module cases on sim:0 as CASE@LIB:FUNCTION (module.results failed; "
   "module.metadata, of no device, left out)", r.stdout + r.stderr + str(rows[:20]))
b3 = os.path.join(tmp, "changed")
shutil.copytree(b2, b3)
with open(os.path.join(b3, "module.cases.json"), "a") as f:
    f.write(" ")
r = run("verify", b3)
ok(r.returncode == 1 and "module.cases.json" in r.stderr + r.stdout,
   "verify refuses a bundle whose module.cases.json changed (exit 1, naming it)", r.stdout + r.stderr)

# ------------------------------------------------ a folder that already holds a bundle
before = open(os.path.join(b1, "manifest.json")).read()
r = run("module", "check", good, "--device", "cpu:0", "--bundle", b1)
lines = r.stderr.strip().splitlines()
ok(r.returncode == 2 and len(lines) == 1 and "already holds a bundle" in lines[0] and "not ok" not in r.stdout
   and open(os.path.join(b1, "manifest.json")).read() == before,
   "--bundle DIR of an existing bundle: one usage line, exit 2, nothing run, the bundle unchanged",
   r.stdout + r.stderr)

# ------------------------------------------------ run --module
out = os.path.join(tmp, "runs")
r = run("run", "--module", simoff, "--device", "sim:0", "--no-bench", "--no-store", "--output", out)
latest = os.path.join(out, "latest")
got = sorted(f for f in os.listdir(latest) if f.startswith("module-")) if os.path.isdir(latest) else []
tail = r.stdout[r.stdout.find("\nresults: "):]
ok(r.returncode == 1 and "\n  not ok sim:0 module.results add: add at size 64: " in tail,
   "run --module kl_simoff.so --device sim:0: exit 1, names the failed module.results case after the results line",
   r.stdout[-2500:] + r.stderr[-800:])
ok(got == ["module-kl_simoff.cases.json", "module-kl_simoff.junit.xml", "module-kl_simoff.tap"] and
   "module kl_simoff FAILED" in " ".join(r.stdout.split()),
   "the run folder holds module-kl_simoff.tap, .junit.xml, .cases.json; the steps table says the step FAILED",
   (got, r.stdout[-1500:]))
man = load(os.path.join(latest, "manifest.json"))
ok("module-kl_simoff.cases.json" in man.get("files", {}) and man.get("exit_code") == 1 and
   run("verify", latest).returncode == 0,
   "the run's manifest lists the module files, exit_code 1; verify accepts the folder", json.dumps(man)[:800])
r = run("run", "--module", good, "--device", "sim:0", "--no-bench", "--no-store", "--output", out)
ok(r.returncode == 0 and "module kl_good" in r.stdout and "not ok" not in r.stdout,
   "run --module kl_good.so --device sim:0: exit 0", r.stdout[-1500:] + r.stderr[-800:])
r = run("run", "--module", os.path.join(tmp, "missing.so"), "--output", out)
ok(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "--module" in r.stderr,
   "run --module of a missing file: one usage line, exit 2", r.stdout + r.stderr)
print("1..%d" % count())
shutil.rmtree(tmp, ignore_errors=True)
