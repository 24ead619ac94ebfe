/*
 * backends/sim/sim_backend.c — the sim's dh_backend_t: TVM's DeviceAPI as a C vtable.
 *
 * Start here when writing a new backend. Each entry below maps one TVM DeviceAPI
 * method (apache/tvm v0.27.0 include/tvm/runtime/device_api.h; docs/contract.md) onto the device:
 *   get_attr / get_target_property   GetAttr / GetTargetProperty
 *   set_device                       SetDevice
 *   alloc/free_data_space            AllocDataSpace / FreeDataSpace
 *   copy_data_from_to                CopyDataFromTo (flat form)
 *   create/free/set/get stream       CreateStream / FreeStream / SetStream / GetCurrentStream
 *   stream_sync, sync_stream_from_to StreamSync / SyncStreamFromTo
 * plus events, the module functions every backend provides (noop, fill, echo, raise)
 * and a "raw twin" for benchmarks. Conventions every entry keeps:
 *   - validate everything first (device id, handles, offsets), report with
 *     dh_error_set(kind, ...) and return -1; never abort, never crash on bad input;
 *   - never read a host source after returning (stage it), write host destinations on
 *     the worker (valid after stream_sync);
 *   - hold a reference to every object a queued command touches.
 */
#include <stdlib.h>
#include <string.h>

#include "devharness/error.h"
#include "devharness/tensor.h"
#include "sim_impl.h"

/*===========================================================================
 * Per-thread state: current device and current stream per device (TVM SetStream /
 * GetCurrentStream are per thread and per device)
 *===========================================================================*/

/* The current stream is tvm-ffi's environment stream (backend.h dh_env_get_stream). */
static DLDevice dh_sim_dev(int id) {
  DLDevice d = {(DLDeviceType)DH_SIM_DEVICE_TYPE, id};
  return d;
}
static _Thread_local int dh_sim_tls_device;

/*===========================================================================
 * Lifecycle
 *===========================================================================*/

static int dh_sim_b_init(void) { return dh_sim_init(); }

static void dh_sim_b_shutdown(void) { dh_sim_shutdown(); }

static const char* dh_sim_b_unavailable_reason(void) {
  if (!atomic_load(&dh_sim_state.initialised)) return "sim backend is not initialised";
  if (dh_sim_state.config.num_devices == 0)
    return "DEVHARNESS_SIM_DEVICES=0: no simulated devices configured";
  return NULL;
}

/*===========================================================================
 * Attributes
 *===========================================================================*/

#define DH_SIM_DEVICE_NAME "devharness sim"
#define DH_SIM_L2_CACHE_BYTES (4 * 1024 * 1024)

static int dh_sim_b_get_attr(DLDevice dev, int32_t kind, dh_any_t* out_value) {
  if (out_value == NULL) return dh_error_set("ValueError", "sim: get_attr: out_value is NULL");
  *out_value = dh_any_none();
  if (kind == DH_ATTR_EXIST) {
    /* Never an error: 0 for anything that is not a configured device. */
    int exists = atomic_load(&dh_sim_state.initialised) && dev.device_type != kDLCPU &&
                 dev.device_id >= 0 && dev.device_id < dh_sim_state.config.num_devices;
    *out_value = dh_any_int(exists);
    return 0;
  }
  if (kind < 0 || kind >= DH_ATTR_KIND_COUNT)
    return dh_error_set("ValueError", "sim: unknown attribute kind %d (valid: 0..%d)", (int)kind,
                        DH_ATTR_KIND_COUNT - 1);
  dh_sim_device_t* d;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  switch ((dh_attr_kind_t)kind) {
    case DH_ATTR_MAX_THREADS_PER_BLOCK: *out_value = dh_any_int(1024); break;
    case DH_ATTR_WARP_SIZE: *out_value = dh_any_int(32); break;
    case DH_ATTR_MAX_SHARED_MEMORY_PER_BLOCK: *out_value = dh_any_int(49152); break;
    case DH_ATTR_COMPUTE_VERSION: *out_value = dh_any_str("1.0"); break;
    case DH_ATTR_DEVICE_NAME: *out_value = dh_any_str(DH_SIM_DEVICE_NAME); break;
    case DH_ATTR_MAX_CLOCK_RATE: *out_value = dh_any_int(1000000); break;
    case DH_ATTR_MULTI_PROCESSOR_COUNT: *out_value = dh_any_int(8); break;
    case DH_ATTR_MAX_THREAD_DIMENSIONS: *out_value = dh_any_str("[1024, 1024, 64]"); break;
    case DH_ATTR_MAX_REGISTERS_PER_BLOCK: *out_value = dh_any_int(65536); break;
    case DH_ATTR_API_VERSION: *out_value = dh_any_int(1); break;
    case DH_ATTR_DRIVER_VERSION: *out_value = dh_any_str("devharness-sim 0.1"); break;
    case DH_ATTR_L2_CACHE_SIZE_BYTES: *out_value = dh_any_int(DH_SIM_L2_CACHE_BYTES); break;
    case DH_ATTR_TOTAL_GLOBAL_MEMORY:
      *out_value = dh_any_int((int64_t)dh_sim_state.config.memory_bytes);
      break;
    case DH_ATTR_AVAILABLE_GLOBAL_MEMORY:
      *out_value = dh_any_int((int64_t)dh_sim_mem_available(d));
      break;
    default: break; /* kGcnArch, kImagePitchAlignment: not reported (None) */
  }
  return 0;
}

/* Live values of the sim target kind's options (targets/kinds/sim.json). */
static int dh_sim_b_get_target_property(DLDevice dev, const char* name, dh_any_t* out_value) {
  if (name == NULL || out_value == NULL)
    return dh_error_set("ValueError", "sim: get_target_property: NULL name or out_value");
  *out_value = dh_any_none();
  dh_sim_device_t* d;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  if (strcmp(name, "device_name") == 0) *out_value = dh_any_str(DH_SIM_DEVICE_NAME);
  else if (strcmp(name, "num_devices") == 0)
    *out_value = dh_any_int(dh_sim_state.config.num_devices);
  else if (strcmp(name, "memory_bytes") == 0)
    *out_value = dh_any_int((int64_t)dh_sim_state.config.memory_bytes);
  else if (strcmp(name, "max_num_threads") == 0) *out_value = dh_any_int(1024);
  else if (strcmp(name, "thread_warp_size") == 0) *out_value = dh_any_int(32);
  /* anything else (kind, keys, tag, ...): None = cannot tell */
  return 0;
}

/*===========================================================================
 * Device and memory
 *===========================================================================*/

static int dh_sim_b_set_device(DLDevice dev) {
  dh_sim_device_t* d;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  dh_sim_tls_device = d->id; /* nothing else depends on it in the sim */
  return 0;
}

static int dh_sim_b_alloc_data_space(DLDevice dev, size_t nbytes, size_t alignment,
                                     DLDataType type_hint, void** out_ptr) {
  (void)type_hint;
  if (out_ptr == NULL) return dh_error_set("ValueError", "sim: alloc_data_space: out_ptr is NULL");
  *out_ptr = NULL;
  dh_sim_device_t* d;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  return dh_sim_mem_alloc(d, nbytes, alignment, out_ptr);
}

static int dh_sim_b_free_data_space(DLDevice dev, void* ptr) {
  dh_sim_device_t* d;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  return dh_sim_mem_free(d, ptr);
}

/* "Pinned" host memory: the sim has no DMA engine, so this is plain 64-byte-aligned
 * malloc; it exists so benchmarks exercise the pinned path. */
static int dh_sim_b_alloc_host(DLDevice dev, size_t nbytes, void** out_ptr) {
  dh_sim_device_t* d;
  if (out_ptr == NULL) return dh_error_set("ValueError", "sim: alloc_host: out_ptr is NULL");
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  if (posix_memalign(out_ptr, DH_ALLOC_ALIGNMENT, nbytes ? nbytes : 1) != 0) {
    *out_ptr = NULL;
    return dh_error_set("OutOfMemoryError", "sim:%d: alloc_host of %zu bytes failed", d->id,
                        nbytes);
  }
  return 0;
}

static int dh_sim_b_free_host(DLDevice dev, void* ptr) {
  (void)dev;
  free(ptr);
  return 0;
}

/*===========================================================================
 * Copies
 *===========================================================================*/

static int dh_sim_b_copy_data_from_to(const void* from, size_t from_offset, void* to,
                                      size_t to_offset, size_t nbytes, DLDevice dev_from,
                                      DLDevice dev_to, DLDataType type_hint, dh_stream_t stream) {
  (void)type_hint;
  int from_host = dev_from.device_type == kDLCPU;
  int to_host = dev_to.device_type == kDLCPU;
  if (from_host && to_host) { /* not the sim's business, but harmless */
    if (nbytes) memmove((char*)to + to_offset, (const char*)from + from_offset, nbytes);
    return 0;
  }
  /* The stream belongs to the device side; for device-to-device, to the source device
   * (as TVM's CUDA backend does for peer copies). */
  DLDevice stream_dev = from_host ? dev_to : dev_from;
  dh_sim_device_t *ds, *d_from = NULL, *d_to = NULL;
  if (dh_sim_device_get(stream_dev, &ds) != 0) return -1;
  if (!from_host && dh_sim_device_get(dev_from, &d_from) != 0) return -1;
  if (!to_host && dh_sim_device_get(dev_to, &d_to) != 0) return -1;
  if ((from_host && from == NULL && nbytes) || (to_host && to == NULL && nbytes))
    return dh_error_set("ValueError", "sim: copy_data_from_to: NULL host %s pointer",
                        from_host ? "source" : "destination");

  dh_sim_buffer_t *src_buf = NULL, *dst_buf = NULL;
  dh_sim_stream_t* s = NULL;
  dh_sim_cmd_t* cmd = NULL;
  if (d_from && (dh_sim_mem_get(d_from, (void*)from, &src_buf) != 0 ||
                 dh_sim_mem_check_range(src_buf, from_offset, nbytes, "source") != 0))
    goto fail;
  if (d_to && (dh_sim_mem_get(d_to, to, &dst_buf) != 0 ||
               dh_sim_mem_check_range(dst_buf, to_offset, nbytes, "destination") != 0))
    goto fail;
  if (dh_sim_stream_get(ds, stream, &s) != 0) goto fail;
  if (nbytes == 0) { /* validated; nothing to do */
    dh_sim_obj_release(src_buf ? &src_buf->obj : NULL);
    dh_sim_obj_release(dst_buf ? &dst_buf->obj : NULL);
    dh_sim_obj_release(&s->obj);
    return 0;
  }
  if ((cmd = dh_sim_cmd_new(DH_SIM_CMD_COPY)) == NULL) goto fail;
  cmd->nbytes = nbytes;
  if (from_host) {
    /* Stage the host source now: the caller may overwrite it as soon as we return. */
    cmd->staging = dh_sim_staging_get(nbytes, &cmd->staging_cap);
    if (cmd->staging == NULL) goto fail;
    memcpy(cmd->staging, (const char*)from + from_offset, nbytes);
    cmd->src = cmd->staging;
  } else {
    cmd->src = src_buf->data + from_offset;
  }
  cmd->dst = to_host ? (uint8_t*)to + to_offset : dst_buf->data + to_offset;
  /* The command keeps the buffers alive until it has run. */
  cmd->refs[0] = src_buf ? &src_buf->obj : NULL;
  cmd->refs[1] = dst_buf ? &dst_buf->obj : NULL;
  src_buf = dst_buf = NULL;
  int rc = dh_sim_stream_enqueue(s, cmd);
  dh_sim_obj_release(&s->obj);
  return rc;

fail:
  dh_sim_cmd_discard(cmd);
  dh_sim_obj_release(src_buf ? &src_buf->obj : NULL);
  dh_sim_obj_release(dst_buf ? &dst_buf->obj : NULL);
  dh_sim_obj_release(s ? &s->obj : NULL);
  return -1;
}

/*===========================================================================
 * Streams
 *===========================================================================*/

static int dh_sim_b_create_stream(DLDevice dev, dh_stream_t* out_stream) {
  if (out_stream == NULL) return dh_error_set("ValueError", "sim: create_stream: out_stream is NULL");
  *out_stream = NULL;
  dh_sim_device_t* d;
  dh_sim_stream_t* s;
  if (dh_sim_device_get(dev, &d) != 0 || dh_sim_stream_create(d->id, &s) != 0) return -1;
  if (dh_sim_table_add(&d->streams, DH_SIM_KIND_STREAM, d->id, &s->obj, out_stream) != 0) {
    dh_sim_stream_close(s);
    dh_sim_obj_release(&s->obj);
    return -1;
  }
  return 0;
}

static int dh_sim_b_free_stream(DLDevice dev, dh_stream_t stream) {
  dh_sim_device_t* d;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  if (stream == NULL) return 0; /* the default stream lives until shutdown */
  dh_sim_obj_t* obj;
  if (dh_sim_table_remove(&d->streams, DH_SIM_KIND_STREAM, d->id, stream, "stream", &obj) != 0)
    return -1;
  if (dh_env_get_stream(dh_sim_dev(d->id)) == stream) dh_env_set_stream(dh_sim_dev(d->id), NULL);
  /* Pending work completes before the worker exits (TVM: FreeStream loses nothing). */
  int rc = dh_sim_stream_close((dh_sim_stream_t*)obj);
  dh_sim_obj_release(obj);
  return rc;
}

static int dh_sim_b_set_stream(DLDevice dev, dh_stream_t stream) {
  dh_sim_device_t* d;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  if (stream != NULL) {
    dh_sim_stream_t* s;
    if (dh_sim_stream_get(d, stream, &s) != 0) return -1;
    dh_sim_obj_release(&s->obj);
  }
  return dh_env_set_stream(dh_sim_dev(d->id), stream);
}

static int dh_sim_b_get_current_stream(DLDevice dev, dh_stream_t* out_stream) {
  dh_sim_device_t* d;
  if (out_stream == NULL)
    return dh_error_set("ValueError", "sim: get_current_stream: out_stream is NULL");
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  *out_stream = dh_env_get_stream(dh_sim_dev(d->id));
  return 0;
}

static int dh_sim_b_stream_sync(DLDevice dev, dh_stream_t stream) {
  dh_sim_device_t* d;
  dh_sim_stream_t* s;
  if (dh_sim_device_get(dev, &d) != 0 || dh_sim_stream_get(d, stream, &s) != 0) return -1;
  int rc = dh_sim_stream_wait(s);
  dh_sim_obj_release(&s->obj);
  return rc;
}

static int dh_sim_b_sync_stream_from_to(DLDevice dev, dh_stream_t src, dh_stream_t dst) {
  dh_sim_device_t* d;
  dh_sim_stream_t *s_src = NULL, *s_dst = NULL;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  int rc = -1;
  if (dh_sim_stream_get(d, src, &s_src) == 0 && dh_sim_stream_get(d, dst, &s_dst) == 0)
    rc = dh_sim_stream_order(s_src, s_dst); /* no-op when src == dst */
  dh_sim_obj_release(s_src ? &s_src->obj : NULL);
  dh_sim_obj_release(s_dst ? &s_dst->obj : NULL);
  return rc;
}

/*===========================================================================
 * Events (device-side timing: the worker timestamps the record command)
 *===========================================================================*/

static int dh_sim_b_event_create(DLDevice dev, dh_event_t* out_event) {
  if (out_event == NULL) return dh_error_set("ValueError", "sim: event_create: out_event is NULL");
  *out_event = NULL;
  dh_sim_device_t* d;
  dh_sim_event_t* e;
  if (dh_sim_device_get(dev, &d) != 0 || dh_sim_event_new(&e) != 0) return -1;
  if (dh_sim_table_add(&d->events, DH_SIM_KIND_EVENT, d->id, &e->obj, out_event) != 0) {
    dh_sim_obj_release(&e->obj);
    return -1;
  }
  return 0;
}

static int dh_sim_event_lookup(dh_sim_device_t* d, dh_event_t h, dh_sim_event_t** out) {
  dh_sim_obj_t* obj;
  if (h == NULL) return dh_error_set("ValueError", "sim:%d: NULL event", d->id);
  if (dh_sim_table_get(&d->events, DH_SIM_KIND_EVENT, d->id, h, "event", &obj) != 0) return -1;
  *out = (dh_sim_event_t*)obj;
  return 0;
}

static int dh_sim_b_event_record(DLDevice dev, dh_event_t event, dh_stream_t stream) {
  dh_sim_device_t* d;
  dh_sim_event_t* e = NULL;
  dh_sim_stream_t* s = NULL;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  int rc = -1;
  if (dh_sim_event_lookup(d, event, &e) == 0 && dh_sim_stream_get(d, stream, &s) == 0)
    rc = dh_sim_event_record(e, s);
  dh_sim_obj_release(e ? &e->obj : NULL);
  dh_sim_obj_release(s ? &s->obj : NULL);
  return rc;
}

static int dh_sim_b_event_elapsed_ms(DLDevice dev, dh_event_t start, dh_event_t end,
                                     double* out_ms) {
  dh_sim_device_t* d;
  dh_sim_event_t *e0 = NULL, *e1 = NULL;
  if (out_ms == NULL) return dh_error_set("ValueError", "sim: event_elapsed_ms: out_ms is NULL");
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  int rc = -1;
  uint64_t t0, t1;
  if (dh_sim_event_lookup(d, start, &e0) == 0 && dh_sim_event_lookup(d, end, &e1) == 0 &&
      dh_sim_event_wait(e1, &t1) == 0 && dh_sim_event_wait(e0, &t0) == 0) {
    *out_ms = ((double)t1 - (double)t0) / 1e6;
    rc = 0;
  }
  dh_sim_obj_release(e0 ? &e0->obj : NULL);
  dh_sim_obj_release(e1 ? &e1->obj : NULL);
  return rc;
}

static int dh_sim_b_event_free(DLDevice dev, dh_event_t event) {
  dh_sim_device_t* d;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  if (event == NULL) return 0;
  dh_sim_obj_t* obj;
  if (dh_sim_table_remove(&d->events, DH_SIM_KIND_EVENT, d->id, event, "event", &obj) != 0)
    return -1;
  dh_sim_obj_release(obj); /* a queued record keeps it alive until it ran */
  return 0;
}

/*===========================================================================
 * Module functions (backend.h "Module functions every backend provides")
 *===========================================================================*/

/* The calling thread's current stream of d, with a reference. */
static int dh_sim_current_stream(dh_sim_device_t* d, dh_sim_stream_t** out) {
  return dh_sim_stream_get(d, dh_env_get_stream(dh_sim_dev(d->id)), out);
}

/* noop(Device dev): enqueue the empty kernel on the current stream. */
static int dh_sim_f_noop(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  (void)result;
  if (num_args < 1 || args[0].type_index != DH_TYPE_DEVICE)
    return dh_error_set("TypeError", "sim.noop: expected (Device), got %d argument(s)%s%s",
                        (int)num_args, num_args >= 1 ? ", first " : "",
                        num_args >= 1 ? dh_type_index_name(args[0].type_index) : "");
  dh_sim_device_t* d;
  dh_sim_stream_t* s;
  if (dh_sim_device_get(args[0].v_device, &d) != 0 || dh_sim_current_stream(d, &s) != 0)
    return -1;
  dh_sim_cmd_t* cmd = dh_sim_cmd_new(DH_SIM_CMD_NOOP);
  int rc = cmd ? dh_sim_stream_enqueue(s, cmd) : -1;
  dh_sim_obj_release(&s->obj);
  return rc;
}

/* fill(DLTensorPtr dst, Int value): write (uint32_t)value to every 4-byte word. */
static int dh_sim_f_fill(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  (void)self;
  (void)result;
  if (num_args < 2 || dh_any_as_tensor(&args[0]) == NULL ||
      args[1].type_index != DH_TYPE_INT)
    return dh_error_set("TypeError", "sim.fill: expected (DLTensorPtr dst, Int value)");
  const DLTensor* t = dh_any_as_tensor(&args[0]);
  size_t nbytes;
  if (t == NULL) return dh_error_set("TypeError", "sim.fill: dst is a NULL tensor");
  if (!dh_tensor_is_contiguous(t))
    return dh_error_set("ValueError", "sim.fill: dst is not contiguous");
  if (dh_tensor_nbytes(t, &nbytes) != 0) return -1;
  if (t->byte_offset % 4 || nbytes % 4)
    return dh_error_set("ValueError",
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

static const dh_backend_function_t dh_sim_functions[] = {
    {DH_FUNC_NOOP, dh_sim_f_noop},
    {DH_FUNC_FILL, dh_sim_f_fill},
    {DH_FUNC_ECHO, dh_backend_func_echo},
    {DH_FUNC_RAISE, dh_backend_func_raise},
};

/*===========================================================================
 * Raw twin: the same copies/syncs/launches through the sim's internal queue API,
 * bypassing devharness dispatch, handle lookup and argument checks.
 *===========================================================================*/

typedef struct dh_sim_raw_ctx {
  dh_raw_op_t op;
  size_t nbytes;
  dh_sim_device_t* d;
  dh_sim_stream_t* s;     /* private stream */
  dh_sim_stream_t* s2;    /* BIDIR: second private stream (the D2H b -> host2) */
  uint8_t* host2;
  dh_sim_buffer_t* a;     /* device buffers (references) */
  dh_sim_buffer_t* b;
  void* ha;               /* handles of a and b, for freeing */
  void* hb;
  uint8_t* host;          /* host buffer */
} dh_sim_raw_ctx_t;

static void dh_sim_raw_teardown(void* ctx_) {
  dh_sim_raw_ctx_t* c = ctx_;
  if (c == NULL) return;
  if (c->s) {
    dh_sim_stream_close(c->s);
    dh_sim_obj_release(&c->s->obj);
  }
  if (c->s2) {
    dh_sim_stream_close(c->s2);
    dh_sim_obj_release(&c->s2->obj);
  }
  free(c->host2);
  dh_sim_obj_release(c->a ? &c->a->obj : NULL);
  dh_sim_obj_release(c->b ? &c->b->obj : NULL);
  if (c->ha) dh_sim_mem_free(c->d, c->ha);
  if (c->hb) dh_sim_mem_free(c->d, c->hb);
  free(c->host);
  free(c);
}

static int dh_sim_raw_setup(DLDevice dev, dh_raw_op_t op, size_t nbytes, uint32_t flags,
                            void** out_ctx) {
  (void)flags; /* pinned == pageable in the sim */
  if (out_ctx == NULL) return dh_error_set("ValueError", "sim raw: out_ctx is NULL");
  *out_ctx = NULL;
  if (op < DH_RAW_COPY_H2D || op > DH_RAW_COPY_BIDIR)
    return dh_error_set("NotImplementedError", "sim raw: unknown op %d", (int)op);
  dh_sim_raw_ctx_t* c = calloc(1, sizeof *c);
  if (c == NULL) return dh_error_set("OutOfMemoryError", "sim raw: no memory");
  c->op = op;
  c->nbytes = nbytes;
  if (dh_sim_device_get(dev, &c->d) != 0 || dh_sim_stream_create(c->d->id, &c->s) != 0) goto fail;
  int bidir = op == DH_RAW_COPY_BIDIR;
  if (bidir && dh_sim_stream_create(c->d->id, &c->s2) != 0) goto fail;
  if (op <= DH_RAW_COPY_D2D || bidir) {
    /* Every buffer written (no zero-page reads); host buffers 4096-aligned like the
     * bench's harness side. */
    size_t an = ((nbytes ? nbytes : 1) + 4095) & ~(size_t)4095;
    if (dh_sim_mem_alloc(c->d, nbytes, 0, &c->ha) != 0 || dh_sim_mem_get(c->d, c->ha, &c->a) != 0)
      goto fail;
    if (nbytes) memset(c->a->data, 0x5a, nbytes);
    if (op == DH_RAW_COPY_D2D || bidir) {
      if (dh_sim_mem_alloc(c->d, nbytes, 0, &c->hb) != 0 ||
          dh_sim_mem_get(c->d, c->hb, &c->b) != 0)
        goto fail;
      if (nbytes) memset(c->b->data, 0x5a, nbytes);
    }
    if (op != DH_RAW_COPY_D2D) {
      c->host = aligned_alloc(4096, an);
      if (bidir) c->host2 = aligned_alloc(4096, an);
      if (c->host == NULL || (bidir && c->host2 == NULL)) {
        dh_error_set("OutOfMemoryError", "sim raw: cannot allocate %zu host bytes", nbytes);
        goto fail;
      }
      memset(c->host, 0x5a, an);
      if (bidir) memset(c->host2, 0xa5, an);
    }
  }
  *out_ctx = c;
  return 0;
fail:
  dh_sim_raw_teardown(c);
  return -1;
}

static int dh_sim_raw_run(void* ctx_, uint32_t repeat, double* out_device_ms) {
  dh_sim_raw_ctx_t* c = ctx_;
  if (c == NULL) return dh_error_set("ValueError", "sim raw: NULL context");
  dh_sim_event_t *e0 = NULL, *e1 = NULL;
  if (out_device_ms) {
    *out_device_ms = -1;
    if (dh_sim_event_new(&e0) != 0 || dh_sim_event_new(&e1) != 0 ||
        dh_sim_event_record(e0, c->s) != 0)
      goto fail;
  }
  for (uint32_t i = 0; i < repeat; i++) {
    if (c->op == DH_RAW_STREAM_SYNC) {
      if (dh_sim_stream_wait(c->s) != 0) goto fail;
      continue;
    }
    dh_sim_cmd_t* cmd = dh_sim_cmd_new(c->op == DH_RAW_LAUNCH ? DH_SIM_CMD_NOOP : DH_SIM_CMD_COPY);
    if (cmd == NULL) goto fail;
    cmd->nbytes = c->nbytes;
    switch (c->op) {
      case DH_RAW_COPY_BIDIR:
      case DH_RAW_COPY_H2D:
        /* Same device semantics as the real entry: the host source is staged. */
        if ((cmd->staging = dh_sim_staging_get(c->nbytes, &cmd->staging_cap)) == NULL) {
          dh_sim_cmd_discard(cmd);
          goto fail;
        }
        if (c->nbytes) memcpy(cmd->staging, c->host, c->nbytes);
        cmd->src = cmd->staging;
        cmd->dst = c->a->data;
        break;
      case DH_RAW_COPY_D2H: cmd->src = c->a->data; cmd->dst = c->host; break;
      case DH_RAW_COPY_D2D: cmd->src = c->a->data; cmd->dst = c->b->data; break;
      default: break;
    }
    if (dh_sim_stream_enqueue(c->s, cmd) != 0) goto fail;
    if (c->op == DH_RAW_COPY_BIDIR) { /* the other direction on the second stream */
      dh_sim_cmd_t* back = dh_sim_cmd_new(DH_SIM_CMD_COPY);
      if (back == NULL) goto fail;
      back->nbytes = c->nbytes;
      back->src = c->b->data;
      back->dst = c->host2;
      if (dh_sim_stream_enqueue(c->s2, back) != 0) goto fail;
    }
  }
  if (e1 && dh_sim_event_record(e1, c->s) != 0) goto fail;
  if (dh_sim_stream_wait(c->s) != 0) goto fail;
  if (c->s2 && dh_sim_stream_wait(c->s2) != 0) goto fail;
  if (out_device_ms) {
    uint64_t t0, t1;
    if (dh_sim_event_wait(e0, &t0) != 0 || dh_sim_event_wait(e1, &t1) != 0) goto fail;
    *out_device_ms = ((double)t1 - (double)t0) / 1e6;
  }
  dh_sim_obj_release(e0 ? &e0->obj : NULL);
  dh_sim_obj_release(e1 ? &e1->obj : NULL);
  return 0;
fail:
  dh_sim_stream_wait(c->s);
  if (c->s2) dh_sim_stream_wait(c->s2);
  dh_sim_obj_release(e0 ? &e0->obj : NULL);
  dh_sim_obj_release(e1 ? &e1->obj : NULL);
  return -1;
}

static const dh_raw_twin_t dh_sim_raw_twin = {
    sizeof(dh_raw_twin_t), "sim internal", dh_sim_raw_setup, dh_sim_raw_run, dh_sim_raw_teardown,
};

/*===========================================================================
 * Test/faulty-backend helpers declared in sim.h
 *===========================================================================*/

int dh_sim_enqueue_host_fn(DLDevice dev, dh_stream_t stream, void (*fn)(void* ctx), void* ctx) {
  dh_sim_device_t* d;
  dh_sim_stream_t* s;
  if (fn == NULL) return dh_error_set("ValueError", "sim: enqueue_host_fn: fn is NULL");
  if (dh_sim_device_get(dev, &d) != 0 || dh_sim_stream_get(d, stream, &s) != 0) return -1;
  dh_sim_cmd_t* cmd = dh_sim_cmd_new(DH_SIM_CMD_HOST_FN);
  int rc = -1;
  if (cmd != NULL) {
    cmd->fn = fn;
    cmd->ctx = ctx;
    rc = dh_sim_stream_enqueue(s, cmd);
  }
  dh_sim_obj_release(&s->obj);
  return rc;
}

int dh_sim_handle_bytes(DLDevice dev, void* handle, uint8_t** out_bytes, size_t* out_size) {
  dh_sim_device_t* d;
  dh_sim_buffer_t* b;
  if (out_bytes == NULL || out_size == NULL)
    return dh_error_set("ValueError", "sim: handle_bytes: NULL output");
  if (dh_sim_device_get(dev, &d) != 0 || dh_sim_mem_get(d, handle, &b) != 0) return -1;
  *out_bytes = b->data;
  *out_size = b->size;
  dh_sim_obj_release(&b->obj); /* the handle's own reference keeps it alive */
  return 0;
}

/*===========================================================================
 * The vtable
 *===========================================================================*/

const dh_backend_t dh_sim_backend = {
    .struct_size = sizeof(dh_backend_t),
    .abi_major = DH_BACKEND_ABI_MAJOR,
    .abi_minor = DH_BACKEND_ABI_MINOR,
    .name = "sim",
    .description = "simulated accelerator: opaque handles, one worker thread per stream",
    .device_type = DH_SIM_DEVICE_TYPE,
    .caps = DH_CAP_ASYNC_COPY | DH_CAP_EVENT_TIMING | DH_CAP_PINNED_HOST,
    .target_kind = "sim",
    .target_kind_json = NULL, /* targets/kinds/sim.json ships with devharness */
    .init = dh_sim_b_init,
    .shutdown = dh_sim_b_shutdown,
    .unavailable_reason = dh_sim_b_unavailable_reason,
    .get_attr = dh_sim_b_get_attr,
    .get_target_property = dh_sim_b_get_target_property,
    .set_device = dh_sim_b_set_device,
    .alloc_data_space = dh_sim_b_alloc_data_space,
    .free_data_space = dh_sim_b_free_data_space,
    .alloc_workspace = NULL, /* the core falls back to data space */
    .free_workspace = NULL,
    .alloc_host = dh_sim_b_alloc_host,
    .free_host = dh_sim_b_free_host,
    .copy_data_from_to = dh_sim_b_copy_data_from_to,
    .create_stream = dh_sim_b_create_stream,
    .free_stream = dh_sim_b_free_stream,
    .set_stream = dh_sim_b_set_stream,
    .get_current_stream = dh_sim_b_get_current_stream,
    .stream_sync = dh_sim_b_stream_sync,
    .sync_stream_from_to = dh_sim_b_sync_stream_from_to,
    .functions = dh_sim_functions,
    .num_functions = sizeof dh_sim_functions / sizeof dh_sim_functions[0],
    .event_create = dh_sim_b_event_create,
    .event_record = dh_sim_b_event_record,
    .event_elapsed_ms = dh_sim_b_event_elapsed_ms,
    .event_free = dh_sim_b_event_free,
    .raw = &dh_sim_raw_twin,
};
