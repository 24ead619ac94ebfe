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

/* The device type the struct declares. DH_DEVICE_TYPE_ASSIGN (0): the loader serves the
 * backend under a free type of the out-of-tree range 64..127 (backend.h), so copies of
 * this folder never clash; dh_skeleton_device_type() says which one it got. A backend
 * that needs a fixed type (one TVM or a saved target names) builds with
 * -DDH_SKELETON_DEVICE_TYPE=N, N in 64..127 for a backend outside this tree
 * (docs/adding-a-backend.md "Device type"). */
#ifndef DH_SKELETON_DEVICE_TYPE
#define DH_SKELETON_DEVICE_TYPE DH_DEVICE_TYPE_ASSIGN
#endif
/* The backend's name (dh_backend_t.name): TODO(skeleton) yours. */
#define DH_SKELETON_NAME "skeleton"

/* The reason every entry gives until it is written. */
#define DH_SKELETON_NOT_IMPLEMENTED "not implemented"

/* The device type this backend is served under (set by init from the loader's
 * dh_backend_served_device_type; skeleton_device.c). */
int32_t dh_skeleton_device_type(void);

/* Sets NotImplementedError "skeleton: <entry>: not implemented" and returns -1. */
int dh_skeleton_not_implemented(const char* entry);

/* ---- skeleton_device.c */
/* The vtable entries, each group's prototypes written once in backend.h ("Declaring
 * and binding a backend's entries"): dh_skeleton_init, dh_skeleton_shutdown,
 * dh_skeleton_unavailable_reason, dh_skeleton_get_attr, ... An entry you make static
 * (one only skeleton_backend.c uses) leaves its group's macro: declare the group's
 * others one by one. */
DH_BACKEND_DECLARE_LIFECYCLE_ENTRIES(dh_skeleton);
DH_BACKEND_DECLARE_DEVICE_ENTRIES(dh_skeleton);
/* 0 when dev is one of this backend's devices; else -1 (ValueError / IndexError). */
int dh_skeleton_check_device(DLDevice dev, const char* op);

/* ---- skeleton_stream.c: streams; events (optional: drop the EVENT lines here and in
 * skeleton_backend.c when your API has no device-side timing) */
DH_BACKEND_DECLARE_STREAM_ENTRIES(dh_skeleton);
DH_BACKEND_DECLARE_EVENT_ENTRIES(dh_skeleton);

/* ---- skeleton_memory.c: data space and copies; workspaces and pinned host memory
 * (optional, likewise) */
DH_BACKEND_DECLARE_MEMORY_ENTRIES(dh_skeleton);
DH_BACKEND_DECLARE_WORKSPACE_ENTRIES(dh_skeleton);
DH_BACKEND_DECLARE_HOST_ENTRIES(dh_skeleton);

/* ---- skeleton_kernels.c: noop(Device), fill(DLTensorPtr, Int) */
int dh_skeleton_func_noop(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result);
int dh_skeleton_func_fill(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result);

/* ---- skeleton_raw.c */
extern const dh_raw_twin_t dh_skeleton_raw_twin;

#endif /* DEVHARNESS_BACKENDS_SKELETON_INTERNAL_H_ */
