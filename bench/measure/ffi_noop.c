/*
 * bench/measure/ffi_noop.c — a shared object exporting one packed function under tvm-ffi's
 * symbol convention (__tvm_ffi_<name>, devharness/module.h), for the call suite's
 * "call/module/3args" benchmark: `noop` accepts any arguments and returns None.
 * Built as $(BUILD)/lib/devharness_bench_ffi_noop.so.
 */
#include "devharness/any.h"

int __tvm_ffi_noop(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result);

__attribute__((visibility("default"))) int __tvm_ffi_noop(void* self, const dh_any_t* args,
                                                          int32_t num_args, dh_any_t* result) {
  (void)self;
  (void)args;
  (void)num_args;
  (void)result;
  __asm__ volatile("");
  return 0;
}
