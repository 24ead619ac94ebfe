/*
 * devharness/backend_entries.h — declaring and binding a backend's entries: the
 * macros that write a backend's entry prototypes and its dh_backend_t initialiser
 * (DH_BACKEND_HEADER_FIELDS, DH_BACKEND_DECLARE_*_ENTRIES, DH_BACKEND_BIND_*_ENTRIES).
 * Part of the plugin ABI: devharness/backend.h includes it after dh_backend_t, so a
 * backend includes backend.h only. Macros only: nothing is declared, allocated or
 * owned; usable from C and C++. Split out of backend.h to keep it under 700 lines
 * (ABI 1.6); the text is the one backend.h had.
 */
#ifndef DEVHARNESS_BACKEND_ENTRIES_H_
#define DEVHARNESS_BACKEND_ENTRIES_H_

#include "devharness/backend.h"

/*===========================================================================
 * Declaring and binding a backend's entries
 *===========================================================================
 * A backend names the function bound into a field dh_<backend>_<field>
 * (docs/adding-a-backend.md "Names"; tests/backends/names.t checks it), so its
 * entries' prototypes and its vtable's bindings are the same in every backend but for
 * the prefix. Each group below writes them once: the prototypes of a group, for the
 * backend's internal header, and the designated initialisers of the same group, for
 * the dh_backend_t in its <backend>_backend.c. `prefix` is the backend's symbol
 * prefix without the trailing underscore (dh_foo), pasted before `_<field>`:
 *
 *     foo_internal.h:  DH_BACKEND_DECLARE_DEVICE_ENTRIES(dh_foo);
 *                      DH_BACKEND_DECLARE_MEMORY_ENTRIES(dh_foo);
 *                      DH_BACKEND_DECLARE_STREAM_ENTRIES(dh_foo);
 *     foo_backend.c:   static const dh_backend_t k_backend = {
 *                          DH_BACKEND_HEADER_FIELDS, .name = "foo", ...,
 *                          DH_BACKEND_BIND_LIFECYCLE_ENTRIES(dh_foo),
 *                          DH_BACKEND_BIND_DEVICE_ENTRIES(dh_foo),
 *                          DH_BACKEND_BIND_MEMORY_ENTRIES(dh_foo),
 *                          DH_BACKEND_BIND_STREAM_ENTRIES(dh_foo), ...
 *                      };
 *
 * A DECLARE macro expands to the group's prototypes separated by `;`, the last one
 * without it (the caller writes it); they declare external functions, so use it for
 * the groups whose functions the backend defines non-static in its files. A static
 * entry (one that only <backend>_backend.c uses, such as the sim's init) cannot
 * follow an extern declaration: leave its group's DECLARE out and declare the others
 * of that group one by one. A BIND macro expands to `.field = prefix_field, ...`
 * for each field of the group, without a trailing comma; it works for static and
 * extern functions alike. Bind only groups the backend has every function of, and
 * leave a field the backend lacks unset (NULL) or set it explicitly; a field bound
 * twice is an error (-Woverride-init, -Winitializer-overrides under -Wextra).
 * The groups follow the sections of dh_backend_t (backend.h); the optional fields are
 * groups of their own so that a backend without them declares nothing it lacks:
 *
 *   LIFECYCLE  init, shutdown                              (required; shutdown may be NULL)
 *   DEVICE     unavailable_reason, get_attr, get_target_property, set_device (required)
 *   MEMORY     alloc_data_space, free_data_space, copy_data_from_to (required)
 *   WORKSPACE  alloc_workspace, free_workspace             (optional)
 *   HOST       alloc_host, free_host                       (optional, DH_CAP_PINNED_HOST)
 *   STREAM     create_stream, free_stream, set_stream, get_current_stream,
 *              stream_sync, sync_stream_from_to            (required)
 *   EVENT      event_create, event_record, event_elapsed_ms, event_free
 *                                                          (optional, DH_CAP_EVENT_TIMING)
 *
 * DH_BACKEND_BIND_ALL_ENTRIES (below) binds all seven. The other fields (the header:
 * DH_BACKEND_HEADER_FIELDS; identity, functions, num_functions, raw, default_profile,
 * device_count) are written out in the initialiser. The prototypes are those of the
 * fields of dh_backend_t (backend.h), with their semantics. */
/* DH_BACKEND_HEADER_FIELDS: the header of a backend's dh_backend_t initialiser, the
 * sizes and versions this header was compiled with:
 *     .struct_size = sizeof(dh_backend_t), .abi_major = DH_BACKEND_ABI_MAJOR,
 *     .abi_minor = DH_BACKEND_ABI_MINOR, .reserved = 0
 * Write it first in every backend's vtable (`static const dh_backend_t k_backend =
 * {DH_BACKEND_HEADER_FIELDS, .name = ...}`): the loader refuses a plugin whose header
 * is off (versioning, top of this file). */
#define DH_BACKEND_HEADER_FIELDS                                                 \
  .struct_size = sizeof(dh_backend_t), .abi_major = DH_BACKEND_ABI_MAJOR,         \
  .abi_minor = DH_BACKEND_ABI_MINOR, .reserved = 0

#define DH_BACKEND_DECLARE_LIFECYCLE_ENTRIES(prefix) \
  int prefix##_init(void);                           \
  void prefix##_shutdown(void)
#define DH_BACKEND_BIND_LIFECYCLE_ENTRIES(prefix) .init = prefix##_init, .shutdown = prefix##_shutdown

#define DH_BACKEND_DECLARE_DEVICE_ENTRIES(prefix)                                    \
  const char* prefix##_unavailable_reason(void);                                     \
  int prefix##_get_attr(DLDevice dev, int32_t kind, dh_any_t* out_value);            \
  int prefix##_get_target_property(DLDevice dev, const char* name, dh_any_t* out_value); \
  int prefix##_set_device(DLDevice dev)
#define DH_BACKEND_BIND_DEVICE_ENTRIES(prefix)                               \
  .unavailable_reason = prefix##_unavailable_reason, .get_attr = prefix##_get_attr, \
  .get_target_property = prefix##_get_target_property, .set_device = prefix##_set_device

#define DH_BACKEND_DECLARE_MEMORY_ENTRIES(prefix)                                        \
  int prefix##_alloc_data_space(DLDevice dev, size_t nbytes, size_t alignment,           \
                                DLDataType type_hint, void** out_ptr);                   \
  int prefix##_free_data_space(DLDevice dev, void* ptr);                                 \
  int prefix##_copy_data_from_to(const void* from, size_t from_offset, void* to,         \
                                 size_t to_offset, size_t nbytes, DLDevice dev_from,     \
                                 DLDevice dev_to, DLDataType type_hint, dh_stream_t stream)
#define DH_BACKEND_BIND_MEMORY_ENTRIES(prefix)                                              \
  .alloc_data_space = prefix##_alloc_data_space, .free_data_space = prefix##_free_data_space, \
  .copy_data_from_to = prefix##_copy_data_from_to

#define DH_BACKEND_DECLARE_WORKSPACE_ENTRIES(prefix)                                          \
  int prefix##_alloc_workspace(DLDevice dev, size_t nbytes, DLDataType type_hint, void** out_ptr); \
  int prefix##_free_workspace(DLDevice dev, void* ptr)
#define DH_BACKEND_BIND_WORKSPACE_ENTRIES(prefix) \
  .alloc_workspace = prefix##_alloc_workspace, .free_workspace = prefix##_free_workspace

#define DH_BACKEND_DECLARE_HOST_ENTRIES(prefix)                           \
  int prefix##_alloc_host(DLDevice dev, size_t nbytes, void** out_ptr); \
  int prefix##_free_host(DLDevice dev, void* ptr)
#define DH_BACKEND_BIND_HOST_ENTRIES(prefix) \
  .alloc_host = prefix##_alloc_host, .free_host = prefix##_free_host

#define DH_BACKEND_DECLARE_STREAM_ENTRIES(prefix)                              \
  int prefix##_create_stream(DLDevice dev, dh_stream_t* out_stream);           \
  int prefix##_free_stream(DLDevice dev, dh_stream_t stream);                  \
  int prefix##_set_stream(DLDevice dev, dh_stream_t stream);                   \
  int prefix##_get_current_stream(DLDevice dev, dh_stream_t* out_stream);      \
  int prefix##_stream_sync(DLDevice dev, dh_stream_t stream);                  \
  int prefix##_sync_stream_from_to(DLDevice dev, dh_stream_t src, dh_stream_t dst)
#define DH_BACKEND_BIND_STREAM_ENTRIES(prefix)                                       \
  .create_stream = prefix##_create_stream, .free_stream = prefix##_free_stream,      \
  .set_stream = prefix##_set_stream, .get_current_stream = prefix##_get_current_stream, \
  .stream_sync = prefix##_stream_sync, .sync_stream_from_to = prefix##_sync_stream_from_to

#define DH_BACKEND_DECLARE_EVENT_ENTRIES(prefix)                                           \
  int prefix##_event_create(DLDevice dev, dh_event_t* out_event);                          \
  int prefix##_event_record(DLDevice dev, dh_event_t event, dh_stream_t stream);           \
  int prefix##_event_elapsed_ms(DLDevice dev, dh_event_t start, dh_event_t end, double* out_ms); \
  int prefix##_event_free(DLDevice dev, dh_event_t event)
#define DH_BACKEND_BIND_EVENT_ENTRIES(prefix)                                      \
  .event_create = prefix##_event_create, .event_record = prefix##_event_record,    \
  .event_elapsed_ms = prefix##_event_elapsed_ms, .event_free = prefix##_event_free

/* DH_BACKEND_BIND_ALL_ENTRIES(prefix): every group above, in the struct's order, for a
 * backend that has all 23 entries (cuda, opencl, vulkan): LIFECYCLE, DEVICE, MEMORY,
 * WORKSPACE, HOST, STREAM, EVENT. A backend that lacks one binds its groups one by
 * one. */
#define DH_BACKEND_BIND_ALL_ENTRIES(prefix)                                                 \
  DH_BACKEND_BIND_LIFECYCLE_ENTRIES(prefix), DH_BACKEND_BIND_DEVICE_ENTRIES(prefix),        \
  DH_BACKEND_BIND_MEMORY_ENTRIES(prefix), DH_BACKEND_BIND_WORKSPACE_ENTRIES(prefix),        \
  DH_BACKEND_BIND_HOST_ENTRIES(prefix), DH_BACKEND_BIND_STREAM_ENTRIES(prefix),             \
  DH_BACKEND_BIND_EVENT_ENTRIES(prefix)

#endif /* DEVHARNESS_BACKEND_ENTRIES_H_ */
