#!/usr/bin/python3
"""Capabilities found at init (backend.h ABI 1.5 query_caps) reach every reader.

faulty_querycaps (tests/conformance/faulty_querycaps.c) is the sim, declaring the sim's
caps, whose query_caps answers them plus DH_CAP_SINGLE_QUEUE, fails, or answers a flag
no DH_CAP_* defines ($DH_QUERY_CAPS). Checked:
  - the runner's parent, which never initialises the backend, takes the found flags
    from the device probe: the clauses that need two queues SKIP "single queue";
  - the case child, which does initialise it, sees them too: cap.single_queue fails
    (the sim makes real streams) and nothing else does;
  - `info --json` lists the found flags, not the declared ones;
  - a query_caps that fails, or answers an unknown flag, leaves the backend without a
    device whose reason names query_caps, and every clause SKIPs with it (exit 3).
Prints TAP; needs $DEVHARNESS and $BUILD (set by `make test`)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import ok  # noqa: E402

dh = os.environ.get("DEVHARNESS", "")
lib = os.path.join(os.environ.get("BUILD", "build"), "tests", "conformance", "libdevharness_faulty_querycaps.so")
if not dh or not os.path.exists(dh) or not os.path.exists(lib):
    print("1..0 # SKIP DEVHARNESS not set or %s not built" % lib)
    sys.exit(0)
MULTI_QUEUE = {"copy.on_stream", "stream.sync_from_to", "stream.per_thread", "stream.env_copies"}
print("1..8")


def conformance(how, *extra):
    env = dict(os.environ)
    env.pop("DH_QUERY_CAPS", None)
    if how:
        env["DH_QUERY_CAPS"] = how
    return subprocess.run([dh, "conformance", "--plugin", lib, "--device", "faulty_querycaps:0", "--timeout", "30"]
                          + list(extra), env=env, capture_output=True, text=True, timeout=600)


p = conformance(None, "--filter", "stream.*,copy.on_stream,cap.*")
skipped = dict(re.findall(r"^    ok \d+ - (\S+) # SKIP (.*)$", p.stdout, re.M))
failed = set(re.findall(r"^    not ok \d+ - (\S+)", p.stdout, re.M))
ok(all(skipped.get(c, "").startswith("single queue") for c in MULTI_QUEUE),
   "the parent skips the clauses that need two queues with the found DH_CAP_SINGLE_QUEUE (%s)"
   % ", ".join("%s: %s" % (c, skipped.get(c, "ran")) for c in sorted(MULTI_QUEUE)), p.stdout)
ok(failed == {"cap.single_queue"} and p.returncode == 1,
   "the case child sees the found flag: cap.single_queue fails, nothing else (exit %d, failed: %s)"
   % (p.returncode, ", ".join(sorted(failed)) or "none"), p.stdout + p.stderr)
ok("create_stream returned" in p.stdout, "cap.single_queue says the found claim is false", p.stdout)

with tempfile.TemporaryDirectory(prefix="dh-querycaps-") as tmp:
    shutil.copy(lib, tmp)
    env = dict(os.environ, DEVHARNESS_PLUGIN_PATH=tmp)
    env.pop("DH_QUERY_CAPS", None)
    q = subprocess.run([dh, "info", "--json", "--device", "faulty_querycaps:0"], env=env, capture_output=True,
                       text=True, timeout=300)
    caps = None
    try:
        for b in json.loads(q.stdout)["backends"]:
            if b["name"] == "faulty_querycaps":
                caps = b["caps"]
    except (ValueError, KeyError, TypeError):
        pass
    ok(caps is not None and "single_queue" in caps and "async_copy" in caps,
       "info --json lists the found flags (the sim's plus single_queue): %s" % caps, q.stdout + q.stderr)

for how, want in (("fail", "query_caps: querycaps: the device did not answer"),
                  ("bits", "flags no DH_CAP_* defines (0x100000)")):
    p = conformance(how, "--filter", "attr.*")
    ok(p.returncode == 3 and "# Subtest: faulty_querycaps (no device)" in p.stdout,
       "query_caps %s: the backend has no device (exit %d, 3 expected)" % (how, p.returncode), p.stdout + p.stderr)
    ok(want in p.stdout, "query_caps %s: every clause skips naming it ('%s')" % (how, want), p.stdout)
