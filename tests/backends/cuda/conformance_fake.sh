#!/bin/sh
# tests/backends/cuda/conformance_fake.sh — runs the whole conformance suite
# (`devharness conformance --device cuda:0 --target nvidia/h100`) against the cuda
# plugin on the FAKE driver (tests/backends/cuda/fake_libcuda.c, which simulates
# H100-like devices on the host), and checks that `devharness info` names the cuda
# backend. Proves the plugin keeps the DeviceAPI contract as far as a host-side fake
# can show; a real GPU is needed for the driver's own behaviour (cuda_backend_gpu).
# Environment (set by `make test`): DEVHARNESS (CLI path), BUILD (build folder).
set -u
build=${BUILD:-build}
fake="$build/tests/cuda-fake/dev"
if [ -z "${DEVHARNESS:-}" ] || [ ! -x "$DEVHARNESS" ]; then
    echo "1..0 # SKIP devharness CLI not built (DEVHARNESS='${DEVHARNESS:-}')"
    exit 0
fi
if [ ! -f "$fake/libcuda.so.1" ]; then
    echo "1..0 # SKIP fake driver $fake/libcuda.so.1 not built"
    exit 0
fi
echo "1..3"
out=$(LD_LIBRARY_PATH="$fake" "$DEVHARNESS" info 2>&1)
if printf '%s\n' "$out" | grep -q '^backend cuda ' &&
   printf '%s\n' "$out" | grep -q 'Fake NVIDIA H100'; then
    echo "ok 1 - devharness info lists the cuda backend and the fake device"
else
    echo "not ok 1 - devharness info lists the cuda backend and the fake device"
    printf '%s\n' "$out" | sed 's/^/# /' | head -20
fi
out=$(env -u LD_LIBRARY_PATH "$DEVHARNESS" info 2>&1)
if printf '%s\n' "$out" | awk '/^backend cuda /{p=1} p && /^$/{exit} p' | grep -q 'unavailable: .*libcuda.so.1\|unavailable: cuInit failed'; then
    echo "ok 2 - without the fake, devharness info says why cuda has no device"
elif printf '%s\n' "$out" | awk '/^backend cuda /{p=1} p && /^$/{exit} p' | grep -q 'cuda:0'; then
    echo "ok 2 # SKIP a real NVIDIA driver and GPU are present"
else
    echo "not ok 2 - without the fake, devharness info says why cuda has no device"
    printf '%s\n' "$out" | awk '/^backend cuda /{p=1} p && /^$/{exit} p' | sed 's/^/# /'
fi
out=$(LD_LIBRARY_PATH="$fake" "$DEVHARNESS" conformance --device cuda:0 --target nvidia/h100 2>&1)
rc=$?
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^ok 1 - cuda:0'; then
    echo "ok 3 - conformance on cuda:0 (fake driver): $(printf '%s\n' "$out" | tail -1 | sed 's/^# //')"
else
    echo "not ok 3 - conformance on cuda:0 (fake driver), exit $rc"
    printf '%s\n' "$out" | grep -E 'not ok|message|expected|got|at:' | head -40 | sed 's/^/# /'
    printf '%s\n' "$out" | tail -3 | sed 's/^/# /'
fi
