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
#include "devharness/function.h"

#include <tvm/ffi/c_api.h>
#include "devharness/tensor.h"

/* Internal functions are hidden: not exported from libdevharness.so, no PLT. */
#define DH__INTERNAL __attribute__((visibility("hidden")))

/* Device types 0..DH__MAX_DEVICE_TYPES-1 can be served; the dispatch table has one
 * entry per type. */
#define DH__MAX_DEVICE_TYPES (DH_DEVICE_TYPE_OUT_OF_TREE_LAST + 1)
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
  _Atomic uint32_t found_caps; /* dh_device_caps: what query_caps or a probe found */
  atomic_int caps_source; /* 0 none (declared caps), 1 a probe child, 2 init here */
  dh_function_t* functions; /* tvm-ffi Function of each backend.functions[i] (owned
                               references; what "<name>.<fn>" is registered as) */
  uint64_t* function_keys;  /* dh__name_key of each backend.functions[i].name */
  struct dh__slot_function* function_ctx; /* self of each registered Function (owned) */
  int held;                 /* ABI 1.6: more_backends waits for dh_backend_options_close */
  uint32_t options_given;   /* bit i: backend.options[i] was given a value (both under the
                               loader's lock; runtime/options.c) */
} dh__slot;

/* What a registered module function carries as self: its slot, whose init runs once
 * before the first call from anywhere (Python's tvm_ffi, TVM, dh_device_call), and
 * the backend's call. runtime/plugin.c slot_function_call. */
typedef struct dh__slot_function {
  dh__slot* slot;
  dh_safe_call_t call;
} dh__slot_function;

/* The dispatch table: the slot serving each device type (runtime/plugin.c). */
DH__INTERNAL extern _Atomic(dh__slot*) dh__by_type[DH__MAX_DEVICE_TYPES];

/* The slot serving device_type, or NULL. Lock-free (acquire load); inline. */
static inline dh__slot* dh__slot_by_type(int32_t device_type) {
  if (device_type < 0 || device_type >= DH__MAX_DEVICE_TYPES) return NULL;
  return atomic_load_explicit(&dh__by_type[device_type], memory_order_acquire);
}

/* The slot whose backend is `backend`, or NULL when it was not loaded by the manager. */
DH__INTERNAL dh__slot* dh__slot_of(const dh_backend_t* backend);

/* A probe child's answer about backend's capabilities, recorded for dh_device_caps
 * unless init in this process already found them (runtime/device_select.c). */
DH__INTERNAL void dh__record_probed_caps(const dh_backend_t* backend, uint32_t caps);

/* The loader's lock (runtime/plugin.c), which runtime/options.c takes too. */
DH__INTERNAL void dh__load_lock(void);
DH__INTERNAL void dh__load_unlock(void);
/* ABI 1.3 more_backends of an accepted plugin's slot, its structs registered as slots
 * of their own (runtime/plugin.c). Caller holds the loader's lock. */
DH__INTERNAL void dh__load_more(dh__slot* main);
/* ABI 1.6: opens (1) or closes (0) the loader's options window, while which it holds
 * back the more_backends of a plugin declaring options (runtime/plugin.c; opened and
 * closed by runtime/options.c). */
DH__INTERNAL void dh__options_window_set(int open);

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

/* The common case of dh__tensor_check_copy for one side, inline in the copy path, in
 * one walk over the shape: byte size (packed as dh_dtype_nbytes) and TVM's IsContiguous (extent-1 dimensions take
 * any stride) at once, overflow found with __builtin_mul_overflow instead of a division
 * per dimension. Walking from the last dimension, the stride a compact tensor must have
 * at dimension i is the element count of the dimensions after it, so one product serves
 * both checks. Returns 1 with the byte size stored when the side is certainly valid;
 * 0 when it may not be (NULL, negative ndim, NULL shape, an extent <= 0, overflow, not
 * compact): then the caller runs dh__tensor_check_copy, which decides and names the
 * error with the messages and the order of checks of dh_tensor_nbytes and
 * dh_tensor_is_contiguous. With every extent >= 1 partial products never exceed the
 * total, so the order of the multiplications does not change which shapes overflow; a
 * zero extent (which hides later overflows from dh_tensor_numel's forward walk only) is
 * left to the full check. Tested against the full check in tests/runtime/test_device.c
 * (test_copy_checks_fast_and_full_agree). */
static inline int dh__tensor_side_nbytes_fast(const DLTensor* t, size_t* out_nbytes) {
  if (t == NULL) return 0;
  const int ndim = t->ndim;
  const int64_t* shape = t->shape;
  const int64_t* strides = t->strides;
  if (ndim < 0 || (ndim > 0 && shape == NULL)) return 0;
  int64_t n = 1;
  for (int i = ndim - 1; i >= 0; i--) {
    const int64_t d = shape[i];
    if (d <= 0) return 0;
    if (strides != NULL && d != 1 && strides[i] != n) return 0;
    if (__builtin_mul_overflow(n, d, &n)) return 0;
  }
  /* dh_dtype_nbytes: tvm-ffi's GetDataSize, sub-byte elements packed */
  uint64_t bits;
  if (__builtin_mul_overflow((uint64_t)n, (uint64_t)t->dtype.bits * t->dtype.lanes, &bits) ||
      bits > UINT64_MAX - 7 || (bits + 7) / 8 > SIZE_MAX)
    return 0;
  *out_nbytes = (size_t)((bits + 7) / 8);
  return 1;
}

/* (runtime/abi_check.c; tests/fuzz/fuzz_plugin_abi.c links that file to fuzz it.)
 * Checks the struct a plugin's entry returned and copies it into *out_copy: steps 5-9
 * of dh_plugin_load (devharness/backend.h "Versioning", device_api.h "Plugins"):
 * non-NULL result, abi_major == DH_BACKEND_ABI_MAJOR, struct_size >=
 * DH_BACKEND_SIZE_V1_0 (0 and huge values included: a larger struct_size is a newer
 * minor and only the known fields are read), then every required entry non-NULL,
 * alloc_workspace/free_workspace both or neither, name [a-z][a-z0-9_-]* under 48
 * bytes, device_type in 1..DH__MAX_DEVICE_TYPES-1, and num_functions entries with
 * non-empty names and non-NULL calls (functions non-NULL when num_functions > 0).
 * Does not check against the loaded backends (duplicates are dh_plugin_load's).
 *   origin          names the plugin in messages (its path); NULL reads "(plugin)".
 *   plugin_struct   what the entry returned; the header is read first, then
 *                   min(struct_size, sizeof(dh_backend_t), available_bytes) bytes.
 *   available_bytes how many bytes at plugin_struct may be read: SIZE_MAX for a real
 *                   plugin (its struct is as large as its struct_size says), the
 *                   buffer size for a test. Fewer than the header or than an ABI 1.0
 *                   struct is an error.
 *   out_copy        zeroed, then the copied bytes (fields past the copy stay NULL/0);
 *                   zeroed again on failure. Caller-owned.
 * Pointers inside the struct (name, functions, functions[i].name) must be real: they
 * are dereferenced. Thread-safe (no shared state). Returns 0, or -1 with an
 * "ABIError" (ValueError for a NULL out_copy) whose message starts with origin. */
DH__INTERNAL int dh__backend_accept(const char* origin, const dh_backend_t* plugin_struct,
                                       size_t available_bytes, dh_backend_t* out_copy);

/* How long a plugin's probe (dh__plugin_probe) may take, seconds: dlopen and the entry
 * of a real plugin take milliseconds; a driver stack's constructors some hundreds. */
#define DH__PLUGIN_PROBE_TIMEOUT_S 20

/* Loads the plugin at real (its resolved path; path names it in messages) in a forked
 * child (base/child.c) and runs dlopen, dh_backend_entry and dh__backend_accept there,
 * within DH__PLUGIN_PROBE_TIMEOUT_S. Returns 0 when all passed: the caller may map it.
 * Else -1 with the check's own error, or an "ABIError" "PATH: refused: ..." saying the
 * child crashed (signal), exited or timed out while loading it. Call from one thread
 * (fork copies only the caller; dh_plugin_load holds its lock). runtime/plugin_probe.c */
DH__INTERNAL int dh__plugin_probe(const char* path, const char* real);

/* 1 when tvm-ffi holds a raised error on this thread (its kind/message are then
 * copied to the buffers dh_error_kind/dh_error_message return), else 0. The error
 * stays raised (runtime/error.c). */
DH__INTERNAL int dh__error_peek(void);

/* The first 8 bytes of a NUL-terminated name, zero-padded after the NUL, for the
 * function-name lookup of dh_device_call: equal keys and a name shorter than 8 bytes
 * mean equal names. Branch-free: one 8-byte load when it stays inside the page (as
 * glibc's strlen reads past the NUL; hence no ASan instrumentation here), the first
 * NUL found with the has-zero-byte trick; byte by byte near a page end. */
#if defined(__clang__) || defined(__GNUC__)
__attribute__((no_sanitize_address))
#endif
static inline uint64_t dh__name_key(const char* name) {
  uint64_t k = 0;
  if (((uintptr_t)name & 4095u) <= 4096u - 8u) {
    __builtin_memcpy(&k, name, 8);
    uint64_t z = (k - 0x0101010101010101ull) & ~k & 0x8080808080808080ull;
    if (z != 0) { /* the lowest set bit marks the first NUL (little-endian) */
      unsigned nul = (unsigned)__builtin_ctzll(z) / 8u;
      k &= nul == 0 ? 0 : (~0ull >> (64u - 8u * nul));
    }
    return k;
  }
  for (int i = 0; i < 8 && name[i] != '\0'; i++) k |= (uint64_t)(unsigned char)name[i] << (8 * i);
  return k;
}

/* dh_func_call for a handle known to be a live Function (no NULL check), inline on
 * the dispatch path: checks num_args/args, sets a None result (field by field: a
 * whole-struct store of a temporary stalls store forwarding), calls the function; the
 * slow paths are out of line (runtime/function.c).
 *
 * The call goes to the safe_call of the function's cell, the TVMFFIFunctionCell that
 * follows the TVMFFIObject header of every Function object (apache-tvm-ffi 0.1.15
 * include/tvm/ffi/c_api.h TVMFFIFunctionCell, TVMFFIFunctionGetCellPtr): that is all
 * TVMFFIFunctionCall does (its body in libtvm_ffi.so 0.1.15 is `jmp *0x18(%rdi)`), and it
 * is how tvm-ffi's own C++ calls a function (include/tvm/ffi/function.h
 * FunctionObj::CallPacked). Calling TVMFFIFunctionCall instead would chain three
 * indirect jumps per call (the PLT stub into libtvm_ffi, TVMFFIFunctionCall's jump, the
 * safe call), which makes packed calls bimodal; docs/benchmarks.md (packed calls) has
 * the figures. */
DH__INTERNAL int dh__func_call_failed(int rc);
DH__INTERNAL int dh__func_call_bad_args(int32_t num_args, const dh_any_t* args);
static inline int dh__func_call_fast(void* handle, const dh_any_t* args, int32_t num_args,
                                     dh_any_t* out_result) {
  dh_any_t scratch;
  dh_any_t* rv = out_result != NULL ? out_result : &scratch;
  rv->type_index = DH_TYPE_NONE;
  rv->zero_padding = 0;
  rv->v_uint64 = 0;
  if (__builtin_expect(num_args < 0 || (num_args > 0 && args == NULL), 0))
    return dh__func_call_bad_args(num_args, args);
  const TVMFFIFunctionCell* cell = (const TVMFFIFunctionCell*)((char*)handle + sizeof(TVMFFIObject));
  int rc = cell->safe_call(handle, (const TVMFFIAny*)(const void*)args, num_args, (TVMFFIAny*)rv);
  if (__builtin_expect(rc != 0, 0)) return dh__func_call_failed(rc);
  if (rv == &scratch) dh_any_release(&scratch);
  return 0;
}

/* Writes "[a, b, c]" for n int64 values into buf (truncated to size). Returns buf. */
DH__INTERNAL const char* dh__format_int64s(const int64_t* v, int n, char* buf, size_t size);

/* func_meta.c: the metadata JSON ({"type_schema": ...}, malloc'd, *out_metadata) and
 * docstring (static) of the module function fn_name as backend.h documents it; both
 * NULL for a function backend.h does not document. -1 with the error when out of
 * memory. */
DH__INTERNAL int dh__func_meta(const char* fn_name, char** out_metadata, const char** out_doc);

#endif /* DEVHARNESS_RUNTIME_INTERNAL_H_ */
