/*
 * tests/target/fake_backend.c — a minimal backend plugin for the targets tests
 * (libdevharness_tfake.so): one device (id 0) of device_type 40, target kind "tfake"
 * handed in through target_kind_json, fixed get_target_property answers. Memory,
 * copies and streams are trivial host implementations (never exercised here).
 */
#include <stdlib.h>
#include <string.h>

#include "devharness/backend.h"

#define TFAKE_DEVICE_TYPE 40

static int tf_init(void) { return 0; }
static const char* tf_unavailable(void) { return NULL; }

static int check_dev(DLDevice dev) {
  if (dev.device_id != 0) return dh_error_set("IndexError", "tfake: no device %d", dev.device_id);
  return 0;
}

static int tf_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  *out = dh_any_none();
  if (kind == DH_ATTR_EXIST) {
    *out = dh_any_int(dev.device_id == 0);
    return 0;
  }
  if (kind < 0 || kind >= DH_ATTR_KIND_COUNT) return dh_error_set("ValueError", "tfake: bad attr %d", kind);
  if (check_dev(dev) != 0) return -1;
  if (kind == DH_ATTR_DEVICE_NAME) *out = dh_any_str("Fake GPU");
  return 0;
}

/* The live values; "clock" is not reported (None). */
static int tf_get_target_property(DLDevice dev, const char* name, dh_any_t* out) {
  *out = dh_any_none();
  if (check_dev(dev) != 0) return -1;
  if (strcmp(name, "max_num_threads") == 0) *out = dh_any_int(1024);
  else if (strcmp(name, "device_name") == 0) *out = dh_any_str("Fake GPU");
  else if (strcmp(name, "flags") == 0) *out = dh_any_str("[\"a\", \"b\"]");
  else if (strcmp(name, "has_fp64") == 0) *out = dh_any_bool(1);
  else if (strcmp(name, "ratio") == 0) *out = dh_any_float(0.25);
  return 0;
}

static int tf_set_device(DLDevice dev) { return check_dev(dev); }

static int tf_alloc(DLDevice dev, size_t nbytes, size_t alignment, DLDataType t, void** out) {
  (void)t;
  if (check_dev(dev) != 0) return -1;
  if (alignment < DH_ALLOC_ALIGNMENT) alignment = DH_ALLOC_ALIGNMENT;
  size_t n = (nbytes + alignment - 1) / alignment * alignment;
  *out = aligned_alloc(alignment, n ? n : alignment);
  return *out ? 0 : dh_error_set("OutOfMemoryError", "tfake: cannot allocate %zu bytes", nbytes);
}

static int tf_free(DLDevice dev, void* p) {
  (void)dev;
  free(p);
  return 0;
}

static int tf_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                   DLDevice df, DLDevice dt, DLDataType t, dh_stream_t s) {
  (void)df; (void)dt; (void)t; (void)s;
  if (nbytes) memmove((char*)to + to_offset, (const char*)from + from_offset, nbytes);
  return 0;
}

static int tf_create_stream(DLDevice dev, dh_stream_t* out) {
  *out = NULL;
  return check_dev(dev);
}
static int tf_stream_op(DLDevice dev, dh_stream_t s) {
  (void)s;
  return check_dev(dev);
}
static int tf_get_stream(DLDevice dev, dh_stream_t* out) {
  *out = NULL;
  return check_dev(dev);
}
static int tf_sync_from_to(DLDevice dev, dh_stream_t a, dh_stream_t b) {
  (void)a; (void)b;
  return check_dev(dev);
}

static const char k_kind_json[] =
    "{\"kind\": \"tfake\", \"device_type\": 40, \"default_keys\": [\"tfake\", \"gpu\"],"
    " \"options\": {\"max_num_threads\": {\"type\": \"int\", \"default\": 256},"
    " \"device_name\": {\"type\": \"str\"}, \"flags\": {\"type\": \"array<str>\"},"
    " \"has_fp64\": {\"type\": \"bool\"}, \"ratio\": {\"type\": \"float\"},"
    " \"clock\": {\"type\": \"int\"}}}";

static const dh_backend_t k_backend = {
    .struct_size = sizeof(dh_backend_t),
    .abi_major = DH_BACKEND_ABI_MAJOR,
    .abi_minor = DH_BACKEND_ABI_MINOR,
    .name = "tfake",
    .description = "targets test backend",
    .device_type = TFAKE_DEVICE_TYPE,
    .caps = DH_CAP_SINGLE_QUEUE | DH_CAP_HOST_POINTER_ARITHMETIC,
    .target_kind = "tfake",
    .target_kind_json = k_kind_json,
    .init = tf_init,
    .unavailable_reason = tf_unavailable,
    .get_attr = tf_get_attr,
    .get_target_property = tf_get_target_property,
    .set_device = tf_set_device,
    .alloc_data_space = tf_alloc,
    .free_data_space = tf_free,
    .copy_data_from_to = tf_copy,
    .create_stream = tf_create_stream,
    .free_stream = tf_stream_op,
    .set_stream = tf_stream_op,
    .get_current_stream = tf_get_stream,
    .stream_sync = tf_stream_op,
    .sync_stream_from_to = tf_sync_from_to,
};

const dh_backend_t* dh_backend_entry(void) { return &k_backend; }
