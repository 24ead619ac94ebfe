/*
 * backends/skeleton/skeleton_internal.h — private declarations shared by the skeleton
 * backend's files. The skeleton is a backend that compiles, loads and reports no
 * device: every entry is present and answers NotImplementedError ("not implemented"),
 * so `devharness conformance --plugin libdevharness_skeleton.so` lists every clause as
 * `# SKIP not implemented: ...`. Copy the folder to start a backend
 * (docs/adding-a-backend.md); every place to fill in is marked TODO(skeleton).
 *
 * Files (the same rooms as every backend folder; each calls only the files below it):
 *   skeleton_backend.c  the vtable and dh_backend_entry (the only exported symbol)
 *   skeleton_kernels.c  module functions noop, fill (backend.h)
 *   skeleton_raw.c      the raw twin for the benchmarks (optional)
 *   skeleton_memory.c   alloc/free data space, workspaces, pinned host, copies
 *   skeleton_stream.c   streams, syncs, events
 *   skeleton_device.c   init/shutdown, availability, device checks, attributes
 */
#ifndef DEVHARNESS_BACKENDS_SKELETON_INTERNAL_H_
#define DEVHARNESS_BACKENDS_SKELETON_INTERNAL_H_

#include "devharness/backend.h"
#include "devharness/error.h"

/* TODO(skeleton): your DLPack device type. Unique per process: 47 is used by no other
 * backend of this tree (the tvm-* backends use 48 + TVM's type). */
#define DH_SKELETON_DEVICE_TYPE 47

/* The reason every entry gives until it is written. */
#define DH_SKELETON_NOT_IMPLEMENTED "not implemented"

/* Sets NotImplementedError "skeleton: <entry>: not implemented" and returns -1. */
int dh_skeleton_not_implemented(const char* entry);

/* ---- skeleton_device.c */
int dh_skeleton_init(void);
void dh_skeleton_shutdown(void);
const char* dh_skeleton_unavailable_reason(void);
/* 0 when dev is one of this backend's devices; else -1 (ValueError / IndexError). */
int dh_skeleton_check_device(DLDevice dev, const char* op);
int dh_skeleton_get_attr(DLDevice dev, int32_t kind, dh_any_t* out_value);
int dh_skeleton_get_target_property(DLDevice dev, const char* name, dh_any_t* out_value);
int dh_skeleton_set_device(DLDevice dev);

/* ---- skeleton_stream.c */
int dh_skeleton_create_stream(DLDevice dev, dh_stream_t* out_stream);
int dh_skeleton_free_stream(DLDevice dev, dh_stream_t stream);
int dh_skeleton_set_stream(DLDevice dev, dh_stream_t stream);
int dh_skeleton_get_current_stream(DLDevice dev, dh_stream_t* out_stream);
int dh_skeleton_stream_sync(DLDevice dev, dh_stream_t stream);
int dh_skeleton_sync_stream_from_to(DLDevice dev, dh_stream_t src, dh_stream_t dst);
int dh_skeleton_event_create(DLDevice dev, dh_event_t* out_event);
int dh_skeleton_event_record(DLDevice dev, dh_event_t event, dh_stream_t stream);
int dh_skeleton_event_elapsed_ms(DLDevice dev, dh_event_t start, dh_event_t end, double* out_ms);
int dh_skeleton_event_free(DLDevice dev, dh_event_t event);

/* ---- skeleton_memory.c */
int dh_skeleton_alloc_data_space(DLDevice dev, size_t nbytes, size_t alignment,
                                 DLDataType type_hint, void** out_ptr);
int dh_skeleton_free_data_space(DLDevice dev, void* ptr);
int dh_skeleton_alloc_workspace(DLDevice dev, size_t nbytes, DLDataType type_hint,
                                void** out_ptr);
int dh_skeleton_free_workspace(DLDevice dev, void* ptr);
int dh_skeleton_alloc_host(DLDevice dev, size_t nbytes, void** out_ptr);
int dh_skeleton_free_host(DLDevice dev, void* ptr);
int dh_skeleton_copy_data_from_to(const void* from, size_t from_offset, void* to,
                                  size_t to_offset, size_t nbytes, DLDevice dev_from,
                                  DLDevice dev_to, DLDataType type_hint, dh_stream_t stream);

/* ---- skeleton_kernels.c: noop(Device), fill(DLTensorPtr, Int) */
int dh_skeleton_func_noop(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result);
int dh_skeleton_func_fill(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result);

/* ---- skeleton_raw.c */
extern const dh_raw_twin_t dh_skeleton_raw_twin;

#endif /* DEVHARNESS_BACKENDS_SKELETON_INTERNAL_H_ */
