/* backends/tvm/tvm_cuda.c — libdevharness_tvm-cuda.so: TVM's CUDA DeviceAPI (tvm_backend.c). */
#define DH_TVM_CUDA 1
#include "backends/tvm/tvm_backend.c"
