/* Fault: a kernel failure is kept per device, not per stream: the next stream_sync of
 * ANY stream of the device reports it (and clears it). Expected clause:
 * stream.error_at_sync. */
#include <stdatomic.h>

#include "faulty.h"

static atomic_int failed;

static void set_failed(void* ctx) {
  (void)ctx;
  atomic_store(&failed, 1);
}

static int bad_trap(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self;
  (void)rv;
  if (n < 1 || args[0].type_index != DH_TYPE_DEVICE)
    return dh_error_set("TypeError", "faulty_trapglobal.trap: expected (Device)");
  dh_stream_t s = NULL;
  if (dh_sim_backend.get_current_stream(args[0].v_device, &s) != 0) return -1;
  return dh_sim_enqueue_host_fn(args[0].v_device, s, set_failed, NULL);
}

static int bad_sync(DLDevice dev, dh_stream_t s) {
  int rc = dh_sim_backend.stream_sync(dev, s);
  if (rc == 0 && atomic_exchange(&failed, 0))
    return dh_error_set("RuntimeError", "sim:%d: stream_sync: kernel 'trap' failed on the device",
                        (int)dev.device_id);
  return rc;
}

FAULTY_ENTRY("trapglobal", (faulty_replace_function(DH_FUNC_TRAP, bad_trap), faulty.stream_sync = bad_sync))
