#!/usr/bin/python3
"""tests/layering/config_channel.t — a backend's options reach it through the runtime's
configuration channel (plugin ABI 1.6, issue 35).

A backend declares its options (dh_backend_t.options, include/devharness/backend.h);
a command offers them in its one device-option group (cmdline/device_options.c) and
gives their values to the runtime (dh_backend_option_set, device_api.h "Backend
options"), which hands them to the backend's set_option; a command passes them on to
the devharness processes it starts on their command lines. So:

1. no `setenv(` in the rooms above the runtime (cmdline/ cli/ conformance/ bench/
   module/ store/ machine/ suite/): a command configures no backend, nor the driver
   under one, through the environment;
2. no `DEVHARNESS_TVM_` in product code outside backends/tvm/: what --tvm-lib and --rpc
   mean, and their environment fallbacks DEVHARNESS_TVM_LIBS / DEVHARNESS_TVM_RPC, are
   that backend's (docs, *.md files and tests/ may name them).

Comments count for 2 (a comment naming the variable is a second place that has to be
kept true), not for 1. The first points check the checker on made-up lines. Prints TAP."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import count, ok  # noqa: E402
from rooms import ROOT, present  # noqa: E402

NO_SETENV = ("cmdline", "cli", "conformance", "bench", "module", "store", "machine", "suite")
TVM_OWNER = "backends/tvm/"
# Product code besides the rooms: the public headers, the build, the examples, CI, the
# target presets and the launcher. docs/ and tests/ are not product code.
EXTRA = ("include", "mk", "examples", "ci", "targets", "Makefile", "devharness.sh", "devharness.pc.in")
SETENV = re.compile(r"\bsetenv\s*\(")
C_SUFFIXES = (".c", ".h", ".cc", ".cpp")


def code_of(rel, text):
    """text without C comments (a .c/.h/.cc file) or # comments (a .py file)."""
    if rel.endswith(C_SUFFIXES):
        return re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    if rel.endswith(".py"):
        return re.sub(r"#[^\n]*", "", text)
    return text


def breaches(rel, text):
    """'rel:line: ...' for every line of rel that breaks rule 1 or rule 2."""
    if rel.endswith(".md") or rel.startswith(("docs/", "tests/")):
        return []
    out = []
    if rel.split("/", 1)[0] in NO_SETENV:
        for n, line in enumerate(code_of(rel, text).splitlines(), 1):
            if SETENV.search(line):
                out.append("%s:%d: calls setenv: %s (give the value to its backend: dh_backend_option_set)"
                           % (rel, n, line.strip()))
    if not rel.startswith(TVM_OWNER):
        for n, line in enumerate(text.splitlines(), 1):
            if "DEVHARNESS_TVM_" in line:
                out.append("%s:%d: names DEVHARNESS_TVM_*: %s (only backends/tvm/ may)" % (rel, n, line.strip()))
    return out


ok(breaches("cli/run.c", '  setenv("DEVHARNESS_TVM_LIBS", all, 1);\n') and
   breaches("bench/measure/pinning.c", '  } else if (setenv ("X", "1", 0) != 0) {\n') and
   breaches("cmdline/cmdline.h", " * DEVHARNESS_TVM_RPC, which backends/tvm/ reads\n") and
   breaches("include/devharness/backend.h", " * named by DEVHARNESS_TVM_LIBS register\n") and
   breaches("mk/x.mk", "export DEVHARNESS_TVM_ROOT := x\n"),
   "the checker refuses setenv in a command room and DEVHARNESS_TVM_ named outside backends/tvm/")
ok(not breaches("backends/tvm/tvm_options.c", '  return getenv("DEVHARNESS_TVM_LIBS");\n') and
   not breaches("backends/opencl/opencl_device.c", '  setenv("POCL_X", "1", 0);\n') and
   not breaches("runtime/plugin.c", "  /* no setenv() here */\n") and
   not breaches("cli/run.c", "  /* the steps do not inherit them: no setenv(), the command line */\n") and
   not breaches("README.md", "`DEVHARNESS_TVM_LIBS` (libraries)\n") and
   not breaches("docs/architecture.md", "`DEVHARNESS_TVM_LIBS`\n") and
   not breaches("tests/backends/tvm/tvm_lib.t", 'env["DEVHARNESS_TVM_LIBS"] = x\n'),
   "the checker allows backends, the runtime, comments naming setenv, docs and tests")

bad = []
files = 0
tops = [os.path.join(ROOT, t) for t in present()] + [os.path.join(ROOT, e) for e in EXTRA]
for top in tops:
    if os.path.isfile(top):
        walk = [(os.path.dirname(top), [], [os.path.basename(top)])]
    else:
        walk = os.walk(top)
    for dirpath, dirs, names in walk:
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for name in sorted(names):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, ROOT)
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except (UnicodeDecodeError, OSError):
                continue  # binary files
            files += 1
            bad += breaches(rel, text)
ok(files > 0 and not bad, "%d product files: no setenv( in %s; DEVHARNESS_TVM_ named only in backends/tvm/"
   % (files, ", ".join(r + "/" for r in NO_SETENV)), "\n".join(bad))
print("1..%d" % count())
