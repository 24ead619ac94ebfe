/*
 * backends/sim/sim_launch.c — kernels of tvm-ffi kernel libraries on the sim, and the
 * sim's stream log (backend.h DH_FUNC_LAUNCH, DH_FUNC_KERNEL_LOG).
 *
 * A library built with tvm-ffi's C++ API has no way into the sim's hidden symbols; it
 * calls the global function "sim.launch" (its kernel as a host function pointer and
 * the tensors it works on), and the sim queues that kernel on the calling thread's
 * environment stream of the tensors' device (TVMFFIEnvGetStream), as a GPU library
 * launches on the stream it finds there. Every launch is written to the device's
 * stream log, which "sim.kernel_log" reads: `devharness module check` uses it to see on
 * which stream a library's work was ordered. Calls down into sim_memory.c,
 * sim_stream.c and sim_device.c.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "devharness/error.h"
#include "devharness/tensor.h"
#include "sim_internal.h"

#define SIM_LAUNCH_MAX_TENSORS 8
#define SIM_LOG_SIZE 64

/* Per device: how many kernels were launched, and the stream of the last
 * SIM_LOG_SIZE (the environment stream handle, NULL for the default stream). */
static atomic_ullong g_log_count[DH_SIM_MAX_DEVICES];
static void* _Atomic g_log_stream[DH_SIM_MAX_DEVICES][SIM_LOG_SIZE];

typedef void (*sim_kernel_fn)(void* ctx, void* const* ptrs, int32_t n);

typedef struct sim_launch {
  sim_kernel_fn kernel;
  void* ctx;
  int32_t n;
  void* ptrs[SIM_LAUNCH_MAX_TENSORS];
  dh_sim_obj_t* refs[SIM_LAUNCH_MAX_TENSORS];
} sim_launch_t;

/* On the worker: the kernel, then the buffers are let go. */
static void launch_run(void* arg) {
  sim_launch_t* l = arg;
  l->kernel(l->ctx, l->ptrs, l->n);
  for (int32_t i = 0; i < l->n; i++) dh_sim_obj_release(l->refs[i]);
  free(l);
}

/* The extent of t in bytes from its first element (strides counted), into *span. */
static int tensor_span(const DLTensor* t, size_t* span) {
  int64_t numel;
  if (t->strides == NULL || dh_tensor_numel(t, &numel) != 0 || numel == 0) return dh_tensor_nbytes(t, span);
  int64_t last = 0, shape1 = 1;
  for (int32_t d = 0; d < t->ndim; d++) {
    if (t->strides[d] < 0)
      return dh_error_set(DH_KIND_VALUE_ERROR, "sim.launch: negative stride %lld", (long long)t->strides[d]);
    last += (t->shape[d] - 1) * t->strides[d];
  }
  DLTensor flat = *t;
  flat.ndim = 1;
  flat.shape = &shape1;
  flat.strides = NULL;
  shape1 = last + 1;
  return dh_tensor_nbytes(&flat, span);
}

/* Checks tensor i against the device of the launch and takes a reference to its
 * buffer into l. */
static int launch_add(sim_launch_t* l, dh_sim_device_t* d, DLDevice dev, const DLTensor* t, int32_t i) {
  dh_sim_buffer_t* b = NULL;
  size_t span;
  if (t == NULL) return dh_error_set(DH_KIND_TYPE_ERROR, "sim.launch: argument %d is not a tensor", (int)i + 2);
  if (t->device.device_type != dev.device_type || t->device.device_id != dev.device_id)
    return dh_error_set(DH_KIND_VALUE_ERROR, "sim.launch: tensor %d is on device (%d, %d), tensor 0 on (%d, %d)",
                        (int)i, (int)t->device.device_type, (int)t->device.device_id, (int)dev.device_type,
                        (int)dev.device_id);
  if (tensor_span(t, &span) != 0 || dh_sim_mem_get(d, t->data, &b) != 0) return -1;
  if (dh_sim_mem_check_range(b, (size_t)t->byte_offset, span, "launch") != 0) {
    dh_sim_obj_release(&b->obj);
    return -1;
  }
  l->ptrs[i] = b->data + t->byte_offset;
  l->refs[i] = &b->obj;
  l->n = i + 1;
  return 0;
}

static void launch_discard(sim_launch_t* l) {
  for (int32_t i = 0; i < l->n; i++) dh_sim_obj_release(l->refs[i]);
  free(l);
}

/* launch(OpaquePtr kernel, OpaquePtr ctx, DLTensorPtr t0, ...): queues
 * kernel(ctx, bytes of t0.., n) on the calling thread's environment stream of t0's
 * device; every tensor on that device, within its buffer. */
int dh_sim_func_launch(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  (void)result;
  if (num_args < 3 || num_args > 2 + SIM_LAUNCH_MAX_TENSORS || args[0].type_index != DH_TYPE_OPAQUE_PTR ||
      args[0].v_ptr == NULL || (args[1].type_index != DH_TYPE_OPAQUE_PTR && args[1].type_index != DH_TYPE_NONE))
    return dh_error_set(DH_KIND_TYPE_ERROR, "sim.launch: expected (OpaquePtr kernel, OpaquePtr ctx, 1..%d tensors)",
                        SIM_LAUNCH_MAX_TENSORS);
  const DLTensor* t0 = dh_any_as_tensor(&args[2]);
  dh_sim_device_t* d;
  if (t0 == NULL) return dh_error_set(DH_KIND_TYPE_ERROR, "sim.launch: argument 2 is not a tensor");
  if (dh_sim_device_get(t0->device, &d) != 0) return -1;
  sim_launch_t* l = calloc(1, sizeof *l);
  if (l == NULL) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "sim.launch: out of memory");
  l->kernel = (sim_kernel_fn)(uintptr_t)args[0].v_ptr;
  l->ctx = args[1].type_index == DH_TYPE_OPAQUE_PTR ? args[1].v_ptr : NULL;
  for (int32_t i = 0; i + 2 < num_args; i++)
    if (launch_add(l, d, t0->device, dh_any_as_tensor(&args[2 + i]), i) != 0) return launch_discard(l), -1;
  dh_stream_t env = dh_env_get_stream(t0->device);
  if (dh_sim_enqueue_host_fn(t0->device, env, launch_run, l) != 0) return launch_discard(l), -1;
  unsigned long long k = atomic_fetch_add(&g_log_count[d->id], 1);
  atomic_store(&g_log_stream[d->id][k % SIM_LOG_SIZE], env);
  return 0;
}

/* kernel_log(Device dev, Int i): i < 0 -> the number of kernels launched on dev; else
 * the stream (OpaquePtr, NULL = default) launch number i was queued on, for the last
 * 64 launches. */
int dh_sim_func_kernel_log(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  dh_sim_device_t* d;
  if (num_args != 2 || args[0].type_index != DH_TYPE_DEVICE || args[1].type_index != DH_TYPE_INT)
    return dh_error_set(DH_KIND_TYPE_ERROR, "sim.kernel_log: expected (Device dev, Int index)");
  if (dh_sim_device_get(args[0].v_device, &d) != 0) return -1;
  unsigned long long n = atomic_load(&g_log_count[d->id]);
  int64_t i = args[1].v_int64;
  if (i < 0) return *result = dh_any_int((int64_t)n), 0;
  if ((unsigned long long)i >= n || n - (unsigned long long)i > SIM_LOG_SIZE)
    return dh_error_set(DH_KIND_INDEX_ERROR, "sim.kernel_log: launch %lld is not in the log (%llu launched, last %d kept)",
                        (long long)i, n, SIM_LOG_SIZE);
  *result = dh_any_ptr(atomic_load(&g_log_stream[d->id][i % SIM_LOG_SIZE]));
  return 0;
}
