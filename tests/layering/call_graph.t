#!/usr/bin/python3
"""tests/layering/call_graph.t — calls between the files of a folder run one way.

    tests/layering/call_graph.t         base/, runtime/, target/, cmdline/, cli/, conformance/, module/, bench/ (each
                                        with its sub-folders) and every backends/<name>/ of the build
    tests/layering/call_graph.t DIR...  every object file (*.o) in each DIR, one graph per DIR

For a folder, every object file is a node; file A has an edge to file B when A leaves
undefined a symbol that B defines (`nm -P`: a function called or a variable used in
another file of the folder). The test fails when that file-level graph has a cycle, and
names each cycle's files with the symbols behind every edge, e.g.
"plugin.o -> device_api.o (dh_device_type_name)". A cycle means a small helper lives in
a higher-level file; moving it down, into the file the others build on, makes the calls
run one way again. Only references between files count: static functions and the inline
helpers of a shared header make no edge.

By default the objects are those of $BUILD/obj (BUILD=build) whose source is in the
folder (a renamed or removed source's stale object is left out). A backend folder built
once per flavour (one sub-folder of its objects per flavour; no folder is, today) is one graph
per flavour. A folder whose objects are not built (a backend's SDK is absent) is a SKIP
with the reason. The first point checks the cycle finder itself. Prints TAP."""
import glob
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import count, ok, skip  # noqa: E402
from rooms import present  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BUILD = os.environ.get("BUILD", "build")
OBJDIR = os.path.join(BUILD if os.path.isabs(BUILD) else os.path.join(ROOT, BUILD), "obj")


def symbols(obj):
    """(defined global symbols, undefined symbols) of one object file."""
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind.isupper():  # lower case: local (static) symbols
            defined.add(name)
    return defined, undefined


def graph(objs):
    """{file: {other file: sorted symbols}} for the object files objs {name: path}."""
    syms = {n: symbols(p) for n, p in objs.items()}
    owner = {}
    for n, (defined, _) in sorted(syms.items()):
        for s in defined:
            owner.setdefault(s, n)
    edges = {n: {} for n in syms}
    for n, (_, undefined) in syms.items():
        for s in undefined:
            m = owner.get(s)
            if m and m != n:
                edges[n].setdefault(m, []).append(s)
    for n in edges:
        for m in edges[n]:
            edges[n][m].sort()
    return edges


def cycles(edges):
    """The strongly connected components with more than one file (Tarjan), sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(out)


def describe(comp, edges):
    """One line per edge inside a component: "a.o -> b.o (sym, sym, ...)"."""
    lines = []
    for n in comp:
        for m in sorted(edges[n]):
            if m in comp:
                syms = edges[n][m]
                lines.append("%s -> %s (%s%s)" % (n, m, ", ".join(syms[:4]), ", ..." if len(syms) > 4 else ""))
    return lines


def check(label, objs):
    edges = graph(objs)
    found = cycles(edges)
    diag = []
    for comp in found:
        diag.append("cycle among %s:" % ", ".join(comp))
        diag.extend("  " + l for l in describe(comp, edges))
    n_edges = sum(len(v) for v in edges.values())
    ok(not found, "%s: no call cycle between its %d files (%d file-to-file edges)" % (label, len(objs), n_edges),
       "\n".join(diag))


def built_objects(srcdir, objdir):
    """{object name relative to objdir: path} of the sources in srcdir and its
    sub-folders that have an object at the same place under objdir."""
    objs = {}
    for dirpath, dirnames, names in os.walk(srcdir):
        dirnames.sort()
        sub = os.path.relpath(dirpath, srcdir)
        for src in sorted(names):
            if src.endswith((".c", ".cc")):
                rel = os.path.normpath(os.path.join(sub, os.path.splitext(src)[0] + ".o"))
                o = os.path.join(objdir, rel)
                if os.path.exists(o):
                    objs[rel] = o
    return objs


def check_source_folder(rel):
    """rel (e.g. "runtime", "backends/sim"): one graph, or one per flavour sub-folder (an
    object sub-folder with no source folder of its name: builds of the same files with
    different flags)."""
    top = os.path.join(OBJDIR, rel)
    variants = [("", top)]
    if os.path.isdir(top):
        variants += [(" (%s)" % d, os.path.join(top, d)) for d in sorted(os.listdir(top))
                     if os.path.isdir(os.path.join(top, d)) and not os.path.isdir(os.path.join(ROOT, rel, d))]
    checked = 0
    for label, folder in variants:
        objs = built_objects(os.path.join(ROOT, rel), folder)
        if not objs or (label == "" and len(variants) > 1 and len(objs) < 2):
            continue
        checked += 1
        check(rel + label, objs)
    if not checked:
        skip("%s: no call cycle between its files" % rel, "no object of %s under %s (not built here)" % (rel, OBJDIR))


e = {"a.o": {"b.o": ["f"]}, "b.o": {"c.o": ["g"]}, "c.o": {"a.o": ["h"]}, "d.o": {"a.o": ["i"]}}
ok(cycles(e) == [["a.o", "b.o", "c.o"]] and cycles({"a.o": {"b.o": ["f"]}, "b.o": {}}) == []
   and describe(["a.o", "b.o", "c.o"], e) == ["a.o -> b.o (f)", "b.o -> c.o (g)", "c.o -> a.o (h)"],
   "the cycle finder finds a -> b -> c -> a (not d, which only calls into it) and nothing in a -> b")

if len(sys.argv) > 1:
    for d in sys.argv[1:]:
        objs = {os.path.basename(o): o for o in sorted(glob.glob(os.path.join(d, "*.o")))}
        if objs:
            check(d, objs)
        else:
            skip("%s: no call cycle between its files" % d, "no object files in %s" % d)
else:
    # every room is one graph over all its files, its sub-folders included (they call
    # one way too); every backend its own
    folders = [r for r in present() if r != "backends"]
    folders += ["backends/" + d for d in sorted(os.listdir(os.path.join(ROOT, "backends")))
                if os.path.isdir(os.path.join(ROOT, "backends", d))]
    for rel in folders:
        check_source_folder(rel)
print("1..%d" % count())
