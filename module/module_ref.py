"""module_ref.py DIR — runs a NumPy reference for `devharness module check --reference-py`.

DIR holds manifest.json ({"file": FILE.py, "function": NAME, "args": [...]}, written
by module/reference.c) and each tensor argument's whole buffer as t<i>.bin (its
elements at byte "offset", guard bytes around them). FILE.py's NAME is called with a
writable NumPy array per tensor (dtype and shape as given) and a Python number per
scalar, in the function's parameter order; it writes its results into the arrays
(`c[...] = a + b`), or returns an array (or a tuple of them) for the last tensor(s).
Each buffer is written back as t<i>.out.bin. On any error one line goes to
DIR/error.txt, naming the file and function, and the exit status is 1.
Runs under the project venv's Python (numpy).
"""
import importlib.util
import json
import os
import sys

try:
    import numpy as np
except ImportError as _e:  # not the project venv's Python
    np = None
    _numpy_error = "%s (%s): %s" % (sys.executable, "the project venv's Python is needed for --reference-py", _e)


def fail(d, msg):
    with open(os.path.join(d, "error.txt"), "w") as f:
        f.write(msg.replace("\n", " ") + "\n")
    sys.exit(1)


def load_function(d, path, name):
    if not os.path.isfile(path):
        fail(d, "%s: no such file" % path)
    spec = importlib.util.spec_from_file_location("dh_reference", path)
    mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)
    except Exception as e:  # the user's file: any error is theirs, reported in one line
        fail(d, "%s: loading it raised %s: %s" % (path, type(e).__name__, e))
    fn = getattr(mod, name, None)
    if not callable(fn):
        fail(d, "%s has no function %s" % (path, name))
    return fn


def arrays(d, m, path, name):
    bufs, views, values = [], [], []
    for i, a in enumerate(m["args"]):
        if "tensor" in a:
            try:
                dt = np.dtype(a["dtype"])
            except TypeError:
                fail(d, "%s: %s: NumPy has no dtype %s (tensor %d)" % (path, name, a["dtype"], i))
            raw = bytearray(open(os.path.join(d, a["tensor"]), "rb").read())
            n = int(np.prod(a["shape"], dtype=np.int64))
            start = a["offset"] // dt.itemsize
            view = np.frombuffer(raw, dtype=dt)[start:start + n].reshape(a["shape"])
            bufs.append((i, raw))
            views.append(view)
            values.append(view)
        else:
            values.append(a.get("int", a.get("float", a.get("bool"))))
    return bufs, views, values


def main():
    d = sys.argv[1]
    if np is None:
        fail(d, "no NumPy: " + _numpy_error)
    m = json.load(open(os.path.join(d, "manifest.json")))
    path, name = m["file"], m["function"]
    fn = load_function(d, path, name)
    bufs, views, values = arrays(d, m, path, name)
    try:
        ret = fn(*values)
    except Exception as e:
        fail(d, "%s: %s raised %s: %s" % (path, name, type(e).__name__, e))
    if ret is not None:
        rets = list(ret) if isinstance(ret, (tuple, list)) else [ret]
        for k, r in enumerate(rets):
            target = views[len(views) - len(rets) + k] if len(rets) <= len(views) else None
            r = np.asarray(r)
            if target is None or r.shape != target.shape:
                fail(d, "%s: %s returned shape %s for a tensor of shape %s" %
                     (path, name, tuple(r.shape), None if target is None else tuple(target.shape)))
            target[...] = r
    for i, raw in bufs:
        with open(os.path.join(d, "t%d.out.bin" % i), "wb") as f:
            f.write(bytes(raw))


if __name__ == "__main__":
    main()
