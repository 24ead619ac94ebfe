/*
 * runtime/device_api.c — DeviceAPI dispatch by device type, copies and module-function
 * calls (devharness/device_api.h); device specs are runtime/device_spec.c.
 *
 * Every dispatch: one acquire load from the device-type table, one acquire load of the
 * slot's init state, then the backend's entry. Errors are prefixed
 * "<name>:<id>: <operation>: ".
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tvm/ffi/extra/c_env_api.h>

#include "internal.h"
#include "base/text.h"

const char* dh_device_format(DLDevice dev, char* buf, size_t size) {
  if (buf == NULL || size == 0) return buf;
  dh__slot* s = dh__slot_by_type(dev.device_type);
  snprintf(buf, size, "%s:%d", s ? s->backend.name : dh_device_type_name(dev.device_type),
           (int)dev.device_id);
  return buf;
}

/* Resolves and inits the backend for dev; on error prefixes "<dev>: <op>: ". */
static inline dh__slot* resolve(DLDevice dev, const char* op) {
  dh__slot* s = dh__slot_by_type(dev.device_type);
  if (s == NULL) {
    dh_error_set(DH_KIND_KEY_ERROR, "Device API %s is not enabled", dh_device_type_name(dev.device_type));
  } else if (dh__slot_init(s) == 0) {
    return s;
  }
  char name[64];
  dh_error_prefix("%s: %s", dh_device_format(dev, name, sizeof name), op);
  return NULL;
}

/* Prefixes the current error with "<name>:<id>: <op>". Returns -1. */
static int fail(const dh__slot* s, DLDevice dev, const char* op) {
  return dh_error_prefix("%s:%d: %s", s->backend.name, (int)dev.device_id, op);
}

#define DISPATCH(op, call)                      \
  dh__slot* s = resolve(dev, op);               \
  if (s == NULL) return -1;                     \
  if (s->backend.call != 0) return fail(s, dev, op); \
  return 0

/* DISPATCH for an optional entry: NotImplementedError when the backend leaves it NULL. */
#define DISPATCH_OPTIONAL(op, entry, args)                                                      \
  dh__slot* s = resolve(dev, op);                                                               \
  if (s == NULL) return -1;                                                                     \
  if (s->backend.entry == NULL)                                                                 \
    return dh_error_set(DH_KIND_NOT_IMPLEMENTED_ERROR, "%s:%d: %s: backend %s has no %s entry", \
                        s->backend.name, (int)dev.device_id, op, s->backend.name, #entry);     \
  if (s->backend.entry args != 0) return fail(s, dev, op);                                      \
  return 0

int dh_device_get_attr(DLDevice dev, dh_attr_kind_t kind, dh_any_t* out_value) {
  if (out_value != NULL) *out_value = dh_any_none();
  dh__slot* s = dh__slot_by_type(dev.device_type);
  /* kExist never fails: an unknown type or a failed init simply has no device */
  if (kind == DH_ATTR_EXIST && (s == NULL || dh__slot_init(s) != 0)) {
    dh_error_clear();
    if (out_value != NULL) *out_value = dh_any_int(0);
    return 0;
  }
  if (out_value == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "get_attr: out_value is NULL");
  s = resolve(dev, "get_attr");
  if (s == NULL) return -1;
  if (s->backend.get_attr(dev, (int32_t)kind, out_value) != 0) return fail(s, dev, "get_attr");
  return 0;
}

int dh_device_set_device(DLDevice dev) { DISPATCH("set_device", set_device(dev)); }

int dh_device_alloc_data_space(DLDevice dev, size_t nbytes, size_t alignment, DLDataType type_hint,
                               void** out_ptr) {
  if (out_ptr == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "alloc_data_space: out_ptr is NULL");
  *out_ptr = NULL;
  if (alignment == 0) alignment = DH_ALLOC_ALIGNMENT;
  if ((alignment & (alignment - 1)) != 0)
    return dh_error_set(DH_KIND_VALUE_ERROR, "alloc_data_space: alignment %zu is not a power of two", alignment);
  DISPATCH("alloc_data_space", alloc_data_space(dev, nbytes, alignment, type_hint, out_ptr));
}

int dh_device_free_data_space(DLDevice dev, void* ptr) {
  DISPATCH("free_data_space", free_data_space(dev, ptr));
}

int dh_device_alloc_workspace(DLDevice dev, size_t nbytes, DLDataType type_hint, void** out_ptr) {
  if (out_ptr == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "alloc_workspace: out_ptr is NULL");
  *out_ptr = NULL;
  dh__slot* s = resolve(dev, "alloc_workspace");
  if (s == NULL) return -1;
  int rc = s->backend.alloc_workspace != NULL
               ? s->backend.alloc_workspace(dev, nbytes, type_hint, out_ptr)
               : s->backend.alloc_data_space(dev, nbytes, DH_TEMP_ALLOC_ALIGNMENT, type_hint, out_ptr);
  return rc != 0 ? fail(s, dev, "alloc_workspace") : 0;
}

int dh_device_free_workspace(DLDevice dev, void* ptr) {
  dh__slot* s = resolve(dev, "free_workspace");
  if (s == NULL) return -1;
  int rc = s->backend.free_workspace != NULL ? s->backend.free_workspace(dev, ptr)
                                             : s->backend.free_data_space(dev, ptr);
  return rc != 0 ? fail(s, dev, "free_workspace") : 0;
}

int dh_device_alloc_host(DLDevice dev, size_t nbytes, void** out_ptr) {
  if (out_ptr == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "alloc_host: out_ptr is NULL");
  *out_ptr = NULL;
  DISPATCH_OPTIONAL("alloc_host", alloc_host, (dev, nbytes, out_ptr));
}

int dh_device_free_host(DLDevice dev, void* ptr) { DISPATCH_OPTIONAL("free_host", free_host, (dev, ptr)); }

int dh_device_get_target_property(DLDevice dev, const char* name, dh_any_t* out_value) {
  if (out_value == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "get_target_property: out_value is NULL");
  *out_value = dh_any_none();
  if (name == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "get_target_property: name is NULL");
  dh__slot* s = resolve(dev, "get_target_property");
  if (s == NULL) return -1;
  if (s->backend.get_target_property == NULL) return 0; /* no properties: every one None */
  if (s->backend.get_target_property(dev, name, out_value) != 0) return fail(s, dev, "get_target_property");
  return 0;
}

int dh_device_create_stream(DLDevice dev, dh_stream_t* out_stream) {
  if (out_stream == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "create_stream: out_stream is NULL");
  *out_stream = NULL;
  DISPATCH("create_stream", create_stream(dev, out_stream));
}

int dh_device_free_stream(DLDevice dev, dh_stream_t stream) {
  DISPATCH("free_stream", free_stream(dev, stream));
}

/* The device type tvm-ffi's environment keys dev's streams by: the serving backend's
 * ffi_device_type when it declares one (backend.h, ABI 1.3), else dev's own. */
static inline int32_t env_device_type(DLDevice dev) {
  dh__slot* slot = dh__slot_by_type((int32_t)dev.device_type);
  return slot != NULL && slot->backend.ffi_device_type > 0 ? slot->backend.ffi_device_type
                                                            : (int32_t)dev.device_type;
}

dh_stream_t dh_env_get_stream(DLDevice dev) {
  return TVMFFIEnvGetStream(env_device_type(dev), dev.device_id);
}

int dh_env_set_stream(DLDevice dev, dh_stream_t stream) {
  if ((int32_t)dev.device_type < 0 || dev.device_id < 0)
    return dh_error_set(DH_KIND_VALUE_ERROR, "dh_env_set_stream: device (%d, %d) is invalid",
                        (int)dev.device_type, (int)dev.device_id);
  return TVMFFIEnvSetStream(env_device_type(dev), dev.device_id, stream, NULL) == 0 ? 0 : -1;
}

int dh_device_set_stream(DLDevice dev, dh_stream_t stream) { DISPATCH("set_stream", set_stream(dev, stream)); }

int dh_device_get_current_stream(DLDevice dev, dh_stream_t* out_stream) {
  if (out_stream == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "get_current_stream: out_stream is NULL");
  *out_stream = NULL;
  DISPATCH("get_current_stream", get_current_stream(dev, out_stream));
}

int dh_device_stream_sync(DLDevice dev, dh_stream_t stream) { DISPATCH("stream_sync", stream_sync(dev, stream)); }

int dh_device_sync_stream_from_to(DLDevice dev, dh_stream_t src, dh_stream_t dst) {
  DISPATCH("sync_stream_from_to", sync_stream_from_to(dev, src, dst));
}

int dh_device_event_create(DLDevice dev, dh_event_t* out_event) {
  if (out_event == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "event_create: out_event is NULL");
  *out_event = NULL;
  DISPATCH_OPTIONAL("event_create", event_create, (dev, out_event));
}

int dh_device_event_record(DLDevice dev, dh_event_t event, dh_stream_t stream) {
  DISPATCH_OPTIONAL("event_record", event_record, (dev, event, stream));
}

int dh_device_event_elapsed_ms(DLDevice dev, dh_event_t start, dh_event_t end, double* out_ms) {
  if (out_ms == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "event_elapsed_ms: out_ms is NULL");
  DISPATCH_OPTIONAL("event_elapsed_ms", event_elapsed_ms, (dev, start, end, out_ms));
}

int dh_device_event_free(DLDevice dev, dh_event_t event) { DISPATCH_OPTIONAL("event_free", event_free, (dev, event)); }

int dh_device_raw_setup(DLDevice dev, dh_raw_op_t op, size_t nbytes, uint32_t flags, dh_raw_context_t* out_raw) {
  if (out_raw == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "raw_setup: out_raw is NULL");
  out_raw->twin = NULL;
  out_raw->ctx = NULL;
  dh__slot* s = resolve(dev, "raw_setup");
  if (s == NULL) return -1;
  const dh_raw_twin_t* twin = s->backend.raw;
  if (twin == NULL || twin->setup == NULL || twin->run == NULL)
    return dh_error_set(DH_KIND_NOT_IMPLEMENTED_ERROR, "%s:%d: raw_setup: backend %s has no raw twin",
                        s->backend.name, (int)dev.device_id, s->backend.name);
  void* ctx = NULL;
  if (twin->setup(dev, op, nbytes, flags, &ctx) != 0) return fail(s, dev, "raw_setup");
  out_raw->twin = twin;
  out_raw->ctx = ctx;
  return 0;
}

void dh_device_raw_teardown(dh_raw_context_t* raw) {
  if (raw == NULL || raw->twin == NULL) return;
  if (raw->twin->teardown != NULL) raw->twin->teardown(raw->ctx);
  raw->twin = NULL;
  raw->ctx = NULL;
}

/* A tensor of copy_tensor_from_to (never NULL: tensor_slot sends NULL tensors to the
 * core's checks): shape given when ndim > 0, data given when it has elements. Everything
 * else about it is the backend's to judge. */
static int tensor_given(const DLTensor* t, const char* side) {
  if (t->ndim < 0 || (t->ndim > 0 && t->shape == NULL))
    return dh_error_set(DH_KIND_VALUE_ERROR, "copy_data_from_to: %s has ndim %d and %s shape", side, (int)t->ndim,
                        t->shape == NULL ? "no" : "a");
  int empty = 0;
  for (int32_t i = 0; i < t->ndim; i++) empty |= t->shape[i] == 0;
  if (!empty && t->data == NULL) return dh_error_set(DH_KIND_TYPE_ERROR, "copy_data_from_to: %s->data is NULL", side);
  return 0;
}

/* The slot of the non-CPU side when its backend takes tensors (ABI 1.4
 * copy_tensor_from_to), else NULL: the core checks and the flat entry. */
static dh__slot* tensor_slot(const DLTensor* from, const DLTensor* to) {
  if (from == NULL || to == NULL) return NULL;
  int from_cpu = from->device.device_type == kDLCPU, to_cpu = to->device.device_type == kDLCPU;
  if (from_cpu && to_cpu) return NULL;
  if (!from_cpu && !to_cpu && from->device.device_type != to->device.device_type) return NULL;
  dh__slot* s = dh__slot_by_type(from_cpu ? to->device.device_type : from->device.device_type);
  return s != NULL && s->backend.copy_tensor_from_to != NULL ? s : NULL;
}

static int copy_tensors(const DLTensor* from, const DLTensor* to, dh_stream_t stream) {
  DLDevice dev = from->device.device_type == kDLCPU ? to->device : from->device;
  if (tensor_given(from, "from") != 0 || tensor_given(to, "to") != 0) return -1;
  dh__slot* s = resolve(dev, "copy_data_from_to");
  if (s == NULL) return -1;
  if (s->backend.copy_tensor_from_to(from, to, stream) != 0) return fail(s, dev, "copy_data_from_to");
  return 0;
}

int dh_device_copy_data_from_to(const DLTensor* from, const DLTensor* to, dh_stream_t stream) {
  if (tensor_slot(from, to) != NULL) return copy_tensors(from, to, stream);
  size_t nbytes, to_nbytes;
  /* compact, valid sides of equal size in one walk each; anything else (or an error
   * message to write) goes through the full check */
  if (!dh__tensor_side_nbytes_fast(from, &nbytes) || !dh__tensor_side_nbytes_fast(to, &to_nbytes) ||
      nbytes != to_nbytes) {
    if (dh__tensor_check_copy(from, to, &nbytes) != 0) return dh_error_prefix("copy_data_from_to");
  }
  if (nbytes == 0) return 0; /* zero-length copy: a no-op, data may be NULL */
  if (from->data == NULL) return dh_error_set(DH_KIND_TYPE_ERROR, "copy_data_from_to: from->data is NULL");
  if (to->data == NULL) return dh_error_set(DH_KIND_TYPE_ERROR, "copy_data_from_to: to->data is NULL");
  int from_cpu = from->device.device_type == kDLCPU, to_cpu = to->device.device_type == kDLCPU;
  DLDevice dev = from_cpu ? to->device : from->device; /* the non-CPU side */
  if (!from_cpu && !to_cpu && from->device.device_type != to->device.device_type) {
    char a[64], b[64];
    return dh_error_set(DH_KIND_VALUE_ERROR,
                        "copy_data_from_to: cannot copy between %s and %s: one side must be cpu or both on "
                        "the same backend",
                        dh_device_format(from->device, a, sizeof a), dh_device_format(to->device, b, sizeof b));
  }
  if (from_cpu && to_cpu && dh__slot_by_type(kDLCPU) == NULL) {
    memmove((char*)to->data + to->byte_offset, (const char*)from->data + from->byte_offset, nbytes);
    return 0;
  }
  dh__slot* s = resolve(dev, "copy_data_from_to");
  if (s == NULL) return -1;
  if (s->backend.copy_data_from_to(from->data, (size_t)from->byte_offset, to->data, (size_t)to->byte_offset,
                                   nbytes, from->device, to->device, from->dtype, stream) != 0)
    return fail(s, dev, "copy_data_from_to");
  return 0;
}

/* strcmp(a, b) == 0, inline. The function lookup compares 8-byte keys first
 * (internal.h dh__name_key) and whole names only on a key match, so a lookup costs no
 * libc call per table entry (bench call/backend/3args measures it). */
static inline int same_name(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) a++, b++;
  return *a == *b;
}

int dh_device_call(DLDevice dev, const char* name, const dh_any_t* args, int32_t num_args, dh_any_t* out_result) {
  if (out_result != NULL) { /* None, field by field: a 16-byte store of a temporary
                               stalls the next call's store forwarding */
    out_result->type_index = DH_TYPE_NONE;
    out_result->zero_padding = 0;
    out_result->v_uint64 = 0;
  }
  if (name == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_device_call: function name is NULL");
  dh__slot* s = resolve(dev, name);
  if (s == NULL) return -1;
  /* The slot's Function references are the cache of "<backend>.<name>": immutable
   * after load; a linear scan of a handful of names. */
  const dh_backend_t* b = &s->backend;
  uint64_t k = dh__name_key(name);
  int short_name = (k >> 56) == 0; /* a NUL within the first 8 bytes */
  for (size_t i = 0; i < b->num_functions; i++)
    if (s->function_keys[i] == k && (short_name || same_name(b->functions[i].name + 8, name + 8)))
      return dh__func_call_fast(s->functions[i].handle, args, num_args, out_result);
  /* functions registered later under "<backend>.<name>" */
  char key[256];
  snprintf(key, sizeof key, "%s.%s", b->name, name);
  dh_function_t fn;
  if (dh_func_get(key, &fn) != 0)
    return dh_error_set(DH_KIND_KEY_ERROR, "%s:%d: backend %s has no function '%s'", b->name, (int)dev.device_id,
                        b->name, name);
  int rc = dh_func_call(&fn, args, num_args, out_result);
  dh_func_release(&fn);
  return rc;
}

int dh_device_api_get_by_type(int32_t device_type, const dh_backend_t** out_backend) {
  dh__slot* s = dh__slot_by_type(device_type);
  if (out_backend) *out_backend = s ? &s->backend : NULL;
  if (s == NULL) return dh_error_set(DH_KIND_KEY_ERROR, "Device API %s is not enabled", dh_device_type_name(device_type));
  return 0;
}
