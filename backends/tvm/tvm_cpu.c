/* backends/tvm/tvm_cpu.c — libdevharness_tvm-cpu.so: TVM's CPU DeviceAPI (tvm_backend.c). */
#define DH_TVM_CUDA 0
#include "backends/tvm/tvm_backend.c"
