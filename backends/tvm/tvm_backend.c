/*
 * backends/tvm/tvm_backend.c — the tvm-* backends' vtable and plugin entry: TVM's own DeviceAPIs (from the
 * installed apache-tvm package) as devharness devices, so the conformance suite and the
 * benchmarks can be held against the DeviceAPI TVM wrote. See backends/tvm/README.md.
 *
 * Every file of this folder is compiled once per TVM device type, with -DDH_TVM_CUDA=0
 * or 1 (backends/tvm/backend.mk), giving libdevharness_tvm-cpu.so and
 * libdevharness_tvm-cuda.so; tvm_internal.h lists the files. Nothing TVM does is corrected here: every entry is TVM's
 * answer, reached through tvm_adapter.cc. Where TVM departs from TVM's documented
 * contract, the conformance suite says so (targets/waivers/tvm-*.json records the
 * departures with upstream file:line).
 *
 * Loading (init, once): libtvm_ffi.so, libtvm_runtime.so (and libtvm_runtime_cuda.so
 * for tvm-cuda) are dlopened by path from
 *   $DEVHARNESS_TVM_ROOT/lib       (default: the project venv's tvm package, set at build)
 *   $DEVHARNESS_TVM_FFI_ROOT/lib   (default: the project venv's tvm_ffi package)
 * then the adapter <plugin folder>/tvm/libdh_tvm_adapter.so ($DEVHARNESS_TVM_ADAPTER
 * overrides). Any failure leaves a loaded backend with no device whose
 * unavailable_reason says which file and why; every clause then SKIPs with that reason.
 *
 * Any TVM DeviceAPI (tvm-cpu only): more_backends (tvm_libs.c) makes every
 * device_api.<name> of the libraries in DEVHARNESS_TVM_LIBS a backend tvm-<name>.
 *
 * Device types: devharness device type DH_TVM_TYPE_BASE + TVM's DLDeviceType (tvm-cpu
 * 49, tvm-cuda 50), so tvm-cpu:0 and cpu:0 can be loaded side by side; TVM itself is
 * always called with TVM's own type (kDLCPU, kDLCUDA) and the same device id (TVM's
 * numbering).
 */
#include <stddef.h>
#include <stdint.h>

#include "devharness/backend.h"

#include "backends/tvm/tvm_internal.h"

static const dh_backend_t g_backend = {
    DH_BACKEND_HEADER_FIELDS,
    .name = DH_TVM_BACKEND_NAME,
    .description = DH_TVM_CUDA ? "TVM's own CUDA DeviceAPI (apache-tvm libtvm_runtime_cuda.so)"
                               : "TVM's own CPU DeviceAPI (apache-tvm libtvm_runtime.so)",
    .device_type = DH_TVM_DEVICE_TYPE,
    /* tvm-ffi's environment and TVM key streams by TVM's own type */
    .ffi_device_type = DH_TVM_TVM_TYPE,
    /* the clauses' DLTensors reach TVM's CopyDataFromTo(DLTensor*) as built (ABI 1.4) */
    .copy_tensor_from_to = dh_tvm_copy_tensor_from_to,
    .caps = DH_TVM_CAPS,
    .target_kind = DH_TVM_TARGET_KIND,
    .init = dh_tvm_init,
    DH_BACKEND_BIND_DEVICE_ENTRIES(dh_tvm),
    DH_BACKEND_BIND_MEMORY_ENTRIES(dh_tvm),
    DH_BACKEND_BIND_WORKSPACE_ENTRIES(dh_tvm),
    DH_BACKEND_BIND_STREAM_ENTRIES(dh_tvm),
    /* TVM's DeviceAPI has no kernels: no module functions (the packed clauses skip). */
    .functions = NULL,
    .num_functions = 0,
    .raw = DH_TVM_RAW_TWIN,
    .default_profile = "tvm",
    .device_count = dh_tvm_device_count,
    .more_backends = DH_TVM_MORE_BACKENDS, /* tvm-cpu: the sets of DEVHARNESS_TVM_LIBS (tvm_libs.c) */
};

__attribute__((visibility("default"))) const dh_backend_t* dh_backend_entry(void) { return &g_backend; }
