/*
 * backends/sim/sim_internal.h — private declarations shared by the sim's source files.
 *
 * Layering (each file calls only the ones below it; tests/layering/call_graph.t checks):
 *   sim_entry.c    dh_backend_entry (the only exported symbol), apart so that faulty
 *                  variants link the rest with an entry of their own (sim.h)
 *   sim_backend.c  the vtable dh_sim_backend; init/shutdown/fork handler composed
 *   sim_kernels.c  module functions noop, fill
 *   sim_raw.c      the raw twin for the benchmarks
 *   sim_memory.c   device buffers; alloc/free/host entries; copy_data_from_to
 *   sim_stream.c   streams = worker threads with FIFO command queues; events; markers;
 *                  the stream and event entries
 *   sim_device.c   configuration, devices, the handle table, objects, the clock; the
 *                  attribute and set_device entries
 *
 * Object lifetime: buffers, streams and events are reference-counted objects
 * (dh_sim_obj_t header). The handle table holds one reference while the handle is
 * live; every lookup returns a new reference that the caller releases; a queued
 * command holds references to what it touches, so freeing a handle while work on it
 * is still queued never frees memory under the worker.
 */
#ifndef DEVHARNESS_BACKENDS_SIM_SIM_INTERNAL_H_
#define DEVHARNESS_BACKENDS_SIM_SIM_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "sim.h"

/*---------------------------------------------------------------- objects */

/* Common header of reference-counted sim objects. */
typedef struct dh_sim_obj {
  atomic_int refs;                          /* references; destroy at 0 */
  void (*destroy)(struct dh_sim_obj* obj);  /* frees the object */
} dh_sim_obj_t;

/* Adds a reference. */
void dh_sim_obj_retain(dh_sim_obj_t* obj);
/* Drops a reference; destroys the object when it was the last. NULL is a no-op. */
void dh_sim_obj_release(dh_sim_obj_t* obj);

/* Handle kinds: the tag byte in bits 56..63 of a handle. */
typedef enum dh_sim_kind {
  DH_SIM_KIND_BUFFER = 0xD5,
  DH_SIM_KIND_STREAM = 0xD6,
  DH_SIM_KIND_EVENT = 0xD7
} dh_sim_kind_t;

/* A table of live handles of one kind on one device. A handle is
 *   tag(8 bits) | device id(8) | generation(24) | slot index(24)
 * so it is non-zero, never a canonical host address, and a freed slot's old handle
 * no longer matches once the slot's generation moves on. */
typedef struct dh_sim_table {
  pthread_mutex_t mu;
  struct dh_sim_slot* slots; /* cap entries */
  uint32_t cap;
  uint32_t free_head;        /* first free slot + 1; 0 = none */
  uint32_t live;             /* live handles */
} dh_sim_table_t;

/*---------------------------------------------------------------- devices */

/* Device memory: one allocation. */
typedef struct dh_sim_buffer {
  dh_sim_obj_t obj;
  int device_id;
  uint8_t* data;  /* NULL for 0 bytes */
  size_t size;    /* bytes requested */
  size_t charged; /* bytes subtracted from the device's available memory */
} dh_sim_buffer_t;

struct dh_sim_stream;

/* One simulated device. */
/* Free workspaces a device keeps for the next alloc_workspace (sim_memory.c). */
#define DH_SIM_WS_POOL 8

typedef struct dh_sim_device {
  int id;
  pthread_mutex_t mu;                    /* guards used, default_stream and the ws pool */
  size_t used;                           /* bytes charged by live buffers */
  void* ws_free[DH_SIM_WS_POOL];         /* freed workspaces (data space handles) ... */
  size_t ws_size[DH_SIM_WS_POOL];        /* ... and their sizes */
  int ws_count;                          /* entries of ws_free in use */
  struct dh_sim_stream* default_stream;  /* created on first use */
  dh_sim_table_t buffers;
  dh_sim_table_t streams;
  dh_sim_table_t events;
} dh_sim_device_t;

/* Configuration read from the environment by init. */
typedef struct dh_sim_config {
  int num_devices;          /* DEVHARNESS_SIM_DEVICES, default 2 */
  size_t memory_bytes;      /* DEVHARNESS_SIM_MEMORY_BYTES, default 1 GiB */
  uint64_t latency_ns;      /* DEVHARNESS_SIM_LATENCY_NS, per copy/fill, default 2000 */
  uint64_t delay_ns_per_kib;/* DEVHARNESS_SIM_DELAY_NS_PER_KIB, default 64 */
} dh_sim_config_t;

/* Global state; valid between init and shutdown. */
typedef struct dh_sim_state {
  atomic_int initialised;
  atomic_int fork_gen;      /* bumped in a forked child: parent's workers are gone */
  dh_sim_config_t config;
  dh_sim_device_t* devices; /* config.num_devices entries */
} dh_sim_state_t;

extern dh_sim_state_t dh_sim_state;

/* Reads the configuration, creates the devices; registers atfork_child as the
 * fork handler of the child (once). Idempotent. 0/-1. */
int dh_sim_device_init(void (*atfork_child)(void));
/* close_stream(obj) on every stream (draining it, consuming the table's reference),
 * then frees every event and buffer, then staging_drain(). The stream layer's
 * functions are passed in by sim_backend.c so this file never calls up into it. */
void dh_sim_device_shutdown(void (*close_stream)(dh_sim_obj_t* obj), void (*staging_drain)(void));
/* The fork handler's device part, in a child forked after init: re-arms the locks,
 * calls streams_atfork_child() and hands each default stream to stream_orphan. */
struct dh_sim_stream;
void dh_sim_device_atfork_child(void (*streams_atfork_child)(void),
                                void (*stream_orphan)(struct dh_sim_stream* s));

/* The device for dev: -1 with RuntimeError if not initialised, IndexError for an id
 * outside 0..n-1 (and device_type kDLCPU). */
int dh_sim_device_get(DLDevice dev, dh_sim_device_t** out_device);

/* Handle table. add: stores obj (taking over one reference), returns its handle.
 * get: the live object of `handle` with a new reference, or -1 ValueError naming
 * `what` ("data space handle", "stream", "event"). remove: forgets the handle and
 * returns its object with the table's reference, or -1 ValueError. */
int dh_sim_table_add(dh_sim_table_t* t, dh_sim_kind_t kind, int device_id, dh_sim_obj_t* obj,
                     void** out_handle);
int dh_sim_table_get(dh_sim_table_t* t, dh_sim_kind_t kind, int device_id, void* handle,
                     const char* what, dh_sim_obj_t** out_obj);
int dh_sim_table_remove(dh_sim_table_t* t, dh_sim_kind_t kind, int device_id, void* handle,
                        const char* what, dh_sim_obj_t** out_obj);

/* Device memory. alloc: nbytes (0 allowed), alignment a power of two; beyond the
 * device's available memory -> OutOfMemoryError. free: NULL is a no-op. */
int dh_sim_mem_alloc(dh_sim_device_t* d, size_t nbytes, size_t alignment, void** out_handle);
int dh_sim_mem_free(dh_sim_device_t* d, void* handle);
/* The buffer behind handle, with a reference (release with dh_sim_obj_release). */
int dh_sim_mem_get(dh_sim_device_t* d, void* handle, dh_sim_buffer_t** out_buffer);
/* Checks offset + nbytes <= buffer size without overflow; ValueError naming `side`. */
int dh_sim_mem_check_range(const dh_sim_buffer_t* b, size_t offset, size_t nbytes,
                           const char* side);
/* Bytes still available on d. */
size_t dh_sim_mem_available(dh_sim_device_t* d);

/* Spins/sleeps for ns nanoseconds of simulated device time. */
void dh_sim_delay_ns(uint64_t ns);
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t dh_sim_now_ns(void);

/*---------------------------------------------------------------- streams */

typedef enum dh_sim_cmd_kind {
  DH_SIM_CMD_COPY,        /* memmove(dst, src, n) after the simulated latency */
  DH_SIM_CMD_FILL,        /* write a 32-bit pattern to n bytes (n % 4 == 0) */
  DH_SIM_CMD_NOOP,        /* the empty kernel */
  DH_SIM_CMD_EVENT,       /* timestamp an event */
  DH_SIM_CMD_SIGNAL,      /* mark a marker done (sync_stream_from_to, src side) */
  DH_SIM_CMD_WAIT,        /* block until a marker is done (dst side) */
  DH_SIM_CMD_HOST_FN,     /* call fn(ctx) */
  DH_SIM_CMD_TRAP,        /* a kernel that fails on the device (module function trap) */
  DH_SIM_CMD_STOP         /* worker exits (free_stream; always the last command) */
} dh_sim_cmd_kind_t;

struct dh_sim_event;
struct dh_sim_marker;

/* One queued command. Owns `staging` (freed after running) and one reference to each
 * non-NULL object it names (released after running). */
typedef struct dh_sim_cmd {
  struct dh_sim_cmd* next;
  dh_sim_cmd_kind_t kind;
  uint64_t seq;              /* position in its stream; set by enqueue */
  uint8_t* dst;              /* COPY/FILL destination bytes */
  const uint8_t* src;        /* COPY source bytes */
  size_t nbytes;
  uint32_t pattern;          /* FILL */
  void* staging;             /* host staging copy (H2D), from dh_sim_staging_get */
  size_t staging_cap;        /* its capacity, for returning it to the pool */
  dh_sim_obj_t* refs[2];     /* buffers kept alive while queued */
  struct dh_sim_event* event;
  struct dh_sim_marker* marker;
  void (*fn)(void* ctx);
  void* ctx;
} dh_sim_cmd_t;

/* A stream: a worker thread and its FIFO queue. */
typedef struct dh_sim_stream {
  dh_sim_obj_t obj;
  int device_id;
  pthread_t thread;
  int has_thread;           /* set once at creation */
  int fork_gen;             /* dh_sim_state.fork_gen when created */
  struct dh_sim_stream* orphan_next; /* on dh_sim_orphans in a forked child */
  atomic_int joined;        /* worker exited and was joined */
  pthread_mutex_t mu;
  pthread_cond_t work_cv;   /* queue became non-empty */
  pthread_cond_t done_cv;   /* completed moved on */
  dh_sim_cmd_t* head;
  dh_sim_cmd_t* tail;
  uint64_t submitted;       /* seq of the last queued command */
  uint64_t completed;       /* seq of the last finished command */
  int closed;               /* STOP queued: no more commands accepted */
  uint64_t failed_seq;      /* seq of the first failed command (TRAP) not yet reported by
                               dh_sim_stream_wait_report; 0: none */
} dh_sim_stream_t;

/* Event: the host monotonic time at which the worker ran its last record command. */
typedef struct dh_sim_event {
  dh_sim_obj_t obj;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  uint64_t requested; /* record commands queued */
  uint64_t done;      /* record commands executed */
  uint64_t time_ns;   /* timestamp of the last executed record */
} dh_sim_event_t;

/* Streams inherited from the parent by a forked child: never freed (their worker and
 * their locks' state belong to the parent), kept on this list. */
void dh_sim_stream_orphan(dh_sim_stream_t* s);

/* Host staging buffers for host-to-device copies, recycled through a small pool
 * (fresh large mallocs are mmap'd and page-fault on every copy). get: a buffer of at
 * least n bytes (NULL with OutOfMemoryError set), *out_cap its capacity. put: gives
 * it back (NULL is a no-op). drain: frees the pool (shutdown). Thread-safe. */
void* dh_sim_staging_get(size_t n, size_t* out_cap);
void dh_sim_staging_put(void* p, size_t cap);
void dh_sim_staging_drain(void);
/* Re-arms sim_stream.c's process-wide locks in a forked child. */
void dh_sim_stream_atfork_child(void);

/* Allocates a zeroed command of `kind`; NULL (with OutOfMemoryError set) on failure. */
dh_sim_cmd_t* dh_sim_cmd_new(dh_sim_cmd_kind_t kind);
/* Frees a command that was never queued, dropping its references and staging. */
void dh_sim_cmd_discard(dh_sim_cmd_t* cmd);

/* New stream with its worker thread; one reference for the caller. */
int dh_sim_stream_create(int device_id, dh_sim_stream_t** out_stream);
/* The stream of `handle` on d (NULL: the default stream, created on first use), with a
 * reference. Unknown handle -> ValueError. */
int dh_sim_stream_get(dh_sim_device_t* d, dh_stream_t handle, dh_sim_stream_t** out_stream);
/* Queues cmd (ownership passes to the stream even on error). Closed stream ->
 * ValueError. */
int dh_sim_stream_enqueue(dh_sim_stream_t* s, dh_sim_cmd_t* cmd);
/* Waits until every command queued before the call has finished. Called from the
 * stream's own worker -> RuntimeError (would deadlock). */
int dh_sim_stream_wait(dh_sim_stream_t* s);
/* stream_sync: waits as dh_sim_stream_wait, then reports (RuntimeError) and clears the
 * first failure of a command queued before the call (a TRAP kernel), if any. */
int dh_sim_stream_wait_report(dh_sim_stream_t* s);
/* Queues STOP, waits for the worker to drain and exit. Later enqueues fail. */
int dh_sim_stream_close(dh_sim_stream_t* s);
/* Makes dst wait for the work queued on src so far (a marker signalled on src,
 * waited for on dst). */
int dh_sim_stream_order(dh_sim_stream_t* src, dh_sim_stream_t* dst);

/* A new, never-recorded event with one reference for the caller. */
int dh_sim_event_new(dh_sim_event_t** out_event);
/* Queues a record command on s; the worker timestamps e when it gets there. */
int dh_sim_event_enqueue(dh_sim_event_t* e, dh_sim_stream_t* s);
/* Waits for the event's last queued record; ValueError if it was never recorded. */
int dh_sim_event_wait(dh_sim_event_t* e, uint64_t* out_time_ns);

/* A sim DLDevice of id `id`. */
static inline DLDevice dh_sim_dev(int id) {
  DLDevice d = {(DLDeviceType)DH_SIM_DEVICE_TYPE, id};
  return d;
}

/*---------------------------------------------------------------- entries */

/* The vtable entries of sim_device.c, sim_memory.c and sim_stream.c, named after the
 * dh_backend_t fields they fill (backend.h "Declaring and binding a backend's
 * entries"); init and shutdown are sim_backend.c's, static. */
DH_BACKEND_DECLARE_DEVICE_ENTRIES(dh_sim);
DH_BACKEND_DECLARE_MEMORY_ENTRIES(dh_sim);
DH_BACKEND_DECLARE_WORKSPACE_ENTRIES(dh_sim);
DH_BACKEND_DECLARE_HOST_ENTRIES(dh_sim);
DH_BACKEND_DECLARE_STREAM_ENTRIES(dh_sim);
DH_BACKEND_DECLARE_EVENT_ENTRIES(dh_sim);
/* sim_kernels.c: noop(Device), fill(DLTensorPtr, Int) (backend.h dh_backend_func_t). */
int dh_sim_func_noop(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result);
int dh_sim_func_fill(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result);
/* sim_kernels.c: trap(Device): a kernel that fails on the device (backend.h DH_FUNC_TRAP). */
int dh_sim_func_trap(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result);
/* sim_kernels.c: peer_access(Device, Int) -> Str (backend.h DH_FUNC_PEER_ACCESS). */
int dh_sim_func_peer_access(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result);
/* sim_raw.c */
extern const dh_raw_twin_t dh_sim_raw_twin;

#endif /* DEVHARNESS_BACKENDS_SIM_SIM_INTERNAL_H_ */
