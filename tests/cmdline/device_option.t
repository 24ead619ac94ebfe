#!/usr/bin/python3
"""--device is one option everywhere (cmdline/cmdline.c dh_cmdline_select_devices over
devharness/device_api.h dh_device_select): for each bad value, every command that takes
it (info, conformance, bench, run) exits 2 with the same one line on stderr,
"devharness CMD: --device: <message>", the message naming the spec, and writes nothing
on stdout (run: no results folder); `targets detect` says the same message for its
operand. A backend without any device is not a bad spec: every command exits 3 with
the reason. Prints TAP. Needs $DEVHARNESS (set by `make test`)."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok  # noqa: E402

dh = os.environ.get("DEVHARNESS", "")
if not dh or not os.path.exists(dh):
    print("1..0 # SKIP DEVHARNESS not set or missing")
    sys.exit(0)

BAD = [
    ("sim:99", "device spec 'sim:99': backend sim has no device 99 (2 devices)"),
    ("sim", "device spec 'sim': missing ':' (expected NAME:ID, e.g. sim:0)"),
    ("nosuch:0", "device spec 'nosuch:0': Device API nosuch is not enabled: "),
    ("sim:\x1b[31m", "device spec 'sim:\\x1b[31m': device id '\\x1b[31m' is not a non-negative decimal integer"),
]
env = dict(os.environ, DEVHARNESS_SIM_DEVICES="2")
tmp = tempfile.mkdtemp(prefix="dh-devopt-")
try:
    for spec, message in BAD:
        lines = {}
        for cmd in ("info", "conformance", "bench", "run"):
            extra = ["--output", os.path.join(tmp, "out")] if cmd == "run" else []
            p = subprocess.run([dh, cmd, "--device", spec] + extra, capture_output=True, text=True, env=env,
                               timeout=120)
            err = p.stderr.splitlines()
            lines[cmd] = err[0] if len(err) == 1 else p.stderr
            ok(p.returncode == 2 and len(err) == 1 and err[0].startswith("devharness %s: --device: %s" % (cmd, message))
               and p.stdout == "", "%s --device %r: exit 2, one line naming the spec" % (cmd, spec),
               "exit %d\nstdout: %s\nstderr: %s" % (p.returncode, p.stdout[:300], p.stderr))
        same = {l.split(": ", 1)[1] if ": " in l else l for l in lines.values()}
        ok(len(same) == 1, "--device %r: the same message from every command" % spec, "\n".join(lines.values()))
    ok(not os.path.exists(os.path.join(tmp, "out")) or not os.listdir(os.path.join(tmp, "out")),
       "run with a bad --device leaves no results folder", str(os.listdir(tmp)))
    # A backend that has no device at all: not a bad spec but nothing to test, exit 3 from
    # every command (the README's promise for `--device cuda:0` without a GPU), the
    # backend's reason shown.
    for cmd in ("info", "conformance", "bench", "run"):
        extra = ["--output", os.path.join(tmp, "nodev")] if cmd == "run" else []
        p = subprocess.run([dh, cmd, "--device", "sim:0"] + extra, capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, DEVHARNESS_SIM_DEVICES="0"))
        ok(p.returncode == 3 and "no simulated devices configured" in p.stdout + p.stderr,
           "%s --device sim:0 with no sim device: exit 3 (no device), the reason shown" % cmd,
           "exit %d\nstdout: %s\nstderr: %s" % (p.returncode, p.stdout[-400:], p.stderr[-400:]))
    p = subprocess.run([dh, "targets", "detect", "sim:0"], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, DEVHARNESS_SIM_DEVICES="0"))
    ok(p.returncode == 3 and "no simulated devices configured" in p.stderr,
       "targets detect sim:0 with no sim device: exit 3, the reason shown", "exit %d: %s" % (p.returncode, p.stderr))
    p = subprocess.run([dh, "targets", "detect", "sim:99"], capture_output=True, text=True, env=env, timeout=60)
    ok(p.returncode == 2 and p.stderr.strip() == "devharness targets detect: " + BAD[0][1],
       "targets detect sim:99: the same message for its operand", p.stderr)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print("1..%d" % count())
