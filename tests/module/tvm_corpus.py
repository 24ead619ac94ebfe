"""tests/module/tvm_corpus.py OUTDIR — TVM-compiled kernels for tests/module/tvm_corpus.t.

Built at test time with the project venv's TVM (tvm.compile(..., target="llvm")
.export_library), one library per kernel, each exporting one function:
  vadd.so     vadd(A, B, C: Tensor([n], float32)): C = A + B          (symbolic n)
  matmul.so   matmul(M, N, P: Tensor([16, 16], float32)): P = M @ N   (static shapes)
  rowsum.so   rowsum(A: Tensor([n, m], float32), S: Tensor([n], float32)): S = A.sum(1)
  scale.so    scale(A: Tensor([n], int32), x: int32, B: Tensor([n], int32)): B = A * x
and faulty variants of vadd, each named for the case that must catch it:
  vadd_formula.so  C = A - B * 0.5                                  -> module.results
  vadd_tail.so     C = A + B for i < n - n % 8, else C = A (odd n)  -> module.results
  vadd_half.so     writes C[0 : n // 2] only                        -> module.writes
  vadd_oob.so      also writes C[n] (one past the end)              -> module.bounds
  vadd_nan.so      a NaN in A counts as 0 (a "fast" path)           -> module.edge_values
Prints nothing; exit 0 when every library was written.
"""
import os
import sys

import tvm
from tvm import te
from tvm.script import tirx as T


def export(name, func, out):
    f = func.with_attr("global_symbol", name)
    tvm.compile(tvm.IRModule({name: f}), target="llvm").export_library(out)


def vadd(fn):
    n = te.var("n", dtype="int64")
    a = te.placeholder((n,), name="A")
    b = te.placeholder((n,), name="B")
    c = te.compute((n,), lambda i: fn(a, b, i, n), name="C")
    return te.create_prim_func([a, b, c])


@T.prim_func
def vadd_half(a: T.handle, b: T.handle, c: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    C = T.match_buffer(c, (n,), "float32")
    for i in range(n // 2):
        C[i] = A[i] + B[i]


@T.prim_func
def vadd_oob(a: T.handle, b: T.handle, c: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    C = T.match_buffer(c, (n,), "float32")
    for i in range(n):
        C[i] = A[i] + B[i]
    C[n] = T.float32(0)  # one past the end: TVM checks no index at run time


def main(out):
    os.makedirs(out, exist_ok=True)
    p = lambda f: os.path.join(out, f)  # noqa: E731
    export("vadd", vadd(lambda a, b, i, n: a[i] + b[i]), p("vadd.so"))
    export("vadd", vadd(lambda a, b, i, n: a[i] - b[i] * 0.5), p("vadd_formula.so"))
    export("vadd", vadd(lambda a, b, i, n: te.if_then_else(i < n - n % 8, a[i] + b[i], a[i])), p("vadd_tail.so"))
    export("vadd", vadd_half, p("vadd_half.so"))
    export("vadd", vadd_oob, p("vadd_oob.so"))
    export("vadd", vadd(lambda a, b, i, n: te.if_then_else(tvm.tirx.isnan(a[i]), tvm.tirx.const(0, "float32"), a[i])
                        + b[i]), p("vadd_nan.so"))
    m = te.placeholder((16, 16), name="M")
    nn = te.placeholder((16, 16), name="N")
    k = te.reduce_axis((0, 16), name="k")
    pp = te.compute((16, 16), lambda i, j: te.sum(m[i, k] * nn[k, j], axis=k), name="P")
    export("matmul", te.create_prim_func([m, nn, pp]), p("matmul.so"))
    n, w = te.var("n", dtype="int64"), te.var("m", dtype="int64")
    a = te.placeholder((n, w), name="A")
    r = te.reduce_axis((0, w), name="r")
    s = te.compute((n,), lambda i: te.sum(a[i, r], axis=r), name="S")
    export("rowsum", te.create_prim_func([a, s]), p("rowsum.so"))
    a = te.placeholder((n,), name="A", dtype="int32")
    x = tvm.tirx.Var("x", "int32")
    b = te.compute((n,), lambda i: a[i] * x, name="B")
    export("scale", te.create_prim_func([a, x, b]), p("scale.so"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
