#!/bin/sh
# tests/runtime/tvm_ffi_python.sh — runs tests/runtime/interop.py (TAP) with the project
# venv's Python, where apache-tvm-ffi is installed (ci/make-venv.sh). Without the venv:
# "1..0 # SKIP" naming it.
py=${DEVHARNESS_VENV_PY:-${BUILD:-build}/venv/bin/python}
if ! "$py" -c 'import tvm_ffi' 2>/dev/null; then
    echo "1..0 # SKIP no tvm_ffi in $py (make deps creates the venv)"
    exit 0
fi
# A sanitizer build (make check-asan-*) cannot be loaded into an uninstrumented Python:
# the ASan runtime must come first in the process.
lib=${BUILD:-build}/lib/libdevharness.so
if nm -D "$lib" 2>/dev/null | grep -q ' __asan_\| __tsan_'; then
    echo "1..0 # SKIP $lib is a sanitizer build (the sanitizer runtime cannot be dlopened into Python)"
    exit 0
fi
exec "$py" "$(dirname "$0")/interop.py"
