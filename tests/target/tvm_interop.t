#!/usr/bin/python3
"""Targets that interoperate with TVM (docs/architecture.md §Targets), checked against the installed
apache-tvm (the project venv's python, $BUILD/venv/bin/python):

- `devharness targets detect --tvm DEVICE` for every live device whose kind has a TVM
  counterpart is accepted by tvm.target.Target(...), which keeps every value we wrote
  and the same keys;
- what TVM exports (Target(...).export(): "tag": "", its key order, from_device -1,
  ints for bools) is accepted by `devharness targets validate`, with the same keys.
Prints TAP. Needs $DEVHARNESS and $BUILD (set by `make test`).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

DH = os.environ.get("DEVHARNESS", "")
BUILD = os.environ.get("BUILD", "build")
VENV_PY = os.environ.get("DEVHARNESS_VENV_PY") or os.path.abspath(os.path.join(BUILD, "venv", "bin", "python"))

try:
    import tvm  # noqa: F401
    from tvm.target import Target
except ImportError:
    # (the venv's python is a link to the system one: tell them apart by the flag)
    if os.path.exists(VENV_PY) and not os.environ.get("DH_TVM_INTEROP_REEXEC"):
        os.environ["DH_TVM_INTEROP_REEXEC"] = "1"
        os.execv(VENV_PY, [VENV_PY, os.path.abspath(__file__)])
    print("1..0 # SKIP apache-tvm is not importable (no project venv at %s; run make deps)" % VENV_PY)
    sys.exit(0)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import taplib  # noqa: E402  (tests/taplib.py)


def ok(cond, name, diag=""):
    return taplib.ok(cond, name, diag, tail=25)


def plain(x):
    """TVM's export (ffi Map/Array/String) as plain JSON values."""
    if isinstance(x, (str, bool, int, float)) or x is None:
        return x
    if hasattr(x, "items"):
        return {str(k): plain(v) for k, v in x.items()}
    try:
        return [plain(v) for v in x]
    except TypeError:
        return str(x)


def dh(*args):
    p = subprocess.run([DH] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=300)
    return p.returncode, p.stdout, p.stderr


def tvm_target(cfg):
    try:
        return plain(Target(cfg).export()), ""
    except Exception as e:  # TVM raises its own error types
        return None, str(e).strip().splitlines()[-1] if str(e).strip() else repr(e)


def main():
    if not DH or not os.path.exists(DH):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        return 0
    rc, info, _ = dh("info")
    devices = re.findall(r"^  ((?:cpu|opencl|vulkan|cuda):\d+)(?: \(TVM's index \d+\))?$", info, re.M)
    cases = []
    # TVM's exports, to feed back to devharness (kinds named alike in both)
    exports = [
        ({"kind": "opencl"}, None),
        ({"kind": "opencl", "device": "mali"}, None),
        ({"kind": "opencl", "keys": ["a", "gpu"], "device": "mali", "from_device": -1}, None),
        ({"kind": "vulkan", "supports_float16": 1, "max_num_threads": True}, None),
        ({"kind": "opencl", "max_threads_per_block": 512}, None),
    ]
    print("1..%d" % (2 * len(devices) + 2 * len(exports) + 1))
    ok(len(devices) >= 1, "live devices with a TVM target kind here: %s" % devices, info)
    for d in devices:
        rc, out, err = dh("targets", "detect", "--tvm", d)
        ours = json.loads(out) if rc == 0 else None
        theirs, why = tvm_target(ours) if ours else (None, err)
        ok(theirs is not None, "%s: tvm.target.Target accepts `targets detect --tvm` (%s)" % (d, why or "ok"), out + err)
        same = theirs is not None and all(theirs.get(k) == v for k, v in ours.items() if k != "tag")
        ok(same, "%s: TVM keeps every value and the keys devharness detected" % d,
           "ours: %s\ntheirs: %s" % (json.dumps(ours), json.dumps(theirs)))
    with tempfile.TemporaryDirectory() as tmp:
        for i, (cfg, _) in enumerate(exports):
            exp, why = tvm_target(cfg)
            path = os.path.join(tmp, "tvm_export_%d.json" % i)
            with open(path, "w") as f:
                json.dump(exp, f)
            rc, out, err = dh("targets", "validate", path)
            ok(exp is not None and rc == 0, "TVM's export of %s validates here (%s)" % (json.dumps(cfg), why or "ok"),
               json.dumps(exp) + "\n" + out + err)
            rc, shown, err = dh("targets", "show", path)
            keys = json.loads(shown).get("keys") if rc == 0 else None
            ok(exp is not None and keys == exp.get("keys"),
               "%s: the same keys in the same order as TVM (%s vs %s)" % (json.dumps(cfg), keys, exp and exp.get("keys")),
               shown + err)
    return 0


if __name__ == "__main__":
    sys.exit(main())
