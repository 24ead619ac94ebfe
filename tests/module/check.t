#!/usr/bin/python3
"""`devharness module check` on the kernel library corpus (tests/module/kernel_lib.cc,
built by tests/module/tests.mk into $BUILD/tests/module/): the well-behaved library
passes on cpu:0 and sim:0 (every case ok or skipped, each function's signature read
from its metadata, the same counts in the TAP and JUnit files); the library without
metadata passes with "no type schema" and inferred arguments; each faulty variant
fails exactly the case named for its fault, and nothing else; usage and input errors
exit 2 with one line naming what was wrong. Prints TAP. Needs $DEVHARNESS and $BUILD
(set by `make test`)."""
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok, skip  # noqa: E402

dh = os.environ.get("DEVHARNESS", "")
build = os.environ.get("BUILD", "build")
kl = os.path.join(build, "tests", "module")
if not dh or not os.path.exists(dh) or not os.path.exists(os.path.join(kl, "kl_good.so")):
    print("1..0 # SKIP DEVHARNESS not set or the corpus is not built (make test builds it)")
    sys.exit(0)

DEVICES = ["--device", "cpu:0", "--device", "sim:0"]
FUNCS = {"add": "(DLTensor*, DLTensor*, DLTensor*) -> None", "fill": "(DLTensor*, float) -> None",
         "sum": "(DLTensor*, DLTensor*) -> None"}
tmp = tempfile.mkdtemp(prefix="dh-module-")


def run(*args):
    return subprocess.run([dh, "module", *args], capture_output=True, text=True, timeout=600)


def failing(tap):
    """{(case, function, device)} of the `not ok` lines."""
    return {tuple(m.groups()) for m in re.finditer(r"^not ok \d+ - (\S+) (\S+) (\S+)$", tap, re.M)}


# ------------------------------------------------------------ the well-behaved library
good = os.path.join(kl, "kl_good.so")
tap_file, junit_file = os.path.join(tmp, "good.tap"), os.path.join(tmp, "good.xml")
r = run("check", good, *DEVICES, "--tap", tap_file, "--junit", junit_file)
ok(r.returncode == 0 and "not ok" not in r.stdout, "kl_good passes on cpu:0 and sim:0 (exit 0)",
   r.stdout + r.stderr)
for fn, sig in FUNCS.items():
    ok(re.search(r"^ok \d+ - module\.metadata %s\n  # %s$" % (fn, re.escape(sig)), r.stdout, re.M),
       "module.metadata %s reads its type schema: %s" % (fn, sig), r.stdout)
cases = ["module.call_valid", "module.wrong_arity", "module.wrong_type", "module.wrong_dtype",
         "module.non_contiguous", "module.writes", "module.bounds", "module.deterministic", "module.byte_offset",
         "module.float_width"]
for case in cases:
    n = len(re.findall(r"^ok \d+ - %s \S+ (cpu|sim):0$" % re.escape(case), r.stdout, re.M))
    ok(n == 6, "%s passed (not skipped) for 3 functions x 2 devices: %d" % (case, n), r.stdout)
ok(len(re.findall(r"^ok \d+ - module\.env_stream \S+ sim:0$", r.stdout, re.M)) == 3 and
   len(re.findall(r"^ok \d+ - module\.env_stream \S+ cpu:0 # SKIP cpu keeps no stream log", r.stdout, re.M)) == 3,
   "module.env_stream checked on sim:0 (its stream log), skipped with the reason on cpu:0", r.stdout)
ok(len(re.findall(r"^ok \d+ - module\.results \S+ sim:0\n  # every tensor equals the reference cpu:0 at sizes "
                  r"64, 0, 1, 7, 63, 1000, 65537 \(seed 1\)", r.stdout, re.M)) == 3 and
   len(re.findall(r"^ok \d+ - module\.results \S+ cpu:0 # SKIP no reference: give --reference", r.stdout, re.M)) == 3,
   "module.results compares sim:0 with cpu:0 (the default reference) at 7 sizes, skips cpu:0 saying what to give",
   r.stdout)
ok(re.search(r"^ok \d+ - module\.wrong_device add sim:0\n  # tensor 2 on cpu:0 raised ValueError", r.stdout, re.M),
   "module.wrong_device puts add's last tensor on cpu:0 when checking sim:0, and sees ValueError", r.stdout)
ok(re.search(r"^ok \d+ - module\.wrong_device fill \S+ # SKIP 1 tensor parameter", r.stdout, re.M),
   "module.wrong_device skips fill (one tensor: nothing to disagree with)", r.stdout)
m = re.search(r"(\d+) case\(s\), (\d+) pass, (\d+) fail, (\d+) skip \(exit 0\)", r.stderr)
ok(m and m.group(1) == "93" and m.group(3) == "0", "verdict line: 93 cases, 0 fail", r.stderr)
with open(tap_file) as f:
    tap = f.read()
ok(tap.startswith("TAP version 13\n1..93\n") and tap.count("\nok ") == 93, "--tap file: 93 test points, all ok", tap)
try:
    suite = ET.parse(junit_file).getroot().find("testsuite")
    ok(suite.get("tests") == "93" and suite.get("failures") == "0" and
       suite.get("skipped") == m.group(4), "--junit file: 93 testcases, 0 failures, the skips of the TAP",
       ET.tostring(suite)[:400])
except (ET.ParseError, AttributeError) as e:
    ok(False, "--junit file parses", str(e))

# ------------------------------------------------------------ without metadata
r = run("check", os.path.join(kl, "kl_nometa.so"), *DEVICES)
ok(r.returncode == 0, "kl_nometa passes too (exit 0)", r.stdout + r.stderr)
ok(len(re.findall(r"^ok \d+ - module\.metadata \S+ # SKIP no type schema", r.stdout, re.M)) == 3,
   "each function without metadata is reported as 'no type schema'", r.stdout)
ok(len(re.findall(r"^  # returned without error: .*no type schema; inferred TTT$", r.stdout, re.M)) == 2,
   "add's arguments are inferred as three tensors on both devices", r.stdout)

# ------------------------------------------------------------ faulty variants, caught by name
FAULTS = [("kl_dtype", "module.wrong_dtype+module.float_width", "crashes on a wrong dtype", ["add", "fill", "sum"]),
          ("kl_stream", "module.env_stream", "ignores the environment stream", ["add", "fill", "sum"]),
          ("kl_noncontig", "module.non_contiguous", "writes past a non-contiguous view", ["add", "fill"]),
          ("kl_wrongdev", "module.wrong_device", "returns without error on a wrong device", ["add", "sum"]),
          ("kl_simoff", "module.results+module.edge_values", "reads a[i + 1] on sim", ["add"])]
for lib, case, fault, funcs in FAULTS:
    r = run("check", os.path.join(kl, lib + ".so"), *DEVICES)
    bad = failing(r.stdout)
    devs = ["sim:0"] if case in ("module.env_stream", "module.results+module.edge_values") else ["cpu:0", "sim:0"]
    want = {(c, fn, d) for c in case.split("+") for fn in funcs for d in devs}
    ok(r.returncode == 1 and bad == want, "%s (%s) exits 1 failing %s alone, for %s on %s" %
       (lib, fault, case, ", ".join(funcs), " and ".join(devs)), r.stdout + r.stderr + "\nfailed: %s" % sorted(bad))
r = run("check", os.path.join(kl, "kl_dtype.so"), "--device", "cpu:0")
ok(re.search(r"^not ok \d+ - module\.wrong_dtype add cpu:0\n  # crashed: SIGSEGV", r.stdout, re.M),
   "the wrong-dtype crash is reported as a crash of that case (SIGSEGV) and the run goes on", r.stdout)
r = run("check", os.path.join(kl, "kl_simoff.so"), "--device", "sim:0", "--reference", "cpu:0")
ok(re.search(r"^not ok \d+ - module\.results add sim:0\n  # add at size 64: tensor 2: \d+ of 64 elements differ from "
             r"the reference cpu:0, first at \[0\]: ", r.stdout, re.M),
   "--reference cpu:0: the off-by-one on sim is named with the tensor and the first index", r.stdout)
r = run("check", os.path.join(kl, "kl_noncontig.so"), "--device", "cpu:0")
ok(re.search(r"^not ok \d+ - module\.non_contiguous fill cpu:0\n  # wrote outside a strided view", r.stdout, re.M),
   "the write past the strided view is named", r.stdout)

# ------------------------------------------------------------ list, usage and input errors
r = run("list", good)
ok(r.returncode == 0 and all(re.search(r"^%s +%s$" % (fn, re.escape(sig)), r.stdout, re.M)
                             for fn, sig in FUNCS.items()), "module list prints each function's signature",
   r.stdout + r.stderr)
not_elf = os.path.join(tmp, "not-a-library.so")
with open(not_elf, "w") as f:
    f.write("hello\n" * 20)
ERRORS = [(["check"], "expected one library (LIB.so), got 0 operand(s)"),
          ([], "expected 'check' or 'list', got nothing"),
          (["frobnicate", good], "expected 'check' or 'list', got 'frobnicate'"),
          (["check", os.path.join(tmp, "missing.so")], "missing.so': not a readable file"),
          (["check", not_elf], "not-a-library.so: not an ELF64 shared object"),
          (["check", "/proc/self/exe"], "exports no tvm-ffi function"),
          (["check", good, "--device", "nosuch:0"], "--device: device spec 'nosuch:0': Device API nosuch is not enabled"),
          (["check", good, "--timeout", "0"], "--timeout: expected 1..3600 seconds, got '0'"),
          (["check", good, "--bogus"], "unknown option '--bogus'"),
          (["check", good, "--reference-py", os.path.join(tmp, "nope.py")], "--reference-py '%s': not a readable file"
           % os.path.join(tmp, "nope.py")),
          (["check", good, "--reference", "cpu:0", "--reference-py", not_elf], "give one"),
          (["check", good, "--signature", "add(A Tensor([n], float32))"], "--signature 'add(A Tensor([n], float32))': "
           "signature: at offset 6: expected ':' after a parameter name"),
          (["check", good, "--signature", "nosuch(A: int32)"], "exports no function 'nosuch'"),
          (["check", good, "--seed", "x"], "--seed: expected 0..2147483647, got 'x'"),
          (["check", good, "--rtol", "-1"], "--rtol: expected a number >= 0, got '-1'"),
          (["check", good, "--tolerance", "add=1"], "--tolerance: expected NAME=RTOL,ATOL (numbers >= 0), got 'add=1'"),
          (["check", good, "--tolerance", "nosuch=0,0"], "--tolerance: %s exports no function 'nosuch'" % good),
          (["check", good, "--nondeterministic", "nosuch"], "--nondeterministic: %s exports no function 'nosuch'"
           % good)]
for args, msg in ERRORS:
    r = run(*args)
    lines = r.stderr.strip().splitlines()
    ok(r.returncode == 2 and len(lines) == 1 and msg in lines[0] and r.stdout == "",
       "module %s: exit 2, one line: ...%s" % (" ".join(a if a != good else "kl_good.so" for a in args), msg),
       "rc=%d\n%s%s" % (r.returncode, r.stdout, r.stderr))
info = subprocess.run([dh, "info", "--json", "--device", "cuda:0"], capture_output=True, text=True, timeout=120)
if info.returncode == 3:
    r = run("check", good, "--device", "cuda:0")
    ok(r.returncode == 3 and "NO DEVICE: cuda" in r.stderr and "not ok" not in r.stdout,
       "--device cuda:0 without an NVIDIA driver: exit 3 naming why", r.stdout + r.stderr)
else:
    skip("--device cuda:0 without a device: exit 3", "cuda:0 exists here or cuda is not built (info exit %d)" % info.returncode)
r = run("--help")
ok(r.returncode == 0 and "exit codes:" in r.stdout and "--device SPEC" in r.stdout, "module --help", r.stdout)

print("1..%d" % count())
