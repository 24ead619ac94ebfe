#!/usr/bin/python3
"""tests/layering/cxx_headers.t — the public headers compile as C++.

A C++ program (a TVM DeviceAPI, a tvm-ffi module) may include include/devharness/*.h,
so every header must compile as C++ under g++ and clang++ with -Wall -Wextra -Werror:
each header alone (self-contained) at C++17, and all of them in one translation unit at
C++11, C++17 and C++20. C-only constructs (_Static_assert, _Alignof, ...) must go
through their portable macros (include/devharness/any.h DH_STATIC_ASSERT). The headers
are found by glob, so a new one is covered without editing this test. DLPack comes from
tvm-ffi's include folder (BUILD/venv/devharness/tvm_ffi/include, as the Makefile's
TVM_FFI_ROOT). A compiler that is absent is "# SKIP". The first points check the
checker: a made-up header with an unused parameter must fail under -Werror, and (g++)
a bare _Static_assert at namespace scope must fail as C++. Prints TAP."""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok, skip  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BUILD = os.environ.get("BUILD", "build")
BUILD = BUILD if os.path.isabs(BUILD) else os.path.join(ROOT, BUILD)
FFI_INC = os.path.join(BUILD, "venv", "devharness", "tvm_ffi", "include")
FLAGS = ["-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I", os.path.join(ROOT, "include")]


def compile_cc(cxx, std, text, extra_inc=None):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "t.cc")
        with open(src, "w", encoding="utf-8") as f:
            f.write(text)
        cmd = [cxx, "-std=" + std] + FLAGS + ["-isystem", FFI_INC]
        if extra_inc:
            cmd += ["-I", extra_inc]
        p = subprocess.run(cmd + [src], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        return p.returncode, p.stdout.decode("utf-8", "replace")


def main():
    print("TAP version 13")
    headers = sorted(os.path.basename(h) for h in glob.glob(os.path.join(ROOT, "include", "devharness", "*.h")))
    ok(len(headers) >= 9, "found the public headers (%s)" % ", ".join(headers))
    if not os.path.isfile(os.path.join(FFI_INC, "dlpack", "dlpack.h")):
        skip("public headers as C++", "no tvm-ffi include folder at %s (make deps)" % FFI_INC)
        print("1..%d" % count())
        return 0
    all_in_one = "".join('#include "devharness/%s"\n' % h for h in headers) + "int main() { return 0; }\n"
    for cxx in ("g++", "clang++"):
        if shutil.which(cxx) is None:
            skip("%s: public headers as C++" % cxx, "%s is not installed" % cxx)
            continue
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "devharness"))
            with open(os.path.join(d, "devharness", "bad.h"), "w", encoding="utf-8") as f:
                f.write("static inline int dh_bad(int unused) { return 0; }\n")
            rc, out = compile_cc(cxx, "c++17", '#include "devharness/bad.h"\nint main() { return dh_bad(1); }\n', d)
            ok(rc != 0, "%s: checker: an unused parameter in a header fails under -Wall -Wextra -Werror" % cxx, out)
        if cxx == "g++":
            rc, out = compile_cc(cxx, "c++17", '_Static_assert(1, "x");\nint main() { return 0; }\n')
            ok(rc != 0, "g++: checker: a bare _Static_assert at namespace scope is not C++", out)
        for h in headers:
            rc, out = compile_cc(cxx, "c++17", '#include "devharness/%s"\nint main() { return 0; }\n' % h)
            ok(rc == 0, "%s -std=c++17: devharness/%s alone compiles as C++" % (cxx, h), out)
        for std in ("c++11", "c++17", "c++20"):
            rc, out = compile_cc(cxx, std, all_in_one)
            ok(rc == 0, "%s -std=%s: all %d public headers in one C++ file compile" % (cxx, std, len(headers)), out)
    print("1..%d" % count())
    return 0


if __name__ == "__main__":
    sys.exit(main())
