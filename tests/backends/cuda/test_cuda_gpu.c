/*
 * tests/backends/cuda/test_cuda_gpu.c — the program cuda_backend_gpu: the device
 * checks of test_cuda_backend.c run against the real NVIDIA driver and GPU 0 of this
 * machine; prints "1..0 # SKIP <reason>" where there is no driver or no device.
 */
#define DH_CUDA_TEST_GPU 1
#include "test_cuda_backend.c"
