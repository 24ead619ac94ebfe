/*
 * tests/backends/tvm/tvmlib_dup.cc — a TVM library that registers device_api.cpu, which
 * TVM's runtime already has: tvm-ffi refuses the second registration by throwing from
 * the library's static initialiser, which ends the process (std::terminate, SIGABRT).
 * tests/backends/tvm/tvm_lib.t checks that `--tvm-lib` refuses it with the reason and
 * that the devharness process goes on.
 */
#include <tvm/ffi/any.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>

TVM_FFI_STATIC_INIT_BLOCK() {
  tvm::ffi::reflection::GlobalDef().def_packed("device_api.cpu", [](tvm::ffi::PackedArgs, tvm::ffi::Any* rv) {
    *rv = static_cast<void*>(nullptr);
  });
}
