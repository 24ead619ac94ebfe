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

/* An option name (backend.h dh_backend_option_t): [a-z][a-z0-9-]*, at most 31 bytes. */
static int valid_option_name(const char* s) {
  if (s == NULL || !(s[0] >= 'a' && s[0] <= 'z')) return 0;
  for (const char* p = s + 1; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-')) return 0;
  return strlen(s) <= 31;
}

/* ABI 1.6: the option table (backend.h dh_backend_t.options). -1 with an ABIError
 * naming `origin`. */
static int validate_options(const char* origin, const dh_backend_t* b) {
  size_t n = b->num_options;
  if (n == 0) return 0;
  if (n > DH_BACKEND_MAX_OPTIONS)
    return dh_error_set(DH_KIND_ABI_ERROR, "%s: num_options is %zu but at most %d are allowed", origin, n,
                        DH_BACKEND_MAX_OPTIONS);
  if (b->options == NULL || b->set_option == NULL)
    return dh_error_set(DH_KIND_ABI_ERROR, "%s: num_options is %zu but %s is NULL", origin, n,
                        b->options == NULL ? "options" : "set_option");
  for (size_t i = 0; i < n; i++) {
    const dh_backend_option_t* o = &b->options[i];
    if (!valid_option_name(o->name))
      return dh_error_set(DH_KIND_ABI_ERROR, "%s: options[%zu]: name '%s' does not match [a-z][a-z0-9-]* (at most "
                          "31 bytes)", origin, i, o->name ? o->name : "(NULL)");
    const char* bad = o->value_name == NULL || !o->value_name[0] || strchr(o->value_name, '\n') ? "value_name"
                      : o->help == NULL || !o->help[0] || strchr(o->help, '\n')               ? "help"
                                                                                                : NULL;
    if (bad != NULL)
      return dh_error_set(DH_KIND_ABI_ERROR, "%s: option --%s: %s is NULL, empty or holds a newline", origin,
                          o->name, bad);
    if (o->flags & ~(uint32_t)DH_BACKEND_OPTION_FLAGS_ALL)
      return dh_error_set(DH_KIND_ABI_ERROR, "%s: option --%s: flags 0x%x has bits no DH_BACKEND_OPTION_* defines",
                          origin, o->name, (unsigned)o->flags);
    for (size_t j = 0; j < i; j++)
      if (strcmp(b->options[j].name, o->name) == 0)
        return dh_error_set(DH_KIND_ABI_ERROR, "%s: option --%s is declared twice (options[%zu] and [%zu])", origin,
                            o->name, j, i);
  }
  return 0;
}

/* The rules every struct must meet on its own (backend.h): required entries, the
 * workspace pair, the name, the device type range, the function table and (ABI 1.6)
 * the option table. -1 with an
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
  return validate_options(origin, b);
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

