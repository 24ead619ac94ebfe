#!/usr/bin/python3
"""tests/layering/sizes.t — the layout's size rules (docs/architecture.md "Layers").

  - no function of the product code (base/, runtime/, target/, cmdline/, cli/,
    conformance/, bench/, backends/; .c and .cc) is longer than 80 lines, counted from
    the first line of its signature to its closing brace;
  - no product file (the rooms of tests/layering/rooms.py and include/devharness/;
    .c, .cc, .h, .py) is longer than 700 lines (MAX_FILE_LINES);
  - runtime/, the core of libdevharness.so, has one line budget per responsibility
    (RUNTIME_BUDGETS: plugins, plugin options, devices, the tvm-ffi layer, modules); every .c and .h of
    runtime/ belongs to exactly one, so a new file must say whose job it does, and a
    runtime job (module listing, type schemas) lives in runtime/ rather than being
    moved out to stay under one total.

Functions are found the way the project formats them (clang-format, .clang-format
absent: a definition starts at column 0 and its body closes with a "}" alone at column
0), which covers macro-generated definitions such as WITH_SCRATCH(name) { ... } too.
The first point checks the finder on a made-up file. Prints TAP."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import count, ok  # noqa: E402
from rooms import present  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MAX_FUNCTION_LINES = 80
MAX_FILE_LINES = 700
# responsibility -> (the runtime/ files that do it, at most this many lines together).
# Until issue 35 one total (2,550 lines) for every file; it had pushed module listing
# and type schemas out into base/.
RUNTIME_BUDGETS = {
    # 900 until ABI 1.6 (the option table's checks, the options window's hold in the loader)
    "plugins: loading, the probe child, ABI checks": (("plugin.c", "plugin_probe.c", "abi_check.c"), 950),
    "devices: dispatch façade, selection, specs, names, the slot table": (
        ("device_api.c", "device_select.c", "device_spec.c", "names.c", "internal.h"), 900),
    "the tvm-ffi layer: errors, values, functions, tensors, shared module functions": (
        ("error.c", "any.c", "function.c", "tensor.c", "backend_funcs.c"), 650),
    "plugin options: the configuration channel (ABI 1.6)": (("options.c",), 200),
    "modules: loading, export listing, metadata, type schemas, TVM signatures": (
        ("module.c", "elf_exports.c", "elf_exports.h", "func_meta.c", "type_schema.c", "func_signature.c"), 600),
}
NOT_A_FUNCTION = re.compile(r"^(typedef|struct|union|enum|static\s+const|const|extern|#|namespace)\b|=\s*\{?\s*$|=\s*\{")


def functions(text):
    """(name, first line, length) of every function definition in C/C++ text."""
    lines = text.split("\n")
    out = []
    start = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if start is None:
            if line and not line[0].isspace() and not line.startswith(("/", "*", "}")) \
                    and not NOT_A_FUNCTION.search(line) and "(" in line:
                # the signature runs to the line that ends with "{"
                j = i
                while j < len(lines) and not lines[j].rstrip().endswith("{") and not lines[j].rstrip().endswith(";") \
                        and j - i < 8:
                    j += 1
                if j < len(lines) and lines[j].rstrip().endswith("{") and not NOT_A_FUNCTION.search(lines[j]):
                    m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", line)
                    start = (m.group(1) if m else "?", i)
                    i = j + 1
                    continue
        elif line.rstrip() == "}":
            out.append((start[0], start[1] + 1, i - start[1] + 1))
            start = None
        i += 1
    return out


sample = "static int short_one(void) {\n  return 0;\n}\n\nstatic const int table[] = {\n  1,\n};\n" \
         "int long_one(int a,\n             int b) {\n" + "  a++;\n" * 80 + "  return a + b;\n}\n" \
         "WITH_SCRATCH(clause) {\n  x();\n}\n"
found = functions(sample)
ok([(n, l) for n, _, l in found] == [("short_one", 3), ("long_one", 84), ("WITH_SCRATCH", 3)],
   "the finder sees a 3-line function, an 84-line one with a 2-line signature and a macro-made one, "
   "not a table", str(found))

too_long, n_functions, runtime_lines = [], 0, {}
n_files, too_big = 0, []
for top in present() + ("include",):
    for dirpath, dirnames, names in os.walk(os.path.join(ROOT, top)):
        dirnames.sort()
        for name in sorted(names):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, ROOT)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            if name.endswith((".c", ".cc", ".h", ".py")):
                n_files += 1
                if text.count("\n") > MAX_FILE_LINES:
                    too_big.append("%s: %d lines" % (rel, text.count("\n")))
            if top == "runtime" and name.endswith((".c", ".h")):
                runtime_lines[os.path.relpath(path, os.path.join(ROOT, "runtime"))] = text.count("\n")
            if not name.endswith((".c", ".cc")):
                continue
            for fn, line, length in functions(text):
                n_functions += 1
                if length > MAX_FUNCTION_LINES:
                    too_long.append("%s:%d: %s is %d lines" % (rel, line, fn, length))
ok(n_functions > 500 and not too_long, "none of the %d functions of the product code is over %d lines"
   % (n_functions, MAX_FUNCTION_LINES), "\n".join(too_long))
ok(n_files > 150 and not too_big, "none of the %d product files is over %d lines" % (n_files, MAX_FILE_LINES),
   "\n".join(too_big))
owners = {}
for job, (files, _) in RUNTIME_BUDGETS.items():
    for f in files:
        owners.setdefault(f, []).append(job)
unowned = sorted(f for f in runtime_lines if len(owners.get(f, ())) != 1)
ok(runtime_lines and not unowned, "each of the %d .c/.h files of runtime/ belongs to one responsibility of "
   "RUNTIME_BUDGETS" % len(runtime_lines),
   "\n".join("runtime/%s: in %d responsibilities of tests/layering/sizes.t RUNTIME_BUDGETS (must be 1)"
             % (f, len(owners.get(f, ()))) for f in unowned))
for job, (files, budget) in RUNTIME_BUDGETS.items():
    lines = sum(runtime_lines.get(f, 0) for f in files)
    ok(lines <= budget, "runtime/ %s: %d lines (at most %d)" % (job, lines, budget),
       "\n".join("runtime/%s: %d" % (f, runtime_lines.get(f, 0)) for f in files))
print("1..%d" % count())
