#!/usr/bin/python3
"""`devharness module check` on TVM-compiled kernels (issue 36; docs/kernel-libraries.md):
the corpus tests/module/tvm_corpus.py builds at test time with the project venv's TVM
(llvm, no type schema: the functions report their signatures when refused). The correct
kernels (vadd with a symbolic n, a 16x16 static matmul, a row reduction, an int32 scale
with a scalar) pass on cpu:0 against NumPy references (tests/module/tvm_reference.py)
and against another build (--reference-lib); each faulty vadd exits 1 and fails the case
named for its fault; a bad reference (no such function, one that raises, one returning
the wrong shape) fails module.results with one line naming the file and function while
the other cases run; --signature gives a schema-less function its parameters. Prints
TAP. Needs $DEVHARNESS and the venv's python ($DEVHARNESS_VENV_PY)."""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
dh = os.environ.get("DEVHARNESS", "")
py = os.environ.get("DEVHARNESS_VENV_PY", "")
build = os.environ.get("BUILD", "build")
if not dh or not os.path.exists(dh) or not py or not os.path.exists(py):
    print("1..0 # SKIP DEVHARNESS or the project venv's python (DEVHARNESS_VENV_PY) missing")
    sys.exit(0)
tmp = tempfile.mkdtemp(prefix="dh-tvm-corpus-")
b = subprocess.run([py, os.path.join(HERE, "tvm_corpus.py"), tmp], capture_output=True, text=True, timeout=600)
if b.returncode != 0:
    print("1..0 # SKIP the venv's TVM does not build the corpus: %s" % (b.stderr.strip().splitlines() or ["?"])[-1])
    sys.exit(0)
REF = os.path.join(HERE, "tvm_reference.py")


def check(lib, *args):
    return subprocess.run([dh, "module", "check", os.path.join(tmp, lib), "--device", "cpu:0", "--jobs", "2", *args],
                          capture_output=True, text=True, timeout=600)


def verdicts(out, fn):
    """{case: (ok, message)} of function fn."""
    return {m.group(2): (m.group(1) == "ok", m.group(3) or m.group(4) or "")
            for m in re.finditer(r"^(ok|not ok) \d+ - (\S+) %s(?: cpu:0)?(?: # SKIP (.*))?\n(?:  # (.*))?" % fn, out, re.M)}


# ------------------------------------------------------------ correct kernels
SIGS = {"vadd": r"vadd\(A: Tensor\(\[n\], float32\), B: Tensor\(\[n\], float32\), C: Tensor\(\[n\], float32\)\)",
        "matmul": r"matmul\(M: Tensor\(\[16, 16\], float32\), N: Tensor\(\[16, 16\], float32\), "
                  r"P: Tensor\(\[16, 16\], float32\)\)",
        "rowsum": r"rowsum\(A: Tensor\(\[n, m\], float32\), S: Tensor\(\[n\], float32\)\)",
        "scale": r"scale\(A: Tensor\(\[n\], int32\), x: int32, B: Tensor\(\[n\], int32\)\)"}
for fn, sig in SIGS.items():
    r = check(fn + ".so", "--reference-py", REF)
    v = verdicts(r.stdout, fn)
    sizes = "64" if fn == "matmul" else "64, 0, 1, 7, 63, 1000" if fn == "rowsum" else "64, 0, 1, 7, 63, 1000, 65537"
    ok(r.returncode == 0 and "not ok" not in r.stdout and re.search(r"no type schema; checked from the signature " + sig,
                                                                     v.get("module.metadata", (0, ""))[1]),
       "%s.so (TVM, llvm): exit 0, every case ok or skipped, its signature reported by the function" % fn,
       r.stdout[-3000:] + r.stderr)
    ok(v.get("module.results", (0, ""))[0] and
       ("at size%s %s (seed 1)" % ("" if fn == "matmul" else "s", sizes)) in v["module.results"][1],
       "%s: module.results equals the NumPy reference at sizes %s" % (fn, sizes), str(v.get("module.results")))
    for case in ("module.call_valid", "module.edge_values" if fn != "scale" else "module.writes", "module.writes", "module.bounds", "module.deterministic", "module.byte_offset"):
        if not v.get(case, (0, ""))[0] or v[case][1].startswith("no "):
            ok(False, "%s: %s passes" % (fn, case), str(v.get(case)))
            break
    else:
        ok(True, "%s: call_valid, writes, bounds, deterministic, byte_offset pass (none skipped)" % fn)
ok(re.search(r"^ok 1 - module\.metadata main # SKIP an alias of vadd \(TVM's module main function\): checked as vadd\n"
             r"ok 2 - module\.metadata vadd ", r.stdout, re.M) if (r := check("vadd.so")) else False,
   "TVM's __tvm_ffi_main is named an alias of vadd and not checked twice", r.stdout[:800])
r = check("vadd.so", "--reference-lib", os.path.join(tmp, "vadd.so"))
ok(r.returncode == 0 and "every tensor equals the reference %s on cpu:0" % os.path.join(tmp, "vadd.so") in r.stdout,
   "--reference-lib another build of vadd: module.results passes", r.stdout[-2000:])

r = subprocess.run([dh, "module", "check", os.path.join(tmp, "vadd.so"), "--device", "sim:0"], capture_output=True,
                   text=True, timeout=600)
bad = re.findall(r"^not ok \d+ - (\S+) vadd sim:0\n  # (.*)", r.stdout, re.M)
ok(r.returncode == 1 and len(bad) == 1 and bad[0][0] == "module.call_valid" and "expected cpu" in bad[0][1] and
   len(re.findall(r"^ok \d+ - module\.\S+ vadd sim:0 # SKIP no call was accepted \(module\.call_valid fails", r.stdout,
                  re.M)) >= 10,
   "an llvm build checked on sim:0: module.call_valid fails with TVM's refusal on one line (expected cpu), the "
   "other cases of the function skip pointing at it", r.stdout[-2500:])

# ------------------------------------------------------------ faulty kernels, caught by name
FAULTS = [("vadd_formula", "module.results", r"vadd at size 64: tensor 2: 64 of 64 elements differ from the reference "
           r"\S+tvm_reference\.py, first at \[0\]: "),
          ("vadd_tail", "module.results", r"vadd at size 1: tensor 2: 1 of 1 elements differ"),
          ("vadd_half", "module.writes", r"size 64: tensor 2 is written but 32 of its 64 elements are not \(first \[32\]"),
          ("vadd_oob", "module.bounds", r"size 64: wrote outside tensor 2: the guard byte 1 after its elements changed"),
          ("vadd_nan", "module.edge_values", r"vadd at size 64 with edge values: tensor 2: \d+ of 64 elements differ")]
for lib, case, msg in FAULTS:
    r = check(lib + ".so", "--reference-py", REF)
    v = verdicts(r.stdout, "vadd")
    others = sorted(c for c, (good, _) in v.items() if not good and c not in (case, "module.results"))
    ok(r.returncode == 1 and case in v and not v[case][0] and re.search(msg, v[case][1]) and
       (lib != "vadd_nan" or not others and v["module.results"][0]),
       "%s.so exits 1 and fails %s: %s" % (lib, case, msg.replace("\\", "")), str(v.get(case)) + r.stderr[-300:])
r = check("vadd_formula.so", "--reference-lib", os.path.join(tmp, "vadd.so"))
ok(r.returncode == 1 and not verdicts(r.stdout, "vadd").get("module.results", (1,))[0],
   "--reference-lib the correct build catches the wrong formula", r.stdout[-1500:])
r = check("vadd_formula.so", "--reference-py", REF, "--tolerance", "vadd=0,10", "--nondeterministic", "vadd")
v = verdicts(r.stdout, "vadd")
ok(v.get("module.results", (0,))[0] and
   v.get("module.deterministic", (0, ""))[1] == "declared nondeterministic (--nondeterministic)",
   "--tolerance vadd=0,10 is vadd's tolerance (its wrong formula is within atol 10; it fails above without); "
   "--nondeterministic vadd skips its module.deterministic", str(v))
r = check("vadd_formula.so")
ok(r.returncode == 0 and re.search(r"^ok \d+ - module\.results vadd cpu:0 # SKIP no reference: give --reference DEVICE",
                                   r.stdout, re.M),
   "without a reference on cpu:0 module.results is skipped saying what to give (not a pass)", r.stdout[-1500:])

# ------------------------------------------------------------ bad references
bad = os.path.join(tmp, "bad_ref.py")
with open(bad, "w") as f:
    f.write("import numpy as np\n"
            "def matmul(m, n, p):\n    raise RuntimeError('not today')\n"
            "def rowsum(a, s):\n    return np.zeros(3, a.dtype)\n")
BAD = [("vadd", "%s has no function vadd" % bad), ("matmul", "%s: matmul raised RuntimeError: not today" % bad),
       ("rowsum", "%s: rowsum returned shape (3,) for a tensor of shape (64,)" % bad)]
for fn, msg in BAD:
    r = check(fn + ".so", "--reference-py", bad)
    v = verdicts(r.stdout, fn)
    res = v.get("module.results", (1, ""))
    others = [c for c, (good, _) in v.items() if not good and c not in ("module.results", "module.edge_values")]
    ok(r.returncode == 1 and not res[0] and msg in res[1] and "\n" not in res[1] and not others,
       "a reference %s: module.results (and edge_values) fail naming the file and function, the rest pass"
       % msg.split(": ")[-1],
       str(res) + " others failing: %s" % others)

# ------------------------------------------------------------ --signature
kl = os.path.join(build, "tests", "module", "kl_nometa.so")
sig = "add(a: Tensor([n], float32), b: Tensor([n], float32), out: Tensor([n], float32))"
r = subprocess.run([dh, "module", "check", kl, "--device", "cpu:0", "--device", "sim:0", "--signature", sig],
                   capture_output=True, text=True, timeout=600)
ok(r.returncode == 0 and re.search(r"^ok \d+ - module\.metadata add # SKIP no type schema; checked from the signature "
                                   + re.escape(sig), r.stdout, re.M) and
   re.search(r"^ok \d+ - module\.results add sim:0\n  # every tensor equals the reference cpu:0", r.stdout, re.M),
   "--signature gives kl_nometa's add its parameters: checked from it, sim:0 agrees with cpu:0", r.stdout[-3000:])

print("1..%d" % count())
