#!/bin/sh
# Creates the project-local Python venv and installs ci/python-requirements.txt into it.
# Usage: ci/make-venv.sh VENV_DIR REQUIREMENTS
# Afterwards VENV_DIR/devharness/ holds stable links the Makefile builds against:
#   tvm_ffi -> site-packages/tvm_ffi   (include/, lib/libtvm_ffi.so)
#   tvm     -> site-packages/tvm       (lib/libtvm_runtime.so, include/)
# Exit: 0 ready, 1 venv or pip failed (the message says which and how to retry).
set -eu
venv=$1
reqs=$2
python=${DH_PYTHON:-/usr/bin/python3}
if [ ! -x "$venv/bin/python" ]; then
    echo "make-venv: creating $venv (Python venv for tvm-ffi and TVM)"
    "$python" -m venv "$venv" || {
        echo "make-venv: '$python -m venv' failed: install python3-venv (ci/install-deps.sh does)" >&2
        exit 1; }
fi
venv=$(cd "$venv" && pwd)
n=$(grep -c '^[A-Za-z]' "$reqs" || true)
echo "make-venv: installing $n pinned packages from $reqs into $venv (first time: ~100 MB download)"
"$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$reqs" || {
    echo "make-venv: pip install -r $reqs failed (network or PyPI?); retry with: make deps" >&2
    exit 1; }
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
mkdir -p "$venv/devharness"
# Relative links when site-packages is inside the venv (it is for a venv): the links
# stay right when the venv is reached through another path (a moved checkout, a
# symlinked build folder).
case "$site" in "$venv"/*) base="../${site#"$venv"/}" ;; *) base=$site ;; esac
for pkg in tvm_ffi tvm; do
    [ -d "$site/$pkg" ] || { echo "make-venv: $site/$pkg missing after install" >&2; exit 1; }
    ln -sfn "$base/$pkg" "$venv/devharness/$pkg"
done
echo "make-venv: ready: $("$venv/bin/python" -c 'import tvm_ffi, tvm; print("apache-tvm-ffi", tvm_ffi.__version__, "/ apache-tvm", tvm.__version__)')"
