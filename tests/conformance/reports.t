#!/usr/bin/python3
"""The conformance reports read by other tools (docs/ci.md).

One run mixes a device that crashes (tests/conformance/faulty_segv.c), a waiver whose
reason holds TAP's special characters '#' and '\\', and a backend with no device (the
rtinitfail test plugin). Then:
  - prove reads the TAP: the no-device backend is a skip at the outer level;
  - a second TAP parser, Debian's python3-tap (tappy), reads the outer stream and each
    subtest, and gets the same ok / not ok / skip as we meant;
  - xmllint validates the JUnit file against tests/conformance/junit-jenkins.xsd (the
    Jenkins xunit plugin's junit-10.xsd rules): a crash is <error>, its message said
    once, a skip reason is the <skipped> element's text;
  - when every selected backend has no device the exit code is 3 (documented).
Prints TAP. Needs $DEVHARNESS and $BUILD (set by `make test`).
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok  # noqa: E402  (tests/taplib.py)


def main():
    dh = os.environ.get("DEVHARNESS", "")
    build = os.environ.get("BUILD", "build")
    here = os.path.dirname(os.path.abspath(__file__))
    segv = os.path.join(build, "tests", "conformance", "libdevharness_faulty_segv.so")
    nodev = (glob.glob(os.path.join(build, "tests", "**", "libdevharness_rtinitfail.so"), recursive=True) or [""])[0]
    if not dh or not os.path.exists(dh):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        return
    if not os.path.exists(segv) or not nodev:
        print("1..0 # SKIP faulty_segv or rtinitfail test plugin not built")
        return
    try:
        from tap.parser import Parser
    except ImportError:
        print("1..0 # SKIP python3-tap is not installed (ci/install-deps.sh installs it)")
        return
    xmllint = shutil.which("xmllint")
    print("1..13")
    tmp = tempfile.mkdtemp(prefix="dh-reports-")
    tap, junit, wv = (os.path.join(tmp, n) for n in ("r.tap", "r.xml", "w.json"))
    reason = "bug #x12 in C:\\drv (see \\# notes)"
    with open(wv, "w") as f:
        json.dump({"waivers": [{"clause": "mem.free_null", "kind": "skip", "reason": reason}]}, f)
    p = subprocess.run([dh, "conformance", "--plugin", segv, "--plugin", nodev, "--device", "faulty_segv:0",
                        "--filter", "copy.d2d_sizes,mem.free_null,attr.exist_valid", "--waivers", wv,
                        "--timeout", "5", "--tap", tap, "--junit", junit],
                       capture_output=True, text=True, timeout=120)
    out = p.stdout
    ok(p.returncode == 1, "crash on faulty_segv:0: exit 1", out + p.stderr)
    crash_line = [l for l in out.splitlines() if "copy.d2d_sizes" in l and "not ok" in l]
    ok(crash_line and ("\\# crashed: " in crash_line[0] or "\\# crashed: exit status" in crash_line[0])
       and " # crashed" not in crash_line[0],
       "the crash note's hash is escaped in the description (no directive)", "\n".join(crash_line) or out)
    # the crash report keeps its crashing frame: bad_copy (tests/conformance/faulty_segv.c) is five
    # calls below the clause and a dozen below the runner's frames, which used to fill the kept tail
    junit_text = open(junit, encoding="utf-8").read()
    err_el = re.search(r"<error [^>]*>(.*?)</error>", junit_text, re.S)
    ok("bad_copy" in out.split("copy.d2d_sizes", 1)[-1] and err_el and "bad_copy" in err_el.group(1)
       and "bad_copy" in junit_text.split("<system-err>", 1)[-1],
       "the crashing function bad_copy is in the TAP stderr, the JUnit <error> and <system-err>",
       out[-3000:] + junit_text[-3000:])
    skip_line = [l for l in out.splitlines() if "mem.free_null" in l]
    want = "# SKIP bug \\#x12 in C:\\\\drv (see \\\\\\# notes)"
    ok(skip_line and skip_line[0].endswith(want), "hash and backslash escaped in the SKIP reason",
       "\n".join(skip_line))

    # prove
    pr = subprocess.run(["prove", "--exec", "cat", tap], capture_output=True, text=True)
    ok(pr.returncode != 0 and "Failed" in pr.stdout, "prove reads the TAP and sees the failure",
       pr.stdout + pr.stderr)

    # tappy: outer level, then each subtest de-indented
    lines = list(Parser().parse_text(open(tap).read()))
    res = [l for l in lines if l.category == "test"]
    plans = [l for l in lines if l.category == "plan"]
    ok(len(plans) == 1 and plans[0].expected_tests == len(res) == 1 and not res[0].ok,
       "tappy: outer plan 1..1, faulty_segv:0 not ok", [(l.category, str(l)) for l in lines])
    sub = "\n".join(l[4:] for l in open(tap).read().splitlines() if l.startswith("    ") and not l.startswith("      "))
    inner = [l for l in Parser().parse_text(sub) if l.category == "test"]
    got = {l.description.split()[1] if l.description.startswith("- ") else l.description: l for l in inner}
    d2d = [l for l in inner if "copy.d2d_sizes" in l.description]
    fn = [l for l in inner if "mem.free_null" in l.description]
    ok(len(inner) == 3 and d2d and not d2d[0].ok and not d2d[0].skip and not d2d[0].todo,
       "tappy: the crashed clause is not ok, not a skip or todo", [str(l) for l in inner])
    ok(fn and fn[0].ok and fn[0].skip, "tappy: the waived clause is a skip", [str(l) for l in inner])
    del got

    # JUnit
    if xmllint:
        v = subprocess.run([xmllint, "--noout", "--schema", os.path.join(here, "junit-jenkins.xsd"), junit],
                           capture_output=True, text=True)
        ok(v.returncode == 0, "JUnit validates against the Jenkins xunit schema (xmllint)", v.stderr)
    else:
        ok(True, "JUnit schema check # SKIP xmllint not installed (libxml2-utils)")
    root = ET.parse(junit).getroot()
    err = root.findall(".//testcase[@name='copy.d2d_sizes']/error")
    ok(len(err) == 1 and err[0].get("message", "").count("crashed") == 1 and err[0].get("type") == "crash"
       and sum(int(s.get("errors")) for s in root.iter("testsuite")) == 1 and not root.findall(".//testcase[@name='copy.d2d_sizes']/failure"),
       "JUnit: the crash is one <error type=crash>, its message said once, the suite's errors=1",
       open(junit).read()[:3000])
    sk = root.findall(".//testcase[@name='mem.free_null']/skipped")
    ok(len(sk) == 1 and sk[0].text == reason and sk[0].get("message") == reason,
       "JUnit: the skip reason is the <skipped> text (and message)", open(junit).read()[:3000])

    # a backend with no device: outer # SKIP, NO DEVICE said, exit 3
    p = subprocess.run([dh, "conformance", "--plugin", nodev, "--filter", "attr.exist_valid", "--tap", tap],
                       capture_output=True, text=True, timeout=60)
    outer = [l for l in p.stdout.splitlines() if l.startswith("ok ") or l.startswith("not ok ")]
    ok(p.returncode == 3 and len(outer) == 1 and " # SKIP " in outer[0] and "NO DEVICE" in p.stdout
       and "NO DEVICE" in p.stderr, "no device: outer '# SKIP reason', NO DEVICE said, exit 3",
       "rc=%d\n%s%s" % (p.returncode, p.stdout, p.stderr))
    outer_t = [l for l in Parser().parse_text(p.stdout) if l.category == "test"]
    ok(len(outer_t) == 1 and outer_t[0].skip, "tappy: the no-device backend is a skip",
       [str(l) for l in outer_t])
    shutil.rmtree(tmp, ignore_errors=True)


main()
