#!/usr/bin/python3
"""`devharness conformance --summary FILE` (docs/conformance.md, "Summary JSON").

Checks real values, not only the shape:
  - sim:0: exit 0; the file is complete JSON of schema devharness.conformance.summary
    version 1; the device's pass/fail/skip/xfail equal the TAP stream's own count of
    its subtest lines and sum to the clause count; totals sum the devices;
  - a faulty plugin (tests/conformance/faulty_segv.c, a crashing copy): exit 1, and the
    summary says exit_code 1, fail > 0, failed true;
  - a backend with no device (the rtinitfail test plugin): exit 3, no_device is the
    reason (also the TAP's outer # SKIP reason), id null;
  - a summary that cannot be written (its folder is missing): exit 2, and no temporary
    file is left beside a written one.
Prints TAP. Needs $DEVHARNESS and $BUILD (set by `make test`).
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import ok  # noqa: E402  (tests/taplib.py)


def tap_counts(text):
    """pass, fail, skip, xfail of the subtest lines of a TAP stream."""
    c = {"pass": 0, "fail": 0, "skip": 0, "xfail": 0}
    for line in text.splitlines():
        if not line.startswith("    ok ") and not line.startswith("    not ok "):
            continue
        if " # SKIP " in line:
            c["skip"] += 1
        elif " # TODO " in line:
            c["xfail"] += 1
        elif line.startswith("    ok "):
            c["pass"] += 1
        else:
            c["fail"] += 1
    return c


def run(dh, tmp, name, *args):
    path = os.path.join(tmp, name)
    p = subprocess.run([dh, "conformance", "--summary", path, "--timeout", "5"] + list(args),
                       capture_output=True, text=True, timeout=300)
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        doc = {"error": str(e)}
    return p, doc


def main():
    dh = os.environ.get("DEVHARNESS", "")
    build = os.environ.get("BUILD", "build")
    segv = os.path.join(build, "tests", "conformance", "libdevharness_faulty_segv.so")
    nodev = (glob.glob(os.path.join(build, "tests", "**", "libdevharness_rtinitfail.so"), recursive=True) or [""])[0]
    if not dh or not os.path.exists(dh):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        return
    if not os.path.exists(segv) or not nodev:
        print("1..0 # SKIP faulty_segv or rtinitfail test plugin not built")
        return
    print("1..9")
    tmp = tempfile.mkdtemp(prefix="dh-summary-")
    try:
        p, doc = run(dh, tmp, "sim.json", "--device", "sim:0", "--filter", "copy.*,mem.*,attr.*")
        ok(p.returncode == 0 and doc.get("schema") == "devharness.conformance.summary" and doc.get("version") == 1
           and doc.get("exit_code") == 0, "sim:0: exit 0, complete JSON of schema version 1, exit_code 0",
           "rc=%d %s\n%s" % (p.returncode, doc, p.stderr))
        devs = doc.get("devices", [])
        d = devs[0] if devs else {}
        want = tap_counts(p.stdout)
        got = {k: d.get(k) for k in want}
        ok(len(devs) == 1 and d.get("name") == "sim:0" and d.get("backend") == "sim" and d.get("id") == 0
           and d.get("no_device") is None and d.get("probe_failure") is None and d.get("profile") == "strict",
           "sim:0: name, backend, id, profile; no_device and probe_failure null", d)
        ok(got == want and sum(want.values()) == doc.get("clauses") and want["pass"] > 0,
           "sim:0: pass/fail/skip/xfail equal the TAP stream's and sum to the clause count",
           "summary %s, TAP %s, clauses %s" % (got, want, doc.get("clauses")))
        t = doc.get("totals", {})
        ok(all(t.get(k) == d.get(k) for k in ("pass", "fail", "skip", "xfail", "waived"))
           and t.get("devices") == 1 and t.get("no_device") == 0, "totals sum the devices", t)

        p, doc = run(dh, tmp, "segv.json", "--plugin", segv, "--filter", "copy.d2d_sizes,attr.exist_valid")
        d = (doc.get("devices") or [{}])[0]
        ok(p.returncode == 1 and doc.get("exit_code") == 1 and d.get("fail", 0) > 0 and d.get("failed") is True
           and doc.get("totals", {}).get("devices_failed", 0) > 0,
           "faulty plugin: exit 1, exit_code 1, fail > 0, failed", "rc=%d %s" % (p.returncode, doc))

        p, doc = run(dh, tmp, "nodev.json", "--plugin", nodev, "--filter", "attr.exist_valid")
        d = (doc.get("devices") or [{}])[0]
        why = d.get("no_device")
        outer = [l for l in p.stdout.splitlines() if l.startswith("ok ")]
        ok(p.returncode == 3 and doc.get("exit_code") == 3 and isinstance(why, str) and why
           and d.get("id") is None and d.get("skip") == 1 and doc.get("totals", {}).get("no_device") == 1,
           "no device: exit 3, no_device gives the reason, id null, every clause skipped",
           "rc=%d %s" % (p.returncode, doc))
        ok(outer and outer[0].endswith("# SKIP " + why.replace("\\", "\\\\").replace("#", "\\#")) if why else False,
           "no device: the reason is the TAP's outer # SKIP reason", "%s\n%s" % (why, outer))

        missing = os.path.join(tmp, "no", "such", "folder")
        os.makedirs(os.path.join(tmp, "w"))
        p, _ = run(dh, tmp, os.path.join("no", "such", "folder", "s.json"), "--device", "sim:0",
                   "--filter", "attr.exist_valid")
        ok(p.returncode == 2 and "cannot write" in p.stderr and not os.path.exists(missing),
           "an unwritable summary: exit 2, said on stderr", "rc=%d %s" % (p.returncode, p.stderr))
        left = [n for n in os.listdir(tmp) if ".tmp." in n]
        ok(not left, "no temporary file left beside the summaries", left)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
