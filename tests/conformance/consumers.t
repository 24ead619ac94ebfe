#!/usr/bin/python3
"""The conformance reports through the tools that read them (issue 29; docs/conformance.md
"Reports").

One real run: sim (one device, sim:0), faulty_cpuhandle (the cpu with one fault: fails
cap.host_pointer), faulty_badtext (fails stream.free_null with a driver message and stderr that carry a
surrogate, an overlong NUL, U+FFFE, a stray continuation byte and C0 controls) and
rtinitfail (no device: every clause a skip), written as TAP in both layouts, JUnit and
the summary JSON. Then each consumer's counts must equal the summary's:
  - xmllint (libxml2-utils): the JUnit file against the Jenkins xunit junit-10.xsd and
    the generic JUnit.xsd (tests/conformance/junit-*.xsd);
  - junitparser (python3-junitparser): cases, failures + errors, skipped;
  - prove (the flat layout): tests, failed, skipped; and, the flat run as a test script
    under prove without -v, each failure's reason and file:line in prove's output;
  - tap.py (python3-tap): the flat layout's test points, not ok, skips;
  - node-tap-parser (node-tap-parser): the subtest layout, every case inside a subtest;
and --junit-file-line: file and line name the clause's run function; and a refused
plugin: one more skipped test for prove and junitparser, the JUnit file still valid.
Each consumer is first shown a broken file (the raw bad bytes, or a verdict flipped) and
must reject it or count differently. A missing tool is a SKIP with the reason. Prints
TAP. Needs $DEVHARNESS and $BUILD (set by `make test`).
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok, skip  # noqa: E402  (tests/taplib.py)

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMAS = (("Jenkins xunit junit-10.xsd", "junit-jenkins.xsd"), ("generic JUnit.xsd", "junit-generic.xsd"))
CLAUSES = "attr.exist_valid,cap.host_pointer,stream.free_null,mem.free_null,copy.cross_device"
BAD = "\\xed\\xa0\\x80"  # how the surrogate reads after cleaning: visible escapes
NODE_COUNT = r"""
const Parser = require('tap-parser');
const c = {total: 0, pass: 0, fail: 0, skip: 0, todo: 0, outer: 0};
function attach(p, depth) {
  p.on('child', ch => attach(ch, depth + 1));
  p.on('assert', a => {
    if (depth === 0) { c.outer++; return; }
    c.total++;
    if (a.skip) c.skip++; else if (a.todo) c.todo++; else if (a.ok) c.pass++; else c.fail++;
  });
}
const p = new Parser();
attach(p, 0);
p.on('complete', () => console.log(JSON.stringify(c)));
process.stdin.pipe(p);
"""


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, timeout=300, **kw)


def tool_version(cmd):
    try:
        p = run(cmd, text=True)
        return (p.stdout + p.stderr).strip().splitlines()[0]
    except (OSError, IndexError):
        return "?"


def plugins(build):
    conf = os.path.join(build, "tests", "conformance")
    libs = [os.path.join(build, "lib", "devharness", "libdevharness_sim.so"),
            os.path.join(conf, "libdevharness_faulty_cpuhandle.so"),
            os.path.join(conf, "libdevharness_faulty_badtext.so"),
            (glob.glob(os.path.join(build, "tests", "**", "libdevharness_rtinitfail.so"), recursive=True) or [""])[0]]
    return libs if all(l and os.path.exists(l) for l in libs) else None


def make_reports(dh, libs, tmp):
    """One run, every format; -> (exit code, paths, summary)."""
    paths = {k: os.path.join(tmp, n) for k, n in (("flat", "flat.tap"), ("sub", "sub.tap"),
                                                    ("junit", "r.xml"), ("summary", "s.json"))}
    env = dict(os.environ, DEVHARNESS_SIM_DEVICES="1")
    args = [dh, "conformance", "--filter", CLAUSES, "--timeout", "10"]
    for l in libs:
        args += ["--plugin", l]
    p = run(args + ["--tap", paths["sub"], "--junit", paths["junit"], "--summary", paths["summary"]], env=env)
    q = run(args + ["--tap-layout", "flat", "--tap", paths["flat"]], env=env)
    summary = json.load(open(paths["summary"])) if os.path.exists(paths["summary"]) else None
    return p.returncode, q.returncode, paths, summary, p.stdout.decode("utf-8", "replace") + q.stderr.decode(
        "utf-8", "replace")


def broken_copy(path, tmp, name, edit):
    data = open(path, "rb").read()
    out = os.path.join(tmp, name)
    open(out, "wb").write(edit(data))
    return out


def check_xmllint(paths, tmp):
    xmllint = shutil.which("xmllint")
    if not xmllint:
        for what, _ in SCHEMAS:
            skip("xmllint: JUnit against the %s" % what, "xmllint not installed (Debian libxml2-utils)")
        return
    ver = tool_version([xmllint, "--version"])
    raw = broken_copy(paths["junit"], tmp, "raw.xml", lambda d: d.replace(BAD.encode(), b"\xed\xa0\x80", 1))
    for what, xsd in SCHEMAS:
        schema = os.path.join(HERE, xsd)
        bad = run([xmllint, "--noout", "--schema", schema, raw], text=True)
        good = run([xmllint, "--noout", "--schema", schema, paths["junit"]], text=True)
        ok(bad.returncode != 0 and good.returncode == 0,
           "xmllint (%s): rejects the raw surrogate, validates the JUnit file against the %s" % (ver, what),
           bad.stderr[-1500:] + good.stderr[-3000:])


def check_junitparser(paths, tmp, totals):
    try:
        import junitparser
        from junitparser import Error, Failure, JUnitXml, Skipped
    except ImportError:
        skip("junitparser counts", "python3-junitparser not installed (ci/install-deps.sh installs it)")
        return
    raw = broken_copy(paths["junit"], tmp, "raw2.xml", lambda d: d.replace(BAD.encode(), b"\xc0\x80", 1))
    try:
        JUnitXml.fromfile(raw)
        rejected = False
    except Exception:  # the XML parser's error, whichever class junitparser passes on
        rejected = True
    got = {"tests": 0, "failed": 0, "skipped": 0}
    for suite in JUnitXml.fromfile(paths["junit"]):
        for case in suite:
            got["tests"] += 1
            kinds = [type(r) for r in case.result]
            got["failed"] += any(k in (Failure, Error) for k in kinds)
            got["skipped"] += Skipped in kinds
    want = {"tests": totals["pass"] + totals["fail"] + totals["skip"] + totals["xfail"],
            "failed": totals["fail"], "skipped": totals["skip"] + totals["xfail"]}
    ok(rejected and got == want, "junitparser %s: rejects the raw overlong NUL; counts %s = the summary's"
       % (junitparser.version, got), "rejected=%s got=%s want=%s" % (rejected, got, want))


def prove_counts(path):
    p = run(["prove", "--exec", "cat", path], text=True)
    out = p.stdout + p.stderr
    tests = re.search(r"Tests=(\d+)", out)
    failed = re.search(r"Failed (\d+)/(\d+) subtests", out)
    skipped = re.search(r"less (\d+) skipped subtests", out)
    return (int(tests.group(1)) if tests else None, int(failed.group(1)) if failed else 0,
            int(skipped.group(1)) if skipped else 0), out


def flip(data):
    return re.sub(rb"^ok (\d+) - sim:0 attr.exist_valid", rb"not ok \1 - sim:0 attr.exist_valid", data, 1, re.M)


def check_prove(paths, tmp, want):
    if not shutil.which("prove"):
        skip("prove counts the flat layout", "prove not installed (Debian perl)")
        return
    ver = tool_version(["prove", "--version"])
    got, out = prove_counts(paths["flat"])
    flipped, _ = prove_counts(broken_copy(paths["flat"], tmp, "flip.tap", flip))
    ok(got == want and flipped[1] == want[1] + 1,
       "prove (%s): the flat layout is %s tests, failed, skipped = the summary's; a flipped verdict is one "
       "more failure" % (ver, list(want)), "got %s flipped %s want %s\n%s" % (got, flipped, want, out))


def check_prove_failures(dh, libs, tmp):
    """The flat layout run as a test script under prove without -v: each failing
    clause's reason and file:line must be in prove's output (stderr), not only in TAP
    comments prove hides."""
    if not shutil.which("prove"):
        skip("prove without -v shows each failure's reason", "prove not installed (Debian perl)")
        return
    script = os.path.join(tmp, "flat_run.t")
    args = [dh, "conformance", "--filter", CLAUSES, "--timeout", "10", "--tap-layout", "flat"]
    for l in libs:
        args += ["--plugin", l]
    with open(script, "w") as f:
        f.write("#!/bin/sh\nDEVHARNESS_SIM_DEVICES=1 exec %s\n" % " ".join("'%s'" % a for a in args))
    os.chmod(script, 0o755)
    p = run(["prove", script], text=True)
    out = p.stdout + p.stderr
    want = [r"not ok \d+ - faulty_cpuhandle:0 cap\.host_pointer: \S.*at conformance/clauses/\w+\.c:\d+\)",
            r"not ok \d+ - faulty_badtext:0 stream\.free_null: \S.*at conformance/clauses/\w+\.c:\d+\)"]
    missing = [w for w in want if not re.search(w, out)]
    ok(p.returncode != 0 and not missing and "Failed tests:" in out and not re.search(r"not ok \d+ - sim:0", out),
       "prove without -v: each failing clause of the flat layout with its reason and file:line, nothing for "
       "passing ones", "missing %s\n%s" % (missing, out))


def check_refused(dh, tmp):
    """A refused plugin (a file that is no ELF, on DEVHARNESS_PLUGIN_PATH) beside sim:0:
    one more test for prove (both layouts), a `# SKIP refused:` line, one more <skipped> case for
    junitparser, the JUnit file still valid against both schemas, and the summary's
    totals.refused_plugins says so."""
    bad = os.path.join(tmp, "refused")
    os.makedirs(bad, exist_ok=True)
    open(os.path.join(bad, "libdevharness_notelf.so"), "w").write("not a plugin\n")
    env = dict(os.environ, DEVHARNESS_SIM_DEVICES="1", DEVHARNESS_PLUGIN_PATH=bad)
    p = {k: os.path.join(tmp, "refused." + k) for k in ("sub", "flat", "xml", "json")}
    args = [dh, "conformance", "--device", "sim:0", "--filter", "device.*", "--timeout", "10"]
    a = run(args + ["--tap", p["sub"], "--junit", p["xml"], "--summary", p["json"]], env=env)
    b = run(args + ["--tap-layout", "flat", "--tap", p["flat"]], env=env)
    try:
        t = json.load(open(p["json"]))["totals"]
    except (OSError, ValueError, KeyError):
        t = {}
    good = a.returncode == 0 and b.returncode == 0 and t.get("refused_plugins") == 1
    diag = ["rc %s/%s totals %s" % (a.returncode, b.returncode, t)]
    if good and shutil.which("prove"):
        sub, out1 = prove_counts(p["sub"])
        flat, out2 = prove_counts(p["flat"])
        n = t["pass"] + t["fail"] + t["skip"] + t["xfail"]
        skips = [re.findall(r"^ok \d+ - refused plugin \S+libdevharness_notelf\.so # SKIP refused: \S",
                            open(p[k]).read(), re.M) for k in ("sub", "flat")]
        good = sub[:2] == (1 + 1, 0) and flat[:2] == (n + 1, 0) and all(len(s) == 1 for s in skips)
        diag.append("prove sub %s flat %s (cases %d), SKIP lines %s\n%s" % (sub, flat, n, skips, out1 + out2))
    xmllint = shutil.which("xmllint")
    if good and xmllint:
        fits = [run([xmllint, "--noout", "--schema", os.path.join(HERE, x), p["xml"]]).returncode == 0
                for _, x in SCHEMAS]
        good = all(fits)
        diag.append("xmllint %s" % fits)
    try:
        from junitparser import JUnitXml, Skipped
        cases = [c for s in JUnitXml.fromfile(p["xml"]) for c in s if c.classname == "refused plugin"]
        good = good and len(cases) == 1 and any(isinstance(r, Skipped) for r in cases[0].result)
        diag.append("junitparser: %d refused cases" % len(cases))
    except ImportError:
        pass
    ok(good, "a refused plugin: one more skipped test for prove (both layouts) and junitparser, the JUnit "
       "file valid against both schemas, totals.refused_plugins 1", "\n".join(diag))


def tappy_counts(path):
    from tap.parser import Parser
    tests = [l for l in Parser().parse_text(open(path, encoding="utf-8").read()) if l.category == "test"]
    return (len(tests), sum(1 for t in tests if not t.ok and not t.todo), sum(1 for t in tests if t.skip))


def check_tappy(paths, tmp, want):
    try:
        import tap
    except ImportError:
        skip("tap.py counts the flat layout", "python3-tap not installed (ci/install-deps.sh installs it)")
        return
    got = tappy_counts(paths["flat"])
    flipped = tappy_counts(broken_copy(paths["flat"], tmp, "flip2.tap", flip))
    ok(got == want and flipped[1] == want[1] + 1,
       "tap.py %s: the flat layout is %s tests, not ok, skipped = the summary's; a flipped verdict is one "
       "more failure" % (getattr(tap, "__version__", "?"), list(want)), "got %s flipped %s" % (got, flipped))


def node_counts(node, path):
    env = dict(os.environ, NODE_PATH="/usr/share/nodejs")
    p = run([node, "-e", NODE_COUNT], stdin=open(path, "rb"), env=env, text=True)
    try:
        return json.loads(p.stdout), p.stderr
    except ValueError:
        return None, p.stdout + p.stderr


def check_node(paths, tmp, totals, ndev):
    node = shutil.which("node") or shutil.which("nodejs")
    env = dict(os.environ, NODE_PATH="/usr/share/nodejs")
    ver = run([node, "-e", "console.log(require('tap-parser/package.json').version)"], env=env, text=True) \
        if node else None
    if not node or ver.returncode != 0:
        skip("node-tap-parser counts the subtest layout", "node or tap-parser missing (Debian node-tap-parser)")
        return
    got, err = node_counts(node, paths["sub"])
    flipped, _ = node_counts(node, broken_copy(paths["sub"], tmp, "flip3.tap",
                                               lambda d: d.replace(b"    ok 1 - attr.exist_valid",
                                                                   b"    not ok 1 - attr.exist_valid", 1)))
    want = {"total": totals["pass"] + totals["fail"] + totals["skip"] + totals["xfail"], "pass": totals["pass"],
            "fail": totals["fail"], "skip": totals["skip"], "todo": totals["xfail"], "outer": ndev}
    ok(got == want and flipped and flipped["fail"] == want["fail"] + 1,
       "node-tap-parser %s: every case of the subtests counted, %s = the summary's; a flipped verdict is one "
       "more failure" % (ver.stdout.strip(), got), "got %s flipped %s want %s %s" % (got, flipped, want, err))


def check_text(paths):
    """The bad bytes arrive as visible escapes in every report; each file is valid UTF-8."""
    texts = {}
    for k in ("sub", "flat", "junit", "summary"):
        try:
            texts[k] = open(paths[k], encoding="utf-8", errors="strict").read()
        except (OSError, UnicodeDecodeError) as e:
            texts[k] = "UNREADABLE: %s" % e
    # the subtest layout's YAML strings escape the backslash once more: "\\xed" reads \xed
    want = {"sub": (BAD.replace("\\", "\\\\"), "\\\\uFFFE"), "flat": (BAD, "\\uFFFE"), "junit": (BAD, "\\uFFFE")}
    ok(all(a in texts[k] and b in texts[k] for k, (a, b) in want.items()),
       "the driver's bytes are visible escapes (%s, \\uFFFE) in TAP (both layouts) and JUnit; all valid UTF-8"
       % BAD, "\n".join("%s: %s" % (k, v[:300]) for k, v in texts.items()))


def check_file_line(dh, libs, tmp):
    """--junit-file-line: every <testcase> names the line that defines its clause's run function
    (read back from the source), and the file then fits neither schema, as documented."""
    import xml.etree.ElementTree as ET
    path = os.path.join(tmp, "fl.xml")
    run([dh, "conformance", "--plugin", libs[0], "--filter", CLAUSES, "--junit", path, "--junit-file-line"],
        env=dict(os.environ, DEVHARNESS_SIM_DEVICES="1"))
    root = os.path.normpath(os.path.join(HERE, "..", ".."))
    bad = []
    cases = ET.parse(path).getroot().findall(".//testcase") if os.path.exists(path) else []
    for c in cases:
        f, line = c.get("file", ""), int(c.get("line", "0"))
        src = open(os.path.join(root, f)).read().splitlines() if f.startswith("conformance/clauses/") else []
        text = src[line - 1] if 0 < line <= len(src) else ""
        # `static void exist_valid(dh_conf_ctx_t* c) {` or `WITH_SCRATCH(d2d_sizes) {`
        if not re.match(r"(static\s+)?void\s+\w+\s*\(dh_conf_ctx_t\s*\*\s*c\)|[A-Z_]+\(\w+\)\s*\{", text):
            bad.append((c.get("name"), f, line, text))
    xmllint = shutil.which("xmllint")
    fits = [run([xmllint, "--noout", "--schema", os.path.join(HERE, x), path]).returncode == 0
            for _, x in SCHEMAS] if xmllint else []
    ok(len(cases) == 5 and not bad and not any(fits),
       "--junit-file-line: each <testcase> points at its clause's run function; neither schema takes it",
       "cases=%d bad=%s fits=%s" % (len(cases), bad, fits))


def main():
    dh = os.environ.get("DEVHARNESS", "")
    build = os.environ.get("BUILD", "build")
    if not dh or not os.path.exists(dh):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        return
    libs = plugins(build)
    if not libs:
        print("1..0 # SKIP the sim plugin, faulty_wrongbyte, faulty_badtext or rtinitfail is not built")
        return
    print("1..11")
    tmp = tempfile.mkdtemp(prefix="dh-consumers-")
    try:
        rc, rc_flat, paths, summary, out = make_reports(dh, libs, tmp)
        t = summary["totals"] if summary else {}
        ok(rc == 1 and rc_flat == 1 and summary and t["fail"] == 2 and t["pass"] > 0 and t["skip"] > 0
           and t["no_device"] == 1 and {"sim:0", "faulty_cpuhandle:0", "faulty_badtext:0"} <=
           {d["name"] for d in summary["devices"]},
           "one run: sim:0, two faulty backends failing one clause each, one backend without a device (exit 1)",
           "rc=%s/%s totals=%s\n%s" % (rc, rc_flat, t, out))
        if not summary:
            return
        check_text(paths)
        check_xmllint(paths, tmp)
        check_junitparser(paths, tmp, t)
        want = (t["pass"] + t["fail"] + t["skip"] + t["xfail"], t["fail"], t["skip"])
        check_prove(paths, tmp, want)
        check_prove_failures(dh, libs, tmp)
        check_tappy(paths, tmp, want)
        check_node(paths, tmp, t, t["devices"])
        check_file_line(dh, libs, tmp)
        check_refused(dh, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if count() < 11:
            print("# stopped after %d test points" % count())


main()
