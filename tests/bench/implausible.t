#!/usr/bin/python3
"""tests/bench/implausible.t — bench checks that what it timed was a finished copy
(bench/suites/copy.c verify_copy): after the timed loop fresh bytes are copied once more
and read back, and a row whose destination lacks them is an error "implausible: ...",
never a bandwidth. The faulty sim tests/conformance/faulty_syncnop.c has a stream_sync
that returns before its queued copies are done; the correct sim must give no such row.
Needs $DEVHARNESS and $BUILD; prints TAP.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

DH = os.environ.get("DEVHARNESS", "")
BUILD = os.path.abspath(os.environ.get("BUILD", "build"))
LIB = os.path.join(BUILD, "tests", "conformance", "libdevharness_faulty_syncnop.so")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import ok  # noqa: E402  (tests/taplib.py)


def bench(device, tmp, plugin_dir=None):
    env = dict(os.environ)
    if plugin_dir:
        env["DEVHARNESS_PLUGIN_PATH"] = plugin_dir
    out = os.path.join(tmp, device.replace(":", "_") + ".json")
    p = subprocess.run([DH, "bench", "--device", device, "--quick", "--suite", "copy", "--out", out, "-q"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600, env=env)
    try:
        doc = json.load(open(out))
    except (OSError, ValueError) as e:
        doc = {"error": str(e)}
    return p.returncode, p.stdout + p.stderr, doc


def harness_rows(doc):
    return [b for b in doc.get("benchmarks", []) if "/harness/" in b.get("name", "")
            and b.get("run_type", "iteration") == "iteration"]


def main():
    if not DH or not os.path.exists(DH):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        return 0
    if not os.path.exists(LIB):
        print("1..0 # SKIP %s not built (make test builds it)" % LIB)
        return 0
    print("1..4")
    with tempfile.TemporaryDirectory() as tmp:
        plugins = os.path.join(tmp, "plugins")
        os.mkdir(plugins)
        os.symlink(LIB, os.path.join(plugins, os.path.basename(LIB)))
        rc, out, doc = bench("faulty_syncnop:0", tmp, plugins)
        rows = harness_rows(doc)
        waits = [b for b in rows if "/d2d/" not in b["name"]]
        flagged = [b for b in waits if b.get("error_occurred") and "implausible:" in b.get("error_message", "")]
        ctx = doc.get("context", {})

        def ceiling(name):  # "ceiling.faulty_syncnop:0.<dir>": "N GB/s: ...", in bytes/s
            v = ctx.get("ceiling.faulty_syncnop:0." + name.split("/")[1], "")
            m = re.match(r"([0-9.]+) GB/s", v)
            return float(m.group(1)) * 1e9 if m else None
        # whether a row's bytes had arrived when it was read back is a race with the
        # sim's worker; what must never happen is a reported bandwidth above the ceiling
        over = [b["name"] for b in waits if not b.get("error_occurred") and ceiling(b["name"])
                and b.get("bytes_per_second", 0) > ceiling(b["name"])]
        ok(rc in (0, 1) and waits and len(flagged) >= len(waits) // 2 and not over,
           "a stream_sync that does not wait: %d of %d harness h2d, d2h and bidir rows are errors 'implausible: "
           "... bytes had not arrived', none reports more than its ceiling (exit %d)" % (len(flagged), len(waits), rc),
           out[-2000:] + "\nover the ceiling: %s\n" % over
           + "\n".join(b["name"] + " " + b.get("error_message", "") for b in waits[:8]))
        ok(all("bytes_per_second" not in b for b in flagged),
           "no bandwidth is reported for a flagged row", json.dumps(flagged[:2])[:1500])
        summary = json.dumps(doc.get("devharness_summary", {}))
        ok(not any(b["name"] in summary for b in flagged),
           "the flagged rows are kept out of the harness/raw summary", summary[:1500])
        rc, out, doc = bench("sim:0", tmp)
        rows = harness_rows(doc)
        bad = [b["name"] + ": " + b.get("error_message", "") for b in rows if b.get("error_occurred")]
        ok(rc == 0 and len(rows) >= 10 and not bad,
           "the correct sim: its %d harness copy rows are all measured (exit %d)" % (len(rows), rc),
           out[-1500:] + "\n".join(bad))
    return 0


if __name__ == "__main__":
    sys.exit(main())
