#!/usr/bin/python3
"""tests/cli/run_complete.t — `devharness run` publishes complete results or nothing
(cli/run_check.c, cli/run_dir.c):
  - two runs started together into one --output both publish, under different names;
  - on a full disk (a private tmpfs of 64, 400 and 900 KiB through `unshare -m`, or
    `unshare -rm` when not root) a run either publishes a folder whose files are whole,
    or exits 1 with one line "results incomplete (...)", keeps its folder as
    run-*.failed and publishes nothing (no run-* folder, no `latest`);
  - a run killed with SIGKILL leaves no step running after a second (each step dies
    with it), and the next run removes its partial folder, saying so.
Needs $DEVHARNESS (set by `make test`). Prints TAP."""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok, skip  # noqa: E402

dh = os.environ.get("DEVHARNESS", "")
if not dh or not os.path.exists(dh):
    print("1..0 # SKIP DEVHARNESS not set or missing")
    sys.exit(0)
tmp = tempfile.mkdtemp(prefix="dh-run-complete-")


def run(out, *extra):
    return subprocess.Popen([dh, "run", "--device", "sim:0", "--output", out] + list(extra),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def published(out):
    return sorted(n for n in os.listdir(out) if n.startswith("run-") and not ".failed" in n)


def whole(folder):
    """'' when every promised file of a run with benchmarks is whole, else what is not."""
    for name in ("info.json", "conformance.summary.json", "bench.json"):
        try:
            with open(os.path.join(folder, name)) as f:
                json.load(f)
        except (OSError, ValueError) as e:
            return "%s: %s" % (name, e)
    with open(os.path.join(folder, "conformance.junit.xml")) as f:
        if "</testsuites>" not in f.read():
            return "conformance.junit.xml stops short"
    return ""


try:
    # 1. two runs at once
    out = os.path.join(tmp, "two")
    ps = [run(out, "--no-bench") for _ in range(2)]
    rcs = [p.wait(timeout=300) for p in ps]
    names = published(out)
    ok(rcs == [0, 0] and len(names) == 2 and not glob.glob(os.path.join(out, ".run-*")),
       "two runs started together: both exit 0 and publish under two names, no partial left",
       "exits %s, folders %s" % (rcs, os.listdir(out)))

    # 2. a full disk
    ns = None
    for cand in (["unshare", "-m"], ["unshare", "-rm"]):
        if subprocess.run(cand + ["true"], stderr=subprocess.DEVNULL).returncode == 0:
            ns = cand
            break
    for size in ("64k", "400k", "900k"):
        if ns is None:
            skip("full disk of %s" % size, "no mount namespace here (unshare -m and -rm refused)")
            continue
        disk = os.path.join(tmp, "disk-" + size)
        os.makedirs(disk)
        script = ('mount -t tmpfs -o size=%s tmpfs "$1" && "$2" run --device sim:0 --output "$1" >/dev/null 2>"$3"; '
                  'rc=$?; ls -A "$1" > "$3.ls"; for d in "$1"/run-*; do [ -d "$d" ] && cp -r "$d" "$4/"; done; '
                  'exit $rc' % size)
        keep = os.path.join(tmp, "kept-" + size)
        os.makedirs(keep)
        err = os.path.join(tmp, "err-" + size)
        rc = subprocess.run(ns + ["sh", "-c", script, "sh", disk, dh, err, keep], timeout=600).returncode
        listing = open(err + ".ls").read().split()
        msg = open(err).read().strip().splitlines()
        pub = [n for n in listing if n.startswith("run-") and ".failed" not in n]
        if rc == 0:
            good = len(pub) == 1 and "latest" in listing and whole(os.path.join(keep, pub[0])) == ""
        else:
            good = (rc == 1 and not pub and "latest" not in listing and any(".failed" in n for n in listing)
                    and msg and "results incomplete (" in msg[-1])
        ok(good, "full disk of %s: complete results published, or exit 1, nothing published, kept as .failed "
           "(exit %d)" % (size, rc), "listing %s\nstderr tail %s" % (listing, msg[-2:]))

    # 3. a killed run
    out = os.path.join(tmp, "killed")
    p = run(out)
    deadline = time.time() + 60
    while time.time() < deadline and not glob.glob(os.path.join(out, ".run-*", "info.json")):
        time.sleep(0.1)
    time.sleep(1.0)  # into the conformance step
    partial = glob.glob(os.path.join(out, ".run-*"))
    p.send_signal(signal.SIGKILL)
    p.wait()
    time.sleep(1.0)
    left = [line for line in subprocess.run(["ps", "-eo", "args"], stdout=subprocess.PIPE, text=True).stdout.splitlines()
            if partial and os.path.basename(partial[0]) in line]
    ok(partial and not left, "a run killed with SIGKILL leaves no step running after a second", "\n".join(left))
    p2 = run(out, "--no-bench")
    _, err = p2.communicate(timeout=300)
    ok(p2.returncode == 0 and partial and not os.path.exists(partial[0]) and "removed " in err,
       "the next run removes the killed run's partial folder and says so", err[-500:])
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print("1..%d" % count())
