/*
 * backends/sim/sim_backend.c — the sim's dh_backend_t: TVM's DeviceAPI as a C vtable,
 * and its lifecycle (init, shutdown, the fork handler) composed from the files below.
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
#include <pthread.h>

#include "sim_internal.h"


/*===========================================================================
 * Lifecycle: the device layer knows nothing of streams; it is handed the stream
 * layer's functions here, so calls between the files run one way.
 *===========================================================================*/

/* Closes a stream (its worker finishes the queued work) and drops the table's
 * reference. */
static void dh_sim_close_stream(dh_sim_obj_t* obj) {
  dh_sim_stream_close((dh_sim_stream_t*)obj);
  dh_sim_obj_release(obj);
}

static void dh_sim_atfork_child(void) {
  dh_sim_device_atfork_child(dh_sim_stream_atfork_child, dh_sim_stream_orphan);
}

static int dh_sim_init(void) { return dh_sim_device_init(dh_sim_atfork_child); }

static void dh_sim_shutdown(void) { dh_sim_device_shutdown(dh_sim_close_stream, dh_sim_staging_drain); }

static const dh_backend_function_t dh_sim_functions[] = {
    {DH_FUNC_NOOP, dh_sim_func_noop},
    {DH_FUNC_FILL, dh_sim_func_fill},
    {DH_FUNC_ECHO, dh_backend_func_echo},
    {DH_FUNC_RAISE, dh_backend_func_raise},
    {DH_FUNC_TRAP, dh_sim_func_trap},
    {DH_FUNC_PEER_ACCESS, dh_sim_func_peer_access},
};

/*===========================================================================
 * The vtable
 *===========================================================================*/

const dh_backend_t dh_sim_backend = {
    DH_BACKEND_HEADER_FIELDS,
    .name = "sim",
    .description = "simulated accelerator: opaque handles, one worker thread per stream",
    .device_type = DH_SIM_DEVICE_TYPE,
    .caps = DH_CAP_ASYNC_COPY | DH_CAP_EVENT_TIMING | DH_CAP_PINNED_HOST,
    .target_kind = "sim",
    .target_kind_json = NULL, /* targets/kinds/sim.json ships with devharness */
    DH_BACKEND_BIND_LIFECYCLE_ENTRIES(dh_sim),
    DH_BACKEND_BIND_DEVICE_ENTRIES(dh_sim),
    DH_BACKEND_BIND_MEMORY_ENTRIES(dh_sim),
    DH_BACKEND_BIND_WORKSPACE_ENTRIES(dh_sim),
    DH_BACKEND_BIND_HOST_ENTRIES(dh_sim),
    DH_BACKEND_BIND_STREAM_ENTRIES(dh_sim),
    .functions = dh_sim_functions,
    .num_functions = sizeof dh_sim_functions / sizeof dh_sim_functions[0],
    DH_BACKEND_BIND_EVENT_ENTRIES(dh_sim),
    .raw = &dh_sim_raw_twin,
};
