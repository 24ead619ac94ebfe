#!/usr/bin/python3
"""tests/cmdline/device_group.t — the device-option group (cmdline/device_options.c over
the runtime's configuration channel, plugin ABI 1.6): every command that selects
devices (info, conformance, bench, run, targets detect) offers the options the loaded
backends declare, with their help, and hands the values to the backend.

Points: each command's --help shows `--tvm-lib PATH` and `--rpc HOST:PORT` with the
tvm backend's one help text and no unlisted option (the opencl backend's
pocl-affinity); each refuses `--pocl-affinity` as an unknown option and an empty
`--tvm-lib` with the backend's reason, one line, exit 2; `targets list` refuses
`--tvm-lib` (detect only); `run --verbose` passes --tvm-lib on to its steps' command
lines (no environment), and its conformance step finds the library's device. Needs
$DEVHARNESS (set by `make test`); $BUILD for the example library. Prints TAP."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok, skip  # noqa: E402

dh = os.environ.get("DEVHARNESS", "")
if not dh or not os.path.exists(dh):
    print("1..0 # SKIP DEVHARNESS not set or missing")
    sys.exit(0)
BUILD = os.path.abspath(os.environ.get("BUILD", "build"))
EXAMPLE = os.path.join(BUILD, "examples", "libdh_example_device_api.so")
env = dict(os.environ, COLUMNS="100")
for var in ("DEVHARNESS_TVM_LIBS", "DEVHARNESS_TVM_RPC"):
    env.pop(var, None)


def run(args, timeout=120):
    return subprocess.run([dh] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                          timeout=timeout)


COMMANDS = (["info"], ["conformance"], ["bench"], ["run"], ["targets", "detect"])
for words in COMMANDS:
    name = " ".join(words)
    text = run(words + ["--help"]).stdout
    flat = " ".join(text.split())
    offered = "--tvm-lib PATH" in text and "--rpc HOST:PORT" in text
    if words != ["targets", "detect"]:  # targets' usage lists the options, its text no help
        offered = offered and "(repeatable; also DEVHARNESS_TVM_LIBS=A:B)" in flat and \
            "KEY@HOST:PORT: the server of KEY from the TVM RPC tracker at HOST:PORT" in flat
    ok(offered and "pocl-affinity" not in text, "%s --help: --tvm-lib and --rpc with the tvm backend's help, "
       "no unlisted option" % name, text[-1500:])
    extra = ["--output", os.path.join(tempfile.gettempdir(), "dh-devgroup-never")] if words == ["run"] else []
    p = run(words + ["--pocl-affinity", "1"] + extra + (["sim:0"] if words[0] == "targets" else []))
    err = p.stderr.strip().splitlines()
    ok(p.returncode == 2 and len(err) == 1 and "unknown option '--pocl-affinity'" in err[0],
       "%s --pocl-affinity 1: unknown option (unlisted), exit 2" % name, "exit %d: %s" % (p.returncode, p.stderr))
    p = run(words + ["--tvm-lib", ""] + extra + (["sim:0"] if words[0] == "targets" else []))
    err = p.stderr.strip().splitlines()
    ok(p.returncode == 2 and err == ["devharness %s: --tvm-lib : empty path" % name],
       "%s --tvm-lib '': the backend's reason, one line, exit 2" % name, "exit %d: %s" % (p.returncode, p.stderr))

p = run(["targets", "list", "--tvm-lib", "x.so"])
ok(p.returncode == 2 and p.stderr.strip() ==
   "devharness targets list: unknown option '--tvm-lib' (see devharness targets --help)",
   "targets list --tvm-lib: unknown option (detect takes it)", p.stderr)

if not os.path.exists(EXAMPLE):
    skip("run --tvm-lib passes the library on to its steps", "no %s" % EXAMPLE)
else:
    tmp = tempfile.mkdtemp(prefix="dh-devgroup-")
    try:
        p = run(["run", "--tvm-lib", EXAMPLE, "--device", "tvm-ext_dev:0", "--no-bench", "--no-store", "--verbose",
                 "--output", tmp], timeout=600)
        steps = [line for line in p.stderr.splitlines() if line.startswith("+ devharness ")]
        passed = all(("--tvm-lib %s" % EXAMPLE) in line for line in steps) and len(steps) == 3
        ok(p.returncode == 0 and passed, "run --tvm-lib: every step's command line carries --tvm-lib, the "
           "library's device is tested (exit 0)", "exit %d\n%s\n%s" % (p.returncode, "\n".join(steps),
                                                                      p.stderr[-800:]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
print("1..%d" % count())
