/*
 * backends/sim/sim_kernels.c — the sim's module functions (backend.h "Module
 * functions every backend provides"): noop and fill, and the optional trap (a kernel that
 * fails on the device, backend.h DH_FUNC_TRAP), queued on the calling thread's
 * current stream. Calls down into sim_memory.c, sim_stream.c and sim_device.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/error.h"
#include "devharness/tensor.h"
#include "sim_internal.h"

/*===========================================================================
 * Module functions (backend.h "Module functions every backend provides")
 *===========================================================================*/

/* The calling thread's current stream of d, with a reference. */
static int dh_sim_current_stream(dh_sim_device_t* d, dh_sim_stream_t** out) {
  return dh_sim_stream_get(d, dh_env_get_stream(dh_sim_dev(d->id)), out);
}

/* Queues a kernel command of `kind` (no payload) on the calling thread's current
 * stream of dev. 0, or -1 with the error set (invalid device or stream, no memory). */
static int enqueue_kernel(DLDevice dev, dh_sim_cmd_kind_t kind) {
  dh_sim_device_t* d;
  dh_sim_stream_t* s;
  if (dh_sim_device_get(dev, &d) != 0 || dh_sim_current_stream(d, &s) != 0) return -1;
  dh_sim_cmd_t* cmd = dh_sim_cmd_new(kind);
  int rc = cmd ? dh_sim_stream_enqueue(s, cmd) : -1;
  dh_sim_obj_release(&s->obj);
  return rc;
}

/* noop(Device dev): enqueue the empty kernel on the current stream. */
int dh_sim_func_noop(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  (void)result;
  if (num_args < 1 || args[0].type_index != DH_TYPE_DEVICE)
    return dh_error_set(DH_KIND_TYPE_ERROR, "sim.noop: expected (Device), got %d argument(s)%s%s",
                        (int)num_args, num_args >= 1 ? ", first " : "",
                        num_args >= 1 ? dh_type_index_name(args[0].type_index) : "");
  return enqueue_kernel(args[0].v_device, DH_SIM_CMD_NOOP);
}

/* trap(Device dev): enqueue a kernel that fails on the device on the current stream;
 * the next stream_sync of that stream reports it (backend.h DH_FUNC_TRAP). */
int dh_sim_func_trap(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  (void)result;
  if (num_args < 1 || args[0].type_index != DH_TYPE_DEVICE)
    return dh_error_set(DH_KIND_TYPE_ERROR, "sim.trap: expected (Device), got %d argument(s)", (int)num_args);
  return enqueue_kernel(args[0].v_device, DH_SIM_CMD_TRAP);
}

/* peer_access(Device dev, Int peer) -> Str (backend.h DH_FUNC_PEER_ACCESS): every sim
 * device reaches every other, since its worker copies between their host buffers. */
int dh_sim_func_peer_access(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  if (num_args != 2 || args[0].type_index != DH_TYPE_DEVICE || args[1].type_index != DH_TYPE_INT)
    return dh_error_set(DH_KIND_TYPE_ERROR, "sim.peer_access: expected (Device dev, Int peer_device_id)");
  dh_sim_device_t* d;
  DLDevice peer = args[0].v_device;
  if (args[1].v_int64 < 0 || args[1].v_int64 > INT32_MAX)
    return dh_error_set(DH_KIND_INDEX_ERROR, "sim.peer_access: peer device id %lld out of range",
                        (long long)args[1].v_int64);
  peer.device_id = (int32_t)args[1].v_int64;
  if (dh_sim_device_get(args[0].v_device, &d) != 0 || dh_sim_device_get(peer, &d) != 0) return -1;
  const char* text = args[0].v_device.device_id == peer.device_id
                         ? "same device"
                         : "yes (the sim's worker copies between the two devices' memory directly)";
  return result ? dh_any_string(text, strlen(text), result) : 0;
}

/* fill(DLTensorPtr dst, Int value): write (uint32_t)value to every 4-byte word. */
int dh_sim_func_fill(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  (void)result;
  if (num_args < 2 || dh_any_as_tensor(&args[0]) == NULL ||
      args[1].type_index != DH_TYPE_INT)
    return dh_error_set(DH_KIND_TYPE_ERROR, "sim.fill: expected (DLTensorPtr dst, Int value)");
  const DLTensor* t = dh_any_as_tensor(&args[0]);
  size_t nbytes;
  if (t == NULL) return dh_error_set(DH_KIND_TYPE_ERROR, "sim.fill: dst is a NULL tensor");
  if (!dh_tensor_is_contiguous(t))
    return dh_error_set(DH_KIND_VALUE_ERROR, "sim.fill: dst is not contiguous");
  if (dh_tensor_nbytes(t, &nbytes) != 0) return -1;
  if (t->byte_offset % 4 || nbytes % 4)
    return dh_error_set(DH_KIND_VALUE_ERROR,
                        "sim.fill: byte_offset %llu and nbytes %zu must be multiples of 4",
                        (unsigned long long)t->byte_offset, nbytes);
  dh_sim_device_t* d;
  dh_sim_buffer_t* b = NULL;
  dh_sim_stream_t* s = NULL;
  if (dh_sim_device_get(t->device, &d) != 0) return -1;
  if (dh_sim_mem_get(d, t->data, &b) != 0 ||
      dh_sim_mem_check_range(b, (size_t)t->byte_offset, nbytes, "fill") != 0 ||
      dh_sim_current_stream(d, &s) != 0) {
    dh_sim_obj_release(b ? &b->obj : NULL);
    return -1;
  }
  dh_sim_cmd_t* cmd = dh_sim_cmd_new(DH_SIM_CMD_FILL);
  if (cmd == NULL) {
    dh_sim_obj_release(&b->obj);
    dh_sim_obj_release(&s->obj);
    return -1;
  }
  cmd->dst = b->data + t->byte_offset;
  cmd->nbytes = nbytes;
  cmd->pattern = (uint32_t)args[1].v_int64;
  cmd->refs[0] = &b->obj;
  int rc = dh_sim_stream_enqueue(s, cmd);
  dh_sim_obj_release(&s->obj);
  return rc;
}
