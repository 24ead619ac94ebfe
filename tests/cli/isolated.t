#!/usr/bin/python3
"""tests/cli/isolated.t — `info --plugin` and `targets detect` ask a backend in a child
process (cli/info.h, cli/targets.c): with tests/conformance/faulty_attrcrash.c, a sim
whose get_attr(kDeviceName) crashes, info lists the device with that attribute as an
ERROR naming SIGSEGV and exits 0, and targets detect says the backend crashed and
exits 1; neither command dies. Needs $DEVHARNESS and $BUILD; prints TAP.
"""
import os
import subprocess
import sys
import tempfile

DH = os.environ.get("DEVHARNESS", "")
BUILD = os.path.abspath(os.environ.get("BUILD", "build"))
LIB = os.path.join(BUILD, "tests", "conformance", "libdevharness_faulty_attrcrash.so")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import ok  # noqa: E402  (tests/taplib.py)


def main():
    if not DH or not os.path.exists(DH):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        return 0
    if not os.path.exists(LIB):
        print("1..0 # SKIP %s not built (make builds it)" % LIB)
        return 0
    print("1..2")
    p = subprocess.run([DH, "info", "--plugin", LIB], capture_output=True, text=True, timeout=120)
    ok(p.returncode == 0 and "faulty_attrcrash:0" in p.stdout
       and "device_name                  ERROR: get_attr crashed: SIGSEGV" in p.stdout
       and "total_global_memory          1.0 GiB" in p.stdout,
       "info --plugin: the crashing get_attr is an ERROR naming SIGSEGV, the rest listed (exit %d)" % p.returncode,
       p.stdout[-1500:] + p.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        os.symlink(LIB, os.path.join(tmp, os.path.basename(LIB)))
        env = dict(os.environ, DEVHARNESS_PLUGIN_PATH=tmp)
        p = subprocess.run([DH, "targets", "detect", "faulty_attrcrash:0"], capture_output=True, text=True,
                           timeout=120, env=env)
    ok(p.returncode == 1 and p.stderr.strip() == "devharness targets detect: faulty_attrcrash:0: the device's "
       "backend crashed: SIGSEGV while asked for its attributes" and not p.stdout,
       "targets detect: one line, 'the device's backend crashed: SIGSEGV', exit 1 (exit %d)" % p.returncode,
       p.stdout + p.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
