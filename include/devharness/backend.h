/*
 * devharness/backend.h — the plugin ABI: what a backend implements.
 *
 * The one header a backend author needs. A backend is a shared object
 * `libdevharness_<name>.so` exporting `const dh_backend_t* dh_backend_entry(void);`
 * (symbol DH_BACKEND_ENTRY_SYMBOL), returning a pointer to a static dh_backend_t that
 * lives until the plugin is unloaded. The struct is TVM's DeviceAPI (apache/tvm v0.27.0
 * include/tvm/runtime/device_api.h; the contract as tested: docs/contract.md) as a C
 * vtable, plus capability flags, module functions and optional benchmark hooks.
 * backends/sim/ is the reference implementation to copy.
 *
 * Versioning (OpenXLA PJRT C API's rules; docs/contract.md §Plugin ABI): the struct
 * starts with struct_size, abi_major and abi_minor. The loader refuses a plugin whose
 * abi_major differs from DH_BACKEND_ABI_MAJOR or whose struct_size is smaller than
 * DH_BACKEND_SIZE_V1_0 (0 included); a newer abi_minor is accepted; fields past an
 * older plugin's struct_size read as NULL/0 (absent). Fields are only ever appended.
 *
 * Errors: every entry returns 0, or -1 after dh_error_set() (devharness/error.h); it
 * never aborts the process on bad input.
 *
 * Threading: the core calls init once (serialised) before any other entry but the
 * loader's set_option (ABI 1.6) and more_backends (ABI 1.3), lazily on first use, so
 * a process may fork before init (the conformance runner does). After
 * init, every entry except shutdown may be called from any thread concurrently; a
 * backend serialises internally where its API needs it.
 *
 * Memory handles: a pointer returned by alloc_data_space is opaque unless caps has
 * DH_CAP_HOST_POINTER_ARITHMETIC (TVM's SupportsDevicePointerArithmeticsOnHost):
 * callers pass offsets in DLTensor.byte_offset / the copy offsets, never add them to
 * the pointer.
 */
#ifndef DEVHARNESS_BACKEND_H_
#define DEVHARNESS_BACKEND_H_

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#include "devharness/any.h"
#include "devharness/error.h"
#include "devharness/function.h"

#ifdef __cplusplus
extern "C" {
#endif

/*===========================================================================
 * Versions and constants
 *===========================================================================*/

#define DH_BACKEND_ABI_MAJOR 1
#define DH_BACKEND_ABI_MINOR 6
/* Name of the exported entry symbol. */
#define DH_BACKEND_ENTRY_SYMBOL "dh_backend_entry"
/* Device types (dh_backend_t.device_type). 1..DH_DEVICE_TYPE_OUT_OF_TREE_FIRST-1 are
 * DLPack's and TVM's types and this tree's backends (cpu 1, cuda 2, opencl 4, vulkan 7,
 * sim 12, tvm-* 48 + TVM's type; test plugins 13..47). DH_DEVICE_TYPE_OUT_OF_TREE_FIRST
 * ..DH_DEVICE_TYPE_OUT_OF_TREE_LAST (64..127) are for backends built outside this tree:
 * a fixed one there never collides with DLPack, TVM or an in-tree backend. Or declare
 * DH_DEVICE_TYPE_ASSIGN (0, ABI 1.2) and the loader serves the backend under the lowest
 * type of that range no loaded backend serves (in load order), so any number of copies
 * of backends/skeleton load side by side; the backend reads its type with
 * dh_backend_served_device_type. The loader refuses a device_type outside
 * 0..DH_DEVICE_TYPE_OUT_OF_TREE_LAST (0 only from an ABI >= 1.2 plugin), one already
 * served, and an assignment with every type of the range taken, each with one line
 * naming the plugin file (docs/adding-a-backend.md "Device type"). */
#define DH_DEVICE_TYPE_ASSIGN 0
#define DH_DEVICE_TYPE_OUT_OF_TREE_FIRST 64
#define DH_DEVICE_TYPE_OUT_OF_TREE_LAST 127
/* TVM kAllocAlignment: minimum alignment of data space, bytes. */
#define DH_ALLOC_ALIGNMENT 64
/* TVM kTempAllocaAlignment: alignment of workspaces, bytes. */
#define DH_TEMP_ALLOC_ALIGNMENT 64

/* Opaque stream handle. NULL is the device's default stream (docs/contract.md §Streams). */
typedef void* dh_stream_t;
/* Opaque event handle (DH_CAP_EVENT_TIMING). */
typedef void* dh_event_t;

/*===========================================================================
 * Attribute kinds — TVM's DeviceAttrKind, same numbers (docs/contract.md §Attributes)
 *===========================================================================*/

/* Value types: INT -> DH_TYPE_INT; STR -> DH_TYPE_RAW_STR; JSON -> DH_TYPE_RAW_STR
 * holding JSON. An attribute the device does not report is None (not an error). */
typedef enum dh_attr_kind {
  DH_ATTR_EXIST = 0,                        /* Int 0/1; never an error, 0 past the last device */
  DH_ATTR_MAX_THREADS_PER_BLOCK = 1,        /* Int */
  DH_ATTR_WARP_SIZE = 2,                    /* Int */
  DH_ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 3,  /* Int, bytes */
  DH_ATTR_COMPUTE_VERSION = 4,              /* Str "major.minor" */
  DH_ATTR_DEVICE_NAME = 5,                  /* Str */
  DH_ATTR_MAX_CLOCK_RATE = 6,               /* Int, kHz */
  DH_ATTR_MULTI_PROCESSOR_COUNT = 7,        /* Int */
  DH_ATTR_MAX_THREAD_DIMENSIONS = 8,        /* Str, JSON "[x, y, z]" of 3 positive ints */
  DH_ATTR_MAX_REGISTERS_PER_BLOCK = 9,      /* Int */
  DH_ATTR_GCN_ARCH = 10,                    /* Str (ROCm only) */
  DH_ATTR_API_VERSION = 11,                 /* Int, SDK version compiled against */
  DH_ATTR_DRIVER_VERSION = 12,              /* Str */
  DH_ATTR_L2_CACHE_SIZE_BYTES = 13,         /* Int, bytes */
  DH_ATTR_TOTAL_GLOBAL_MEMORY = 14,         /* Int, bytes */
  DH_ATTR_AVAILABLE_GLOBAL_MEMORY = 15,     /* Int, bytes free now */
  DH_ATTR_IMAGE_PITCH_ALIGNMENT = 16,       /* Int, bytes */
  DH_ATTR_KIND_COUNT = 17                   /* number of kinds; kinds >= this are invalid */
} dh_attr_kind_t;

/*===========================================================================
 * Capability flags (dh_backend_t.caps)
 *===========================================================================*/

/* One queue per device: create_stream returns NULL (TVM: CreateStream may return
 * nullptr); stream clauses that need two queues are skipped. */
#define DH_CAP_SINGLE_QUEUE (1u << 0)
/* Data-space pointers are host addresses; pointer arithmetic is allowed (TVM
 * SupportsDevicePointerArithmeticsOnHost) and alignment is checkable. More than TVM's
 * flag, which promises the arithmetic only (TVM's CUDA DeviceAPI answers true for
 * device addresses): clause cap.host_pointer reads bytes through such a pointer. */
#define DH_CAP_HOST_POINTER_ARITHMETIC (1u << 1)
/* copy_data_from_to may return before the copy is done (it is queued on the stream);
 * clause cap.async_copy checks it with a D2H into host memory from alloc_host when
 * DH_CAP_PINNED_HOST is claimed (a D2H into pageable memory returns once done on CUDA),
 * else into malloc'd memory. */
#define DH_CAP_ASYNC_COPY (1u << 2)
/* event_create/record/elapsed/free are provided (device-side timing). */
#define DH_CAP_EVENT_TIMING (1u << 3)
/* alloc_host/free_host give pinned (page-locked) host memory. */
#define DH_CAP_PINNED_HOST (1u << 4)
/* Every flag above; query_caps (ABI 1.5) may answer no other bit. */
#define DH_CAP_ALL (DH_CAP_SINGLE_QUEUE | DH_CAP_HOST_POINTER_ARITHMETIC | DH_CAP_ASYNC_COPY | \
                    DH_CAP_EVENT_TIMING | DH_CAP_PINNED_HOST)

/*===========================================================================
 * Module functions every backend provides (packed calls, devharness/function.h)
 *===========================================================================
 * Registered by the loader as "<backend>.<name>" in the global registry.
 *
 * "noop"  (Device dev) -> None
 *     Enqueues an empty kernel on the calling thread's current stream of dev and
 *     returns without waiting. Errors: missing/wrong argument -> TypeError.
 * "fill"  (DLTensorPtr dst, Int value) -> None
 *     (dst: a DLTensorPtr or a tvm-ffi Tensor; read it with dh_any_as_tensor)
 *     Enqueues a kernel on the calling thread's current stream of dst->device that
 *     writes (uint32_t)value to every 4-byte word of dst's bytes [byte_offset,
 *     byte_offset + nbytes(dst)). dst must be contiguous, byte_offset and nbytes
 *     multiples of 4, else ValueError. Returns without waiting (single-queue backends
 *     may complete it before returning).
 * "echo"  (Int index, any...) -> args[1 + index]
 *     Returns an owned copy of the argument at `index` (dh_any_copy: PODs and
 *     objects unchanged, a RawStr as Str/SmallStr of the same bytes, a ByteArrayPtr
 *     as Bytes/SmallBytes), as tvm-ffi callers require.
 *     IndexError when index is out of range; TypeError when args[0] is not Int.
 * "raise" (Str kind, Str message) -> error
 *     Returns -1 with exactly that kind and message raised (any string form:
 *     RawStr, SmallStr, Str); a tvm-ffi caller sees that exception kind.
 */
#define DH_FUNC_NOOP "noop"
#define DH_FUNC_FILL "fill"
#define DH_FUNC_ECHO "echo"
#define DH_FUNC_RAISE "raise"
/* Optional: (Device dev) -> Float, the device memory's peak bandwidth in bytes/s
 * (reads + writes together, e.g. memory clock x 2 (DDR) x bus width / 8), from the
 * device's attributes where the API reports them (cuda: CU_DEVICE_ATTRIBUTE_MEMORY_
 * CLOCK_RATE, GLOBAL_MEMORY_BUS_WIDTH). Used by `devharness bench` and plot to draw and
 * quote the ceiling of device-to-device copies; a backend that cannot tell omits it. */
#define DH_FUNC_MEMORY_PEAK_BANDWIDTH "memory_peak_bandwidth"
/* Optional: (Device dev) -> Str, the PCI function of the device as sysfs names it,
 * "dddd:bb:dd.f" (lower-case hex: domain, bus, device, function), or "" for a device
 * whose memory is host memory (an OpenCL or Vulkan CPU device). The string is owned by
 * the backend and stays valid until it shuts down. An error when the API cannot tell
 * (no cl_khr_pci_bus_info / VK_EXT_pci_bus_info). Sources: cuDeviceGetPCIBusId,
 * CL_DEVICE_PCI_BUS_INFO_KHR, VkPhysicalDevicePCIBusInfoPropertiesEXT. Used by
 * `devharness bench` to find the device's host link in sysfs (current_link_speed,
 * current_link_width of /sys/bus/pci/devices/<id>/) for the H2D/D2H ceiling. */
#define DH_FUNC_PCI_BUS_ID "pci_bus_id"
/* Optional: "trap" (Device dev) -> None. Enqueues on the calling thread's current
 * stream of dev a kernel that fails on the device (as a kernel that traps or faults
 * does) and returns 0 without waiting; work queued on that stream before it completes
 * normally. The failure surfaces at the next stream_sync of that stream: -1 with an
 * error (any kind, a message that names the failure), and that sync alone reports it;
 * the sync of another stream does not. After it was reported the stream and the device
 * work normally again (the next sync returns 0). A backend that runs kernels
 * synchronously may return the error from the call itself instead. A backend that
 * cannot provoke a recoverable device-side failure (e.g. one whose device errors
 * poison the context, as CUDA's sticky errors do) omits it, and the clauses that use
 * it (stream.error_at_sync, packed.device_failure) are skipped with that reason.
 * Errors: missing/wrong argument -> TypeError. */
#define DH_FUNC_TRAP "trap"
/* Optional: "peer_access" (Device dev, Int peer_device_id) -> Str: whether dev can
 * address the memory of device peer_device_id of the same backend directly, in words
 * for a report ("yes (cuDeviceCanAccessPeer = 1)", "no (...): copies go through host
 * memory"). Used by `devharness bench --suite matrix` to state the peer access of
 * every copy between two device ids of one backend (cuda: cuDeviceCanAccessPeer); a
 * backend that cannot tell omits it. Errors: missing/wrong argument -> TypeError,
 * peer_device_id out of range -> IndexError. */
#define DH_FUNC_PEER_ACCESS "peer_access"
/* Optional: "launch" (OpaquePtr kernel, OpaquePtr ctx, DLTensorPtr t0, ... at most 8
 * tensors) -> None. How a kernel library built with tvm-ffi's C++ API runs a kernel on
 * a device it has no other way into (the sim): queues kernel(ctx, ptrs, n) on the
 * calling thread's environment stream of t0's device (TVMFFIEnvGetStream), where
 * kernel is `void (*)(void* ctx, void* const* ptrs, int32_t n)` and ptrs[i] the host
 * address of tensor i's first element (data + byte_offset) as the device's worker
 * sees it; returns without waiting. Every tensor must be on t0's device and lie, with
 * its strides, inside its buffer. ctx is borrowed until the kernel has run.
 * Errors: wrong argument types -> TypeError; a tensor on another device, out of its
 * buffer or an unknown handle -> ValueError. The sim provides it
 * (backends/sim/sim_launch.c; docs/kernel-libraries.md). */
#define DH_FUNC_LAUNCH "launch"
/* Optional: "kernel_log" (Device dev, Int i) -> Int | OpaquePtr. The stream log of
 * `launch`: i < 0 gives the number of kernels launched on dev so far; 0 <= i < that
 * number gives the stream (the environment stream handle, NULL = default) launch i was
 * queued on, for the last 64 launches (older ones: IndexError). Used by `devharness
 * module check` (case module.env_stream). */
#define DH_FUNC_KERNEL_LOG "kernel_log"

/* Reference implementations of "echo" and "raise" with exactly the semantics above. They have nothing device-specific in
 * them, so a backend normally lists these in its function table:
 *   {DH_FUNC_ECHO, dh_backend_func_echo}, {DH_FUNC_RAISE, dh_backend_func_raise}
 * Thread-safe; self and result as for any safe call (runtime/backend_funcs.c). */
int dh_backend_func_echo(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result);
int dh_backend_func_raise(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result);

/* The device type the loaded backend named `name` is served under: its struct's
 * device_type, or, for a backend that declared DH_DEVICE_TYPE_ASSIGN, the type the
 * loader assigned it from DH_DEVICE_TYPE_OUT_OF_TREE_FIRST..LAST when it loaded (ABI
 * 1.2). A backend calls it with its own name in init (the loader has assigned the type
 * by then; init runs after load) and checks DLDevice.device_type against the result.
 * Returns -1, and sets no error, when no backend of that name is loaded or name is
 * NULL. Thread-safe and lock-free (it may be called from init while another plugin
 * loads). Source:
 * runtime/plugin.c. */
int32_t dh_backend_served_device_type(const char* name);

/* One named module function of a backend. */
typedef struct dh_backend_function {
  const char* name;   /* e.g. DH_FUNC_FILL; static storage */
  dh_safe_call_t call;/* self carries nothing: ignore it (devharness registers a
                         wrapper that runs the backend's init once, then calls this
                         with self NULL; so a first call from Python's tvm_ffi or TVM,
                         before any dh_device_* call, finds the backend initialised) */
} dh_backend_function_t;

/*===========================================================================
 * Raw twins: the same operation through the vendor API directly (benchmarks)
 *===========================================================================*/

typedef enum dh_raw_op {
  DH_RAW_COPY_H2D = 1,   /* host buffer -> device buffer, nbytes */
  DH_RAW_COPY_D2H = 2,   /* device buffer -> host buffer, nbytes */
  DH_RAW_COPY_D2D = 3,   /* device buffer -> another device buffer, nbytes */
  DH_RAW_STREAM_SYNC = 4,/* wait for an idle queue; nbytes ignored */
  DH_RAW_LAUNCH = 5,     /* enqueue the empty kernel; nbytes ignored */
  DH_RAW_COPY_BIDIR = 6  /* an H2D and a D2H of nbytes each at once, on two queues /
                          * streams where the API has them (nvbandwidth's
                          * bidirectional test); twins without it: NotImplementedError */
} dh_raw_op_t;

/* Flags for dh_raw_twin_t.setup. */
/* Use pinned host memory where the API has it. */
#define DH_RAW_PINNED (1u << 0)
/* H2D and BIDIR (its H2D): give the harness's contract — the host source may be
 * overwritten as soon as each copy has been issued (conformance clause
 * copy.host_source_released; TVM's CopyDataFromTo rule). Without it a twin may read
 * the source until run() returns (the fastest use of the API). Twins for which both
 * are the same ignore it. */
#define DH_RAW_HOST_SOURCE_RELEASED (1u << 1)

/* Vendor-API twin of copy/sync/launch. All entries 0/-1 with dh_error_set. */
typedef struct dh_raw_twin {
  size_t struct_size;   /* sizeof(dh_raw_twin_t) the plugin was built with */
  const char* api_name; /* "memcpy", "OpenCL", "Vulkan", "CUDA driver"; static */
  /* Allocates what op needs on dev (buffers of nbytes, queue, kernel) and returns a
   * context owned by the backend until teardown. -1 with "NotImplementedError" for an
   * op the twin lacks. */
  int (*setup)(DLDevice dev, dh_raw_op_t op, size_t nbytes, uint32_t flags, void** out_ctx);
  /* Performs op `repeat` times back to back, then waits once for completion. Every
   * buffer setup makes is written before run is first called (no zero-page reads). If
   * out_device_ms is not NULL and the API has timers, stores device time of the whole
   * batch in ms, else stores -1. */
  int (*run)(void* ctx, uint32_t repeat, double* out_device_ms);
  /* Frees everything setup made. NULL is a no-op. */
  void (*teardown)(void* ctx);
  /* DH_RAW_COPY_BIDIR: which copy run() issues first, and so the order in which the
   * bench issues the harness's pair (like for like). 0 = the D2H first: under TVM's
   * host-source rule an H2D returns only once its source is consumed while a D2H
   * returns once queued (OpenCL's blocking write). DH_RAW_BIDIR_PAGEABLE_H2D_FIRST =
   * the H2D first when the host buffers are pageable (no DH_RAW_PINNED): the API's
   * D2H into pageable memory returns only once done (CUDA Runtime API 13.0, "API
   * synchronization behavior") while the harness's H2D returns once staged. Read only
   * when struct_size covers it (older plugins: 0). */
  uint32_t bidir_order;
} dh_raw_twin_t;

/* dh_raw_twin_t.bidir_order: with pageable host memory, issue the H2D of a
 * bidirectional copy first (pinned: the D2H first, as with 0). */
#define DH_RAW_BIDIR_PAGEABLE_H2D_FIRST 1u

/* DH_RAW_TWIN(api_name, setup, run, teardown): the initialiser of a backend's raw
 * twin, written in its <backend>_raw.c (names: docs/adding-a-backend.md "Names", the
 * twin is dh_<backend>_raw_twin):
 *     const dh_raw_twin_t dh_foo_raw_twin =
 *         DH_RAW_TWIN("Foo", dh_foo_raw_setup, dh_foo_raw_run, dh_foo_raw_teardown);
 * It expands to the braced list
 *     {.struct_size = sizeof(dh_raw_twin_t), .api_name = api_name, .setup = setup,
 *      .run = run, .teardown = teardown}
 * so struct_size is always the size this header gives and every optional field
 * (bidir_order) is 0. A twin that sets an optional field writes the braces itself
 * around DH_RAW_TWIN_FIELDS, the same designators without the braces:
 *     const dh_raw_twin_t dh_foo_raw_twin = {
 *         DH_RAW_TWIN_FIELDS("Foo", raw_setup, raw_run, raw_teardown),
 *         .bidir_order = DH_RAW_BIDIR_PAGEABLE_H2D_FIRST,
 *     };
 * The functions may be static (the twin is defined in the file that defines them) or
 * shared ones (backends/common/host_memcpy_twin.h). Constant expressions only: the
 * twin is a static-storage constant. */
#define DH_RAW_TWIN_FIELDS(api_name_, setup_, run_, teardown_)                      \
  .struct_size = sizeof(dh_raw_twin_t), .api_name = (api_name_), .setup = (setup_), \
  .run = (run_), .teardown = (teardown_)
#define DH_RAW_TWIN(api_name_, setup_, run_, teardown_) \
  { DH_RAW_TWIN_FIELDS(api_name_, setup_, run_, teardown_) }

/*===========================================================================
 * The backend struct
 *===========================================================================*/

/* How a plugin's more_backends (ABI 1.3, below) records a refusal: origin is the file
 * it gave up on, message one line naming it and why. */
typedef void (*dh_backend_refuse_fn)(const char* origin, const char* message);

/* ABI 1.6: one option a backend takes (dh_backend_t.options), its configuration
 * channel: a command offers it as `--<name> <value_name>` in its shared device-option
 * group (cmdline/) with `help` in its --help; a program gives it with
 * dh_backend_option_set (device_api.h "Backend options"); either way the value
 * reaches the backend's set_option before its more_backends and init. Every string
 * is static storage of the plugin (living until it is unloaded), never freed by the
 * core. The loader refuses (ABIError naming the file) a table whose entry breaks a
 * rule below, whose names repeat, or whose name another loaded plugin declares. The
 * layout is fixed for ABI 1.x: a later field would come as a new table. */
typedef struct dh_backend_option {
  const char* name;       /* "tvm-lib": [a-z][a-z0-9-]*, at most 31 bytes */
  const char* value_name; /* "PATH": the value's name in usage lines; not empty */
  const char* help;       /* one paragraph, not empty, no newline: the command wraps it
                             at its help column (e.g. "a library with TVM DeviceAPIs
                             ...: its devices are tvm-<name>:N (repeatable; ...)") */
  uint32_t flags;         /* DH_BACKEND_OPTION_*; no other bit */
} dh_backend_option_t;

/* dh_backend_option_t.flags: the option may be given more than once; each value
 * reaches set_option in the order given (usage lines add "..."). Without it a second
 * value is refused before set_option sees it (ValueError). */
#define DH_BACKEND_OPTION_REPEATABLE (1u << 0)
/* dh_backend_option_t.flags: the option is a program's to give, not the user's: a
 * command's device-option group leaves it out (no `--<name>`, no help line); a program
 * gives it with dh_backend_option_set (`devharness bench` gives the opencl backend's
 * pocl-affinity from its --pin). The rules of every option hold for it. */
#define DH_BACKEND_OPTION_UNLISTED (1u << 1)
/* Every flag above. */
#define DH_BACKEND_OPTION_FLAGS_ALL (DH_BACKEND_OPTION_REPEATABLE | DH_BACKEND_OPTION_UNLISTED)
/* Most options one plugin may declare (dh_backend_t.num_options). */
#define DH_BACKEND_MAX_OPTIONS 16

typedef struct dh_backend {
  /*-- header (never moves) --*/
  size_t struct_size;   /* sizeof(dh_backend_t) the plugin was compiled with */
  uint16_t abi_major;   /* DH_BACKEND_ABI_MAJOR */
  uint16_t abi_minor;   /* DH_BACKEND_ABI_MINOR */
  uint32_t reserved;    /* 0 */

  /*-- identity --*/
  const char* name;        /* "sim": [a-z][a-z0-9_-]*, registered as devharness.device_api.<name> */
  const char* description; /* one line for `devharness info`; may be NULL */
  int32_t device_type;     /* DLDeviceType served (sim: kDLExtDev); unique per process */
  uint32_t caps;           /* DH_CAP_*, as declared (never rewritten); what the backend
                              has is dh_device_caps(backend) (device_api.h) */
  const char* target_kind; /* target kind checked against this backend's devices
                              ("cpu", "sim", "opencl", ...); NULL = none */
  const char* target_kind_json; /* optional JSON definition of target_kind for kinds
                              devharness does not ship (targets/kinds/ format); NULL */

  /*-- lifecycle --*/
  /* Called once before any other entry. Returns 0 when the plugin works, even with no
   * device (then unavailable_reason says why); -1 if it cannot work at all (the error
   * message becomes the reason). Required. */
  int (*init)(void);
  /* Releases everything; called at most once, after all other calls. May be NULL. */
  void (*shutdown)(void);
  /* After init: NULL when the backend has >= 1 device; else a one-line reason
   * ("libcuda.so.1 not found", "no OpenCL platform"). Static/backend-owned. Required. */
  const char* (*unavailable_reason)(void);

  /*-- DeviceAPI: attributes (TVM GetAttr / GetTargetProperty) --*/
  /* Stores the attribute in *out_value (None when not reported). kind DH_ATTR_EXIST
   * never fails (0 for any id without a device). Invalid id for other kinds ->
   * IndexError; kind >= DH_ATTR_KIND_COUNT -> ValueError. Strings are backend-owned
   * and live until shutdown. Required. */
  int (*get_attr)(DLDevice dev, int32_t kind, dh_any_t* out_value);
  /* Stores the live value of target option `name` (the backend's target kind) or
   * None when it cannot tell. Used by `targets detect` and attr.target_match. May be
   * NULL (no properties). Strings backend-owned. */
  int (*get_target_property)(DLDevice dev, const char* name, dh_any_t* out_value);

  /*-- DeviceAPI: device --*/
  /* TVM SetDevice: makes dev current for the calling thread. Invalid id -> IndexError.
   * Required. */
  int (*set_device)(DLDevice dev);

  /*-- DeviceAPI: memory --*/
  /* TVM AllocDataSpace: nbytes >= 0 (0 gives a valid, freeable handle or NULL),
   * alignment a power of two (>= DH_ALLOC_ALIGNMENT honoured). Too large ->
   * OutOfMemoryError and the device keeps working. Required. */
  int (*alloc_data_space)(DLDevice dev, size_t nbytes, size_t alignment,
                          DLDataType type_hint, void** out_ptr);
  /* TVM FreeDataSpace. ptr NULL is a no-op. Work still queued on ptr completes (a copy
   * reading it lands, one writing it does not land in a later allocation: the storage
   * is reused only once that work is done). Required. */
  int (*free_data_space)(DLDevice dev, void* ptr);
  /* TVM AllocWorkspace / FreeWorkspace: scratch memory, need not be host-transferable.
   * NULL: the core uses alloc/free_data_space with DH_TEMP_ALLOC_ALIGNMENT. */
  int (*alloc_workspace)(DLDevice dev, size_t nbytes, DLDataType type_hint, void** out_ptr);
  int (*free_workspace)(DLDevice dev, void* ptr);
  /* Pinned host memory for benchmarks (DH_CAP_PINNED_HOST). Host-addressable bytes.
   * NULL when absent. */
  int (*alloc_host)(DLDevice dev, size_t nbytes, void** out_ptr);
  int (*free_host)(DLDevice dev, void* ptr);

  /*-- DeviceAPI: copies --*/
  /* TVM's flat CopyDataFromTo: copies nbytes from (from + from_offset) on dev_from to
   * (to + to_offset) on dev_to, queued on `stream` of the non-CPU device (NULL =
   * default stream, also when another stream is current). The core has already
   * checked shapes, dtypes, contiguity and equal sizes (devharness/device_api.h
   * dh_device_copy_data_from_to). Host pointers are
   * (void*) host addresses; device pointers are handles from alloc_data_space and the
   * offsets are applied by the backend. A host source must not be read after the call
   * returns (copy it or finish the copy first); a host destination is valid after
   * stream_sync. nbytes 0 is a no-op. Required. */
  int (*copy_data_from_to)(const void* from, size_t from_offset, void* to, size_t to_offset,
                           size_t nbytes, DLDevice dev_from, DLDevice dev_to,
                           DLDataType type_hint, dh_stream_t stream);

  /*-- DeviceAPI: streams --*/
  /* TVM CreateStream: *out_stream = new stream, or NULL for single-queue devices. */
  int (*create_stream)(DLDevice dev, dh_stream_t* out_stream);
  /* TVM FreeStream: pending work still completes. NULL is a no-op. */
  int (*free_stream)(DLDevice dev, dh_stream_t stream);
  /* TVM SetStream / GetCurrentStream: the current stream is per thread and per device;
   * a thread that never set one gets NULL (default stream). It is tvm-ffi's
   * environment stream: set_stream checks the handle, then dh_env_set_stream;
   * get_current_stream returns dh_env_get_stream (see "The current stream" below). */
  int (*set_stream)(DLDevice dev, dh_stream_t stream);
  int (*get_current_stream)(DLDevice dev, dh_stream_t* out_stream);
  /* TVM StreamSync: returns once all work queued on stream before the call is done. */
  int (*stream_sync)(DLDevice dev, dh_stream_t stream);
  /* TVM SyncStreamFromTo: work queued on dst after this call does not start until the
   * work queued on src before it is done. src == dst is a no-op; either may be NULL, the
   * default stream. Does not block the host (beyond what the API needs). */
  int (*sync_stream_from_to)(DLDevice dev, dh_stream_t src, dh_stream_t dst);

  /*-- module functions --*/
  const dh_backend_function_t* functions; /* num_functions entries, static */
  size_t num_functions;

  /*-- optional: device-side timing (DH_CAP_EVENT_TIMING); NULL when absent --*/
  int (*event_create)(DLDevice dev, dh_event_t* out_event);
  /* Queues a record of event on stream; recording it again moves it to the new
   * position (elapsed times and waits use its latest record, as cuEventRecord). */
  int (*event_record)(DLDevice dev, dh_event_t event, dh_stream_t stream);
  /* Waits for `end`, then stores end - start in milliseconds. */
  int (*event_elapsed_ms)(DLDevice dev, dh_event_t start, dh_event_t end, double* out_ms);
  int (*event_free)(DLDevice dev, dh_event_t event);

  /*-- optional: raw vendor-API twins for benchmarks; NULL when absent --*/
  const dh_raw_twin_t* raw;

  /*-- ABI 1.1: optional, NULL/0 in a 1.0 plugin --*/
  /* Conformance profile the backend's devices are held to when `--profile` is not
   * given: "tvm" or "strict" (NULL = "strict"). Bridges to an existing DeviceAPI that
   * devharness does not control (backends/tvm/) declare "tvm" so `devharness run` stays
   * green on a healthy machine while `--profile strict` still lists what it lacks. */
  const char* default_profile;
  /* Number of devices, for backends whose kExist cannot tell (TVM's CPU DeviceAPI
   * answers kExist 1 for every id: apache/tvm 0.27 src/runtime/cpu_device_api.cc:56-58).
   * After init; 0 with unavailable_reason() saying why when there is none. NULL: the
   * core probes kExist from id 0 up to the first 0 (dh_backend_device_count). */
  int (*device_count)(int32_t* out_count);

  /*-- ABI 1.3: optional, NULL in a 1.0, 1.1 or 1.2 plugin --*/
  /* More backends served by this plugin, found when it loads (backends/tvm/: one per
   * TVM DeviceAPI that the libraries of its option --tvm-lib register). Called once
   * by the loader, in the loading process, after the plugin's own struct was accepted
   * and registered, and, when the plugin declares options (ABI 1.6), after the values
   * given for them (set_option). Stores up to `max` structs in out (plugin-owned, living
   * until the plugin is unloaded) and returns how many; each is checked and registered
   * like a plugin's own struct (unique name and device type; a refused one becomes a
   * refusal of dh_plugin_refusal). `refuse(origin, message)` records, as a refusal,
   * something the plugin tried and gave up on (a library that would not load): origin
   * is the file, message one line naming it and why. */
  size_t (*more_backends)(const struct dh_backend** out, size_t max, dh_backend_refuse_fn refuse);
  /* The DLPack device type under which tvm-ffi's environment (TVMFFIEnvSetStream /
   * TVMFFIEnvGetStream) and TVM itself know this backend's devices, when it is not
   * device_type: a bridge that serves TVM's DeviceAPI for kDLCUDA under a type of its
   * own (backends/tvm/: tvm-cuda is type 50, TVM's is kDLCUDA = 2). dh_env_get_stream
   * and dh_env_set_stream key the stream by it, so a stream PyTorch or TVM sets for
   * (kDLCUDA, 0) is the current stream of tvm-cuda:0, as TVM's own GetCurrentStream
   * reads it (clause stream.env_copies). 0: device_type. */
  int32_t ffi_device_type;

  /*-- ABI 1.4: optional, NULL in a 1.0 to 1.3 plugin --*/
  /* TVM's tensor CopyDataFromTo(DLTensor* from, DLTensor* to, TVMStreamHandle stream)
   * (apache/tvm 0.27 include/tvm/runtime/device_api.h:194-203), for a backend that
   * checks tensors itself, as a bridge to an existing TVM DeviceAPI does
   * (backends/tvm/). When the non-CPU side's backend has it, dh_device_copy_data_from_to
   * hands it the caller's DLTensors as they are (shape, strides, dtype with lanes,
   * byte_offset; devharness device types, which the backend maps to its own) after
   * checking only that neither tensor is NULL, that shape is given for ndim > 0 and that
   * a tensor with elements has data; shape, stride, dtype and size rules are then the
   * backend's (a mismatch is the backend's error, any kind: TVM raises InternalError,
   * src/runtime/device_api.cc:146-150). Ordering, host-source and stream rules are those
   * of copy_data_from_to; copies between two CPU tensors never reach it. Borrowed
   * tensors, valid for the call only. NULL: the core checks and calls copy_data_from_to.
   * Clauses copy.size_mismatch and copy.non_contiguous test it (docs/contract.md). */
  int (*copy_tensor_from_to)(const DLTensor* from, const DLTensor* to, dh_stream_t stream);

  /*-- ABI 1.5: optional, NULL in a 1.0 to 1.4 plugin --*/
  /* The backend's capabilities (DH_CAP_*) as found by asking what it serves, for a
   * bridge that cannot know them when it is compiled: backends/tvm/ asks TVM's
   * DeviceAPI (CreateStream on device 0 gives NULL: DH_CAP_SINGLE_QUEUE;
   * SupportsDevicePointerArithmeticsOnHost: DH_CAP_HOST_POINTER_ARITHMETIC; apache/tvm
   * 0.27 include/tvm/runtime/device_api.h:209,293, src/runtime/device_api.cc:163).
   * Called once by the core right after init returned 0, before any other entry and
   * serialised like init: stores the flags in *out_caps and returns 0, or -1 with an
   * error, which makes init fail with it (no device; the message is the reason); a
   * flag outside DH_CAP_ALL is an ABIError the same way. The answer is what
   * dh_device_caps(backend) (device_api.h) gives in every process (a parent that never
   * inits gets it from dh_device_select's probe child); caps stays as declared. NULL:
   * the declared caps are the answer. */
  int (*query_caps)(uint32_t* out_caps);

  /*-- ABI 1.6: optional, NULL/0 in a 1.0 to 1.5 plugin --*/
  /* The options this plugin takes (dh_backend_option_t above): num_options entries
   * (at most DH_BACKEND_MAX_OPTIONS) of static storage; NULL/0: none. Read from the
   * plugin's own struct only (the structs of more_backends are configured through
   * it: the loader checks these three fields there as in any struct, then clears
   * them). With num_options > 0, set_option is required. */
  const dh_backend_option_t* options;
  size_t num_options;
  /* Takes one value of option `name` (one of options[], as declared; value as the
   * user gave it, never NULL, borrowed for the call only: copy what is kept). Called
   * by the loader from dh_backend_option_set, in the loading process, serialised with
   * loading, never concurrently with any other entry of the plugin, after its struct
   * was accepted and before its more_backends and init: values shape what the
   * plugin serves. Called once per value, in the order given (a repeatable option
   * accumulates). Returns 0, or -1 after dh_error_set with a message that says what
   * is wrong with the value, naming neither the option nor the value (the caller puts
   * "--<name> <value>: " in front, as a command's one-line usage error does; e.g.
   * "expected HOST:PORT (port 1..65535)"). A value the plugin cannot use until later
   * (a library that does not load) is not an error here: refuse it from
   * more_backends or init. Errors are the backend's kinds (ValueError is usual). */
  int (*set_option)(const char* name, const char* value);
} dh_backend_t;

/* Smallest struct_size the loader accepts: every required field, through
 * num_functions. The optional tail (event_*, raw) may lie past a plugin's
 * struct_size; the loader then reads those fields as NULL, as it will for any field a
 * later minor version appends. */
#define DH_BACKEND_SIZE_V1_0 (offsetof(dh_backend_t, num_functions) + sizeof(size_t))

/* Declaring and binding a backend's entries (DH_BACKEND_HEADER_FIELDS,
 * DH_BACKEND_DECLARE_*_ENTRIES, DH_BACKEND_BIND_*_ENTRIES): devharness/backend_entries.h. */
#include "devharness/backend_entries.h"

/*===========================================================================
 * The current stream: tvm-ffi's environment stream
 *===========================================================================
 * The calling thread's current stream of a device is tvm-ffi's environment stream
 * (TVMFFIEnvSetStream / TVMFFIEnvGetStream, apache-tvm-ffi 0.1.15
 * include/tvm/ffi/extra/c_env_api.h; TVM's CUDA DeviceAPI SetStream/GetCurrentStream
 * use the same), so a stream set by PyTorch, TVM or any tvm-ffi user is the one a
 * backend's kernels run on, and one set through devharness is what they read.
 * A backend's set_stream checks the handle and stores it with dh_env_set_stream; its
 * get_current_stream and its module functions ("noop", "fill") read
 * dh_env_get_stream. Per thread, per (device_type, device_id), where device_type is
 * the serving backend's ffi_device_type when it declares one (ABI 1.3), else the
 * device's own; NULL (the default stream) until set. Implemented by libdevharness, so a backend needs no tvm-ffi
 * header. */

/* The calling thread's environment stream of dev, NULL when none was set. Never
 * fails; thread-safe (thread-local). */
dh_stream_t dh_env_get_stream(DLDevice dev);

/* Sets the calling thread's environment stream of dev (no check of the handle: the
 * backend's set_stream checks it). 0, or -1 with the error raised (negative
 * device_type or device_id: DH_KIND_VALUE_ERROR; out of memory). */
int dh_env_set_stream(DLDevice dev, dh_stream_t stream);

/*===========================================================================
 * Device-id check shared by backends
 *===========================================================================*/

/* Whether device_id names one of a backend's n_devices devices, numbered
 * 0..n_devices-1 (DLPack's int32_t device_id; n_devices <= 0: none is valid). Pure,
 * thread-safe, never fails. */
static inline int dh_backend_device_id_valid(int32_t device_id, int32_t n_devices) {
  return device_id >= 0 && device_id < n_devices;
}

/* DH_BACKEND_CHECK_DEVICE(dev, n_devices, fmt, ...): the range check of an entry's
 * device id.
 *   dev        DLDevice whose device_id is checked (evaluated once; its device_type
 *              is the caller's to check, before this);
 *   n_devices  int32_t count of the backend's devices, ids 0..n_devices-1;
 *   fmt, ...   the printf-style message of the error, naming the backend (each
 *              backend keeps its own wording; arguments evaluated only on failure).
 * Evaluates to 0 when dev.device_id is in range, else to -1 after
 * dh_error_set(DH_KIND_INDEX_ERROR, fmt, ...) (devharness/error.h), so an entry writes
 *     if (DH_BACKEND_CHECK_DEVICE(dev, n, "foo: device id %d out of range", (int)dev.device_id) != 0)
 *       return -1;
 * Nothing is allocated or owned; thread-safe as dh_error_set is (the error is the
 * calling thread's). Source of the rule: dh_backend_t's get_attr and set_device
 * above ("Invalid id -> IndexError"). */
#define DH_BACKEND_CHECK_DEVICE(dev, n_devices, ...)                     \
  (dh_backend_device_id_valid((dev).device_id, (n_devices))              \
       ? 0                                                               \
       : dh_error_set(DH_KIND_INDEX_ERROR, __VA_ARGS__))

/* Type of the entry point. */
typedef const dh_backend_t* (*dh_backend_entry_fn)(void);

#ifdef __cplusplus
}
#endif
#endif /* DEVHARNESS_BACKEND_H_ */
