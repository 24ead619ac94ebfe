#!/usr/bin/python3
"""tests/backends/call_graph.t — calls run one way inside every backend: the graph of
files of one backend folder (an edge A -> B when A's object file needs a symbol that
B's object defines, read with `nm` from the build's objects $BUILD/obj/backends/<b>/)
has no cycle. A folder built once per flavour (backends/tvm) has its objects in
sub-folders, one graph each. A backend whose objects are not built (its SDK is absent) is a
SKIP with the reason. The first point checks the cycle finder itself on a graph with a cycle.
Prints TAP."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok, skip  # noqa: E402

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


def find_cycle(graph):
    """One cycle of graph {node: set(nodes)} as a list [a, b, ..., a], or None."""
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            c = visit(n)
            if c:
                return c
    return None


ok(find_cycle({"a.o": {"b.o"}, "b.o": {"c.o"}, "c.o": {"a.o"}}) == ["a.o", "b.o", "c.o", "a.o"]
   and find_cycle({"a.o": {"b.o"}, "b.o": set()}) is None,
   "the cycle finder finds a -> b -> c -> a and nothing in a -> b")

backends = sorted(d for d in os.listdir(os.path.join(ROOT, "backends"))
                  if os.path.isdir(os.path.join(ROOT, "backends", d)))
for b in backends:
    srcs = sorted(f for f in os.listdir(os.path.join(ROOT, "backends", b))
                  if f.endswith((".c", ".cc")))
    # A folder built once per flavour (backends/tvm: cpu/ and cuda/) has its objects in
    # sub-folders of its object folder; each flavour is a graph of its own.
    top = os.path.join(OBJDIR, "backends", b)
    variants = [("", top)]
    if os.path.isdir(top):
        variants += [(" (%s)" % d, os.path.join(top, d)) for d in sorted(os.listdir(top))
                     if os.path.isdir(os.path.join(top, d))]
    checked = 0
    for label, folder in variants:
        objs = {}
        for s_ in srcs:
            o = os.path.join(folder, os.path.splitext(s_)[0] + ".o")
            if os.path.exists(o):
                objs[s_] = o
        if not objs or (label == "" and len(variants) > 1 and len(objs) < 2):
            continue
        checked += 1
        syms = {s_: symbols(o) for s_, o in objs.items()}
        owner = {}
        for s_, (defined, _) in syms.items():
            for name in defined:
                owner.setdefault(name, s_)
        graph = {s_: {owner[u] for u in undef if u in owner and owner[u] != s_}
                 for s_, (_, undef) in syms.items()}
        cycle = find_cycle(graph)
        edges = ", ".join("%s -> %s" % (a, c) for a in sorted(graph) for c in sorted(graph[a]))
        ok(cycle is None,
           "backends/%s%s: no call cycle between its %d files" % (b, label, len(objs)),
           "cycle: %s\nedges: %s" % (" -> ".join(cycle or []), edges))
    if not checked:
        skip("backends/%s: no call cycle between its files" % b,
             "no object of backends/%s under %s (not built here)" % (b, OBJDIR))
print("1..%d" % count())
