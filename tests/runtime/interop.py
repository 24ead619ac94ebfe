"""tests/runtime/interop.py — devharness seen from Python's tvm_ffi (TAP).

Run by tests/runtime/tvm_ffi_python.sh with the project venv's Python (apache-tvm-ffi
pinned in ci/python-requirements.txt). Covers issue 11's tests 2 and 3:

3. ctypes.CDLL of libdevharness.so and of every plugin in a fresh Python process (no
   initial-exec TLS), and in this process after `import tvm_ffi`: one libtvm_ffi.so
   mapped.
2. tvm_ffi.get_global_func on each backend's functions (cpu, sim, opencl, vulkan) and
   tvm_ffi.load_module on a devharness-built module (runtime_ffi_module.so): the same
   values both ways (Python -> devharness: `describe` names the type that arrived;
   devharness -> Python: `echo` returns it), errors as Python exceptions with kind and
   message, fill on a tvm_ffi Tensor, and a stream set with tvm_ffi.use_raw_stream read
   by dh_device_get_current_stream (and the other way with get_raw_stream).
4. In a fresh process, each backend's noop called from Python before any dh_device_*
   call initialises its backend (the registered functions run init once).
"""
import ctypes
import glob
import math
import os
import subprocess
import sys

BUILD = os.environ.get("BUILD", "build")
LIB = os.path.abspath(os.path.join(BUILD, "lib", "libdevharness.so"))
PLUGDIR = os.path.abspath(os.path.join(BUILD, "lib", "devharness"))
MODULE = os.path.abspath(os.path.join(BUILD, "tests", "runtime_ffi_module.so"))
CXX_MODULE = os.path.abspath(os.path.join(BUILD, "tests", "runtime_ffi_cxx_module.so"))

n = 0
failed = 0


def tap(ok, what, diag=None):
    global n, failed
    n += 1
    print(f"{'ok' if ok else 'not ok'} {n} - {what}")
    if not ok:
        failed += 1
        if diag:
            for line in str(diag).splitlines():
                print(f"# {line}")
    sys.stdout.flush()


def skip(what, why):
    global n
    n += 1
    print(f"ok {n} - {what} # SKIP {why}")


def raises(fn, *args):
    """(exception class name, message) raised by fn(*args), or (None, result)."""
    try:
        return None, fn(*args)
    except Exception as e:  # noqa: BLE001 - the class is what is checked
        return type(e).__name__, str(e)


print("TAP version 13")

# ---------------------------------------------------------------- 3. ctypes.CDLL
plugins = sorted(glob.glob(os.path.join(PLUGDIR, "libdevharness_*.so")))
for path in [LIB] + plugins:
    r = subprocess.run([sys.executable, "-c", "import ctypes, sys; ctypes.CDLL(sys.argv[1])", path],
                       capture_output=True, text=True)
    tap(r.returncode == 0, f"ctypes.CDLL({os.path.relpath(path)}) in a fresh Python", r.stderr.strip())

import tvm_ffi  # noqa: E402  (after the fresh-process checks, on purpose)

lib = ctypes.CDLL(LIB)
for path in plugins:
    ok, err = True, ""
    try:
        ctypes.CDLL(path)
    except OSError as e:
        ok, err = False, str(e)
    tap(ok, f"ctypes.CDLL({os.path.basename(path)}) after import tvm_ffi", err)
with open("/proc/self/maps") as f:
    ffi_maps = {line.split()[-1] for line in f if "libtvm_ffi.so" in line}
tap(len({os.path.realpath(p) for p in ffi_maps}) == 1,
    "one libtvm_ffi.so in the process (tvm_ffi's and libdevharness's)", "\n".join(sorted(ffi_maps)))

# ---------------------------------------------------------------- load the backends
os.environ["DEVHARNESS_PLUGIN_PATH"] = PLUGDIR
lib.dh_plugins_load_default.restype = ctypes.c_size_t
nloaded = lib.dh_plugins_load_default()
tap(nloaded >= 2, f"dh_plugins_load_default() through ctypes loaded {nloaded} plugins")

# ---------------------------------------------------------------- metadata (issue 28)
# Every backend function carries tvm-ffi metadata as TVM_FFI_DLL_EXPORT_TYPED_FUNC writes
# it with TVM_FFI_DLL_EXPORT_INCLUDE_METADATA=1: {"type_schema": "<JSON string>"}.
import json  # noqa: E402

names = tvm_ffi.registry.list_global_func_names()
backends = sorted(x[len("devharness.device_api."):] for x in names if x.startswith("devharness.device_api."))
fns = sorted(x for x in names if any(x.startswith(b + ".") for b in backends))
bad = []
for name in fns:
    try:
        schema = json.loads(tvm_ffi.get_global_func_metadata(name)["type_schema"])
        if schema.get("type") != "ffi.Function" or not isinstance(schema["named_args"]["params"], list):
            bad.append(f"{name}: {schema}")
    except Exception as e:  # noqa: BLE001 (any failure is the finding)
        bad.append(f"{name}: {type(e).__name__}: {e}")
tap(len(fns) >= 10 and not bad, f"tvm_ffi.get_global_func_metadata gives a type schema for all {len(fns)} "
    f"functions of {len(backends)} backends", "\n".join(bad))
want = {"cpu.fill": ["DLTensor*", "int"], "sim.noop": ["Device"], "sim.echo": ["int", "Any"],
        "sim.raise": ["ffi.String", "ffi.String"], "sim.launch": ["void*", "void*", "DLTensor*"]}
for name, params in want.items():
    try:
        schema = json.loads(tvm_ffi.get_global_func_metadata(name)["type_schema"])
        got = [p["type"] for p in schema["named_args"]["params"]]
    except Exception as e:  # noqa: BLE001
        got = f"{type(e).__name__}: {e}"
    tap(got == params, f"tvm_ffi.get_global_func_metadata({name!r}): params {params}", str(got))



class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class Backend(ctypes.Structure):  # the header of dh_backend_t (backend.h), enough for name/type
    _fields_ = [("struct_size", ctypes.c_size_t), ("abi_major", ctypes.c_uint16),
                ("abi_minor", ctypes.c_uint16), ("reserved", ctypes.c_uint32),
                ("name", ctypes.c_char_p), ("description", ctypes.c_char_p),
                ("device_type", ctypes.c_int32), ("caps", ctypes.c_uint32)]


lib.dh_device_parse.argtypes = [ctypes.c_char_p, ctypes.POINTER(DLDevice), ctypes.POINTER(ctypes.c_void_p)]
lib.dh_backend_unavailable_reason.argtypes = [ctypes.c_void_p]
lib.dh_backend_unavailable_reason.restype = ctypes.c_char_p
lib.dh_device_get_current_stream.argtypes = [DLDevice, ctypes.POINTER(ctypes.c_void_p)]
lib.dh_device_set_stream.argtypes = [DLDevice, ctypes.c_void_p]
lib.dh_device_create_stream.argtypes = [DLDevice, ctypes.POINTER(ctypes.c_void_p)]
lib.dh_device_free_stream.argtypes = [DLDevice, ctypes.c_void_p]
lib.dh_error_message.restype = ctypes.c_char_p


def parse(spec):
    d, b = DLDevice(), ctypes.c_void_p()
    if lib.dh_device_parse(spec.encode(), ctypes.byref(d), ctypes.byref(b)) != 0:
        return None, None, lib.dh_error_message().decode()
    why = lib.dh_backend_unavailable_reason(b)
    return d, ctypes.cast(b, ctypes.POINTER(Backend)).contents, why.decode() if why else None


# Values sent both ways: (label, value, type name devharness sees, check of the echo).
arr = tvm_ffi.convert([1, 2, 3])
long_text = "a long string, more than 7 bytes: \u00e9\u4e2d"
long_bytes = bytes(range(40))
VALUES = [
    ("None", None, "None", lambda r: r is None),
    ("int 0", 0, "Int", lambda r: r == 0 and type(r) is int),
    ("int64 max", 2**63 - 1, "Int", lambda r: r == 2**63 - 1),
    ("int64 min", -2**63, "Int", lambda r: r == -2**63),
    ("float 3.25", 3.25, "Float", lambda r: r == 3.25 and type(r) is float),
    ("float -0.0", -0.0, "Float", lambda r: r == 0 and math.copysign(1, r) < 0),
    ("float inf", math.inf, "Float", lambda r: r == math.inf),
    ("bool True", True, "Bool", lambda r: r is True),
    ("bool False", False, "Bool", lambda r: r is False),
    ("Device", tvm_ffi.device("cuda", 3), "Device",
     lambda r: r.dlpack_device_type() == 2 and r.index == 3),
    ("dtype float8_e4m3fn", tvm_ffi.dtype("float8_e4m3fn"), "DataType", lambda r: str(r) == "float8_e4m3fn"),
    ("dtype bool", tvm_ffi.dtype("bool"), "DataType", lambda r: str(r) == "bool"),
    ("short str", "abc", "SmallStr", lambda r: r == "abc"),
    ("long str", long_text, "Str", lambda r: r == long_text),
    ("short bytes", b"\x00\xff", "SmallBytes", lambda r: r == b"\x00\xff"),
    ("long bytes", long_bytes, "Bytes", lambda r: r == long_bytes),
    ("Array", arr, "Array", lambda r: list(r) == [1, 2, 3]),
]

# ---------------------------------------------------------------- 2. backends' globals
for name in ["cpu", "sim", "opencl", "vulkan"]:
    dev, be, why = parse(f"{name}:0")
    if dev is None:
        skip(f"{name}: functions", why)
        continue
    echo = tvm_ffi.get_global_func(f"{name}.echo", allow_missing=True)
    fraise = tvm_ffi.get_global_func(f"{name}.raise", allow_missing=True)
    tap(echo is not None and fraise is not None, f"{name}: tvm_ffi.get_global_func finds {name}.echo/raise")
    if echo is None or fraise is None:
        continue
    bad = []
    for label, v, _, check in VALUES:
        k, r = raises(echo, 0, v)
        if k is not None or not check(r):
            bad.append(f"{label}: got {k or ''} {r!r}")
    tap(not bad, f"{name}: echo returns each of {len(VALUES)} values (POD, strings, bytes, Array) intact",
        "\n".join(bad))
    a = tvm_ffi.from_dlpack(__import__("numpy").arange(6, dtype="int32"))
    k, r = raises(echo, 1, "x", a)
    tap(k is None and isinstance(r, tvm_ffi.Tensor) and r.data_ptr() == a.data_ptr(),
        f"{name}: echo returns a tvm_ffi Tensor (same object data)", f"{k} {r!r}")
    for kind in ["ValueError", "TypeError", "RuntimeError", "IndexError", "KeyError"]:
        k, m = raises(fraise, kind, f"probe {kind} \u00e9 42 from {name}")
        tap(k == kind and f"probe {kind} \u00e9 42 from {name}" in m,
            f"{name}: raise('{kind}', msg) arrives as Python {kind} with the message", f"{k}: {m}")
    k, m = raises(echo, 5, 1)
    tap(k == "IndexError" and "out of range" in m, f"{name}: echo index error is a Python IndexError", f"{k}: {m}")
    if why is not None:
        skip(f"{name}: noop/fill/stream from Python", why)
        continue
    noop = tvm_ffi.get_global_func(f"{name}.noop")
    pydev = tvm_ffi.Device(be.device_type, 0) if hasattr(tvm_ffi, "Device") else None
    k, r = raises(noop, pydev)
    tap(k is None, f"{name}: noop(tvm_ffi.Device({be.device_type}, 0)) from Python", f"{k}: {r}")
    if name == "cpu":
        import numpy as np
        host = np.zeros(64, dtype=np.uint32)
        k, r = raises(tvm_ffi.get_global_func("cpu.fill"), tvm_ffi.from_dlpack(host), 0x5a5a1234)
        tap(k is None and (host == 0x5a5a1234).all(), "cpu: fill(tvm_ffi Tensor over numpy, v) writes every word",
            f"{k}: {r} {host[:4]}")
    # the environment stream, both ways
    s = ctypes.c_void_p()
    if be.caps & 1:  # DH_CAP_SINGLE_QUEUE: only NULL is a stream
        skip(f"{name}: stream set by tvm_ffi.use_raw_stream", "single queue (only the NULL stream)")
        continue
    if lib.dh_device_create_stream(dev, ctypes.byref(s)) != 0:
        tap(False, f"{name}: create_stream", lib.dh_error_message())
        continue
    got = ctypes.c_void_p()
    with tvm_ffi.use_raw_stream(pydev, s.value):
        lib.dh_device_get_current_stream(dev, ctypes.byref(got))
    tap(got.value == s.value, f"{name}: stream set by tvm_ffi.use_raw_stream is dh_device_get_current_stream",
        f"{got.value} != {s.value}")
    lib.dh_device_set_stream(dev, s)
    raw = tvm_ffi.get_raw_stream(pydev)
    lib.dh_device_set_stream(dev, None)
    tap(raw == s.value, f"{name}: stream set by dh_device_set_stream is tvm_ffi.get_raw_stream", f"{raw} != {s.value}")
    lib.dh_device_free_stream(dev, s)

# ---------------------------------------------------------------- 2. a devharness-built module
mod = tvm_ffi.load_module(MODULE)
echo, describe, fraise = mod["echo"], mod["describe"], mod["raise"]
bad = []
for label, v, tname, check in VALUES:
    k, r = raises(describe, v)
    if k is not None or r != tname:
        bad.append(f"describe({label}): {k or ''} {r!r}, expected {tname}")
    k, r = raises(echo, 0, v)
    if k is not None or not check(r):
        bad.append(f"echo({label}): {k or ''} {r!r}")
tap(not bad, f"load_module(runtime_ffi_module.so): {len(VALUES)} values arrive as the expected type and come back",
    "\n".join(bad))
k, m = raises(fraise, "ValueError", "the module says no \u00e9")
tap(k == "ValueError" and "the module says no \u00e9" in m,
    "load_module: dh_error_set(ValueError) in the module is a Python ValueError", f"{k}: {m}")
# tvm_ffi maps kinds it has no class for to RuntimeError (tvm_ffi/error.py registers
# RuntimeError, ValueError, TypeError, AttributeError, KeyError, IndexError,
# AssertionError, MemoryError); register_error adds one
k, m = raises(fraise, "NotImplementedError", "the module says no")
tap(k == "RuntimeError" and "the module says no" in m,
    "load_module: an unregistered kind (NotImplementedError) is tvm_ffi's RuntimeError", f"{k}: {m}")
tvm_ffi.register_error("NotImplementedError", NotImplementedError)
k, m = raises(fraise, "NotImplementedError", "the module says no")
tap(k == "NotImplementedError", "load_module: after tvm_ffi.register_error, a Python NotImplementedError",
    f"{k}: {m}")
k, m = raises(echo, 3)
tap(k == "IndexError", "load_module: echo index error is a Python IndexError", f"{k}: {m}")

# the C++-API library through Python too (same library test 1 loads through devharness)
cxx = tvm_ffi.load_module(CXX_MODULE)
k, m = raises(cxx["raise_value_error"], "from C++")
tap(k == "ValueError" and "from C++" in m, "load_module(C++ API library): ValueError", f"{k}: {m}")

lib.dh_plugins_unload_all()

# ---------------------------------------------------------------- 4. functions called first
# A fresh process where the first thing to touch a backend is Python calling its
# function: no dh_device_* call before it, so the registered function must initialise
# the backend itself (issue 24: "sim backend is not initialised", "opencl: no devices").
# Then whether the backend has a device (dh_backend_unavailable_reason) decides what the
# noop's answer must be.
FIRST = r"""
import ctypes, sys, tvm_ffi
lib = ctypes.CDLL(sys.argv[1])
lib.dh_plugins_load_default.restype = ctypes.c_size_t
lib.dh_plugins_load_default()
lib.dh_backend_unavailable_reason.argtypes = [ctypes.c_void_p]
lib.dh_backend_unavailable_reason.restype = ctypes.c_char_p
for name in ["cpu", "sim", "opencl", "vulkan"]:
    get = tvm_ffi.get_global_func("devharness.device_api." + name, allow_missing=True)
    if get is None:
        print(name, "absent", "-")
        continue
    be = get()
    be = be.value if hasattr(be, "value") else be
    dtype = ctypes.c_int32.from_address(be + 32).value  # dh_backend_t.device_type (backend.h header)
    try:
        tvm_ffi.get_global_func(name + ".noop")(tvm_ffi.Device(dtype, 0))
        got = "ok"
    except Exception as e:
        got = type(e).__name__ + ": " + str(e)
    why = lib.dh_backend_unavailable_reason(ctypes.c_void_p(be))
    print(name, "available" if why is None else "unavailable", got.replace(" ", "_"))
"""
r = subprocess.run([sys.executable, "-c", FIRST, LIB], capture_output=True, text=True,
                   env=dict(os.environ, DEVHARNESS_PLUGIN_PATH=PLUGDIR))
rows = {line.split()[0]: line.split()[1:] for line in r.stdout.splitlines() if len(line.split()) == 3}
tap(r.returncode == 0 and len(rows) == 4, "functions first: a fresh Python process called cpu/sim/opencl/vulkan .noop",
    r.stdout + r.stderr)
for name in ["cpu", "sim", "opencl", "vulkan"]:
    state, got = rows.get(name, ["absent", "-"])
    if state != "available":
        skip(f"functions first: {name}.noop before any dh_device_* call", f"{name} has no device here ({state})")
        continue
    tap(got == "ok", f"functions first: {name}.noop from Python before any dh_device_* call initialises {name}",
        got.replace("_", " "))

print(f"1..{n}")
sys.exit(1 if failed else 0)
