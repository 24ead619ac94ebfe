#!/usr/bin/python3
"""Clause profiles (docs/conformance.md): `devharness conformance --profile tvm|strict`.

- The catalogue: every clause has profile tvm or strict, and a tvm clause cites TVM
  (its docs, apache/tvm file:line) or tvm-ffi.
- For each faulty backend of faulty.t whose broken clause moved to profile strict, a
  `--profile tvm` run skips that clause with the reason and exits 0; for each whose
  clause stayed in profile tvm, the `--profile tvm` run still fails it (exit 1).
  (faulty.t runs the same backends under the default, strict.)
- faulty_tvmdefault (kExist 1 for every id, as TVM's CPU DeviceAPI; default_profile
  "tvm"; device_count 2): a run without --profile holds it to tvm and passes, TAP and
  JUnit name the profile; --profile strict fails exactly the two kExist clauses.
Prints TAP. Needs $DEVHARNESS and $BUILD (set by `make test`).
"""
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

# fault -> {clause: profile it must have}. The clause each faulty backend breaks
# (faulty.t FAULTS), with the profile it was given.
FAULTS = {
    "wrongbyte": {"copy.dst_offsets": "tvm"},
    "ignoreoffset": {"copy.d2h_offsets": "tvm"},
    "hostread": {"copy.host_source_released": "tvm", "copy.pinned_host": "tvm"},
    "nowait": {"stream.sync_from_to": "tvm"},
    "earlysync": {"stream.sync_waits": "tvm"},
    "overlap": {"mem.no_overlap": "tvm"},
    "existerr": {"attr.exist_past_last": "strict"},
    "errkind": {"packed.raise_kind": "strict"},
    "wsleak": {"mem.workspace_no_growth": "strict"},
    "segv": {"copy.d2d_sizes": "tvm"},
    "attrtype": {"attr.types": "strict"},
    "setdevkind": {"device.set_invalid_kind": "strict"},
    "freenull": {"mem.free_null": "strict"},
    "negzero": {"packed.echo_float": "strict"},
    "perthread": {"stream.per_thread": "tvm"},
    "oomkind": {"mem.too_large_kind": "strict"},
    "cpudefalign": {"mem.default_alignment": "strict"},
    "nocross": {"copy.cross_device": "strict"},
}
DH = os.environ.get("DEVHARNESS", "")
BUILD = os.environ.get("BUILD", "build")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok, skip  # noqa: E402  (tests/taplib.py)


def results(tap):
    """-> {clause id: (ok, directive text)} of every subtest."""
    out = {}
    for line in tap.splitlines():
        m = re.match(r"^    (ok|not ok) \d+ - (\S+)(.*)$", line)
        if m:
            out[m.group(2)] = (m.group(1) == "ok", m.group(3))
    return out


def lib(fault):
    return os.path.join(BUILD, "tests", "conformance", "libdevharness_faulty_%s.so" % fault)


def run(args, timeout=300):
    p = subprocess.run([DH, "conformance"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def run_fault(fault):
    if not os.path.exists(lib(fault)):
        return fault, None, "", ""
    slow = any(k in os.environ for k in ("ASAN_OPTIONS", "DEVHARNESS_UNDER_VALGRIND"))
    rc, out, err = run(["--plugin", lib(fault), "--timeout", "10" if slow else "3", "--device",
                        "faulty_%s:0" % fault, "--profile", "tvm"])
    return fault, rc, out, err


def main():
    if not DH or not os.path.exists(DH):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        return 0
    print("1..%d" % (4 + 2 * len(FAULTS) + 6))

    # catalogue
    rc, out, err = run(["--list"])
    rows = [l.split(None, 3) for l in out.splitlines() if l.strip()]
    profiles = {r[0]: r[2] for r in rows if len(r) >= 3}
    ok(rc == 0 and len(rows) >= 60 and set(profiles.values()) == {"tvm", "strict"},
       "--list: every clause has profile tvm or strict (%d clauses)" % len(rows), out + err)
    rc, md, err = run(["--list", "--format", "markdown"])
    bad = []
    for line in md.splitlines():
        m = re.match(r"^\| `([^`]+)` \| (must|should) \| (tvm|strict) \| .* \| (.*) \| [^|]* \|$", line)
        if m and m.group(3) == "tvm" and not re.match(r"(TVM docs|apache/tvm|tvm-ffi)", m.group(4)):
            bad.append(m.group(1))
    ok(rc == 0 and "| profile |" in md and not bad,
       "markdown: profile column; every tvm clause cites TVM docs, apache/tvm or tvm-ffi (bad: %s)" % bad, md[-2000:])
    want = {c: p for f in FAULTS.values() for c, p in f.items()}
    wrong = {c: (p, profiles.get(c)) for c, p in want.items() if profiles.get(c) != p}
    ok(not wrong, "the faulty backends' clauses have the expected profiles (wrong: %s)" % wrong)
    rc, out, err = run(["--profile", "bogus", "--list"])
    ok(rc == 2 and "--profile: expected tvm or strict" in err, "--profile bogus is a usage error (exit 2)", err)

    # faulty backends under --profile tvm
    jobs = int(os.environ.get("DH_FAULTY_JOBS", "2"))
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        outs = list(ex.map(run_fault, sorted(FAULTS)))
    for fault, rc, out, err in outs:
        if rc is None:
            skip("faulty_%s --profile tvm" % fault, "plugin not built")
            skip("faulty_%s --profile tvm" % fault, "plugin not built")
            continue
        res = results(out)
        tvm_clauses = [c for c, p in FAULTS[fault].items() if p == "tvm"]
        fine = True
        for c, p in FAULTS[fault].items():
            good, rest = res.get(c, (None, ""))
            if p == "strict":
                fine &= good is True and "# SKIP profile strict clause" in rest
            else:
                fine &= good is False
        ok(fine, "faulty_%s --profile tvm: strict clauses %s skipped with the reason, tvm clauses %s fail"
           % (fault, [c for c in FAULTS[fault] if c not in tvm_clauses], tvm_clauses), out + err)
        ok(rc == (1 if tvm_clauses else 0) and "# profile: tvm (--profile)" in out,
           "faulty_%s --profile tvm: exit %d (got %s), TAP names the profile" % (fault, 1 if tvm_clauses else 0, rc),
           out + err)

    # a backend that declares default_profile "tvm"
    if not os.path.exists(lib("tvmdefault")):
        for _ in range(6):
            skip("faulty_tvmdefault", "plugin not built")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        junit = os.path.join(tmp, "j.xml")
        rc, out, err = run(["--plugin", lib("tvmdefault"), "--junit", junit])
        res = results(out)
        ok(rc == 0, "faulty_tvmdefault without --profile: exit 0 (got %s)" % rc, out + err)
        ok(out.count("# profile: tvm (the backend's default)") == 2 and "\n1..2\n" in out,
           "faulty_tvmdefault: 2 devices (device_count), each held to the backend's default profile tvm", out)
        ok(res.get("attr.exist_past_last", (None, ""))[1].startswith(" # SKIP profile strict clause"),
           "faulty_tvmdefault: attr.exist_past_last skipped as a strict clause", out)
        xml = open(junit).read() if os.path.exists(junit) else ""
        ok(xml.count('<property name="profile" value="tvm"/>') == 2, "JUnit names profile tvm per device", xml[:1500])
        ok("# profile tvm: faulty_tvmdefault:0" in out, "the run summary names each device's profile", out[-800:])
    rc, out, err = run(["--plugin", lib("tvmdefault"), "--device", "faulty_tvmdefault:0", "--profile", "strict"])
    bad = sorted(c for c, (good, _) in results(out).items() if not good)
    ok(rc == 1 and bad == ["attr.exist_count", "attr.exist_negative", "attr.exist_past_last"],
       "faulty_tvmdefault --profile strict: fails exactly the kExist clauses (got %s)" % bad, out + err)
    return 0


if __name__ == "__main__":
    sys.exit(main())
