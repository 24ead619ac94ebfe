"""NumPy references of the kernels tests/module/tvm_corpus.py builds, by function name
(devharness module check --reference-py; docs/kernel-libraries.md)."""
import numpy as np


def vadd(a, b, c):
    c[...] = a + b


def matmul(m, n, p):
    p[...] = m @ n


def rowsum(a, s):
    s[...] = a.sum(axis=1)


def scale(a, x, b):
    b[...] = a * np.int32(x)
