#!/usr/bin/python3
"""`devharness module check` output on the kernel library corpus (tests/module/tests.mk)
held against golden files in tests/module/golden/: the TAP on stdout, the --tap file,
the verdict line and exit code exactly; the JUnit file case by case (each <testcase>'s
classname, name, outcome element and its message, the suite's <system-out>), and
valid against both JUnit schemas of tests/conformance/. Times and the library's path are
normalised. Guards the renovation that moved the command onto the suite room (issue 35:
"module check output identical before and after"). `golden.t --write` rewrites the
files from this build. Needs $DEVHARNESS and $BUILD (set by `make test`)."""
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok  # noqa: E402

dh = os.environ.get("DEVHARNESS", "")
build = os.environ.get("BUILD", "build")
kl = os.path.join(build, "tests", "module")
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
VARIANTS = ["good", "nometa", "dtype", "stream", "noncontig", "wrongdev"]
if not dh or not os.path.exists(dh) or not os.path.exists(os.path.join(kl, "kl_good.so")):
    print("1..0 # SKIP DEVHARNESS not set or the corpus is not built (make test builds it)")
    sys.exit(0)
write = "--write" in sys.argv[1:]
tmp = tempfile.mkdtemp(prefix="dh-module-golden-")


def junit_cases(path):
    """One line per <testcase>: classname, name, outcome and its message; then the
    suite's <system-out> (what the passing cases found)."""
    lines = []
    root = ET.parse(path).getroot()
    for tc in root.iter("testcase"):
        kids = [k for k in tc if k.tag in ("failure", "error", "skipped")]
        kind = kids[0].tag if kids else "pass"
        msg = kids[0].get("message", "") if kids else ""
        lines.append("%s\t%s\t%s\t%s" % (tc.get("classname"), tc.get("name"), kind, msg))
    for suite in root.iter("testsuite"):
        lines.append("system-out:\n" + (suite.findtext("system-out") or ""))
    return "\n".join(lines) + "\n"


for v in VARIANTS:
    lib = os.path.join(kl, "kl_%s.so" % v)
    tap, xml = os.path.join(tmp, v + ".tap"), os.path.join(tmp, v + ".xml")
    r = subprocess.run([dh, "module", "check", lib, "--device", "cpu:0", "--device", "sim:0", "--tap", tap,
                        "--junit", xml], capture_output=True, text=True, timeout=600)
    got = {"stdout": r.stdout, "stderr": "%s(exit %d)\n" % (r.stderr, r.returncode)}
    got["tap"] = open(tap).read() if os.path.exists(tap) else "(no --tap file)\n"
    got["junit"] = junit_cases(xml) if os.path.exists(xml) else "(no --junit file)\n"
    for xsd in ("junit-generic.xsd", "junit-jenkins.xsd"):
        schema = os.path.join(os.path.dirname(here), "..", "conformance", xsd)
        v_ = subprocess.run(["xmllint", "--noout", "--schema", schema, xml], capture_output=True, text=True)
        ok(v_.returncode == 0, "kl_%s: the JUnit file validates against tests/conformance/%s" % (v, xsd), v_.stderr)
    for part, text in got.items():
        text = text.replace(lib, "LIB")
        path = os.path.join(here, "%s.%s" % (v, part))
        if write:
            with open(path, "w") as f:
                f.write(text)
        want = open(path).read() if os.path.exists(path) else "(missing golden %s)\n" % path
        diff = subprocess.run(["diff", "-u", path, "-"], input=text, capture_output=True, text=True).stdout
        ok(text == want, "kl_%s: %s as tests/module/golden/%s.%s" % (v, part, v, part), diff)
print("1..%d" % count())
