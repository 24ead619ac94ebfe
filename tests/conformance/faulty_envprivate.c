/* Fault: the current stream is kept in the backend's own thread-local table, not in
 * tvm-ffi's environment: set_stream and get_current_stream agree with each other and
 * the kernels use it, but a stream made current through TVMFFIEnvSetStream (as PyTorch
 * and TVM do) is never seen. Expected clauses: stream.env_kernels, stream.env_copies. */
#include "faulty.h"

static _Thread_local dh_stream_t private_stream[DH_SIM_MAX_DEVICES];
static dh_safe_call_t orig_fill, orig_noop, orig_trap;

static int slot(DLDevice dev) {
  return dev.device_id >= 0 && dev.device_id < DH_SIM_MAX_DEVICES ? dev.device_id : -1;
}

static int bad_set_stream(DLDevice dev, dh_stream_t stream) {
  dh_stream_t env = dh_env_get_stream(dev);
  if (dh_sim_backend.set_stream(dev, stream) != 0) return -1; /* checks the handle */
  dh_env_set_stream(dev, env);                               /* and keeps it to itself */
  private_stream[slot(dev)] = stream;
  return 0;
}

static int bad_get_current_stream(DLDevice dev, dh_stream_t* out) {
  if (dh_sim_backend.get_current_stream(dev, out) != 0) return -1; /* checks dev */
  *out = private_stream[slot(dev)];
  return 0;
}

/* Runs a kernel with the private stream in the environment for the call. */
static int on_private(dh_safe_call_t fn, DLDevice dev, void* self, const dh_any_t* args, int32_t n,
                      dh_any_t* rv) {
  if (slot(dev) < 0) return fn(self, args, n, rv);
  dh_stream_t env = dh_env_get_stream(dev);
  dh_env_set_stream(dev, private_stream[slot(dev)]);
  int rc = fn(self, args, n, rv);
  dh_env_set_stream(dev, env);
  return rc;
}

static int bad_fill(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  const DLTensor* t = n >= 1 ? dh_any_as_tensor(&args[0]) : NULL;
  if (t == NULL) return orig_fill(self, args, n, rv);
  return on_private(orig_fill, t->device, self, args, n, rv);
}

static int bad_noop(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  if (n < 1 || args[0].type_index != DH_TYPE_DEVICE) return orig_noop(self, args, n, rv);
  return on_private(orig_noop, args[0].v_device, self, args, n, rv);
}

static int bad_trap(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  if (n < 1 || args[0].type_index != DH_TYPE_DEVICE) return orig_trap(self, args, n, rv);
  return on_private(orig_trap, args[0].v_device, self, args, n, rv);
}

FAULTY_ENTRY("envprivate", faulty.set_stream = bad_set_stream;
             faulty.get_current_stream = bad_get_current_stream;
             orig_fill = faulty_replace_function(DH_FUNC_FILL, bad_fill);
             orig_noop = faulty_replace_another_function(DH_FUNC_NOOP, bad_noop);
             orig_trap = faulty_replace_another_function(DH_FUNC_TRAP, bad_trap))
