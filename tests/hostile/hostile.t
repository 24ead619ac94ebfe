#!/usr/bin/python3
# tests/hostile/hostile.t — hostile input for the devharness command.
#
# Feeds malformed, truncated, empty, deeply nested (10000 levels), huge (tens of MB,
# generated here in a temporary folder), non-UTF-8 and duplicate-key target and waiver
# files; unknown kinds, options and tags; wrong types; bad device specs for every
# command that takes one; plugins that are not ELF, truncated, lack the entry symbol,
# have the wrong ABI major or a zero struct_size; unwritable results paths; unknown
# subcommands and options; and names with newlines and escape sequences,
# FIFOs and devices named as files, 5000-byte strings, missing files that are not tags,
# tag cycles, a directory as waiver file, a 100 000-key file, cuda arch values.
# Each case checks:
#   - exit status 2,
#   - stderr is exactly one line (options of python subcommands excepted: argparse) and
#     names the culprit (file and line:column, option, device spec, plugin path),
#   - nothing is left behind: the working folder (a fresh temporary folder) has the same
#     entries afterwards, and output files named on the command line were not created.
# A case whose fix belongs to an engineer still at work is marked "# TODO" with the
# reason, so it is reported without failing the run.
# Environment: DEVHARNESS (absolute path of the CLI), as `make test` sets it.
import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

DH = os.environ.get("DEVHARNESS")
if not DH or not os.access(DH, os.X_OK):
    print("1..0 # SKIP DEVHARNESS is not set to the devharness binary (run via make test)")
    sys.exit(0)
BUILD_DIR = os.path.dirname(os.path.dirname(os.path.abspath(DH)))
HOSTILE_PLUGINS = os.path.join(BUILD_DIR, "tests", "hostile_plugins")
SIM_PLUGIN = os.path.join(BUILD_DIR, "lib", "devharness", "libdevharness_sim.so")

TMP = tempfile.mkdtemp(prefix="dh_hostile_")
atexit.register(shutil.rmtree, TMP, True)  # the huge files go even if a case crashes
WORK = os.path.join(TMP, "work")  # cwd of every command; must stay as it was
FILES = os.path.join(TMP, "files")
os.mkdir(WORK)
os.mkdir(FILES)

results = []  # (ok, description, diagnostics, todo)


def write(name, data):
    path = os.path.join(FILES, name)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def listing(path):
    out = []
    for root, dirs, files in os.walk(path):
        for n in dirs + files:
            out.append(os.path.relpath(os.path.join(root, n), path))
    return sorted(out)


def check(desc, args, must=(), one_line=True, not_created=(), todo=None, timeout=120,
          rc_expected=2, env_extra=None, must_not=()):
    env = dict(os.environ)
    env.setdefault("DEVHARNESS_SIM_DEVICES", "2")
    if env_extra:
        env.update(env_extra)
    before = listing(WORK)
    try:
        p = subprocess.run([DH] + list(args), cwd=WORK, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        rc, err = p.returncode, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        rc, err = "timeout", ""
    problems = []
    if rc != rc_expected:
        problems.append("exit status %s, expected %d" % (rc, rc_expected))
    lines = [l for l in err.splitlines() if l.strip()]
    if not lines:
        problems.append("stderr is empty")
    elif one_line and len(lines) != 1:
        problems.append("stderr has %d lines, expected 1" % len(lines))
    for m in must:
        if m not in err:
            problems.append("stderr does not name %r" % m)
    for m in must_not:
        if m in err:
            problems.append("stderr says %r" % m)
    after = listing(WORK)
    if after != before:
        problems.append("left behind in the working folder: %s" %
                        ", ".join(sorted(set(after) - set(before))) or "(removed entries)")
    for path in not_created:
        if os.path.lexists(path):
            problems.append("%s was created" % path)
    diag = []
    if problems:
        diag.append("command: devharness " + " ".join(a if len(a) < 80 else a[:77] + "..."
                                                       for a in args))
        diag += problems
        diag += ["stderr: " + l[:300] for l in lines[:6]]
    results.append((not problems, desc, diag, todo))
    # Clean up whatever a failing case left, so the next case starts clean.
    for n in os.listdir(WORK):
        p = os.path.join(WORK, n)
        shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.unlink(p)


# ------------------------------------------------------------------ hostile JSON files
KIB = 1024
bad_json = {
    "malformed": (b'{"kind": "cpu",,}', ":1:16"),
    "truncated": (b'{"kind": "cpu", "device_name": "x', ":1:"),
    "empty": (b"", "empty"),
    "deep": (b"[" * 10000 + b"]" * 10000, ":1:"),
    "deepobj": (b'{"a":' * 10000 + b"1" + b"}" * 10000, ":1:"),
    "nonutf8": (b'{"kind": "cpu", "device_name": "\xff\xfe"}', ":1:"),
    "dup": (b'{"kind": "cpu", "kind": "sim"}', ":1:"),
    "notobject": (b'[1, 2, 3]', ""),
    "nul": (b'{"kind": "cpu"\x00}', ""),
}
paths = {}
for name, (data, pos) in bad_json.items():
    paths[name] = (write(name + ".json", data), pos)

# huge: 20 MB target file and 40 MB waiver file, both far over the 1 MiB limit of
# such files; generated here, never committed.
huge70 = os.path.join(FILES, "huge20.json")
with open(huge70, "wb") as f:
    f.write(b'{"kind": "cpu", "device_name": "')
    chunk = b"x" * (1 << 20)
    for _ in range(20):
        f.write(chunk)
    f.write(b'"}')
huge_waiver = os.path.join(FILES, "huge_waiver.json")
with open(huge_waiver, "wb") as f:
    f.write(b'{"waivers": [')
    entry = b'{"clause": "mem.free_null", "kind": "skip", "reason": "%s"}'
    pad = b"r" * 4000
    for i in range(10000):
        f.write((b"," if i else b"") + entry % pad)
    f.write(b"]}")

# target files: semantic errors
tgt = {
    "unknown kind": (write("t_kind.json", '{"kind": "nokind"}'), ["nokind"]),
    "unknown option": (write("t_opt.json", '{"kind": "cpu", "bogus_opt": 1}'), ["bogus_opt"]),
    "unknown tag": (write("t_tag.json", '{"kind": "cpu", "tag": "no/such"}'), ["no/such"]),
    "wrong type int": (write("t_type.json", '{"kind": "cpu", "num-cores": "four"}'),
                       ["num-cores"]),
    "wrong type array": (write("t_type2.json", '{"kind": "cpu", "mattr": "+avx"}'), ["mattr"]),
    # (an int is a bool for TVM's ConfigSchema, so a string is the wrong type here)
    "wrong type bool": (write("t_type3.json", '{"kind": "vulkan", "supports_float16": "yes"}'),
                        ["supports_float16"]),
    "missing kind": (write("t_nokind.json", '{"device_name": "x"}'), ["kind"]),
    "kind not a string": (write("t_kindtype.json", '{"kind": 7}'), ["kind"]),
}

tap_out = os.path.join(TMP, "never.tap")
junit_out = os.path.join(TMP, "never.xml")

for name, (path, pos) in sorted(paths.items()) + [("huge 20 MB", (huge70, "1 MiB"))]:
    base = os.path.basename(path)
    must = [base] + ([pos] if pos else [])
    check("targets validate: %s file names the file and position" % name,
          ["targets", "validate", path], must=must)
    check("targets show: %s file" % name, ["targets", "show", path], must=must)
    check("conformance --target: %s file, no TAP/JUnit written" % name,
          ["conformance", "--target", path, "--device", "sim:0", "--tap", tap_out,
           "--junit", junit_out], must=must, not_created=[tap_out, junit_out])

# A stream (not a regular file) over the limit is cut off while reading.
with open(huge70, "rb") as f:
    env = dict(os.environ)
    p = subprocess.run([DH, "targets", "validate", "/dev/stdin"], stdin=f, cwd=WORK,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    err = p.stderr.decode("utf-8", "replace").strip()
    ok = p.returncode == 2 and "1 MiB" in err and len(err.splitlines()) == 1
    results.append((ok, "targets validate: 20 MB on a pipe is cut off at the limit",
                    [] if ok else ["exit %d stderr %s" % (p.returncode, err[:300])], None))

for name, (path, must) in sorted(tgt.items()):
    base = os.path.basename(path)
    check("targets validate: %s" % name, ["targets", "validate", path], must=[base] + must)
    check("conformance --target: %s" % name,
          ["conformance", "--target", path, "--device", "sim:0", "--tap", tap_out],
          must=[base] + must, not_created=[tap_out])
check("targets show: unknown tag", ["targets", "show", "no/such"], must=["no/such"])
check("targets show: missing file", ["targets", "show", os.path.join(TMP, "absent.json")],
      must=["absent.json"])
check("conformance --target: unknown tag", ["conformance", "--target", "no/such"],
      must=["no/such"])
check("targets validate: a folder", ["targets", "validate", FILES], must=[FILES])

# ------------------------------------------------------------------ waiver files
waivers = {
    "unknown waiver kind": (write("w_kind.json", '{"waivers": [{"clause": "mem.free_null",'
                                                 ' "kind": "maybe", "reason": "x"}]}'),
                            ["maybe"], None),
    "wrong type": (write("w_type.json", '{"waivers": [{"clause": 5, "kind": "skip",'
                                        ' "reason": "x"}]}'), ["clause"], None),
    "unknown key": (write("w_key.json", '{"waivers": [{"clause": "mem.free_null",'
                                        ' "kind": "skip", "reason": "x", "bogus": 1}]}'),
                    ["bogus"], None),
    "waivers not an array": (write("w_arr.json", '{"waivers": 3}'), ["waivers"], None),
    "unknown clause id": (write("w_clause.json", '{"waivers": [{"clause": "no.such.clause",'
                                                 ' "kind": "skip", "reason": "x"}]}'),
                          ["no.such.clause"], None),
}
for name, (path, pos) in sorted(paths.items()):
    base = os.path.basename(path)
    must = [base] + ([pos] if pos and pos != "empty" else [])
    check("conformance --waivers: %s file" % name,
          ["conformance", "--waivers", path, "--device", "sim:0"], must=must)
check("conformance --waivers: huge (40 MB) file", ["conformance", "--waivers", huge_waiver,
      "--device", "sim:0", "--filter", "device.*"], must=[os.path.basename(huge_waiver)])
check("conformance --waivers: 20 MB target file as waivers", ["conformance", "--waivers", huge70,
      "--device", "sim:0", "--filter", "device.*"], must=["huge20.json", "1 MiB"])
for name, (path, must, todo) in sorted(waivers.items()):
    check("conformance --waivers: %s" % name,
          ["conformance", "--waivers", path, "--device", "sim:0", "--filter", "device.*"],
          must=[os.path.basename(path)] + must, todo=todo)
check("conformance --waivers: missing file",
      ["conformance", "--waivers", os.path.join(TMP, "absent.json"), "--device", "sim:0"],
      must=["absent.json"])

# ------------------------------------------------------------------ device specs
specs = {
    "cuda:-1": "cuda:-1",
    "opencl:99999999999": "opencl:99999999999",
    "foo:0": "foo",
    ":": ":",
    "": "",
    "sim": "sim",
    "sim:": "sim:",
    "sim:99": "sim:99",
    "sim:0x1": "sim:0x1",
    "sim:1junk": "sim:1junk",
    "x" * 5000 + ":0": "xxxx",
}
res_dir = os.path.join(TMP, "results_never")
for spec, must in specs.items():
    shown = spec if len(spec) < 30 else spec[:10] + "..."
    m = [must] if must else []
    check("info --device '%s'" % shown, ["info", "--device", spec], must=m)
    check("targets detect '%s'" % shown, ["targets", "detect", spec], must=m)
    check("conformance --device '%s'" % shown, ["conformance", "--device", spec], must=m)
    check("bench --device '%s'" % shown,
          ["bench", "--device", spec, "--out", os.path.join(TMP, "never.json")], must=m,
          not_created=[os.path.join(TMP, "never.json")])
    check("run --device '%s': no results folder" % shown,
          ["run", "--no-bench", "--output", res_dir, "--device", spec], must=m,
          not_created=[res_dir])

# ------------------------------------------------------------------ plugins
notelf = write("libdevharness_notelf.so", "this is a text file, not a plugin\n")
trunc = os.path.join(FILES, "libdevharness_trunc.so")
trunc1000 = os.path.join(FILES, "libdevharness_trunc1000.so")
if os.path.exists(SIM_PLUGIN):
    with open(SIM_PLUGIN, "rb") as f:
        head = f.read(300)
    with open(trunc, "wb") as f:
        f.write(head)
    with open(SIM_PLUGIN, "rb") as f:  # maps, then faults past the file's end (SIGBUS)
        head = f.read(1000)
    with open(trunc1000, "wb") as f:
        f.write(head)
plugin_cases = [
    ("not ELF", notelf, "ELF", None),
    ("truncated ELF", trunc, "", None),
    ("no entry symbol", os.path.join(HOSTILE_PLUGINS, "libdevharness_hnoentry.so"),
     "dh_backend_entry", None),
    ("entry returns NULL", os.path.join(HOSTILE_PLUGINS, "libdevharness_hnullentry.so"),
     "NULL", None),
    ("wrong ABI major", os.path.join(HOSTILE_PLUGINS, "libdevharness_hbadmajor.so"),
     "major", None),
    ("zero struct_size", os.path.join(HOSTILE_PLUGINS, "libdevharness_hsize0.so"),
     "struct_size", None),
    # SIGBUS while it loads; under a sanitizer its handler turns it into exit 86/87
    ("truncated to 1000 bytes (SIGBUS while it loads)", trunc1000, "in a probe process: crashed: ", None),
    ("entry calls exit(0)", os.path.join(HOSTILE_PLUGINS, "libdevharness_hexit0.so"),
     "ended the process (exit status 0)", None),
    ("constructor calls exit(0)", os.path.join(HOSTILE_PLUGINS, "libdevharness_hctorexit.so"),
     "ended the process (exit status 0)", None),
    ("entry hangs", os.path.join(HOSTILE_PLUGINS, "libdevharness_hhang.so"), "timed out", None),
    ("missing file", os.path.join(TMP, "libdevharness_absent.so"), "", None),
    ("a folder", FILES, "", None),
]
for name, path, reason, todo in plugin_cases:
    if not os.path.exists(path) and name not in ("missing file",):
        results.append((True, "conformance --plugin: %s # SKIP %s not built" % (name, path),
                        [], None))
        continue
    check("conformance --plugin: %s names the file and the reason" % name,
          ["conformance", "--plugin", path],
          must=[path] + ([reason] if reason else []), todo=todo)
# The same plugins found on DEVHARNESS_PLUGIN_PATH: refused with the reason, the other
# backends still tested (before: exit(0) in an entry ended `conformance` with exit 0 and
# an empty TAP file; a truncated file killed every command with SIGBUS).
bad_dir = os.path.join(TMP, "bad_plugins")
os.makedirs(bad_dir, exist_ok=True)
for v in ("exit0", "ctorexit"):
    src = os.path.join(HOSTILE_PLUGINS, "libdevharness_h%s.so" % v)
    if os.path.exists(src):
        shutil.copy(src, bad_dir)
if os.path.exists(trunc1000):
    shutil.copy(trunc1000, bad_dir)
p = subprocess.run([DH, "conformance", "--device", "sim:0", "--filter", "device.*"], cwd=WORK,
                   env=dict(os.environ, DEVHARNESS_PLUGIN_PATH=bad_dir), stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE, timeout=300)
out = p.stdout.decode("utf-8", "replace")
seen_ok = p.returncode == 0 and re.search(r"^ok 1 - sim:0", out, re.M) is not None
results.append((seen_ok, "plugin path with plugins that exit or crash while loading: the suite still runs sim:0",
                [] if seen_ok else ["exit %d: %s %s" % (p.returncode, out[-300:], p.stderr[-300:])], None))
# Each refused plugin is a skipped test at every level (issue 26): a `# SKIP refused:`
# test point in TAP (both layouts, counted in the plan), a <skipped> case in JUnit, an
# entry with its reason in the summary JSON.
refused_here = sorted(os.path.join(bad_dir, f) for f in os.listdir(bad_dir))
rj, rs = os.path.join(TMP, "refused.junit.xml"), os.path.join(TMP, "refused.summary.json")
seen = {}
for layout in ("subtests", "flat"):
    p = subprocess.run([DH, "conformance", "--device", "sim:0", "--filter", "device.*", "--tap-layout", layout,
                        "--junit", rj, "--summary", rs], cwd=WORK,
                       env=dict(os.environ, DEVHARNESS_PLUGIN_PATH=bad_dir), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
    out = p.stdout.decode("utf-8", "replace")
    points = re.findall(r"^ok (\d+) - refused plugin (\S+) # SKIP refused: \S", out, re.M)
    plan = re.search(r"^1\.\.(\d+)$", out, re.M)
    top = re.findall(r"^(?:not )?ok \d+ ", out, re.M)
    seen[layout] = (p.returncode == 0 and sorted(f for _, f in points) == refused_here and plan is not None
                    and int(plan.group(1)) == len(top), out[-1500:])
for layout, (good, out) in seen.items():
    results.append((good, "conformance (%s): each refused plugin is a `# SKIP refused:` test point the plan counts"
                    % layout, [] if good else [out], None))
try:
    import xml.etree.ElementTree as ET
    cases = [c for c in ET.parse(rj).getroot().iter("testcase") if c.get("classname") == "refused plugin"]
    junit_ok = sorted(c.get("name") for c in cases) == refused_here and all(
        c.find("skipped") is not None and c.find("skipped").get("message", "").startswith("refused: ") for c in cases)
    junit_diag = [open(rj, encoding="utf-8").read()[-1500:]]
except (OSError, ET.ParseError) as e:
    junit_ok, junit_diag = False, [str(e)]
results.append((junit_ok, "conformance --junit: each refused plugin is a <testcase> with <skipped> and the reason",
                [] if junit_ok else junit_diag, None))
try:
    sj = json.load(open(rs))
    summ_ok = (sj["totals"]["refused_plugins"] == len(refused_here)
               and sorted(e["plugin"] for e in sj["refused_plugins_skipped"]) == refused_here
               and all(e["skip"] for e in sj["refused_plugins_skipped"]) and len(sj["refused_plugins"]) == len(refused_here))
    summ_diag = [json.dumps(sj)[:1500]]
except (OSError, ValueError, KeyError) as e:
    summ_ok, summ_diag = False, [str(e)]
results.append((summ_ok, "conformance --summary: refused_plugins, refused_plugins_skipped (plugin, skip) and the count",
                [] if summ_ok else summ_diag, None))
p = subprocess.run([DH, "info"], cwd=WORK, env=dict(os.environ, DEVHARNESS_PLUGIN_PATH=bad_dir),
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
out = p.stdout.decode("utf-8", "replace")
named = p.returncode == 0 and all(n in out for n in ("libdevharness_hexit0.so", "libdevharness_hctorexit.so",
                                                      "libdevharness_trunc1000.so", "crashed: "))
results.append((named, "info: each refused plugin named with what happened while it loaded",
                [] if named else ["exit %d: %s" % (p.returncode, out[-600:])], None))
p = subprocess.run([DH, "run", "--device", "sim:0", "--no-bench", "--output", os.path.join(TMP, "run_bad_plugins")],
                   cwd=WORK, env=dict(os.environ, DEVHARNESS_PLUGIN_PATH=bad_dir), stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE, timeout=300)
out = p.stdout.decode("utf-8", "replace")
said = p.returncode == 0 and "NO DEVICE: plugin refused, not tested: " + os.path.join(bad_dir, "libdevharness_hexit0.so") in out
results.append((said, "run: each refused plugin is a NO DEVICE line with its reason in the summary",
                [] if said else ["exit %d: %s" % (p.returncode, out[-600:])], None))
# Any number of plugin folders: 40 empty ones before the built-in folder drop nothing.
many = ":".join(os.path.join(TMP, "empty%d" % i) for i in range(40))
p = subprocess.run([DH, "info", "--device", "sim:0"], cwd=WORK, env=dict(os.environ, DEVHARNESS_PLUGIN_PATH=many),
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
results.append((p.returncode == 0, "DEVHARNESS_PLUGIN_PATH with 40 folders: the built-in plugins still load",
                [] if p.returncode == 0 else [p.stderr.decode("utf-8", "replace")[:300]], None))

# A relative plugin path without a slash must mean the file in the working folder.
shutil.copy(notelf, os.path.join(WORK, "libdevharness_local.so"))
check("conformance --plugin: relative not-ELF file in the working folder",
      ["conformance", "--plugin", "libdevharness_local.so"],
      must=["libdevharness_local.so", "ELF"])
if os.path.exists(trunc):
    shutil.copy(trunc, os.path.join(WORK, "libdevharness_local.so"))
    check("conformance --plugin: relative truncated ELF is read from the working folder",
          ["conformance", "--plugin", "libdevharness_local.so"],
          must=["libdevharness_local.so"], must_not=["No such file"])

# Output files named on the command line must not appear when the input is refused.
for desc, extra in (("bad waiver file", ["--waivers", paths["malformed"][0]]),
                    ("bad device spec", ["--device", "foo:0"]),
                    ("bad plugin", ["--plugin", notelf])):
    check("conformance --tap/--junit: %s leaves no report file" % desc,
          ["conformance"] + extra + ["--tap", tap_out, "--junit", junit_out],
          must=[extra[1]], not_created=[tap_out, junit_out])

# ------------------------------------------------------------------ results paths
afile = write("a_file", "not a folder\n")
for out, must in (("/proc/foo", "/proc/foo"), ("/proc/self/foo/bar", "/proc/self/foo/bar"),
                  (afile, afile), (os.path.join(afile, "sub"), afile), ("", "--output")):
    check("run --output '%s': exit 2, nothing written" % out,
          ["run", "--no-bench", "--device", "sim:0", "--output", out], must=[must])
check("conformance --tap unwritable", ["conformance", "--device", "sim:0", "--filter",
      "device.*", "--tap", "/proc/foo/x.tap"], must=["/proc/foo/x.tap"])
check("conformance --junit unwritable", ["conformance", "--device", "sim:0", "--filter",
      "device.*", "--junit", "/proc/foo/x.xml"], must=["/proc/foo/x.xml"])

# ------------------------------------------------------------------ commands and options
check("unknown command", ["frobnicate"], must=["frobnicate"])
check("unknown top-level option", ["--bogus"], must=["--bogus"])
for cmd in (["info"], ["targets", "list"], ["targets", "show"], ["targets", "validate"],
            ["targets", "detect"], ["conformance"], ["run"]):
    check("%s: unknown option" % " ".join(cmd), cmd + ["--bogus-option"],
          must=["--bogus-option"])
# bench names the option on its first line, then prints its usage.
check("bench: unknown option", ["bench", "--bogus-option"], must=["--bogus-option"],
      one_line=False)
for cmd in (["plot"], ["compare"]):
    check("%s: unknown option" % " ".join(cmd), cmd + ["--bogus-option"],
          must=["--bogus-option"])
# Benchmark files that parse but cannot be compared or drawn: one line naming the file
# and the problem, exit 2 (1 would mean "regression"), never a traceback; NaN/inf/huge
# times are refused, not compared as "same".
deep = write("deep.json", '{"benchmarks":' + "[" * 100000 + "]" * 100000 + "}")
huge = write("huge.json", '{"benchmarks":[{"name":"a","real_time":%s,"time_unit":"ns"}]}' % ("9" * 401))
nan = write("nan.json", '{"benchmarks":[{"name":"a","real_time":NaN,"time_unit":"ns"}]}')
inf = write("inf.json", '{"benchmarks":[{"name":"a","real_time":1,"time_unit":"ns","bytes_per_second":Infinity}]}')
for path, what in ((deep, "nested too deeply"), (huge, "real_time is not a finite number"),
                   (nan, "real_time is not a finite number"), (inf, "bytes_per_second is not a finite number")):
    check("compare %s: %s" % (os.path.basename(path), what), ["compare", path, path], must=[path, what],
          must_not=["Traceback"])
    check("plot %s: %s" % (os.path.basename(path), what), ["plot", path, "-o", os.path.join(FILES, "plots")],
          must=[path, what], must_not=["Traceback"])
check("targets: unknown subcommand", ["targets", "frob"], must=["frob"])
check("targets validate: no file", ["targets", "validate"], must=["validate"])
check("info: option without its value", ["info", "--device"], must=["--device"])
check("run: option without its value", ["run", "--output"], must=["--output"])
check("run: bad --timeout", ["run", "--timeout", "-3", "--output", res_dir],
      must=["--timeout"], not_created=[res_dir])
check("conformance: bad --timeout", ["conformance", "--timeout", "0"], must=["--timeout"])
check("conformance: bad --jobs", ["conformance", "--jobs", "999"], must=["--jobs"])
check("conformance: --filter matching nothing", ["conformance", "--filter", "nomatch.*"],
      must=["nomatch"])
check("bench: unknown suite", ["bench", "--suite", "nosuch"], must=["nosuch"])
check("bench: bad --repetitions", ["bench", "--repetitions", "x"], must=["--repetitions"])
# --benchmark_filter goes to a backtracking regex: a 20,000-byte one overflowed its stack
# (exit 139), '.*' eight times hung for minutes. Both refused at once, exit 2.
check("bench: a 20,000-byte --benchmark_filter", ["bench", "--device", "sim:0", "--benchmark_filter=" + "a" * 20000],
      must=["--benchmark_filter: 20000 bytes"], timeout=20)
check("bench: a --benchmark_filter with 8 repetitions", ["bench", "--device", "sim:0",
      "--benchmark_filter=" + ".*" * 8 + "="], must=["8 repetition operators"], timeout=20)
check("bench: a --benchmark_filter with a repeated group", ["bench", "--device", "sim:0",
      "--benchmark_filter=(a*)*b"], must=["a repeated group"], timeout=20)
check("info: unexpected argument", ["info", "extra"], must=["extra"])
# An option that takes one value, given twice: an error naming both values (escaped),
# not the last one silently (which ran one device where two were asked for).
for cmd in (["info"], ["conformance"], ["run", "--output", res_dir], ["bench"]):
    check("%s: --device given twice" % cmd[0],
          cmd + ["--device", "cpu:0", "--device", "sim:0\nx"],
          must=["--device given twice", "'cpu:0'", "'sim:0\\nx'"], not_created=[res_dir])

# ------------------------------------------------------ names, special files, long strings
# Names with newlines and terminal escapes, FIFOs and devices instead of files, very long
# strings, names that are files not tags, tag cycles, directories as waiver files, a
# 100 000-key target file, cuda arch values.
import time

ESC = "\x1b"


def run_ok(desc, args, fence_s=None, env_extra=None):
    """A command that must succeed (exit 0), within fence_s seconds when given (a
    regression fence far above the measured time, not a performance figure)."""
    env = dict(os.environ)
    if env_extra:
        env.update(env_extra)
    t0 = time.monotonic()
    try:
        p = subprocess.run([DH] + list(args), cwd=WORK, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        rc, err = p.returncode, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        rc, err = "timeout", ""
    took = time.monotonic() - t0
    problems = []
    if rc != 0:
        problems.append("exit status %s, expected 0: %s" % (rc, err.strip()[:300]))
    if fence_s is not None and took > fence_s:
        problems.append("took %.1f s, more than %.0f s" % (took, fence_s))
    results.append((not problems, desc, problems, None))


# user text with a newline and an escape sequence is shown escaped, on one line
weird = os.path.join(FILES, "bad\n" + ESC + "[31mname.json")
check("targets validate: missing file whose name holds a newline and ESC",
      ["targets", "validate", weird], must=["bad\\n\\x1b[31mname.json", "No such file"], must_not=[ESC])
# a valid file whose name holds ESC and BEL: "valid: NAME" shows the name escaped
ctlname = write("ok" + ESC + "[31m\x07.json", '{"kind": "cuda", "arch": "sm_90", "device_name": "x\\u001by"}')
p = subprocess.run([DH, "targets", "validate", ctlname], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
out = p.stdout.decode("utf-8", "replace")
named_ok = p.returncode == 0 and "\\x1b[31m\\x07.json" in out and ESC not in out and "\x07" not in out
results.append((named_ok, "targets validate: a valid file named with ESC and BEL is named escaped",
                [] if named_ok else [repr(out[:200])], None))
check("conformance --target: missing file whose name holds a newline and ESC",
      ["conformance", "--target", weird, "--device", "sim:0"], must=["bad\\n\\x1b[31mname.json"],
      must_not=[ESC])
check("conformance --waivers: missing file whose name holds a newline and ESC",
      ["conformance", "--waivers", weird, "--device", "sim:0"], must=["bad\\n\\x1b[31mname.json"],
      must_not=[ESC])
for desc, text, shown in (
        ("kind", '{"kind": "no\\nkind\\u001b[31m"}', "no\\nkind\\x1b[31m"),
        ("option name", '{"kind": "cpu", "bad\\nopt\\u001b[0m": 1}', "bad\\nopt\\x1b[0m"),
        ("tag", '{"kind": "cpu", "tag": "no/\\nsuch\\u001b[0m"}', "no/\\nsuch\\x1b[0m"),
        ("host", '{"kind": "cuda", "host": "no\\nhost\\u001b[0m"}', "no\\nhost\\x1b[0m")):
    path = write("ctl_%s.json" % desc.replace(" ", "_"), text)
    check("targets validate: %s with a newline and ESC is escaped" % desc, ["targets", "validate", path],
          must=[os.path.basename(path), shown], must_not=[ESC])
for spec, shown in (("sim\n:0", "sim\\n:0"), ("sim:0" + ESC, "sim:0\\x1b"), (ESC + "[2J:0", "\\x1b[2J:0")):
    for cmd in (["info"], ["conformance"], ["targets", "detect"]):
        args = cmd + ([spec] if cmd[0] == "targets" else ["--device", spec])
        check("%s: device spec %r is escaped" % (" ".join(cmd), spec), args, must=[shown],
              must_not=[ESC])

# long user text is capped, so the reason after it is never cut
longk = write("long_kind.json", '{"kind": "%s"}' % ("k" * 5000))
check("targets validate: a 5000-byte kind is cut, the reason kept", ["targets", "validate", longk],
      must=["(5000 bytes)", "known kinds: cpu"])
longo = write("long_opt.json", '{"kind": "cpu", "%s": 1}' % ("o" * 5000))
check("targets validate: a 5000-byte option name is cut, the reason kept", ["targets", "validate", longo],
      must=["(5000 bytes)", "known options:"])
check("info --device: a 5000-byte backend name is cut, the reason kept",
      ["info", "--device", "b" * 5000 + ":0"], must=["(5002 bytes)", "backend name longer than"])
longpath = os.path.join(FILES, "d" * 200, "e" * 200 + ".json")
check("targets validate: a long missing path is cut, the reason kept", ["targets", "validate", longpath],
      must=["No such file"])

# each message names the real problem
check("conformance --target /no/such/file.json: a missing file, not an unknown tag",
      ["conformance", "--target", "/no/such/file.json", "--device", "sim:0"],
      must=["/no/such/file.json", "No such file"], must_not=["unknown tag"])
check("conformance --target no/such.json: a missing file, not an unknown tag",
      ["conformance", "--target", "no/such.json", "--device", "sim:0"],
      must=["no/such.json", "No such file"], must_not=["unknown tag"])
check("targets validate: missing kind lists the real kinds, never (none)",
      ["targets", "validate", tgt["missing kind"][0]], must=["known kinds: cpu"], must_not=["(none)"])
check("conformance --waivers: a directory is a directory, not a JSON syntax error",
      ["conformance", "--waivers", FILES, "--device", "sim:0"], must=[FILES, "directory"],
      must_not=["JSON syntax"])
tdir = os.path.join(TMP, "targets_cycle")
os.makedirs(os.path.join(tdir, "tags", "x"))
shutil.copytree(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "targets", "kinds"),
                os.path.join(tdir, "kinds"))
for a, b in (("a", "b"), ("b", "c"), ("c", "a")):
    with open(os.path.join(tdir, "tags", "x", a + ".json"), "w") as f:
        f.write('{"tag": "x/%s", "kind": "cpu"}' % b)
with open(os.path.join(tdir, "tags", "x", "self.json"), "w") as f:
    f.write('{"tag": "x/self", "kind": "cpu"}')
check("targets show: a tag cycle is named as a cycle", ["targets", "show", "x/a"],
      must=["a cycle: x/a -> x/b -> x/c -> x/a"], env_extra={"DEVHARNESS_TARGETS_PATH": tdir})
run_ok("targets show: a tag naming itself is the tag (TVM's own tag field)", ["targets", "show", "x/self"],
       env_extra={"DEVHARNESS_TARGETS_PATH": tdir})

# FIFOs and devices are refused at once, never read (a FIFO with no writer would block)
fifo = os.path.join(FILES, "target.fifo")
os.mkfifo(fifo)
check("targets validate: a FIFO is refused at once", ["targets", "validate", fifo], must=[fifo, "FIFO"],
      timeout=20)
check("conformance --target: a FIFO is refused at once", ["conformance", "--target", fifo, "--device", "sim:0"],
      must=[fifo, "FIFO"], timeout=20)
check("conformance --waivers: a FIFO is refused at once", ["conformance", "--waivers", fifo, "--device", "sim:0"],
      must=[fifo, "FIFO"], timeout=20)
check("targets validate: /dev/zero is refused (character device)", ["targets", "validate", "/dev/zero"],
      must=["/dev/zero", "character device"], timeout=20)
check("conformance --waivers: /dev/zero is refused (character device)",
      ["conformance", "--waivers", "/dev/zero", "--device", "sim:0"], must=["/dev/zero", "character device"],
      timeout=20)

# 100 000 distinct keys (988 915 bytes, under the 1 MiB limit): linear de-duplication;
# measured 0.23 s here, the quadratic check took 61 s; the fence is 15 s
keys = os.path.join(FILES, "keys100k.json")
with open(keys, "w") as f:
    f.write('{"kind": "cpu", "keys": [%s]}' % ", ".join('"k%d"' % i for i in range(100000)))
run_ok("targets validate: 100 000 distinct keys, linear time", ["targets", "validate", keys], fence_s=15)

# cuda 'arch' as TVM v0.27 checks it (UpdateCUDAAttrs: must start with "sm_")
for arch in ("", " sm_80", "compute_80", "SM_80", "80"):
    path = write("arch_%d.json" % len(arch) + arch.strip().replace(" ", "_") + ".json",
                 '{"kind": "cuda", "arch": "%s"}' % arch)
    check("targets validate: cuda arch %r is refused" % arch, ["targets", "validate", path],
          must=["arch", "invalid CUDA arch"])
for arch in ("sm_80", "sm_90a", "sm_100a"):
    path = write("arch_ok_%s.json" % arch, '{"kind": "cuda", "arch": "%s"}' % arch)
    run_ok("targets validate: cuda arch %r is accepted" % arch, ["targets", "validate", path])

# ------------------------------------------------------------------ report
shutil.rmtree(TMP, ignore_errors=True)
print("1..%d" % len(results))
failed = 0
for i, (ok, desc, diag, todo) in enumerate(results, 1):
    directive = " # TODO %s" % todo if todo else ""
    print("%s %d - %s%s" % ("ok" if ok else "not ok", i, desc, directive))
    for d in diag:
        print("#   " + d)
    if not ok and not todo:
        failed += 1
sys.exit(1 if failed else 0)
