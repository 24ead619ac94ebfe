/* Fault: the kernels fill and noop ignore the calling thread's environment stream
 * (TVMFFIEnvSetStream) and run on the device's default stream, as a backend that
 * launches every kernel on stream 0 does. trap is left right so that only the
 * ordering of fill shows it. Expected clause: stream.env_kernels. */
#include "faulty.h"

static dh_safe_call_t orig_fill, orig_noop;

/* Calls fn with the environment stream of dev set to NULL for the call. */
static int on_default(dh_safe_call_t fn, DLDevice dev, void* self, const dh_any_t* args, int32_t n,
                      dh_any_t* rv) {
  dh_stream_t env = dh_env_get_stream(dev);
  dh_env_set_stream(dev, NULL);
  int rc = fn(self, args, n, rv);
  dh_env_set_stream(dev, env);
  return rc;
}

static int bad_fill(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  const DLTensor* t = n >= 1 ? dh_any_as_tensor(&args[0]) : NULL;
  if (t == NULL) return orig_fill(self, args, n, rv);
  return on_default(orig_fill, t->device, self, args, n, rv);
}

static int bad_noop(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  if (n < 1 || args[0].type_index != DH_TYPE_DEVICE) return orig_noop(self, args, n, rv);
  return on_default(orig_noop, args[0].v_device, self, args, n, rv);
}

FAULTY_ENTRY("envkernels", orig_fill = faulty_replace_function(DH_FUNC_FILL, bad_fill);
             orig_noop = faulty_replace_another_function(DH_FUNC_NOOP, bad_noop))
