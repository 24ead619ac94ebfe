#!/usr/bin/python3
"""tests/backends/tvm/info_faults.t — `info` and `run` isolated from a DeviceAPI whose
GetAttr misbehaves (cli/info.h: every question to a backend is asked in a child), and
text from a DeviceAPI made safe for a terminal (base/text.h dh_text_quote). The
DeviceAPIs are tests/backends/tvm/tvmlib_attrfault.cc: kDeviceName crashes (SIGSEGV),
blocks forever, or is an escape sequence with bytes that are not UTF-8. Also the
console: `info --list` one line a device, nulls hidden unless -v, bytes and clock rates
in human units. Needs $DEVHARNESS and $BUILD; prints TAP.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

DH = os.environ.get("DEVHARNESS", "")
BUILD = os.path.abspath(os.environ.get("BUILD", "build"))
LIB = {k: os.path.join(BUILD, "tests", "tvm", "libtvmlib_attr%s.so" % k) for k in ("crash", "block", "name")}
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from taplib import ok  # noqa: E402  (tests/taplib.py)


def run(args, timeout=300):
    e = dict(os.environ)
    e.pop("DEVHARNESS_TVM_LIBS", None)
    t0 = time.monotonic()
    p = subprocess.run([DH] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, env=e)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), \
        time.monotonic() - t0, p.stdout + p.stderr


def line_of(text, key):
    return next((l for l in text.splitlines() if l.strip().startswith(key + " ")), "")


def main():
    if not DH or not os.path.exists(DH):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        return 0
    missing = [p for p in LIB.values() if not os.path.exists(p)]
    if missing:
        print("1..0 # SKIP test DeviceAPIs not built (make test builds them): %s" % " ".join(missing))
        return 0
    print("1..14")
    # a GetAttr that crashes: that attribute is an ERROR naming the signal, the rest prints
    rc, out, err, _, _ = run(["info", "--tvm-lib", LIB["crash"]])
    name = line_of(out, "device_name") if "tvm-metal:0" in out else ""
    after = out.split("tvm-metal:0", 1)[-1]
    ok(rc == 0 and "tvm-metal:0" in out and "sim:0" in out,
       "info with a GetAttr that crashes: exit 0, tvm-metal:0 and the other backends listed (exit %d)" % rc, out + err)
    ok("ERROR: get_attr crashed: SIGSEGV" in line_of(after, "device_name")
       and "1.0 GiB (1073741824 bytes)" in line_of(after, "total_global_memory"),
       "the crashing attribute is 'device_name ERROR: get_attr crashed: SIGSEGV'; total_global_memory "
       "is still asked and shown", after[:2000])
    rc, out, err, _, _ = run(["info", "--json", "--tvm-lib", LIB["crash"], "--device", "tvm-metal:0"])
    try:
        dev = json.loads(out)["backends"][0]["devices"][0]
    except (ValueError, LookupError) as e:
        dev = {"error": str(e)}
    ok(rc == 0 and "crashed: SIGSEGV" in dev.get("attribute_errors", {}).get("device_name", "")
       and dev.get("attributes", {}).get("total_global_memory") == 1 << 30,
       "info --json: attribute_errors.device_name says crashed: SIGSEGV, total_global_memory is 1 GiB",
       json.dumps(dev)[:1500] + err)
    # a GetAttr that blocks: timed out after --timeout, the rest prints, in bounded time
    rc, out, err, secs, _ = run(["info", "--tvm-lib", LIB["block"], "--timeout", "2"], timeout=120)
    after = out.split("tvm-metal:0", 1)[-1]
    ok(rc == 0 and "ERROR: get_attr timed out after 2 s" in line_of(after, "device_name")
       and "sim:1" in out and secs < 30,
       "info with a GetAttr that blocks: device_name timed out after 2 s, sim:1 listed, %.1f s, exit %d"
       % (secs, rc), out[-2000:] + err)
    # run finishes with both: its info step names the attribute, conformance goes on
    for kind, what in (("crashes", "crashed: SIGSEGV"), ("blocks", "timed out after 2 s")):
        with tempfile.TemporaryDirectory() as tmp:
            rc, out, err, secs, _ = run(["run", "--output", tmp, "--tvm-lib", LIB[kind[:5]], "--device", "tvm-metal:0",
                                         "--no-bench", "--no-store", "--timeout", "2", "-q"], timeout=600)
            info = ""
            for sub in ("latest", ):
                p = os.path.join(tmp, sub, "info.txt")
                if os.path.exists(p):
                    info = open(p, encoding="utf-8", errors="replace").read()
            ok(rc in (0, 1) and what in line_of(info, "device_name") and os.path.exists(
                os.path.join(tmp, "latest", "conformance.tap")),
               "run with a GetAttr that %s: finishes (exit %d, %.0f s), info.txt says device_name %s, "
               "conformance ran" % (kind, rc, secs, what), out + err + info[-1500:])
    # hostile text: no raw ESC, BEL or bidi override reaches the terminal; JSON keeps it escaped
    rc, out, err, _, raw = run(["info", "--tvm-lib", LIB["name"], "--device", "tvm-metal:0"])
    ok(rc == 0 and b"\x1b" not in raw and b"\x07" not in raw and "\u202e".encode() not in raw,
       "info: a device name with ESC]0;..BEL ESC[2J and U+202E prints no raw ESC, BEL or bidi override", repr(raw[-600:]))
    ok(r"evil\x1b]0;pwned\x07\x1b[2J\u202Ename\xff\xfe" in line_of(out, "device_name"),
       "info shows that name escaped: evil\\x1b]0;pwned\\x07\\x1b[2J\\u202Ename\\xff\\xfe", out[-800:])
    rc, out, err, _, raw = run(["info", "--json", "--tvm-lib", LIB["name"], "--device", "tvm-metal:0"])
    try:
        name = json.loads(out)["backends"][0]["devices"][0]["attributes"]["device_name"]
    except (ValueError, LookupError, TypeError) as e:
        name = "(%s)" % e
    ok(rc == 0 and b"\x1b" not in raw and name == "evil\\x1b]0;pwned\\x07\\x1b[2J\u202ename\\xff\\xfe",
       "info --json keeps the name (the bytes that are not UTF-8 and the controls as \\xNN, "
       "dh_text_clean) instead of dropping it: %r" % name, out[-800:])
    # the console: --list, nulls hidden unless -v, human units
    rc, out, err, _, _ = run(["info", "--list"])
    lines = out.splitlines()
    ok(rc == 0 and any(l.split()[:1] == ["sim:0"] and "devharness sim, 1.0 GiB" in l for l in lines)
       and any(l.split()[:1] == ["sim:1"] for l in lines) and all(len(l.split()) >= 2 for l in lines),
       "info --list: one line a device ('sim:0 devharness sim, 1.0 GiB'), %d lines" % len(lines), out)
    rc, out, err, _, _ = run(["info", "--device", "sim:0"])
    rc2, outv, err2, _, _ = run(["info", "--device", "sim:0", "-v"])
    nulls = [l for l in outv.splitlines() if l.rstrip().endswith(" null")]
    ok(rc == 0 and rc2 == 0 and " null" not in out and nulls and "not reported: -v shows them" in out
       and len(nulls) == int(out.split("(")[-1].split()[0]),
       "info hides the %d attributes sim:0 does not report (null) and says how many; -v shows them" % len(nulls),
       out + outv)
    ok("1.0 GiB (1073741824 bytes)" in line_of(out, "total_global_memory"),
       "info shows bytes in GiB with TVM's integer: %r" % line_of(out, "total_global_memory").strip(), out)
    # a TVM RPC server that refuses: -q says so on stderr (the verdict line alone was exit 0, silent)
    rc, out, err, _, _ = run(["info", "--rpc", "127.0.0.1:1", "--device", "cpu:0", "-q"])
    rc2, out2, err2, _, _ = run(["conformance", "--rpc", "127.0.0.1:1", "--device", "cpu:0", "-q",
                                 "--filter", "device.*"])
    ok(rc == 0 and "devharness info: refused 127.0.0.1:1: refused: TVM RPC server: cannot connect" in err
       and rc2 == 0 and "devharness conformance: refused 127.0.0.1:1: refused: TVM RPC server" in err2,
       "info -q and conformance -q with a dead --rpc server: one stderr line each says it was refused",
       out + err + out2 + err2)
    rc, out, err, _, _ = run(["info", "--timeout", "0"])
    ok(rc == 2 and "--timeout 0" in err and len(err.strip().splitlines()) == 1,
       "info --timeout 0: exit 2, one line naming the option (%d: %s)" % (rc, err.strip()), err)
    return 0


if __name__ == "__main__":
    sys.exit(main())
