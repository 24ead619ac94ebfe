#!/usr/bin/python3
"""tests/backends/tvm/tvm_lib.t — any TVM DeviceAPI through `--tvm-lib PATH` and
DEVHARNESS_TVM_LIBS (backends/tvm/README.md "Any TVM DeviceAPI",
docs/testing-a-tvm-deviceapi.md).

Acceptance: the example DeviceAPI of examples/tvm-device-api/ (device_api.ext_dev) is
the devices tvm-ext_dev:N, `conformance --tvm-lib <example.so> --device tvm-ext_dev:0
--profile tvm` exits 0; its faulty variant (D2H ignores byte_offset) exits 1 naming
copy.d2h_offsets; a library that aborts at load (a duplicate registration), one that is
not a library, one that registers nothing, one that hangs and a missing file are each refused with a
one-line reason while the other devices still run (exit 0; exit 2 when --device names
a device of the refused library); two libraries registering the same name: the second
is refused; `info --tvm-lib` lists the device with the capabilities found from the
DeviceAPI. Needs $DEVHARNESS and $BUILD; prints TAP.
"""
import os
import re
import subprocess
import sys
import tempfile

DH = os.environ.get("DEVHARNESS", "")
BUILD = os.path.abspath(os.environ.get("BUILD", "build"))
EXAMPLE = os.path.join(BUILD, "examples", "libdh_example_device_api.so")
FAULTY = os.path.join(BUILD, "examples", "libdh_example_device_api_faulty.so")
DUP = os.path.join(BUILD, "tests", "tvm", "libtvmlib_dup.so")
NONE = os.path.join(BUILD, "tests", "tvm", "libtvmlib_none.so")
HANG = os.path.join(BUILD, "tests", "tvm", "libtvmlib_hang.so")
CAPS = os.path.join(BUILD, "tests", "tvm", "libtvmlib_caps.so")
DUPCUDA = os.path.join(BUILD, "tests", "tvm", "libtvmlib_dupcuda.so")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from taplib import ok  # noqa: E402  (tests/taplib.py)


def run(args, env=None):
    e = dict(os.environ)
    e.pop("DEVHARNESS_TVM_LIBS", None)
    e.update(env or {})
    p = subprocess.run([DH] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=600, env=e)
    return p.returncode, p.stdout, p.stderr


def refusals(tap):
    """The refused plugins of a conformance TAP: {path: reason} (`ok N - refused plugin
    PATH # SKIP refused: REASON`, suite/tap.c)."""
    return dict(re.findall(r"^ok \d+ - refused plugin (\S+) # SKIP refused: (.*)$", tap, re.M))


def cases(tap):
    return [(m.group(1) == "ok", m.group(2), m.group(3))
            for m in re.finditer(r"^    (ok|not ok) \d+ - (\S+)(.*)$", tap, re.M)]


def main():
    if not DH or not os.path.exists(DH):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        return 0
    missing = [p for p in (EXAMPLE, FAULTY, DUP, NONE, HANG, CAPS, DUPCUDA) if not os.path.exists(p)]
    if missing:
        print("1..0 # SKIP not built (make examples; the venv has no TVM headers?): %s" % missing)
        return 0
    rc, out, err = run(["info", "--device", "tvm-cpu:0"])
    if rc != 0:
        print("1..0 # SKIP TVM's runtime does not load here: %s" % (out + err).strip()[-300:])
        return 0
    print("1..15")

    rc, out, err = run(["conformance", "--tvm-lib", EXAMPLE, "--device", "tvm-ext_dev:0", "--profile", "tvm"])
    res = cases(out)
    bad = [c for good, c, _ in res if not good]
    ok(rc == 0 and len(res) >= 60 and not bad,
       "conformance --tvm-lib example --device tvm-ext_dev:0 --profile tvm: exit 0, %d clauses, none "
       "failed (exit %s, failed %s)" % (len(res), rc, bad), out[-1500:] + err)
    d2h = [(good, rest) for good, c, rest in res if c == "copy.d2h_offsets"]
    ok(d2h and d2h[0][0] and "SKIP" not in d2h[0][1],
       "copy.d2h_offsets ran and passed on the example (%s)" % d2h, out[-800:])

    rc, out, err = run(["conformance", "--tvm-lib", FAULTY, "--device", "tvm-ext_dev:0", "--profile", "tvm"])
    failed = [c for good, c, _ in cases(out) if not good]
    ok(rc == 1 and "copy.d2h_offsets" in failed,
       "the faulty variant (D2H ignores byte_offset): exit 1 naming copy.d2h_offsets (exit %s, failed %s)"
       % (rc, failed), out[-1500:] + err)

    rc, out, err = run(["info", "--tvm-lib", EXAMPLE])
    m = re.search(r"^backend tvm-ext_dev \(device type .*= (\d+)\): TVM DeviceAPI device_api\.ext_dev from (\S+)\n"
                  r"\s+caps: (.*)\n\s+tvm-ext_dev:0\b", out, re.M)
    ok(rc == 0 and m and m.group(2) == EXAMPLE and m.group(3).split() == ["single_queue"],
       "info --tvm-lib lists tvm-ext_dev:0, the library and the caps found from the DeviceAPI "
       "(CreateStream NULL: single_queue; no host pointer arithmetic)", out[-3000:] + err)
    ok(m and "tvm-ext_dev:1" not in out,
       "TVM's numbering: kExist stops at id 1, one device", out[-2000:])

    # caps are asked of each DeviceAPI at init: a real stream is not one queue, and TVM's
    # SupportsDevicePointerArithmeticsOnHost (true here, as TVM's CUDA answers) is not
    # host addresses on a device that is not kDLCPU
    rc, out, err = run(["info", "--tvm-lib", CAPS, "--device", "tvm-metal:0"])
    m = re.search(r"^backend tvm-metal \(.*\n\s+caps: (.*)\n\s+tvm-metal:0\b", out, re.M)
    ok(rc == 0 and m and m.group(1).strip() == "none",
       "a DeviceAPI whose CreateStream gives a stream and whose SupportsDevicePointerArithmeticsOnHost is "
       "true, on kDLMetal: neither single_queue nor host_pointer_arithmetic (caps: %s)"
       % (m.group(1) if m else "?"), out[-3000:] + err)

    # a name of TVM's own sets (tvm-cuda: device_api.cuda of libtvm_runtime_cuda.so)
    rc, out, err = run(["info", "--tvm-lib", DUPCUDA, "--device", "tvm-cpu:0"])
    ok(rc == 0 and "registers device_api.cuda, as TVM's own libtvm_runtime_cuda.so (one registration per name)" in out,
       "a library registering device_api.cuda is refused as TVM's own tvm-cuda's name; tvm-cpu:0 still lists "
       "(exit %s)" % rc, out[-2500:] + err)

    rc, out, err = run(["info", "--device", "tvm-ext_dev:0"], env={"DEVHARNESS_TVM_LIBS": "/nonexistent.so:" + EXAMPLE})
    ok(rc == 0 and "device_name                  devharness example DeviceAPI" in out and
       "/nonexistent.so: refused: cannot open TVM library: No such file or directory" in out,
       "DEVHARNESS_TVM_LIBS=A:B: a missing file is refused, the next library still gives tvm-ext_dev:0 "
       "(exit %s)" % rc, out[-2000:] + err)

    with tempfile.NamedTemporaryFile("w", suffix=".so", delete=False) as f:
        f.write("not a library\n")
        notlib = f.name
    try:
        rc, out, err = run(["conformance", "--tvm-lib", DUP, "--tvm-lib", notlib, "--tvm-lib", NONE,
                            "--device", "cpu:0", "--filter", "attr.exist*,copy.d2h_offsets"])
    finally:
        os.unlink(notlib)
    refused = refusals(out)
    ok(rc == 0 and len(cases(out)) >= 2 and all(good for good, _, _ in cases(out)),
       "with three bad libraries, cpu:0 still runs: exit 0 (got %s)" % rc, out[-2000:] + err)
    ok(refused.get(DUP, "").startswith("TVM library: ended by signal 6") and "already registered" in refused[DUP],
       "a library aborting on a duplicate registration (device_api.cpu) is refused with the signal and "
       "TVM's message", str(refused))
    ok(refused.get(notlib, "").startswith("TVM library: dlopen failed:") and
       refused.get(NONE) == "TVM library: registers no device_api.<name> in tvm-ffi's global table",
       "not a library: refused with dlopen's reason; registers nothing: refused saying so", str(refused))

    rc, out, err = run(["conformance", "--tvm-lib", NONE, "--device", "tvm-ext_dev:0"])
    ok(rc == 2 and "tvm-ext_dev" in err and len(err.strip().splitlines()) == 1 and
       "the last: %s: refused: TVM library: registers no device_api" % NONE in err,
       "--device of a refused library's device: exit 2, one line ending with the refusal (exit %s)" % rc,
       out[-800:] + err)

    rc, out, err = run(["conformance", "--tvm-lib", EXAMPLE, "--tvm-lib", FAULTY, "--device", "tvm-ext_dev:0",
                        "--profile", "tvm", "--filter", "copy.*"])
    ok(rc == 0 and refusals(out).get(FAULTY, "").startswith("registers device_api.ext_dev, as %s before it" % EXAMPLE),
       "two libraries registering device_api.ext_dev: the second is refused, the first one runs (exit %s)"
       % rc, out[:1500] + err)

    rc, out, err = run(["conformance", "--tvm-lib", HANG, "--tvm-lib", EXAMPLE, "--device", "tvm-ext_dev:0",
                        "--filter", "copy.d2h_offsets"], env={"DEVHARNESS_TVM_PROBE_TIMEOUT_S": "6"})
    ok(rc == 0 and refusals(out).get(HANG) == "TVM library: hung for 6 s while loading (killed)" and cases(out)
       and all(g for g, _, _ in cases(out)),
       "a library that hangs at load is refused when the probe's timeout runs out; the next library runs "
       "(exit %s)" % rc, out[:1500] + err)

    rc, out, err = run(["info", "--tvm-lib", ""])
    ok(rc == 2 and err.startswith("devharness info: --tvm-lib") and len(err.strip().splitlines()) == 1,
       "--tvm-lib '': usage error, exit 2, one line (exit %s)" % rc, err)
    return 0


if __name__ == "__main__":
    sys.exit(main())
