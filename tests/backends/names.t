#!/usr/bin/python3
"""tests/backends/names.t — every backend's symbols follow one naming rule.

The rule (docs/adding-a-backend.md "Names"): every global symbol a backend defines is
`dh_<backend>_<what>`, <backend> being its folder under backends/ (cpu, sim, skeleton,
tvm, cuda, opencl, vulkan; the shared helpers of backends/common/ are `dh_common_`),
except the plugin entry symbol `dh_backend_entry`; and a function bound into the
dh_backend_t vtable is named after its field (`.alloc_data_space =
dh_<backend>_alloc_data_space`).

Points, for each folder of backends/:
  - its objects under $BUILD/obj/backends/<folder>/ (sub-folders included), read with `nm -P`: every defined global symbol (T, D, B, R) has the
    prefix. Objects whose source is gone are left out; a folder with no object (its SDK
    is absent) is a SKIP with the reason;
  - its `<folder>_backend.c`: every `.field = dh_...` of the vtable names that field
    (`.raw = &dh_<folder>_raw_twin`), the bindings that backend.h's
    DH_BACKEND_BIND_<GROUP>_ENTRIES(prefix) macros write included: each use is expanded
    with the macro's definition read from include/devharness/backend.h and the
    backend_entries.h it includes (a macro made of
    others, DH_BACKEND_BIND_ALL_ENTRIES, through theirs), so a wrong
    prefix argument, `DH_BACKEND_BIND_STREAM_ENTRIES(dh_sim)` in opencl_backend.c, and
    an unknown macro both fail);
And, once: every DH_BACKEND_BIND_<GROUP>_ENTRIES of backend.h binds each field to
`prefix##_<field>`.
And for every plugin under $BUILD/lib (libdevharness_<name>.so, tvm's adapter library):
its dynamic symbols (`nm -D`) have the prefix of its folder.
The first points check the checker on made-up symbol lists, so the test can fail.
Prints TAP."""
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok, skip  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BUILD = os.environ.get("BUILD", "build")
BUILD_DIR = BUILD if os.path.isabs(BUILD) else os.path.join(ROOT, BUILD)
BACKENDS = os.path.join(ROOT, "backends")
ENTRY = "dh_backend_entry"
GLOBAL_KINDS = set("TDBR")  # defined text, data, bss, read-only data
ENTRY_NAMES = {"raw": "raw_twin"}  # vtable fields whose entry has another name
BACKEND_H = os.path.join(ROOT, "include", "devharness", "backend.h")
# the bind macros live in backend_entries.h, which backend.h includes (ABI 1.6 split)
BACKEND_HEADERS = (BACKEND_H, os.path.join(ROOT, "include", "devharness", "backend_entries.h"))


def read_backend_headers():
    """The text of backend.h and of the header of its bind macros, together."""
    text = ""
    for path in BACKEND_HEADERS:
        with open(path) as f:
            text += f.read()
    return text
BIND_DEF = re.compile(r"^#define\s+(DH_BACKEND_BIND_\w+_ENTRIES)\((\w+)\)((?:.*\\\n)*.*)$", re.M)
BIND_USE = re.compile(r"\b(DH_BACKEND_BIND_\w+)\s*\(\s*(\w*)\s*\)")


def prefix(folder):
    """The symbol prefix of a backends/ folder."""
    return "dh_%s_" % folder


def parse_nm(text):
    """Defined global symbol names (kinds T, D, B, R) of `nm -P` output."""
    names = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1] in GLOBAL_KINDS:
            names.append(parts[0])
    return sorted(set(names))


def bad_names(folder, names):
    """The names that break the rule for folder."""
    return [n for n in names if n != ENTRY and not n.startswith(prefix(folder))]


def bind_macros(header):
    """{name: (parameter, [(field, body after the parameter), ...])} of the
    DH_BACKEND_BIND_*_ENTRIES definitions in header text: `.free_stream =
    prefix##_free_stream` gives ("free_stream", "_free_stream")."""
    defs = {}
    for name, param, body in BIND_DEF.findall(header):
        defs[name] = (param, body.replace("\\\n", " "))

    def pairs(name, seen=()):
        param, body = defs[name]
        got = re.findall(r"\.(\w+)\s*=\s*%s\s*##\s*(\w+)" % re.escape(param), body)
        # a macro made of others (DH_BACKEND_BIND_ALL_ENTRIES) passes its parameter on
        for inner, arg in BIND_USE.findall(body):
            if arg == param and inner in defs and inner not in seen:
                got += pairs(inner, seen + (name,))
        return got
    return {name: (defs[name][0], pairs(name)) for name in defs}


def bad_macros(macros):
    """(macro, field, pasted name) of the bind macros that bind a field to another name
    than prefix##_<field>, and (macro, None, None) for one that binds nothing."""
    out = []
    for name, (_, pairs) in sorted(macros.items()):
        if not pairs:
            out.append((name, None, None))
        out += [(name, fld, tail) for fld, tail in pairs if tail != "_" + fld]
    return out


def expand_binds(source, macros):
    """source with every use of a bind macro replaced by its `.field = <arg><tail>,` lines;
    a macro that macros lacks becomes `.<NAME> = <arg>?,`, a binding no name matches."""
    def one(m):
        name, arg = m.group(1), m.group(2)
        if name not in macros:
            return "\n.%s = %s?," % (name, arg)
        return "".join("\n.%s = %s%s," % (fld, arg, tail) for fld, tail in macros[name][1])
    return BIND_USE.sub(one, source)


def bad_bindings(folder, source, macros=None):
    """(field, function) pairs of a vtable initialiser whose function is not named after
    its field (the raw field's twin: dh_<folder>_raw_twin), after expanding the bind
    macros of backend.h (macros: bind_macros() of it; None reads the real one)."""
    if macros is None:
        macros = bind_macros(read_backend_headers())
    out = []
    for field, fn in re.findall(r"^\s*\.(\w+)\s*=\s*&?(dh_\w+\??)\s*,", expand_binds(source, macros), re.M):
        if fn != prefix(folder) + ENTRY_NAMES.get(field, field):
            out.append((field, fn))
    return out


def nm(args, path):
    return subprocess.run(["nm"] + args + [path], capture_output=True, text=True, check=True).stdout


def self_check():
    good = "dh_sim_alloc_data_space T 0 10\ndh_backend_entry T 10 4\ndh_sim_state B 0 8\n"
    bad = ("dh_ocl_copy T 0 10\nvk_init T 10 4\ndh_opencl_init T 20 4\nhelper t 30 4\n"
           "dh_opencl_table R 0 4\nmalloc U\ndh_opencl_weak W 40 4\n")
    ok(parse_nm(good) == ["dh_backend_entry", "dh_sim_alloc_data_space", "dh_sim_state"],
       "self-check: nm -P lines give the defined globals (T, D, B, R)", parse_nm(good))
    ok(bad_names("sim", parse_nm(good)) == [], "self-check: names with the folder's prefix pass",
       bad_names("sim", parse_nm(good)))
    got = bad_names("opencl", parse_nm(bad))
    ok(got == ["dh_ocl_copy", "vk_init"],
       "self-check: dh_ocl_copy and vk_init break the rule for opencl (locals, U, W ignored)", got)
    vt = ("  .init = dh_vulkan_init,\n  .copy_data_from_to = dh_opencl_copy,\n"
          "  .raw = &dh_vulkan_raw_twin,\n  .functions = k_functions,\n  .raw = &dh_vulkan_raw,\n")
    got = bad_bindings("vulkan", vt, {})
    ok(got == [("copy_data_from_to", "dh_opencl_copy"), ("raw", "dh_vulkan_raw")],
       "self-check: a vtable field bound to a function of another name is found", got)
    hdr = ("#define DH_BACKEND_BIND_STREAM_ENTRIES(prefix) \\\n"
           "  .create_stream = prefix##_create_stream, .free_stream = prefix##_free_stream\n"
           "#define DH_BACKEND_BIND_HOST_ENTRIES(p) .alloc_host = p##_alloc_host, .free_host = p##_host_free\n"
           "#define DH_BACKEND_BIND_NONE_ENTRIES(prefix) 0\n"
           "#define DH_BACKEND_BIND_ALL_ENTRIES(prefix) DH_BACKEND_BIND_STREAM_ENTRIES(prefix), \\\n"
           "  DH_BACKEND_BIND_HOST_ENTRIES(prefix)\n")
    macros = bind_macros(hdr)
    got = bad_macros(macros)
    ok(sorted(macros) == ["DH_BACKEND_BIND_ALL_ENTRIES", "DH_BACKEND_BIND_HOST_ENTRIES",
                          "DH_BACKEND_BIND_NONE_ENTRIES", "DH_BACKEND_BIND_STREAM_ENTRIES"]
       and [f for f, _ in macros["DH_BACKEND_BIND_ALL_ENTRIES"][1]]
       == ["create_stream", "free_stream", "alloc_host", "free_host"]
       and got == [("DH_BACKEND_BIND_ALL_ENTRIES", "free_host", "_host_free"),
                   ("DH_BACKEND_BIND_HOST_ENTRIES", "free_host", "_host_free"),
                   ("DH_BACKEND_BIND_NONE_ENTRIES", None, None)],
       "self-check: a bind macro that pastes another name than its field (itself or through the "
       "macros it is made of), or binds nothing, is found", (sorted(macros), got))
    vt = ("  .init = dh_vulkan_init,\n  DH_BACKEND_BIND_STREAM_ENTRIES(dh_vulkan),\n"
          "  DH_BACKEND_BIND_STREAM_ENTRIES( dh_opencl ),\n  DH_BACKEND_BIND_EVENT_ENTRIES(dh_vulkan),\n"
          "  DH_BACKEND_BIND_HOST_ENTRIES(dh_vulkan),\n")
    got = bad_bindings("vulkan", vt, macros)
    ok(got == [("create_stream", "dh_opencl_create_stream"), ("free_stream", "dh_opencl_free_stream"),
               ("DH_BACKEND_BIND_EVENT_ENTRIES", "dh_vulkan?"), ("free_host", "dh_vulkan_host_free")],
       "self-check: a bind macro given another backend's prefix, an unknown one and a wrong "
       "definition are found", got)


def check_bind_macros():
    macros = bind_macros(read_backend_headers())
    got = bad_macros(macros)
    ok(macros and not got, "include/devharness/backend.h (backend_entries.h): its %d DH_BACKEND_BIND_*_ENTRIES bind each "
       "field to prefix##_<field>" % len(macros),
       "\n".join("%s: .%s = prefix##%s" % g for g in got) or "no bind macro found")


def objects(folder):
    """Object files of folder's sources under $BUILD/obj/backends/<folder>/."""
    objdir = os.path.join(BUILD_DIR, "obj", "backends", folder)
    srcdir = os.path.join(BACKENDS, folder)
    out = []
    for o in sorted(glob.glob(os.path.join(objdir, "**", "*.o"), recursive=True)):
        stem = os.path.splitext(os.path.basename(o))[0]
        if any(os.path.exists(os.path.join(srcdir, stem + ext)) for ext in (".c", ".cc")):
            out.append(o)
    return out


def check_folder(folder):
    objs = objects(folder)
    if not objs:
        skip("backends/%s: global symbols are %s*" % (folder, prefix(folder)),
             "no object under %s/obj/backends/%s (not built here)" % (BUILD, folder))
    else:
        diag = []
        for o in objs:
            for n in bad_names(folder, parse_nm(nm(["-P", "--defined-only"], o))):
                diag.append("%s: %s" % (os.path.relpath(o, BUILD_DIR), n))
        ok(not diag, "backends/%s: the global symbols of its %d objects are %s* (or %s)"
           % (folder, len(objs), prefix(folder), ENTRY), "\n".join(diag))
    src = os.path.join(BACKENDS, folder, "%s_backend.c" % folder)
    if os.path.exists(src):
        with open(src) as f:
            got = bad_bindings(folder, f.read())
        ok(not got, "backends/%s/%s_backend.c: each vtable entry is %s<field>" % (folder, folder, prefix(folder)),
           "\n".join("  .%s = %s (want %s%s)" % (fld, fn, prefix(folder), fld) for fld, fn in got))


def plugin_folder(path):
    """The backends/ folder of a built plugin library."""
    base = os.path.basename(path)
    if base == "libdh_tvm_adapter.so":
        return "tvm"
    name = base[len("libdevharness_"):-len(".so")]
    return name.split("-")[0]  # a plugin named <folder>-<flavour> belongs to <folder>


def check_plugins():
    libs = sorted(set(glob.glob(os.path.join(BUILD_DIR, "lib", "**", "libdevharness_*.so"), recursive=True)
                      + glob.glob(os.path.join(BUILD_DIR, "lib", "**", "libdh_tvm_adapter.so"), recursive=True)))
    folders = set(os.listdir(BACKENDS))
    libs = [p for p in libs if plugin_folder(p) in folders]
    if not libs:
        skip("plugins: dynamic symbols follow the rule", "no plugin under %s/lib" % BUILD)
        return
    diag = []
    for p in libs:
        for n in bad_names(plugin_folder(p), parse_nm(nm(["-D", "-P", "--defined-only"], p))):
            diag.append("%s: %s" % (os.path.relpath(p, BUILD_DIR), n))
    ok(not diag, "plugins: the dynamic symbols of %d libraries follow the rule" % len(libs), "\n".join(diag))


def main():
    self_check()
    check_bind_macros()
    for folder in sorted(os.listdir(BACKENDS)):
        if os.path.isdir(os.path.join(BACKENDS, folder)):
            check_folder(folder)
    check_plugins()
    print("1..%d" % count())
    return 0


if __name__ == "__main__":
    sys.exit(main())
