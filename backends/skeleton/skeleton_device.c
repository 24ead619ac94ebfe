/*
 * backends/skeleton/skeleton_device.c — the skeleton's devices: init/shutdown,
 * availability, device checks, attributes (TVM DeviceAPI::GetAttr,
 * apache/tvm v0.27.0 include/tvm/runtime/device_api.h; docs/contract.md) and
 * set_device. The lowest file: it calls no other file of the backend.
 *
 * As shipped, init finds no device: kExist is 0 for every id and unavailable_reason
 * says "not implemented", so the conformance suite SKIPs every clause with that reason.
 */
#include <stddef.h>

#include "skeleton_internal.h"

/* TODO(skeleton): the number of devices init found (0 until init is written). */
static int g_num_devices;
/* The device type the loader serves this backend under (init sets it). */
static int32_t g_device_type = -1;

int32_t dh_skeleton_device_type(void) { return g_device_type; }

int dh_skeleton_not_implemented(const char* entry) {
  return dh_error_set(DH_KIND_NOT_IMPLEMENTED_ERROR, "skeleton: %s: " DH_SKELETON_NOT_IMPLEMENTED,
                      entry);
}

int dh_skeleton_init(void) {
  /* TODO(skeleton): load your library (dlopen, so the plugin loads without it), count
   * the devices; on failure still return 0 and keep the reason for
   * unavailable_reason. No work in library constructors: init runs lazily, possibly
   * in a process forked after the plugin was loaded. */
  g_device_type = dh_backend_served_device_type(DH_SKELETON_NAME);
  if (g_device_type < 0)
    return dh_error_set(DH_KIND_RUNTIME_ERROR, "skeleton: init: backend '%s' is not loaded", DH_SKELETON_NAME);
  g_num_devices = 0;
  return 0;
}

void dh_skeleton_shutdown(void) {
  /* TODO(skeleton): release what init and the entries created. */
  g_num_devices = 0;
}

const char* dh_skeleton_unavailable_reason(void) {
  /* TODO(skeleton): NULL once a device is there; else one line saying why. */
  return g_num_devices > 0 ? NULL
                           : DH_SKELETON_NOT_IMPLEMENTED
                             ": the skeleton backend (backends/skeleton/) has no device "
                             "until its init is written";
}

int dh_skeleton_check_device(DLDevice dev, const char* op) {
  if ((int32_t)dev.device_type != g_device_type)
    return dh_error_set(DH_KIND_VALUE_ERROR, "skeleton: %s: device type %d is not %d", op,
                        (int)dev.device_type, (int)g_device_type);
  return DH_BACKEND_CHECK_DEVICE(dev, g_num_devices,
                                 "skeleton: %s: device id %d is out of range (%d devices)", op,
                                 (int)dev.device_id, g_num_devices);
}

int dh_skeleton_get_attr(DLDevice dev, int32_t kind, dh_any_t* out_value) {
  if (out_value == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "skeleton: get_attr: out_value is NULL");
  *out_value = dh_any_none();
  if (kind == DH_ATTR_EXIST) { /* never an error (TVM kExist) */
    *out_value = dh_any_int((int32_t)dev.device_type == g_device_type && dev.device_id >= 0 &&
                            dev.device_id < g_num_devices);
    return 0;
  }
  if (dh_skeleton_check_device(dev, "get_attr") != 0) return -1;
  /* TODO(skeleton): every DH_ATTR_* your API reports; None for the others. */
  return dh_skeleton_not_implemented("get_attr");
}

int dh_skeleton_get_target_property(DLDevice dev, const char* name, dh_any_t* out_value) {
  if (out_value == NULL)
    return dh_error_set(DH_KIND_VALUE_ERROR, "skeleton: get_target_property: out_value is NULL");
  *out_value = dh_any_none();
  if (name == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "skeleton: get_target_property: name is NULL");
  if (dh_skeleton_check_device(dev, "get_target_property") != 0) return -1;
  /* TODO(skeleton): the live values of your target kind's options; None otherwise. */
  return dh_skeleton_not_implemented("get_target_property");
}

int dh_skeleton_set_device(DLDevice dev) {
  if (dh_skeleton_check_device(dev, "set_device") != 0) return -1;
  /* TODO(skeleton): make dev current on the calling thread, if your API has that. */
  return dh_skeleton_not_implemented("set_device");
}
