/*
 * backends/tvm/tvm_backend.c — the tvm plugin's entry and vtables: TVM DeviceAPIs as
 * devharness devices, so the conformance suite and the benchmarks can be held against
 * the DeviceAPI TVM (or a backend author) wrote. See backends/tvm/README.md.
 *
 * One plugin, libdevharness_tvm.so, serves device sets (tvm_libs.c finds them): TVM's
 * own DeviceAPIs (tvm-cpu from libtvm_runtime.so, tvm-cuda from libtvm_runtime_cuda.so),
 * every device_api.<name> of the libraries of its option --tvm-lib and of the TVM RPC
 * servers of --rpc (ABI 1.6 options, tvm_options.c; DEVHARNESS_TVM_LIBS and
 * DEVHARNESS_TVM_RPC are their fallbacks). dh_backend_entry gives set 0 (tvm-cpu),
 * which declares the options; more_backends (ABI 1.3) the others, once the options
 * are given. Every set has the same entries but its lifecycle ones (init,
 * unavailable_reason, device_count, query_caps), which take no device and so are one
 * small function per slot of dh_tvm_sets.
 *
 * Nothing TVM does is corrected here: every entry is TVM's answer, reached through
 * tvm_adapter.cc. No set declares capabilities: query_caps (ABI 1.5) asks its DeviceAPI
 * after init (tvm_device.c dh_tvm_set_caps). Where TVM departs from TVM's documented
 * contract, the conformance suite says so (targets/waivers/tvm-*.json records the
 * departures with upstream file:line).
 *
 * Loading (a set's init, once per process): libtvm_ffi.so and libtvm_runtime.so by path
 * from $DEVHARNESS_TVM_FFI_ROOT/lib and $DEVHARNESS_TVM_ROOT/lib (defaults: the project
 * venv's packages, set at build), the set's own library, then the adapter <plugin
 * folder>/tvm/libdh_tvm_adapter.so ($DEVHARNESS_TVM_ADAPTER overrides). Any failure
 * leaves a set with no device whose unavailable_reason says which file and why; every
 * clause then SKIPs with that reason.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "devharness/backend.h"

#include "backends/tvm/tvm_internal.h"

#define SET_ENTRIES(i)                                                                  \
  static int set_init_##i(void) { return dh_tvm_set_init(i); }                          \
  static const char* set_reason_##i(void) { return dh_tvm_set_reason(i); }              \
  static int set_count_##i(int32_t* out) { return (*out = dh_tvm_set_count(i)), 0; }    \
  static int set_caps_##i(uint32_t* out) { return dh_tvm_set_caps(i, out); }
SET_ENTRIES(0)
SET_ENTRIES(1)
SET_ENTRIES(2)
SET_ENTRIES(3)
SET_ENTRIES(4)
SET_ENTRIES(5)
SET_ENTRIES(6)
SET_ENTRIES(7)
SET_ENTRIES(8)
SET_ENTRIES(9)
SET_ENTRIES(10)
SET_ENTRIES(11)
#define SET_ROW(i) {set_init_##i, set_reason_##i, set_count_##i, set_caps_##i}
static const struct {
  int (*init)(void);
  const char* (*reason)(void);
  int (*count)(int32_t*);
  int (*caps)(uint32_t*);
} k_set_entries[DH_TVM_MAX_SETS] = {SET_ROW(0), SET_ROW(1), SET_ROW(2), SET_ROW(3), SET_ROW(4),  SET_ROW(5),
                                    SET_ROW(6), SET_ROW(7), SET_ROW(8), SET_ROW(9), SET_ROW(10), SET_ROW(11)};

static size_t more_backends(const dh_backend_t** out, size_t max, dh_backend_refuse_fn refuse);

/* What every set shares: the entries of this folder (TVM's DeviceAPI has no kernels,
 * so no module functions: the packed clauses skip). */
static const dh_backend_t k_shared = {
    DH_BACKEND_HEADER_FIELDS,
    .get_attr = dh_tvm_get_attr,
    .get_target_property = dh_tvm_get_target_property,
    .set_device = dh_tvm_set_device,
    DH_BACKEND_BIND_MEMORY_ENTRIES(dh_tvm),
    DH_BACKEND_BIND_WORKSPACE_ENTRIES(dh_tvm),
    DH_BACKEND_BIND_STREAM_ENTRIES(dh_tvm),
    /* the clauses' DLTensors reach TVM's CopyDataFromTo(DLTensor*) as built (ABI 1.4) */
    .copy_tensor_from_to = dh_tvm_copy_tensor_from_to,
    .default_profile = "tvm",
};

/* Set i's backend: the shared entries, its identity and its lifecycle. */
static void fill_backend(int i) {
  dh_tvm_set_t* s = &dh_tvm_sets[i];
  dh_backend_t* b = &s->backend;
  *b = k_shared;
  b->name = s->name;
  b->description = s->description;
  b->device_type = s->dh_type;
  /* streams keyed by TVM's own type in tvm-ffi's environment (0 for an RPC set, whose
   * type is known only once init has connected: its own type then) */
  b->ffi_device_type = s->tvm_type;
  b->caps = 0;                           /* none assumed: */
  b->query_caps = k_set_entries[i].caps; /* asked of the DeviceAPI at init (ABI 1.5) */
  /* TVM's own non-CPU sets are held to the target kind of their name (tvm-cuda: cuda);
   * TVM's CPU DeviceAPI answers none of the cpu kind's device attributes (GetAttr:
   * apache/tvm 0.27 src/runtime/cpu_device_api.cc:55-94: kExist and kTotalGlobalMemory), so tvm-cpu to none */
  b->target_kind = s->own_lib[0] && s->tvm_type != kDLCPU ? s->name + strlen("tvm-") : NULL;
  b->init = k_set_entries[i].init;
  b->unavailable_reason = k_set_entries[i].reason;
  b->device_count = k_set_entries[i].count;
  /* the raw twin of TVM's own CPU set is what its CopyDataFromTo does (tvm_raw.c); the
   * cuda backend's CUDA-driver twin is the raw API of the GPU under tvm-cuda */
  b->raw = s->own_lib[0] && s->tvm_type == kDLCPU ? &dh_tvm_raw_twin : NULL;
  if (i == 0) { /* the plugin's own struct lists the others and takes the options (ABI 1.6) */
    b->more_backends = more_backends;
    b->options = dh_tvm_options;
    b->num_options = DH_TVM_NUM_OPTIONS;
    b->set_option = dh_tvm_set_option;
  }
}

/* ABI 1.3: every set but 0, TVM's own first. */
static size_t more_backends(const dh_backend_t** out, size_t max, dh_backend_refuse_fn refuse) {
  int before = dh_tvm_num_sets;
  dh_tvm_find_more_sets(refuse);
  for (int i = before; i < dh_tvm_num_sets; i++) fill_backend(i);
  size_t n = 0;
  for (int i = 1; i < dh_tvm_num_sets && n < max; i++) out[n++] = &dh_tvm_sets[i].backend;
  return n;
}

__attribute__((visibility("default"))) const dh_backend_t* dh_backend_entry(void) {
  static int filled; /* once per process: a plugin loaded again keeps its sets */
  if (!filled) {
    dh_tvm_find_own_sets();
    for (int i = 0; i < dh_tvm_num_sets; i++) fill_backend(i);
    filled = 1;
  }
  return &dh_tvm_sets[0].backend;
}
