#!/usr/bin/python3
"""tests/runtime/call_cycles.t — calls between the files of a folder run one way.

    tests/runtime/call_cycles.t [DIR...]   (default: $BUILD/obj/runtime, BUILD=build)

For each DIR, every object file (*.o) in it is a node; file A has an edge to file B when
A leaves undefined a symbol that B defines (`nm -P`: a function called or a variable
used in another file of the folder). The test fails when that file-level graph has a
cycle, and names every cycle's files with the symbols behind each edge, e.g.
"plugin.o -> device_api.o (dh_device_type_name) -> plugin.o (dh__slot_init_slow)". A
cycle means a small helper lives in a higher-level file; moving it down (into the file
the others build on) makes the calls run one way again. Only references between files
count: static functions and inline helpers of a shared header do not make edges.
Objects under $BUILD/obj whose source file is gone (renamed, removed) are left out.
A DIR without objects is a # SKIP (not built). Prints TAP."""
import glob
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import taplib  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BUILD = os.environ.get("BUILD", "build")
if not os.path.isabs(BUILD):
    BUILD = os.path.join(ROOT, BUILD)
DIRS = sys.argv[1:] or [os.path.join(BUILD, "obj", d) for d in ("runtime", "cli")]
OBJ = os.path.join(BUILD, "obj")


def current(obj):
    """False for an object of the build tree whose source no longer exists."""
    rel = os.path.relpath(os.path.abspath(obj), OBJ)
    if rel.startswith(".."):
        return True
    stem = os.path.join(ROOT, os.path.splitext(rel)[0])
    return os.path.exists(stem + ".c") or os.path.exists(stem + ".cc")


def symbols(obj):
    """(defined globals, undefined) of one object file, from `nm -P`."""
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBRGSVWCiu":
            defined.add(name)
    return defined, undefined


def graph(objs):
    """{file: {other file: sorted symbols}} for the objects of one folder."""
    syms = {os.path.basename(o): symbols(o) for o in objs}
    owner = {}
    for f, (defined, _) in syms.items():
        for s in defined:
            owner.setdefault(s, f)
    edges = {f: {} for f in syms}
    for f, (_, undefined) in syms.items():
        for s in undefined:
            g = owner.get(s)
            if g and g != f:
                edges[f].setdefault(g, []).append(s)
    for f in edges:
        for g in edges[f]:
            edges[f][g].sort()
    return edges


def cycles(edges):
    """Strongly connected components with more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
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
    return out


def describe(comp, edges):
    """One line per edge inside the component: "a.o -> b.o (sym, sym)"."""
    lines = []
    for f in comp:
        for g in sorted(edges[f]):
            if g in comp:
                shown = ", ".join(edges[f][g][:4]) + (", ..." if len(edges[f][g]) > 4 else "")
                lines.append("%s -> %s (%s)" % (f, g, shown))
    return lines


for d in DIRS:
    objs = sorted(o for o in glob.glob(os.path.join(d, "*.o")) if current(o))
    rel = os.path.relpath(d, ROOT)
    if not objs:
        taplib.skip("%s: no call cycle" % rel, "no object files (not built)")
        continue
    edges = graph(objs)
    found = cycles(edges)
    n_edges = sum(len(v) for v in edges.values())
    diag = []
    for comp in found:
        diag.append("cycle among %s:" % ", ".join(comp))
        diag.extend("  " + l for l in describe(comp, edges))
    taplib.ok(not found, "%s: %d files, %d file-to-file edges, no call cycle" % (rel, len(objs), n_edges),
         "\n".join(diag))
print("1..%d" % taplib.count())
