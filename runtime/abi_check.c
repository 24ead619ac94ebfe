/*
 * runtime/abi_check.c — the plugin ABI check of one dh_backend_t on its own
 * (runtime/internal.h dh__backend_accept; the rules: devharness/backend.h
 * "Versioning" and device_api.h "Plugins"). plugin.c calls it for every plugin it
 * loads; tests/fuzz/fuzz_plugin_abi.c links this file to fuzz it.
 */
#include <stddef.h>
#include <string.h>

#include "internal.h"

static int valid_name(const char* s) {
  if (s == NULL || !(s[0] >= 'a' && s[0] <= 'z')) return 0;
  for (const char* p = s + 1; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-')) return 0;
  return strlen(s) < 48;
}

/* The rules every struct must meet on its own (backend.h): required entries, the
 * workspace pair, the name, the device type range and the function table. -1 with an
 * ABIError naming `origin`. */
static int validate_struct(const char* origin, const dh_backend_t* b) {
#define REQUIRED(field) \
  if (b->field == NULL) return dh_error_set(DH_KIND_ABI_ERROR, "%s: required entry '%s' is NULL", origin, #field)
  REQUIRED(init);
  REQUIRED(unavailable_reason);
  REQUIRED(get_attr);
  REQUIRED(set_device);
  REQUIRED(alloc_data_space);
  REQUIRED(free_data_space);
  REQUIRED(copy_data_from_to);
  REQUIRED(create_stream);
  REQUIRED(free_stream);
  REQUIRED(set_stream);
  REQUIRED(get_current_stream);
  REQUIRED(stream_sync);
  REQUIRED(sync_stream_from_to);
#undef REQUIRED
  if ((b->alloc_workspace == NULL) != (b->free_workspace == NULL))
    return dh_error_set(DH_KIND_ABI_ERROR, "%s: alloc_workspace and free_workspace must both be set or both NULL",
                        origin);
  if (!valid_name(b->name))
    return dh_error_set(DH_KIND_ABI_ERROR, "%s: backend name '%s' does not match [a-z][a-z0-9_-]* (at most 47 bytes)",
                        origin, b->name ? b->name : "(NULL)");
  /* 0 (DH_DEVICE_TYPE_ASSIGN) asks the loader for a type, from ABI 1.2 on */
  int assign_ok = b->abi_minor >= 2 && b->device_type == DH_DEVICE_TYPE_ASSIGN;
  if (!assign_ok && (b->device_type <= 0 || b->device_type > DH_DEVICE_TYPE_OUT_OF_TREE_LAST))
    return dh_error_set(DH_KIND_ABI_ERROR,
                        "%s: device_type %d is outside 1..%d (%d..%d for out-of-tree backends; %d asks the loader "
                        "to assign one from that range, ABI 1.2: docs/adding-a-backend.md)",
                        origin, (int)b->device_type, DH_DEVICE_TYPE_OUT_OF_TREE_LAST, DH_DEVICE_TYPE_OUT_OF_TREE_FIRST,
                        DH_DEVICE_TYPE_OUT_OF_TREE_LAST, DH_DEVICE_TYPE_ASSIGN);
  if (b->num_functions > 0 && b->functions == NULL)
    return dh_error_set(DH_KIND_ABI_ERROR, "%s: num_functions is %zu but functions is NULL", origin, b->num_functions);
  for (size_t i = 0; i < b->num_functions; i++)
    if (b->functions[i].name == NULL || b->functions[i].name[0] == '\0' || b->functions[i].call == NULL)
      return dh_error_set(DH_KIND_ABI_ERROR, "%s: functions[%zu] has a NULL or empty name or a NULL call", origin, i);
  return 0;
}

int dh__backend_accept(const char* origin, const dh_backend_t* plugin_struct, size_t available_bytes,
                       dh_backend_t* out_copy) {
  if (origin == NULL) origin = "(plugin)";
  if (out_copy == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "%s: no place to copy the backend struct to", origin);
  memset(out_copy, 0, sizeof *out_copy);
  /* 5. entry result */
  if (plugin_struct == NULL)
    return dh_error_set(DH_KIND_ABI_ERROR, "%s: %s returned NULL", origin, DH_BACKEND_ENTRY_SYMBOL);
  const size_t header = offsetof(dh_backend_t, reserved);
  if (available_bytes < header)
    return dh_error_set(DH_KIND_ABI_ERROR, "%s: only %zu bytes of the backend struct are readable, its header needs %zu",
                        origin, available_bytes, header);
  /* 6. ABI major, 7. struct_size */
  if (plugin_struct->abi_major != DH_BACKEND_ABI_MAJOR)
    return dh_error_set(DH_KIND_ABI_ERROR, "%s: ABI major %d, this devharness speaks %d", origin,
                        (int)plugin_struct->abi_major, DH_BACKEND_ABI_MAJOR);
  size_t sz = plugin_struct->struct_size;
  if (sz < DH_BACKEND_SIZE_V1_0)
    return dh_error_set(DH_KIND_ABI_ERROR, "%s: struct_size %zu is smaller than the ABI %d.0 minimum %zu", origin, sz,
                        DH_BACKEND_ABI_MAJOR, (size_t)DH_BACKEND_SIZE_V1_0);
  /* A newer minor's larger struct is read up to the fields this devharness knows; an
   * older minor's fields past its struct_size stay NULL/0. */
  size_t copy = sz < sizeof(dh_backend_t) ? sz : sizeof(dh_backend_t);
  if (copy > available_bytes) {
    if (available_bytes < DH_BACKEND_SIZE_V1_0)
      return dh_error_set(DH_KIND_ABI_ERROR, "%s: struct_size is %zu but only %zu bytes are readable (ABI %d.0 needs %zu)",
                          origin, sz, available_bytes, DH_BACKEND_ABI_MAJOR, (size_t)DH_BACKEND_SIZE_V1_0);
    copy = available_bytes;
  }
  memcpy(out_copy, plugin_struct, copy);
  /* 8-9. required entries, name, device type, functions */
  if (validate_struct(origin, out_copy) != 0) {
    memset(out_copy, 0, sizeof *out_copy);
    return -1;
  }
  return 0;
}

