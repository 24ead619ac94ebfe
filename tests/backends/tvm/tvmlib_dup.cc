/*
 * tests/backends/tvm/tvmlib_dup.cc — a TVM library that registers device_api.cpu, which
 * TVM's runtime already has: tvm-ffi refuses the second registration by throwing from
 * the library's static initialiser, which ends the process (std::terminate, SIGABRT).
 * tests/backends/tvm/tvm_lib.t checks that `--tvm-lib` refuses it with the reason and
 * that the devharness process goes on. Built a second time with
 * -DTVMLIB_DUP_NAME='"device_api.cuda"' (libtvmlib_dupcuda.so): a name TVM's own
 * libtvm_runtime_cuda.so registers, which the probe (TVM's core runtime only) accepts
 * and the plugin must refuse as tvm-cuda's.
 */
#ifndef TVMLIB_DUP_NAME
#define TVMLIB_DUP_NAME "device_api.cpu"
#endif
#include <tvm/ffi/any.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>

TVM_FFI_STATIC_INIT_BLOCK() {
  tvm::ffi::reflection::GlobalDef().def_packed(TVMLIB_DUP_NAME, [](tvm::ffi::PackedArgs, tvm::ffi::Any* rv) {
    *rv = static_cast<void*>(nullptr);
  });
}
