/*
 * backends/vulkan/vulkan_internal.h — private declarations shared by the files of the
 * Vulkan backend (libdevharness_vulkan.so). Not installed, not part of the plugin ABI.
 *
 * Files (one job each; each calls only the files below it in this list, checked by
 * tests/layering/call_graph.t):
 *   vulkan_backend.c  the dh_backend_t table and dh_backend_entry (the only exported
 *                     symbol); hands vulkan_device.c its hooks (dh_vulkan_device_hooks_t)
 *   vulkan_raw.c      the raw twin (api_name "Vulkan")
 *   vulkan_kernels.c  SPIR-V pipelines and the module functions noop/fill/echo/raise
 *   vulkan_memory.c   data space, workspaces, pinned host memory, copies
 *   vulkan_stream.c   streams (timeline semaphores), submission retirement, stream_sync,
 *                     sync_stream_from_to, the current stream, events (timestamp queries)
 *   vulkan_buffers.c  buffers, memory types, the data-space handle check, staging cache
 *   vulkan_device.c   instance, validation messenger, physical devices, init/shutdown,
 *                     attributes, target properties
 *   vulkan_loader.c   dlopen of libvulkan.so.1, the entry-point table dh_vulkan_fn, VkResult names
 *
 * Symbols shared between these files are prefixed dh_vulkan_ and have hidden visibility
 * (backend.mk compiles with -fvisibility=hidden and this header pushes hidden visibility),
 * so only dh_backend_entry is exported from the plugin (check: nm -D --defined-only).
 *
 * Thread-safety: as in the backend.h contract, every dh_vulkan_ vtable entry may be called
 * from any thread; the locks each helper expects are stated on it ("stream locked" means
 * the caller holds s->lock). Errors: functions returning int return 0 on success and -1
 * with the error set through dh_error_set (dh_vulkan_fail for VkResult failures).
 *
 * Design (the whole backend; kept from the original single-file vulkan.c):
 *
 * TVM's DeviceAPI (docs/contract.md) on the Vulkan loader, tested on Mesa's lavapipe.
 *
 * Loader: libvulkan.so.1 is dlopen'd in init (nothing happens in constructors, so a
 * process may fork before init). No loader / no ICD / no usable device: init returns 0
 * and unavailable_reason() says which.
 *
 * Devices: every physical device (vkEnumeratePhysicalDevices order, which is stable)
 * that has a queue family with VK_QUEUE_COMPUTE_BIT and supports Vulkan 1.2 timeline
 * semaphores; device ids are indices in that filtered list. One VkDevice and one
 * compute VkQueue per device, created in init.
 *
 * Memory: a data-space handle is a pointer to a dh_vulkan_buf_t (VkBuffer bound to its own
 * VkDeviceMemory), opaque to callers (no DH_CAP_HOST_POINTER_ARITHMETIC). Data space
 * uses a DEVICE_LOCAL memory type (any type as a fallback), staging and pinned host
 * memory use HOST_VISIBLE|HOST_COHERENT, persistently mapped. A zero-byte allocation
 * is a handle without a VkBuffer (valid, freeable, copies of 0 bytes are no-ops).
 * Requests above maxMemoryAllocationSize or the heap size fail with OutOfMemoryError
 * before touching the driver.
 *
 * Streams: a dh_vulkan_stream_t owns a command pool, a descriptor pool and a timeline
 * semaphore. Every operation (copy, fill, noop, event record) is one command buffer
 * submitted to the device's single compute queue (vkQueueSubmit serialised by a
 * per-device mutex) that waits on the stream's previous timeline value (in-stream
 * order, full memory dependency) and on any values recorded by sync_stream_from_to,
 * and signals the next value. stream_sync waits (vkWaitSemaphores) for the last value
 * submitted, then retires submissions: deferred host copies, staging buffers,
 * descriptor sets and command buffers are recycled. The NULL stream is a per-device
 * default stream object. The current stream is per thread and per device.
 *
 * Copies (design): H2D memcpy's the host source into a staging buffer before
 * returning (the host source is never read afterwards) and queues
 * vkCmdCopyBuffer(staging -> dst). D2H queues vkCmdCopyBuffer(src -> staging) plus a
 * transfer->host barrier; the memcpy from staging into the host destination happens
 * when the submission is retired: at stream_sync (or free_stream), or earlier when a
 * later call on the same stream finds the submission complete. The host destination
 * is therefore valid after stream_sync, as backend.h requires. A D2H copy into pinned
 * memory from alloc_host is written there by the device directly. An H2D copy from
 * pinned memory is read by the device directly and finished before the call returns
 * (the stream is drained, as the CUDA backend synchronises every H2D copy), which
 * keeps the host-source rule without a staging memcpy. D2D on one device is
 * a single vkCmdCopyBuffer; D2D across two devices goes through the host synchronously.
 * Staging buffers are cached per device (512 MiB in all, buffers of up to 256 MiB) and
 * workspaces pooled (64 MiB cap);
 * free_data_space / free_workspace / free_host wait for the device's queued work first
 * (as cudaFree does), so a buffer is never destroyed while a submission uses it.
 *
 * fork: init may run in a forked child (the conformance runner does). A child forked
 * after init cannot use the parent's driver state: every entry then fails with
 * RuntimeError (kExist reads 0) instead of hanging.
 *
 * Validation: with DEVHARNESS_VK_VALIDATION=1 and VK_LAYER_KHRONOS_validation
 * installed, the layer is enabled with a VK_EXT_debug_utils messenger. Every message
 * of ERROR severity is printed to stderr ("devharness vulkan: validation error: ...")
 * and counted. The count is readable as the target property "vk_validation_errors"
 * (Int; not a TVM option), and the next entry point that checks (allocations, copies,
 * stream calls, fill, noop, events) fails with RuntimeError "Vulkan validation error:
 * <first message>", so conformance clauses and tests see validation errors as
 * failures. The property "vk_validation_enabled" (Bool) says whether the layer is on.
 */
#ifndef DH_BACKENDS_VULKAN_INTERNAL_H
#define DH_BACKENDS_VULKAN_INTERNAL_H

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/backend.h"
#include "devharness/device_api.h"
#include "devharness/error.h"
#include "devharness/tensor.h"

#pragma GCC visibility push(hidden)

/*===========================================================================
 * Vulkan entry points (vulkan_loader.c; loaded through vkGetInstanceProcAddr)
 *===========================================================================*/
#define DH_VULKAN_GLOBAL_FUNCS(X)                                                         \
  X(vkCreateInstance) X(vkEnumerateInstanceLayerProperties)                          \
  X(vkEnumerateInstanceExtensionProperties)

#define DH_VULKAN_INSTANCE_FUNCS(X)                                                       \
  X(vkDestroyInstance) X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceProperties) \
  X(vkGetPhysicalDeviceProperties2) X(vkGetPhysicalDeviceFeatures2)                  \
  X(vkGetPhysicalDeviceQueueFamilyProperties) X(vkGetPhysicalDeviceMemoryProperties) \
  X(vkGetPhysicalDeviceMemoryProperties2) X(vkEnumerateDeviceExtensionProperties)    \
  X(vkCreateDevice) X(vkDestroyDevice) X(vkGetDeviceQueue) X(vkCreateBuffer)         \
  X(vkDestroyBuffer) X(vkGetBufferMemoryRequirements) X(vkAllocateMemory)            \
  X(vkFreeMemory) X(vkBindBufferMemory) X(vkMapMemory) X(vkUnmapMemory)              \
  X(vkCreateCommandPool) X(vkDestroyCommandPool) X(vkAllocateCommandBuffers)         \
  X(vkFreeCommandBuffers) X(vkBeginCommandBuffer) X(vkEndCommandBuffer)              \
  X(vkCmdCopyBuffer) X(vkCmdDispatch) X(vkCmdBindPipeline)                           \
  X(vkCmdBindDescriptorSets) X(vkCmdPushConstants) X(vkCmdPipelineBarrier)           \
  X(vkCmdWriteTimestamp) X(vkCmdResetQueryPool) X(vkQueueSubmit) X(vkDeviceWaitIdle) \
  X(vkQueueWaitIdle)                                                                  \
  X(vkCreateSemaphore) X(vkDestroySemaphore) X(vkWaitSemaphores)                     \
  X(vkGetSemaphoreCounterValue) X(vkCreateShaderModule) X(vkDestroyShaderModule)     \
  X(vkCreateComputePipelines) X(vkDestroyPipeline) X(vkCreatePipelineLayout)         \
  X(vkDestroyPipelineLayout) X(vkCreateDescriptorSetLayout)                          \
  X(vkDestroyDescriptorSetLayout) X(vkCreateDescriptorPool)                          \
  X(vkDestroyDescriptorPool) X(vkAllocateDescriptorSets) X(vkFreeDescriptorSets)     \
  X(vkUpdateDescriptorSets) X(vkCreateQueryPool) X(vkDestroyQueryPool)               \
  X(vkGetQueryPoolResults) X(vkCreateFence) X(vkDestroyFence) X(vkWaitForFences)     \
  X(vkResetFences)


/* The entry-point table. Global functions are filled by dh_vulkan_loader_open, instance
 * functions by dh_vulkan_loader_load_instance; every call site goes through it
 * (dh_vulkan_fn.vkCreateBuffer(...)). Written only during init (single-threaded, before any
 * other entry), read-only afterwards. */
typedef struct dh_vulkan_fns {
#define DH_VULKAN_FIELD(name) PFN_##name name;
  DH_VULKAN_GLOBAL_FUNCS(DH_VULKAN_FIELD)
  DH_VULKAN_INSTANCE_FUNCS(DH_VULKAN_FIELD)
#undef DH_VULKAN_FIELD
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
  PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion;             /* Vulkan 1.1 loader */
  PFN_vkCreateDebugUtilsMessengerEXT vkCreateDebugUtilsMessengerEXT;     /* validation only */
  PFN_vkDestroyDebugUtilsMessengerEXT vkDestroyDebugUtilsMessengerEXT;   /* validation only */
} dh_vulkan_fns_t;

extern dh_vulkan_fns_t dh_vulkan_fn;

/* dlopen's libvulkan.so.1 (RTLD_NOW|RTLD_LOCAL) and loads vkGetInstanceProcAddr, the
 * global functions and vkEnumerateInstanceVersion. Returns 1 on success; 0 with a
 * human-readable reason written to reason[reason_size] when the loader is missing or
 * older than Vulkan 1.1 (not an error: the backend is then unavailable). */
int dh_vulkan_loader_open(char* reason, size_t reason_size);

/* Loads every DH_VULKAN_INSTANCE_FUNCS entry for instance, and, when debug_utils is nonzero,
 * vkCreate/DestroyDebugUtilsMessengerEXT (may stay NULL). Returns 1 when every instance
 * function was found; 0 with "Vulkan entry point <name> missing" in reason otherwise. */
int dh_vulkan_loader_load_instance(VkInstance instance, int debug_utils, char* reason,
                                   size_t reason_size);

/* Pins every Vulkan ICD (driver) the loader has dlopen'd in this process, i.e. every
 * loaded object that itself defines vk_icdGetInstanceProcAddr, in memory for the life of
 * the process (RTLD_NODELETE, promoted by glibc with RTLD_NOLOAD; the same policy as
 * runtime/plugin.c step 11 for plugins). Called in init once the instance has enumerated
 * its physical devices (the loader has loaded the ICDs by then).
 * Why: vkDestroyInstance in shutdown makes the loader dlclose the ICDs, and drivers keep
 * process-lifetime state in their statics that unloading loses instead of freeing. Seen:
 * Mesa 22.3.6 (Debian mesa-vulkan-drivers 22.3.6-1+deb12u2) lavapipe, util_cpu_detect
 * (src/util/u_cpu_detect.c, get_cpu_topology) reallocs util_cpu_caps.L3_affinity_mask
 * (one 128-byte util_affinity_mask per L3 cache) on AMD Zen CPUs only and never frees
 * it: each load/unload cycle leaked it (LeakSanitizer: "Direct leak of 128 byte(s)"
 * from an <unknown module>, which no suppression can name). Pinned, the driver
 * initialises once per process and the memory stays reachable; a later init reuses it.
 * Thread-safety: called from init only. No errors: an object
 * that cannot be pinned is left as it is. */
void dh_vulkan_loader_pin_icds(void);

/* dlclose's the loader (if open). Called by dh_vulkan_shutdown after every Vulkan object
 * is destroyed. */
void dh_vulkan_loader_close(void);

/* Forgets the loader handle without dlclose (a child forked after init: the parent's
 * driver state must not be touched). */
void dh_vulkan_loader_forget(void);

/* Static name of a VkResult ("VK_ERROR_DEVICE_LOST"; "VkResult(unknown)" otherwise). */
const char* dh_vulkan_result_name(VkResult r);

/* Sets an error for a failed Vulkan call: OutOfMemoryError for the memory results,
 * RuntimeError otherwise ("<what> failed: <VkResult name> (<code>)"). Returns -1. */
int dh_vulkan_fail(VkResult r, const char* what);

/*===========================================================================
 * Types
 *===========================================================================*/
#define DH_VULKAN_MAX_DEVICES DH_MAX_DEVICES_PER_BACKEND
#define DH_VULKAN_BUF_MAGIC 0x564b4246u    /* "VKBF" */
#define DH_VULKAN_STREAM_MAGIC 0x564b5354u /* "VKST" */
#define DH_VULKAN_MAX_INFLIGHT 128          /* submissions in flight per stream */
#define DH_VULKAN_WAIT_NS (60ull * 1000000000ull) /* a wait longer than this is an error */

/* Pinned H2D sources up to this many bytes are staged (memcpy into a host-visible
 * staging buffer, no wait) rather than read by the device directly with a wait
 * (vulkan_memory.c enqueue_copy; docs/benchmarks.md, "H2D staging thresholds"). The
 * default; the environment variable DH_VULKAN_STAGE_PINNED_MAX_ENV (decimal bytes, read at
 * init; anything else: no device, with the reason) overrides it, and the threshold in
 * force is dh_vulkan_stage_pinned_max (the raw twin under the harness's contract uses it
 * too). 16 KiB: the size up to which staging costs no more than waiting for the
 * device to read the source (docs/benchmarks.md, "H2D staging thresholds"), as for the
 * cuda backend. */
#define DH_VULKAN_H2D_STAGE_MAX ((size_t)16 << 10)
#define DH_VULKAN_STAGE_PINNED_MAX_ENV "DEVHARNESS_VULKAN_STAGE_PINNED_MAX"
extern size_t dh_vulkan_stage_pinned_max; /* written by dh_vulkan_device_init only */

struct dh_vulkan_device;

typedef struct dh_vulkan_buf {
  uint32_t magic;
  int dev;                 /* device index */
  VkBuffer buffer;         /* VK_NULL_HANDLE for a zero-byte allocation */
  VkDeviceMemory memory;
  VkDeviceSize size;       /* bytes requested (range checks use this) */
  VkDeviceSize cap;        /* bytes of the VkBuffer (>= size; workspace reuse) */
  void* mapped;            /* host address when host-visible memory, else NULL */
  struct dh_vulkan_buf* next;   /* pinned-host list */
} dh_vulkan_buf_t;

typedef struct dh_vulkan_sub {
  uint64_t value;          /* timeline value signalled on completion */
  VkCommandBuffer cb;
  dh_vulkan_buf_t* staging;     /* freed at retirement, may be NULL */
  void* host_dst;          /* deferred D2H memcpy destination, may be NULL */
  size_t host_nbytes;
  VkDescriptorSet ds;      /* freed at retirement, may be VK_NULL_HANDLE */
  int prerecorded;         /* cb is the stream's pre-recorded noop_cb: already ended, not
                            * recycled at retirement (it stays owned by the stream) */
} dh_vulkan_sub_t;

typedef struct dh_vulkan_wait {
  VkSemaphore sem;
  uint64_t value;
} dh_vulkan_wait_t;

typedef struct dh_vulkan_stream {
  uint32_t magic;
  int dev;
  pthread_mutex_t lock;
  VkCommandPool pool;
  VkDescriptorPool dpool;
  VkSemaphore sem;
  uint64_t submitted;      /* last value signalled by a submission */
  uint64_t reached;        /* highest value known reached (<= submitted): a submission
                              waits on the stream's previous value only above it */
  dh_vulkan_sub_t subs[DH_VULKAN_MAX_INFLIGHT]; /* ring of in-flight submissions */
  size_t sub_head, sub_count;
  VkCommandBuffer free_cbs[DH_VULKAN_MAX_INFLIGHT];
  size_t num_free_cbs;
  VkCommandBuffer noop_cb; /* the noop kernel (bind + dispatch), recorded once with
                            * SIMULTANEOUS_USE and resubmitted by every noop launch;
                            * VK_NULL_HANDLE until the first; freed with the pool */
  dh_vulkan_wait_t* waits;      /* pending cross-stream waits for the next submission */
  size_t num_waits, cap_waits;
  struct dh_vulkan_stream* next; /* device's stream list */
} dh_vulkan_stream_t;

typedef struct dh_vulkan_device {
  VkPhysicalDevice phys;
  VkDevice device;
  VkQueue queue;
  uint32_t queue_family;
  pthread_mutex_t queue_lock;   /* vkQueueSubmit */
  pthread_mutex_t lock;         /* pipelines, stream list, pinned list */
  VkPhysicalDeviceProperties props;
  VkPhysicalDeviceVulkan11Properties props11;
  VkPhysicalDeviceVulkan12Properties props12;
  VkPhysicalDeviceFeatures2 feats;
  VkPhysicalDeviceVulkan11Features feats11;
  VkPhysicalDeviceVulkan12Features feats12;
  VkPhysicalDeviceMemoryProperties mem;
  VkDeviceSize max_alloc;       /* maxMemoryAllocationSize */
  uint32_t timestamp_bits;
  int has_budget, has_push_descriptor, has_int_dot, has_coop_matrix;
  /* pci_bus_id: "dddd:bb:dd.f" (VK_EXT_pci_bus_info), "" for a CPU device (lavapipe),
   * else why not known in pci_why */
  char pci_bus_id[32];
  char pci_why[96];
  uint32_t type_device, type_host; /* memory type indices (UINT32_MAX: none) */
  /* pipelines (lazy) */
  int pipelines_ready;
  VkDescriptorSetLayout dsl;
  VkPipelineLayout layout;
  VkPipeline pipe_noop, pipe_fill;
  dh_vulkan_stream_t* default_stream;
  dh_vulkan_stream_t* streams;       /* all streams incl. default */
  dh_vulkan_stream_t* dead_streams;  /* freed streams (magic 0, drained), parked with their
                                   Vulkan objects and reused whole by create_stream (the
                                   objects are destroyed only at shutdown: lavapipe's queue
                                   thread may still touch them); a stale handle is
                                   rejected instead of read after free */
  dh_vulkan_buf_t* pinned;            /* alloc_host buffers, under pinned_lock */
  pthread_mutex_t pinned_lock;
  pthread_mutex_t ws_lock;      /* workspace pool */
  dh_vulkan_buf_t* ws_free;          /* freed workspaces kept for reuse (TVM WorkspacePool) */
  size_t ws_bytes;
  pthread_mutex_t staging_lock; /* staging cache (never held with another lock taken after) */
  dh_vulkan_buf_t* staging_free;     /* retired staging buffers kept mapped for reuse */
  size_t staging_bytes;         /* bytes held in staging_free */
  /* cached strings */
  char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
  char compute_version[32];
  char dims_json[96];
  char driver_version[64];
  char device_type[16];
} dh_vulkan_device_t;

/*===========================================================================
 * vulkan_device.c: lifecycle, validation, device lookup, attributes
 *===========================================================================*/
/* What the device layer needs from the files above it, handed in by vulkan_backend.c
 * so that calls between the files run one way: stream_new makes a new device's default
 * stream (vulkan_stream.c); release frees a device's streams, memory and pipelines at
 * shutdown, after vkDeviceWaitIdle and before vkDestroyDevice. */
typedef struct dh_vulkan_device_hooks {
  int (*stream_new)(dh_vulkan_device_t* d, int dev, dh_vulkan_stream_t** out);
  void (*release)(dh_vulkan_device_t* d);
} dh_vulkan_device_hooks_t;

/* backend.h init / shutdown / unavailable_reason (see the Design comment: loader, devices,
 * fork). init (vulkan_backend.c's, static) is dh_vulkan_device_init with the hooks: it
 * returns 0 also when no device is usable; unavailable_reason then says why. init keeps
 * `hooks` (static storage) for shutdown. */
int dh_vulkan_device_init(const dh_vulkan_device_hooks_t* hooks);
void dh_vulkan_shutdown(void);

/* backend.h unavailable_reason, get_attr (TVM DeviceAPI::GetAttr kinds),
 * get_target_property (vulkan target kind option names, plus vk_validation_errors
 * (Int) and vk_validation_enabled (Bool)), set_device (validates the device only); the
 * prototypes: backend.h "Declaring and binding a backend's entries". */
DH_BACKEND_DECLARE_DEVICE_ENTRIES(dh_vulkan);

/* Looks up the device record for dev. Errors: RuntimeError in a child forked after init,
 * ValueError for a non-vulkan device type, IndexError for an id out of range. The
 * record lives until shutdown. Thread-safe. */
int dh_vulkan_check_dev(DLDevice dev, dh_vulkan_device_t** out);

/* Fails the call (RuntimeError "Vulkan validation error (N so far): <first message>")
 * when the validation layer reported ERROR messages since the last check; 0 otherwise,
 * and always 0 when validation is off. Each batch of errors is reported once.
 * Thread-safe. */
int dh_vulkan_val_check(void);

/*===========================================================================
 * vulkan_buffers.c (buffers, staging cache) and vulkan_memory.c (workspaces, pinned
 * host memory, copies)
 *===========================================================================*/
/* Creates a buffer of nbytes on device d (index dev). host: 1 = HOST_VISIBLE|
 * HOST_COHERENT, persistently mapped (staging / pinned), 0 = DEVICE_LOCAL (any type as
 * a fallback); a zero-byte device buffer has no VkBuffer. Over maxMemoryAllocationSize
 * or the largest heap: OutOfMemoryError before touching the driver. The caller owns
 * *out (dh_vulkan_buf_destroy). Thread-safe. */
int dh_vulkan_buf_create(dh_vulkan_device_t* d, int dev, size_t nbytes, int host, dh_vulkan_buf_t** out);

/* Destroys b's VkBuffer and memory (unmapping it) and frees the record; NULL is a no-op.
 * The caller guarantees no queued work still uses it. */
void dh_vulkan_buf_destroy(dh_vulkan_device_t* d, dh_vulkan_buf_t* b);

/* A mapped staging buffer of at least nbytes, from d's staging cache or new (capacities
 * are powers of two from 64 KiB). Takes d->staging_lock. */
int dh_vulkan_staging_get(dh_vulkan_device_t* d, int dev, size_t nbytes, dh_vulkan_buf_t** out);

/* Returns a staging buffer to d's cache (512 MiB in all, evicting older ones), or
 * destroys it when larger than 256 MiB; NULL is a no-op. Takes d->staging_lock. */
void dh_vulkan_staging_put(dh_vulkan_device_t* d, dh_vulkan_buf_t* b);

/* Checks that p is a vulkan data-space handle (magic) of device dev (dev < 0: any);
 * ValueError naming what otherwise. */
int dh_vulkan_check_buf(const void* p, int dev, const char* what, dh_vulkan_buf_t** out);

/* ValueError naming what unless [off, off + n) lies inside b's requested size. */
int dh_vulkan_range_check(const dh_vulkan_buf_t* b, size_t off, size_t n, const char* what);

/* Records a TRANSFER_WRITE -> HOST_READ memory barrier into cb (device -> host copies). */
void dh_vulkan_cmd_host_barrier(VkCommandBuffer cb);

/* backend.h memory and copy entries (TVM DeviceAPI AllocDataSpace, FreeDataSpace,
 * AllocWorkspace, FreeWorkspace, CopyDataFromTo; alloc_host/free_host = pinned memory). */
DH_BACKEND_DECLARE_MEMORY_ENTRIES(dh_vulkan);
DH_BACKEND_DECLARE_WORKSPACE_ENTRIES(dh_vulkan);
DH_BACKEND_DECLARE_HOST_ENTRIES(dh_vulkan);

/* At shutdown (device idle, streams destroyed): destroys d's pinned buffers, staging
 * cache and workspace pool and their locks. */
void dh_vulkan_memory_release(dh_vulkan_device_t* d);

/*===========================================================================
 * vulkan_stream.c: streams, submissions, events
 *===========================================================================*/
/* Creates a stream (command pool, descriptor pool, timeline semaphore) on d (index dev),
 * reusing a dead stream record when there is one, and links it into d->streams.
 * Takes d->lock. */
int dh_vulkan_stream_new(dh_vulkan_device_t* d, int dev, dh_vulkan_stream_t** out);

/* The stream for handle stream on device d (index dev): NULL is d's default stream;
 * ValueError for a handle that is not a live vulkan stream of this device. */
int dh_vulkan_resolve_stream(dh_vulkan_device_t* d, int dev, dh_stream_t stream, dh_vulkan_stream_t** out);

/* The calling thread's current stream on device index dev (tvm-ffi's environment
 * stream, backend.h), or d's default stream; NULL with the error raised when that
 * handle is not a stream of this device (it may have been set through tvm-ffi). */
dh_vulkan_stream_t* dh_vulkan_current_stream(dh_vulkan_device_t* d, int dev);

/* Waits (60 s limit) for everything submitted on s and retires it: deferred host
 * copies, staging buffers, descriptor sets, command buffers. Stream locked. */
int dh_vulkan_stream_drain(dh_vulkan_device_t* d, dh_vulkan_stream_t* s);

/* Gets a command buffer of s in the recording state, first making room for one more
 * in-flight submission. Stream locked. */
int dh_vulkan_stream_begin(dh_vulkan_device_t* d, dh_vulkan_stream_t* s, VkCommandBuffer* out);

/* Makes room for one more in-flight submission on s (retires what has completed, waits
 * for the oldest if the ring is full), without getting a command buffer; for
 * submissions of a pre-recorded command buffer (dh_vulkan_sub_t.prerecorded). Stream locked. */
int dh_vulkan_stream_make_room(dh_vulkan_device_t* d, dh_vulkan_stream_t* s);

/* Ends (unless sub->prerecorded) and submits sub->cb on d's queue, waiting on s's previous timeline value and the
 * values recorded by sync_stream_from_to, signalling the next; records sub as in flight.
 * On failure the submission's resources are released. Stream locked. */
int dh_vulkan_stream_submit(dh_vulkan_device_t* d, dh_vulkan_stream_t* s, dh_vulkan_sub_t* sub);

/* Waits until every stream of d has finished the work submitted so far (not retired).
 * Takes d->lock and each stream's lock. */
int dh_vulkan_device_wait_all(dh_vulkan_device_t* d);

/* Waits until d's queue is idle, vkQueueWaitIdle under d->queue_lock (the queue is
 * externally synchronised). Needed before destroying a semaphore, command pool, fence or
 * query pool that a submission used, even when that submission is known complete
 * (timeline value reached, fence signalled, query result available): lavapipe's queue
 * thread still touches the semaphore (its mutex) after signalling and finishes the
 * submission's cleanup afterwards; vkQueueWaitIdle returns only once the queue thread
 * has finished every earlier submission, cleanup included. Device-wide: it also waits
 * for other streams' work. Returns 0, or -1 with the Vulkan error. Thread-safe; call
 * with no stream lock held. */
int dh_vulkan_queue_quiesce(dh_vulkan_device_t* d);

/* At shutdown (device idle): drains and destroys every stream of d, and the parked
 * (freed) streams with their Vulkan objects. free_stream itself destroys nothing (see
 * dh_vulkan_free_stream in vulkan_stream.c), so it needs no dh_vulkan_queue_quiesce. */
void dh_vulkan_streams_destroy_all(dh_vulkan_device_t* d);

/* backend.h stream and event entries (TVM DeviceAPI CreateStream, FreeStream,
 * SetStream, GetCurrentStream, StreamSync, SyncStreamFromTo; events = timestamp
 * queries, elapsed time in milliseconds). */
DH_BACKEND_DECLARE_STREAM_ENTRIES(dh_vulkan);
DH_BACKEND_DECLARE_EVENT_ENTRIES(dh_vulkan);

/*===========================================================================
 * vulkan_kernels.c: pipelines and module functions
 *===========================================================================*/
/* Builds d's descriptor-set layout, pipeline layout and the noop/fill pipelines once
 * (lazily). Takes d->lock. */
int dh_vulkan_ensure_pipelines(dh_vulkan_device_t* d);

/* At shutdown (device idle): destroys d's pipelines and layouts. */
void dh_vulkan_pipelines_destroy(dh_vulkan_device_t* d);

/* The module functions noop, fill, echo, raise (semantics in backend.h). */
#define DH_VULKAN_NUM_FUNCTIONS 5
extern const dh_backend_function_t dh_vulkan_functions[DH_VULKAN_NUM_FUNCTIONS];

/*===========================================================================
 * vulkan_raw.c: the raw twin
 *===========================================================================*/
/* Pre-recorded command buffers submitted directly, timestamp queries for device time. */
extern const dh_raw_twin_t dh_vulkan_raw_twin;

#pragma GCC visibility pop

#endif /* DH_BACKENDS_VULKAN_INTERNAL_H */
