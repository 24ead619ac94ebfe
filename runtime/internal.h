/*
 * runtime/internal.h — declarations shared by the runtime's own files; not installed,
 * not part of the public contract.
 *
 * The manager keeps each loaded plugin in a dh__slot. The slot starts with the
 * manager-owned copy of the plugin's dh_backend_t, so the `const dh_backend_t*`
 * handed to callers is the slot's address. Slots live from dh_plugin_load until
 * dh_plugins_unload_all.
 */
#ifndef DEVHARNESS_RUNTIME_INTERNAL_H_
#define DEVHARNESS_RUNTIME_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>

#include "devharness/device_api.h"
#include "devharness/tensor.h"

/* Internal functions are hidden: not exported from libdevharness.so, no PLT. */
#define DH__INTERNAL __attribute__((visibility("hidden")))

/* Device types 0..DH__MAX_DEVICE_TYPES-1 can be served; the dispatch table has one
 * entry per type. */
#define DH__MAX_DEVICE_TYPES 64
/* At most this many plugins loaded at once. */
#define DH__MAX_BACKENDS 32

/* One loaded plugin. `backend` must stay the first member (see file comment). */
typedef struct dh__slot {
  dh_backend_t backend;   /* zeroed, then min(struct_size, sizeof) bytes of the plugin's */
  void* dl_handle;        /* dlopen handle; dlclosed by dh_plugins_unload_all */
  char* path;             /* path given to dh_plugin_load (owned) */
  char* real_path;        /* realpath of it (owned) */
  pthread_mutex_t init_mu;/* serialises init */
  atomic_int init_state;  /* 0 not run, 1 succeeded, -1 failed (release/acquire) */
  char init_kind[64];     /* init's error kind when init_state == -1 */
  char init_message[512]; /* init's error message when init_state == -1 */
} dh__slot;

/* The slot serving device_type, or NULL. Lock-free (acquire load); cheap. */
DH__INTERNAL dh__slot* dh__slot_by_type(int32_t device_type);

/* The slot whose backend is `backend`, or NULL when it was not loaded by the manager. */
DH__INTERNAL dh__slot* dh__slot_of(const dh_backend_t* backend);

/* Runs init once for the slot (thread-safe). 0, or -1 with init's error re-stored. */
DH__INTERNAL int dh__slot_init_slow(dh__slot* slot);

/* Fast path of dh__slot_init_slow: one acquire load when init has already succeeded. */
static inline int dh__slot_init(dh__slot* slot) {
  if (atomic_load_explicit(&slot->init_state, memory_order_acquire) == 1) return 0;
  return dh__slot_init_slow(slot);
}

/* Validates a copy between two tensors as TVM's CopyDataFromTo does (non-NULL,
 * non-negative shapes, compact, equal byte sizes). On success stores the byte count.
 * Errors: "TypeError" (NULL tensor), "ValueError" naming the mismatch. */
DH__INTERNAL int dh__tensor_check_copy(const DLTensor* from, const DLTensor* to, size_t* out_nbytes);

/* dh_error_clear without the PLT hop, for dh_func_call's hot path (runtime/error.c). */
DH__INTERNAL void dh__error_reset(void);

/* Writes "[a, b, c]" for n int64 values into buf (truncated to size). Returns buf. */
DH__INTERNAL const char* dh__format_int64s(const int64_t* v, int n, char* buf, size_t size);

#endif /* DEVHARNESS_RUNTIME_INTERNAL_H_ */
