// backends/cuda/kernels.cu — the cuda backend's built-in kernels (backend.h "noop",
// "fill"). Built by nvcc into a fatbin (sm_75, sm_80, sm_86, sm_89, sm_90a SASS plus
// compute_90 PTX), embedded in libdevharness_cuda.so and loaded with cuModuleLoadData
// once per device. extern "C" keeps the names unmangled for cuModuleGetFunction.

// Empty kernel: launch-overhead measurements (launch.* benchmarks, DH_RAW_LAUNCH).
extern "C" __global__ void dh_cuda_noop(void) {}

// Writes `value` to nwords consecutive 32-bit words starting at dst (grid-stride
// loop, so any grid size covers any nwords). dst is 4-byte aligned (the backend
// checks byte_offset % 4 == 0; cuMemAlloc bases are 256-byte aligned).
extern "C" __global__ void dh_cuda_fill(unsigned int* dst, unsigned int value,
                                        unsigned long long nwords) {
  unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
       i < nwords; i += stride) {
    dst[i] = value;
  }
}
