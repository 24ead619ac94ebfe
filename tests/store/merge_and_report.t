#!/usr/bin/python3
"""ci/merge-and-report.sh, the nightly pipelines' merge-and-report job, on this machine:
three shard bundles of conformance on sim:0 and one `devharness run` results folder
are merged, verified, recorded in a store (the run folder's .failed siblings left out)
and, where this build has the dashboard command, rendered. With a shard missing the
job exits 1 (verify). docs/ci.md, docs/results.md. Prints TAP. Needs $DEVHARNESS."""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from taplib import count, ok  # noqa: E402
from bundle_common import DH, dh, require_devharness, ROOT  # noqa: E402

require_devharness()
SCRIPT = os.path.join(ROOT, "ci", "merge-and-report.sh")
SEL = ["--device", "sim:0", "--filter", "mem.*,stream.*"]
tmp = tempfile.mkdtemp(prefix="dh-mar-")
try:
    for i in (1, 2, 3):
        dh("conformance", *SEL, "--bundle", os.path.join(tmp, "shards", "shard-%d" % i), "-q",
           env={"CI_NODE_INDEX": str(i), "CI_NODE_TOTAL": "3"})
    p = dh("run", "--device", "sim:0", "--no-bench", "--no-store", "--output", os.path.join(tmp, "runs"), "-q")
    ok(p.returncode == 0, "a run folder to record", p.stderr)
    os.makedirs(os.path.join(tmp, "runs", "run-19700101-000000.failed"))
    store = os.path.join(tmp, "store", "s.sqlite")
    env = dict(os.environ, DEVHARNESS=DH)
    p = subprocess.run(["sh", SCRIPT, store, os.path.join(tmp, "report"), os.path.join(tmp, "shards"),
                        os.path.join(tmp, "runs")], capture_output=True, text=True, env=env, timeout=300)
    ok(p.returncode == 0 and "each ran exactly once" in p.stdout, "merge-and-report: exit 0, verify passed",
       p.stdout + p.stderr)
    ok(os.path.exists(os.path.join(tmp, "report", "merged", "manifest.json")), "the merged bundle is in OUT/merged")
    reports = [os.path.join(tmp, "report", "merged", f)
               for f in ("conformance.tap", "conformance.junit.xml", "conformance.summary.json")]
    ok(all(os.path.getsize(f) > 0 for f in reports if os.path.exists(f)) and all(os.path.exists(f) for f in reports)
       and "merged reports in" in p.stdout, "OUT/merged holds the merged TAP, JUnit and summary (the job's artifact)",
       p.stdout + p.stderr)
    db = sqlite3.connect(store)
    runs = db.execute("SELECT command FROM runs ORDER BY command").fetchall()
    db.close()
    ok(runs == [("merge",), ("run",)], "the store holds the merged shards and the run", str(runs))
    has_dash = dh("dashboard", "--help").returncode == 0
    ok(os.path.isdir(os.path.join(tmp, "report", "dashboard")) if has_dash
       else "no dashboard command" in p.stdout, "dashboard rendered, or said to be unavailable in this build",
       p.stdout)
    shutil.rmtree(os.path.join(tmp, "shards", "shard-2"))
    p = subprocess.run(["sh", SCRIPT, store, os.path.join(tmp, "report2"), os.path.join(tmp, "shards")],
                       capture_output=True, text=True, env=env, timeout=300)
    ok(p.returncode == 1 and "shard 2/3 missing" in p.stdout, "a shard missing: the job exits 1 (verify)",
       p.stdout + p.stderr)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print("1..%d" % count())
