/*
 * backends/vulkan/vulkan.c — the Vulkan backend (libdevharness_vulkan.so).
 *
 * TVM's DeviceAPI (FACTS.md §1) on the Vulkan loader, tested on Mesa's lavapipe.
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
 * Memory: a data-space handle is a pointer to a dhvk_buf_t (VkBuffer bound to its own
 * VkDeviceMemory), opaque to callers (no DH_CAP_HOST_POINTER_ARITHMETIC). Data space
 * uses a DEVICE_LOCAL memory type (any type as a fallback), staging and pinned host
 * memory use HOST_VISIBLE|HOST_COHERENT, persistently mapped. A zero-byte allocation
 * is a handle without a VkBuffer (valid, freeable, copies of 0 bytes are no-ops).
 * Requests above maxMemoryAllocationSize or the heap size fail with OutOfMemoryError
 * before touching the driver.
 *
 * Streams: a dhvk_stream_t owns a command pool, a descriptor pool and a timeline
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
 * memory from alloc_host is written there by the device directly. D2D on one device is
 * a single vkCmdCopyBuffer; D2D across two devices goes through the host synchronously.
 * Staging buffers are cached per device (256 MiB cap) and workspaces pooled (64 MiB cap);
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
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "devharness/backend.h"
#include "devharness/device_api.h"
#include "devharness/error.h"
#include "devharness/tensor.h"

/*===========================================================================
 * Embedded SPIR-V (built by glslc, see backend.mk)
 *===========================================================================*/
static const uint32_t k_spv_noop[] = {
#include "noop.spv.inc"
};
static const uint32_t k_spv_fill[] = {
#include "fill.spv.inc"
};

/*===========================================================================
 * Vulkan entry points (loaded through vkGetInstanceProcAddr)
 *===========================================================================*/
#define DHVK_GLOBAL_FUNCS(X)                                                         \
  X(vkCreateInstance) X(vkEnumerateInstanceLayerProperties)                          \
  X(vkEnumerateInstanceExtensionProperties)

#define DHVK_INSTANCE_FUNCS(X)                                                       \
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
  X(vkCreateSemaphore) X(vkDestroySemaphore) X(vkWaitSemaphores)                     \
  X(vkGetSemaphoreCounterValue) X(vkCreateShaderModule) X(vkDestroyShaderModule)     \
  X(vkCreateComputePipelines) X(vkDestroyPipeline) X(vkCreatePipelineLayout)         \
  X(vkDestroyPipelineLayout) X(vkCreateDescriptorSetLayout)                          \
  X(vkDestroyDescriptorSetLayout) X(vkCreateDescriptorPool)                          \
  X(vkDestroyDescriptorPool) X(vkAllocateDescriptorSets) X(vkFreeDescriptorSets)     \
  X(vkUpdateDescriptorSets) X(vkCreateQueryPool) X(vkDestroyQueryPool)               \
  X(vkGetQueryPoolResults) X(vkCreateFence) X(vkDestroyFence) X(vkWaitForFences)     \
  X(vkResetFences)

#define DHVK_DECL(name) static PFN_##name name;
DHVK_GLOBAL_FUNCS(DHVK_DECL)
DHVK_INSTANCE_FUNCS(DHVK_DECL)
#undef DHVK_DECL
static PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
static PFN_vkEnumerateInstanceVersion p_vkEnumerateInstanceVersion;
static PFN_vkCreateDebugUtilsMessengerEXT p_vkCreateDebugUtilsMessengerEXT;
static PFN_vkDestroyDebugUtilsMessengerEXT p_vkDestroyDebugUtilsMessengerEXT;

/*===========================================================================
 * Types
 *===========================================================================*/
#define DHVK_MAX_DEVICES DH_MAX_DEVICES_PER_BACKEND
#define DHVK_BUF_MAGIC 0x564b4246u    /* "VKBF" */
#define DHVK_STREAM_MAGIC 0x564b5354u /* "VKST" */
#define DHVK_EVENT_MAGIC 0x564b4556u  /* "VKEV" */
#define DHVK_MAX_INFLIGHT 128          /* submissions in flight per stream */
#define DHVK_WAIT_NS (60ull * 1000000000ull) /* a wait longer than this is an error */

struct dhvk_device;

typedef struct dhvk_buf {
  uint32_t magic;
  int dev;                 /* device index */
  VkBuffer buffer;         /* VK_NULL_HANDLE for a zero-byte allocation */
  VkDeviceMemory memory;
  VkDeviceSize size;       /* bytes requested (range checks use this) */
  VkDeviceSize cap;        /* bytes of the VkBuffer (>= size; workspace reuse) */
  void* mapped;            /* host address when host-visible memory, else NULL */
  struct dhvk_buf* next;   /* pinned-host list */
} dhvk_buf_t;

typedef struct dhvk_sub {
  uint64_t value;          /* timeline value signalled on completion */
  VkCommandBuffer cb;
  dhvk_buf_t* staging;     /* freed at retirement, may be NULL */
  void* host_dst;          /* deferred D2H memcpy destination, may be NULL */
  size_t host_nbytes;
  VkDescriptorSet ds;      /* freed at retirement, may be VK_NULL_HANDLE */
} dhvk_sub_t;

typedef struct dhvk_wait {
  VkSemaphore sem;
  uint64_t value;
} dhvk_wait_t;

typedef struct dhvk_stream {
  uint32_t magic;
  int dev;
  pthread_mutex_t lock;
  VkCommandPool pool;
  VkDescriptorPool dpool;
  VkSemaphore sem;
  uint64_t submitted;      /* last value signalled by a submission */
  dhvk_sub_t subs[DHVK_MAX_INFLIGHT]; /* ring of in-flight submissions */
  size_t sub_head, sub_count;
  VkCommandBuffer free_cbs[DHVK_MAX_INFLIGHT];
  size_t num_free_cbs;
  dhvk_wait_t* waits;      /* pending cross-stream waits for the next submission */
  size_t num_waits, cap_waits;
  struct dhvk_stream* next; /* device's stream list */
} dhvk_stream_t;

typedef struct dhvk_event {
  uint32_t magic;
  int dev;
  VkQueryPool pool;
  int recorded;
} dhvk_event_t;

typedef struct dhvk_device {
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
  uint32_t type_device, type_host; /* memory type indices (UINT32_MAX: none) */
  /* pipelines (lazy) */
  int pipelines_ready;
  VkDescriptorSetLayout dsl;
  VkPipelineLayout layout;
  VkPipeline pipe_noop, pipe_fill;
  dhvk_stream_t* default_stream;
  dhvk_stream_t* streams;       /* all streams incl. default */
  dhvk_stream_t* dead_streams;  /* freed stream records (magic 0), reused by create_stream,
                                   so a stale handle is rejected instead of read after free */
  dhvk_buf_t* pinned;            /* alloc_host buffers, under pinned_lock */
  pthread_mutex_t pinned_lock;
  pthread_mutex_t ws_lock;      /* workspace pool */
  dhvk_buf_t* ws_free;          /* freed workspaces kept for reuse (TVM WorkspacePool) */
  size_t ws_bytes;
  pthread_mutex_t staging_lock; /* staging cache (never held with another lock taken after) */
  dhvk_buf_t* staging_free;     /* retired staging buffers kept mapped for reuse */
  size_t staging_bytes;         /* bytes held in staging_free */
  /* cached strings */
  char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
  char compute_version[32];
  char dims_json[96];
  char driver_version[64];
  char device_type[16];
} dhvk_device_t;

/*===========================================================================
 * Globals
 *===========================================================================*/
static void* g_lib;
static VkInstance g_instance;
static VkDebugUtilsMessengerEXT g_messenger;
static int g_validation;
static int g_inited;
static char g_reason[512];
static dhvk_device_t g_devs[DHVK_MAX_DEVICES];
static int g_num_devs;
static atomic_ulong g_val_errors;
static atomic_ulong g_val_reported;
static pthread_mutex_t g_val_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_val_first[1024];
static _Thread_local dhvk_stream_t* tl_current[DHVK_MAX_DEVICES];
/* Set in a child forked after init: the driver's threads and queues did not survive the
 * fork, so every entry fails cleanly instead of hanging (fork before init instead). */
static volatile int g_forked;
static int g_atfork_registered;
static void on_fork_child(void) {
  if (g_inited) g_forked = 1;
}

/*===========================================================================
 * Helpers
 *===========================================================================*/
static const char* vk_result_name(VkResult r) {
  switch (r) {
#define C(x) case x: return #x;
    C(VK_SUCCESS) C(VK_NOT_READY) C(VK_TIMEOUT) C(VK_INCOMPLETE)
    C(VK_ERROR_OUT_OF_HOST_MEMORY) C(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    C(VK_ERROR_INITIALIZATION_FAILED) C(VK_ERROR_DEVICE_LOST) C(VK_ERROR_MEMORY_MAP_FAILED)
    C(VK_ERROR_LAYER_NOT_PRESENT) C(VK_ERROR_EXTENSION_NOT_PRESENT)
    C(VK_ERROR_FEATURE_NOT_PRESENT) C(VK_ERROR_INCOMPATIBLE_DRIVER)
    C(VK_ERROR_TOO_MANY_OBJECTS) C(VK_ERROR_OUT_OF_POOL_MEMORY)
#undef C
    default: return "VkResult(unknown)";
  }
}

/* Sets an error for a failed Vulkan call: OutOfMemoryError for the memory results,
 * RuntimeError otherwise. Returns -1. */
static int vk_fail(VkResult r, const char* what) {
  const char* kind = (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY)
                         ? "OutOfMemoryError" : "RuntimeError";
  return dh_error_set(kind, "%s failed: %s (%d)", what, vk_result_name(r), (int)r);
}

/* Fails the call when the validation layer reported errors since the last check. */
static int val_check(void) {
  if (!g_validation) return 0;
  unsigned long n = atomic_load(&g_val_errors);
  unsigned long seen = atomic_load(&g_val_reported);
  if (n == seen) return 0;
  if (!atomic_compare_exchange_strong(&g_val_reported, &seen, n)) return 0;
  pthread_mutex_lock(&g_val_lock);
  char first[sizeof g_val_first];
  memcpy(first, g_val_first, sizeof first);
  pthread_mutex_unlock(&g_val_lock);
  return dh_error_set("RuntimeError", "Vulkan validation error (%lu so far): %s", n, first);
}

static VKAPI_ATTR VkBool32 VKAPI_CALL debug_cb(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                               VkDebugUtilsMessageTypeFlagsEXT types,
                                               const VkDebugUtilsMessengerCallbackDataEXT* d,
                                               void* user) {
  (void)types;
  (void)user;
  if (!(sev & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) return VK_FALSE;
  const char* msg = d && d->pMessage ? d->pMessage : "(no message)";
  fprintf(stderr, "devharness vulkan: validation error: %s\n", msg);
  pthread_mutex_lock(&g_val_lock);
  if (atomic_load(&g_val_errors) == atomic_load(&g_val_reported))
    snprintf(g_val_first, sizeof g_val_first, "%s", msg);
  atomic_fetch_add(&g_val_errors, 1);
  pthread_mutex_unlock(&g_val_lock);
  return VK_FALSE;
}

static int check_dev(DLDevice dev, dhvk_device_t** out) {
  if (g_forked)
    return dh_error_set("RuntimeError",
                        "the Vulkan backend was initialised before this process was forked; a "
                        "forked child cannot use it (fork before init)");
  if (dev.device_type != kDLVulkan)
    return dh_error_set("ValueError", "device type %d is not vulkan (%d)", (int)dev.device_type,
                        (int)kDLVulkan);
  if (dev.device_id < 0 || dev.device_id >= g_num_devs)
    return dh_error_set("IndexError", "vulkan device id %d out of range (%d device%s)",
                        (int)dev.device_id, g_num_devs, g_num_devs == 1 ? "" : "s");
  *out = &g_devs[dev.device_id];
  return 0;
}

static int check_buf(const void* p, int dev, const char* what, dhvk_buf_t** out) {
  const dhvk_buf_t* b = p;
  if (!b) return dh_error_set("ValueError", "%s is NULL", what);
  if (b->magic != DHVK_BUF_MAGIC)
    return dh_error_set("ValueError", "%s %p is not a vulkan data-space handle", what, p);
  if (dev >= 0 && b->dev != dev)
    return dh_error_set("ValueError", "%s belongs to vulkan:%d, not vulkan:%d", what, b->dev, dev);
  *out = (dhvk_buf_t*)b;
  return 0;
}

static int resolve_stream(dhvk_device_t* d, int dev, dh_stream_t stream, dhvk_stream_t** out) {
  if (!stream) {
    *out = d->default_stream;
    return 0;
  }
  dhvk_stream_t* s = stream;
  if (s->magic != DHVK_STREAM_MAGIC)
    return dh_error_set("ValueError", "stream %p is not a vulkan stream", stream);
  if (s->dev != dev)
    return dh_error_set("ValueError", "stream %p belongs to vulkan:%d, not vulkan:%d", stream,
                        s->dev, dev);
  *out = s;
  return 0;
}

static uint32_t find_type(const VkPhysicalDeviceMemoryProperties* m, uint32_t bits,
                          VkMemoryPropertyFlags want) {
  for (uint32_t i = 0; i < m->memoryTypeCount; i++)
    if ((bits & (1u << i)) && (m->memoryTypes[i].propertyFlags & want) == want) return i;
  return UINT32_MAX;
}

static VkDeviceSize device_local_total(const dhvk_device_t* d) {
  VkDeviceSize t = 0;
  for (uint32_t i = 0; i < d->mem.memoryHeapCount; i++)
    if (d->mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) t += d->mem.memoryHeaps[i].size;
  if (t == 0)
    for (uint32_t i = 0; i < d->mem.memoryHeapCount; i++) t += d->mem.memoryHeaps[i].size;
  return t;
}

/*===========================================================================
 * Buffers
 *===========================================================================*/
/* host: 1 = HOST_VISIBLE|HOST_COHERENT mapped (staging / pinned), 0 = device-local. */
static int buf_create(dhvk_device_t* d, int dev, size_t nbytes, int host, dhvk_buf_t** out) {
  dhvk_buf_t* b = calloc(1, sizeof *b);
  if (!b) return dh_error_set("OutOfMemoryError", "out of host memory for a buffer record");
  b->magic = DHVK_BUF_MAGIC;
  b->dev = dev;
  b->size = nbytes;
  if (nbytes == 0 && !host) {
    *out = b;
    return 0;
  }
  size_t alloc_bytes = nbytes ? nbytes : 4;
  b->cap = alloc_bytes;
  VkDeviceSize heap_max = 0;
  for (uint32_t i = 0; i < d->mem.memoryHeapCount; i++)
    if (d->mem.memoryHeaps[i].size > heap_max) heap_max = d->mem.memoryHeaps[i].size;
  if ((d->max_alloc && alloc_bytes > d->max_alloc) || alloc_bytes > heap_max) {
    free(b);
    return dh_error_set("OutOfMemoryError",
                        "cannot allocate %zu bytes on vulkan:%d: maxMemoryAllocationSize is %" PRIu64
                        " bytes, largest heap %" PRIu64 " bytes",
                        nbytes, dev, (uint64_t)d->max_alloc, (uint64_t)heap_max);
  }
  VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                           .size = alloc_bytes,
                           .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                    VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                           .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VkResult r = vkCreateBuffer(d->device, &bi, NULL, &b->buffer);
  if (r != VK_SUCCESS) {
    free(b);
    return vk_fail(r, "vkCreateBuffer");
  }
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(d->device, b->buffer, &req);
  VkMemoryPropertyFlags want = host ? (VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                       VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)
                                    : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  uint32_t type = find_type(&d->mem, req.memoryTypeBits, want);
  if (type == UINT32_MAX && !host) type = find_type(&d->mem, req.memoryTypeBits, 0);
  if (type == UINT32_MAX) {
    vkDestroyBuffer(d->device, b->buffer, NULL);
    free(b);
    return dh_error_set("RuntimeError", "vulkan:%d has no %s memory type for a buffer", dev,
                        host ? "HOST_VISIBLE|HOST_COHERENT" : "usable");
  }
  VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                             .allocationSize = req.size,
                             .memoryTypeIndex = type};
  r = vkAllocateMemory(d->device, &ai, NULL, &b->memory);
  if (r != VK_SUCCESS) {
    vkDestroyBuffer(d->device, b->buffer, NULL);
    free(b);
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY)
      return dh_error_set("OutOfMemoryError", "cannot allocate %zu bytes on vulkan:%d: %s",
                          nbytes, dev, vk_result_name(r));
    return vk_fail(r, "vkAllocateMemory");
  }
  r = vkBindBufferMemory(d->device, b->buffer, b->memory, 0);
  if (r == VK_SUCCESS && host) r = vkMapMemory(d->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped);
  if (r != VK_SUCCESS) {
    vkDestroyBuffer(d->device, b->buffer, NULL);
    vkFreeMemory(d->device, b->memory, NULL);
    free(b);
    return vk_fail(r, host ? "vkBindBufferMemory/vkMapMemory" : "vkBindBufferMemory");
  }
  *out = b;
  return 0;
}

static void buf_destroy(dhvk_device_t* d, dhvk_buf_t* b) {
  if (!b) return;
  if (b->buffer) vkDestroyBuffer(d->device, b->buffer, NULL);
  if (b->memory) vkFreeMemory(d->device, b->memory, NULL); /* implicitly unmaps */
  b->magic = 0;
  free(b);
}

/*===========================================================================
 * Staging cache: host-visible buffers are expensive to create and first touch (page
 * faults on every use of fresh memory), so retired ones are kept per device, up to
 * DHVK_STAGING_CACHE bytes, and reused for copies of up to their size. Capacities are
 * powers of two from 64 KiB.
 *===========================================================================*/
#define DHVK_STAGING_MIN ((size_t)64 << 10)
#define DHVK_STAGING_CACHE ((size_t)256 << 20)

static int staging_get(dhvk_device_t* d, int dev, size_t nbytes, dhvk_buf_t** out) {
  size_t cap = DHVK_STAGING_MIN;
  while (cap < nbytes && cap < ((size_t)1 << 62)) cap <<= 1;
  if (d->max_alloc && cap > d->max_alloc) cap = nbytes;
  pthread_mutex_lock(&d->staging_lock);
  dhvk_buf_t **best = NULL, **pp;
  for (pp = &d->staging_free; *pp; pp = &(*pp)->next)
    if ((*pp)->size >= nbytes && (*pp)->size <= 2 * cap && (!best || (*pp)->size < (*best)->size))
      best = pp;
  if (best) {
    dhvk_buf_t* b = *best;
    *best = b->next;
    b->next = NULL;
    d->staging_bytes -= b->size;
    pthread_mutex_unlock(&d->staging_lock);
    *out = b;
    return 0;
  }
  pthread_mutex_unlock(&d->staging_lock);
  return buf_create(d, dev, cap, 1, out);
}

static void staging_put(dhvk_device_t* d, dhvk_buf_t* b) {
  if (!b) return;
  pthread_mutex_lock(&d->staging_lock);
  if (b->size <= DHVK_STAGING_CACHE) {
    /* evict others until it fits */
    while (d->staging_free && d->staging_bytes + b->size > DHVK_STAGING_CACHE) {
      dhvk_buf_t* old = d->staging_free;
      d->staging_free = old->next;
      d->staging_bytes -= old->size;
      buf_destroy(d, old);
    }
    b->next = d->staging_free;
    d->staging_free = b;
    d->staging_bytes += b->size;
    b = NULL;
  }
  pthread_mutex_unlock(&d->staging_lock);
  buf_destroy(d, b);
}

/*===========================================================================
 * Streams
 *===========================================================================*/
/* Destroys a stream's Vulkan objects and lock; the record stays (magic 0). */
static void stream_release_objects(dhvk_device_t* d, dhvk_stream_t* s) {
  s->magic = 0;
  if (s->dpool) vkDestroyDescriptorPool(d->device, s->dpool, NULL);
  if (s->pool) vkDestroyCommandPool(d->device, s->pool, NULL);
  if (s->sem) vkDestroySemaphore(d->device, s->sem, NULL);
  s->dpool = VK_NULL_HANDLE;
  s->pool = VK_NULL_HANDLE;
  s->sem = VK_NULL_HANDLE;
  free(s->waits);
  s->waits = NULL;
  pthread_mutex_destroy(&s->lock);
}

static void stream_destroy_objects(dhvk_device_t* d, dhvk_stream_t* s) {
  stream_release_objects(d, s);
  free(s);
}

static int stream_new(dhvk_device_t* d, int dev, dhvk_stream_t** out) {
  pthread_mutex_lock(&d->lock);
  dhvk_stream_t* s = d->dead_streams;
  if (s) {
    d->dead_streams = s->next;
    memset(s, 0, sizeof *s);
  }
  pthread_mutex_unlock(&d->lock);
  if (!s) s = calloc(1, sizeof *s);
  if (!s) return dh_error_set("OutOfMemoryError", "out of host memory for a stream");
  pthread_mutex_init(&s->lock, NULL);
  s->dev = dev;
  VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                .queueFamilyIndex = d->queue_family};
  VkResult r = vkCreateCommandPool(d->device, &pi, NULL, &s->pool);
  if (r != VK_SUCCESS) goto fail;
  VkDescriptorPoolSize ps = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                             .descriptorCount = DHVK_MAX_INFLIGHT};
  VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                    .flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT,
                                    .maxSets = DHVK_MAX_INFLIGHT,
                                    .poolSizeCount = 1,
                                    .pPoolSizes = &ps};
  r = vkCreateDescriptorPool(d->device, &dpi, NULL, &s->dpool);
  if (r != VK_SUCCESS) goto fail;
  VkSemaphoreTypeCreateInfo ti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                  .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
                                  .initialValue = 0};
  VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &ti};
  r = vkCreateSemaphore(d->device, &si, NULL, &s->sem);
  if (r != VK_SUCCESS) goto fail;
  s->magic = DHVK_STREAM_MAGIC;
  pthread_mutex_lock(&d->lock);
  s->next = d->streams;
  d->streams = s;
  pthread_mutex_unlock(&d->lock);
  *out = s;
  return 0;
fail:
  stream_destroy_objects(d, s);
  return vk_fail(r, "creating a stream (command pool, descriptor pool, timeline semaphore)");
}

/* Retires completed submissions in order (stream locked). upto: value known reached,
 * or 0 to query the semaphore. */
static void stream_retire(dhvk_device_t* d, dhvk_stream_t* s, uint64_t upto) {
  if (s->sub_count == 0) return;
  uint64_t done = upto;
  if (!done && vkGetSemaphoreCounterValue(d->device, s->sem, &done) != VK_SUCCESS) return;
  while (s->sub_count) {
    dhvk_sub_t* sub = &s->subs[s->sub_head];
    if (sub->value > done) break;
    if (sub->host_dst && sub->staging && sub->host_nbytes)
      memcpy(sub->host_dst, sub->staging->mapped, sub->host_nbytes);
    staging_put(d, sub->staging);
    if (sub->ds) vkFreeDescriptorSets(d->device, s->dpool, 1, &sub->ds);
    s->free_cbs[s->num_free_cbs++] = sub->cb;
    memset(sub, 0, sizeof *sub);
    s->sub_head = (s->sub_head + 1) % DHVK_MAX_INFLIGHT;
    s->sub_count--;
  }
}

static int sem_wait(dhvk_device_t* d, VkSemaphore sem, uint64_t value) {
  VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                            .semaphoreCount = 1,
                            .pSemaphores = &sem,
                            .pValues = &value};
  VkResult r = vkWaitSemaphores(d->device, &wi, DHVK_WAIT_NS);
  if (r == VK_TIMEOUT)
    return dh_error_set("RuntimeError", "timed out after 60 s waiting for timeline value %" PRIu64,
                        value);
  if (r != VK_SUCCESS) return vk_fail(r, "vkWaitSemaphores");
  return 0;
}

/* Waits for everything submitted on s and retires it (stream locked). */
static int stream_drain(dhvk_device_t* d, dhvk_stream_t* s) {
  if (s->submitted && sem_wait(d, s->sem, s->submitted) != 0) return -1;
  stream_retire(d, s, s->submitted ? s->submitted : 1);
  return 0;
}

/* Gets a command buffer in the recording state (stream locked). Makes room for one
 * more in-flight submission first. */
static int stream_begin(dhvk_device_t* d, dhvk_stream_t* s, VkCommandBuffer* out) {
  stream_retire(d, s, 0);
  if (s->sub_count == DHVK_MAX_INFLIGHT) {
    uint64_t oldest = s->subs[s->sub_head].value;
    if (sem_wait(d, s->sem, oldest) != 0) return -1;
    stream_retire(d, s, 0);
  }
  VkCommandBuffer cb;
  if (s->num_free_cbs) {
    cb = s->free_cbs[--s->num_free_cbs];
  } else {
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = s->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VkResult r = vkAllocateCommandBuffers(d->device, &ai, &cb);
    if (r != VK_SUCCESS) return vk_fail(r, "vkAllocateCommandBuffers");
  }
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  VkResult r = vkBeginCommandBuffer(cb, &bi);
  if (r != VK_SUCCESS) {
    s->free_cbs[s->num_free_cbs++] = cb;
    return vk_fail(r, "vkBeginCommandBuffer");
  }
  *out = cb;
  return 0;
}

/* Ends and submits sub->cb (stream locked). On failure the submission's resources
 * are released. */
static VkResult queue_submit_waits(dhvk_device_t* d, dhvk_stream_t* s, VkCommandBuffer cb,
                                   uint64_t sig) {
  size_t nw = s->num_waits + 1;
  VkSemaphore wsem[nw];
  uint64_t wval[nw];
  VkPipelineStageFlags wstage[nw];
  uint32_t n = 0;
  if (s->submitted) {
    wsem[n] = s->sem;
    wval[n] = s->submitted;
    wstage[n] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    n++;
  }
  for (size_t i = 0; i < s->num_waits; i++) {
    wsem[n] = s->waits[i].sem;
    wval[n] = s->waits[i].value;
    wstage[n] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    n++;
  }
  VkTimelineSemaphoreSubmitInfo ti = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                      .waitSemaphoreValueCount = n,
                                      .pWaitSemaphoreValues = n ? wval : NULL,
                                      .signalSemaphoreValueCount = 1,
                                      .pSignalSemaphoreValues = &sig};
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                     .pNext = &ti,
                     .waitSemaphoreCount = n,
                     .pWaitSemaphores = n ? wsem : NULL,
                     .pWaitDstStageMask = n ? wstage : NULL,
                     .commandBufferCount = 1,
                     .pCommandBuffers = &cb,
                     .signalSemaphoreCount = 1,
                     .pSignalSemaphores = &s->sem};
  pthread_mutex_lock(&d->queue_lock);
  VkResult r = vkQueueSubmit(d->queue, 1, &si, VK_NULL_HANDLE);
  pthread_mutex_unlock(&d->queue_lock);
  return r;
}

/* Ends and submits sub->cb (stream locked). On failure the submission's resources
 * are released. */
static int stream_submit(dhvk_device_t* d, dhvk_stream_t* s, dhvk_sub_t* sub) {
  VkResult r = vkEndCommandBuffer(sub->cb);
  uint64_t sig = s->submitted + 1;
  if (r == VK_SUCCESS) r = queue_submit_waits(d, s, sub->cb, sig);
  if (r != VK_SUCCESS) {
    staging_put(d, sub->staging);
    if (sub->ds) vkFreeDescriptorSets(d->device, s->dpool, 1, &sub->ds);
    s->free_cbs[s->num_free_cbs++] = sub->cb;
    return vk_fail(r, "vkQueueSubmit");
  }
  s->submitted = sig;
  s->num_waits = 0;
  sub->value = sig;
  s->subs[(s->sub_head + s->sub_count) % DHVK_MAX_INFLIGHT] = *sub;
  s->sub_count++;
  return 0;
}

/*===========================================================================
 * Pipelines (lazy, once per device)
 *===========================================================================*/
static int make_pipeline(dhvk_device_t* d, const uint32_t* code, size_t size, VkPipeline* out) {
  VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                 .codeSize = size,
                                 .pCode = code};
  VkShaderModule mod;
  VkResult r = vkCreateShaderModule(d->device, &mi, NULL, &mod);
  if (r != VK_SUCCESS) return vk_fail(r, "vkCreateShaderModule");
  VkComputePipelineCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = mod,
                .pName = "main"},
      .layout = d->layout};
  r = vkCreateComputePipelines(d->device, VK_NULL_HANDLE, 1, &ci, NULL, out);
  vkDestroyShaderModule(d->device, mod, NULL);
  if (r != VK_SUCCESS) return vk_fail(r, "vkCreateComputePipelines");
  return 0;
}

static int ensure_pipelines(dhvk_device_t* d) {
  pthread_mutex_lock(&d->lock);
  int rc = 0;
  if (d->pipelines_ready) goto out;
  VkResult r;
  if (!d->dsl) {
    VkDescriptorSetLayoutBinding b = {.binding = 0,
                                      .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                      .descriptorCount = 1,
                                      .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo li = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = 1, .pBindings = &b};
    r = vkCreateDescriptorSetLayout(d->device, &li, NULL, &d->dsl);
    if (r != VK_SUCCESS) { rc = vk_fail(r, "vkCreateDescriptorSetLayout"); goto out; }
  }
  if (!d->layout) {
    VkPushConstantRange pc = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = 16};
    VkPipelineLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 1,
                                     .pSetLayouts = &d->dsl,
                                     .pushConstantRangeCount = 1,
                                     .pPushConstantRanges = &pc};
    r = vkCreatePipelineLayout(d->device, &li, NULL, &d->layout);
    if (r != VK_SUCCESS) { rc = vk_fail(r, "vkCreatePipelineLayout"); goto out; }
  }
  if (!d->pipe_noop && (rc = make_pipeline(d, k_spv_noop, sizeof k_spv_noop, &d->pipe_noop))) goto out;
  if (!d->pipe_fill && (rc = make_pipeline(d, k_spv_fill, sizeof k_spv_fill, &d->pipe_fill))) goto out;
  d->pipelines_ready = 1;
out:
  pthread_mutex_unlock(&d->lock);
  return rc;
}

/*===========================================================================
 * Lifecycle
 *===========================================================================*/
static int has_ext(const VkExtensionProperties* e, uint32_t n, const char* name) {
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(e[i].extensionName, name) == 0) return 1;
  return 0;
}

static void decode_driver_version(dhvk_device_t* d) {
  uint32_t v = d->props.driverVersion;
  if (d->props.vendorID == 0x10DE) /* NVIDIA: 10.8.8.6 */
    snprintf(d->driver_version, sizeof d->driver_version, "%u.%u.%u.%u", (v >> 22) & 0x3ff,
             (v >> 14) & 0xff, (v >> 6) & 0xff, v & 0x3f);
  else
    snprintf(d->driver_version, sizeof d->driver_version, "%u.%u.%u", VK_API_VERSION_MAJOR(v),
             VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
}

/* Sets up g_devs[idx] for phys; returns 1 when usable, 0 to skip, -1 on error. */
static int device_setup(VkPhysicalDevice phys, int idx) {
  dhvk_device_t* d = &g_devs[idx];
  memset(d, 0, sizeof *d);
  d->phys = phys;
  vkGetPhysicalDeviceProperties(phys, &d->props);
  if (d->props.apiVersion < VK_API_VERSION_1_2) return 0;
  uint32_t nq = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, NULL);
  VkQueueFamilyProperties qf[nq ? nq : 1];
  vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, qf);
  uint32_t fam = UINT32_MAX;
  for (uint32_t i = 0; i < nq && fam == UINT32_MAX; i++)
    if ((qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && qf[i].queueCount > 0) fam = i;
  if (fam == UINT32_MAX) return 0;
  d->queue_family = fam;
  d->timestamp_bits = qf[fam].timestampValidBits;

  VkPhysicalDeviceMaintenance3Properties m3 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  d->props12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES;
  d->props12.pNext = &m3;
  d->props11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES;
  d->props11.pNext = &d->props12;
  VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                    .pNext = &d->props11};
  vkGetPhysicalDeviceProperties2(phys, &p2);
  d->props11.pNext = NULL;
  d->props12.pNext = NULL;
  d->max_alloc = m3.maxMemoryAllocationSize;

  d->feats12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  d->feats11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  d->feats11.pNext = &d->feats12;
  d->feats.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  d->feats.pNext = &d->feats11;
  vkGetPhysicalDeviceFeatures2(phys, &d->feats);
  d->feats.pNext = NULL;
  d->feats11.pNext = NULL;
  if (!d->feats12.timelineSemaphore) return 0;
  vkGetPhysicalDeviceMemoryProperties(phys, &d->mem);

  uint32_t ne = 0;
  vkEnumerateDeviceExtensionProperties(phys, NULL, &ne, NULL);
  VkExtensionProperties* ext = calloc(ne ? ne : 1, sizeof *ext);
  if (!ext) return dh_error_set("OutOfMemoryError", "out of host memory");
  vkEnumerateDeviceExtensionProperties(phys, NULL, &ne, ext);
  d->has_budget = has_ext(ext, ne, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  d->has_push_descriptor = has_ext(ext, ne, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  d->has_int_dot = has_ext(ext, ne, "VK_KHR_shader_integer_dot_product") ||
                   d->props.apiVersion >= VK_API_VERSION_1_3;
  d->has_coop_matrix = has_ext(ext, ne, "VK_KHR_cooperative_matrix") ||
                       has_ext(ext, ne, "VK_NV_cooperative_matrix");
  free(ext);

  float prio = 1.0f;
  VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                .queueFamilyIndex = fam,
                                .queueCount = 1,
                                .pQueuePriorities = &prio};
  VkPhysicalDeviceVulkan12Features en12 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .timelineSemaphore = VK_TRUE};
  VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                           .pNext = &en12,
                           .queueCreateInfoCount = 1,
                           .pQueueCreateInfos = &qi};
  VkResult r = vkCreateDevice(phys, &di, NULL, &d->device);
  if (r != VK_SUCCESS) return vk_fail(r, "vkCreateDevice");
  vkGetDeviceQueue(d->device, fam, 0, &d->queue);
  pthread_mutex_init(&d->queue_lock, NULL);
  pthread_mutex_init(&d->lock, NULL);
  pthread_mutex_init(&d->staging_lock, NULL);
  pthread_mutex_init(&d->pinned_lock, NULL);
  pthread_mutex_init(&d->ws_lock, NULL);

  memcpy(d->name, d->props.deviceName, sizeof d->name);
  d->name[sizeof d->name - 1] = 0;
  snprintf(d->compute_version, sizeof d->compute_version, "%u.%u",
           VK_API_VERSION_MAJOR(d->props.apiVersion), VK_API_VERSION_MINOR(d->props.apiVersion));
  snprintf(d->dims_json, sizeof d->dims_json, "[%u, %u, %u]",
           d->props.limits.maxComputeWorkGroupSize[0], d->props.limits.maxComputeWorkGroupSize[1],
           d->props.limits.maxComputeWorkGroupSize[2]);
  decode_driver_version(d);
  const char* dt = "other";
  switch (d->props.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: dt = "integrated"; break;
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: dt = "discrete"; break;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: dt = "virtual"; break;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: dt = "cpu"; break;
    default: break;
  }
  snprintf(d->device_type, sizeof d->device_type, "%s", dt);
  if (stream_new(d, idx, &d->default_stream) != 0) {
    vkDestroyDevice(d->device, NULL);
    d->device = VK_NULL_HANDLE;
    return -1;
  }
  return 1;
}

static void vk_shutdown(void);

static int load_loader(void) {
  g_lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!g_lib) {
    const char* e = dlerror();
    snprintf(g_reason, sizeof g_reason, "libvulkan.so.1 not found (Vulkan loader): %s",
             e ? e : "dlopen failed");
    return 0;
  }
  *(void**)&vkGetInstanceProcAddr = dlsym(g_lib, "vkGetInstanceProcAddr");
  if (!vkGetInstanceProcAddr) {
    snprintf(g_reason, sizeof g_reason, "libvulkan.so.1 has no vkGetInstanceProcAddr");
    return 0;
  }
#define DHVK_LOAD(name) name = (PFN_##name)vkGetInstanceProcAddr(VK_NULL_HANDLE, #name);
  DHVK_GLOBAL_FUNCS(DHVK_LOAD)
#undef DHVK_LOAD
  p_vkEnumerateInstanceVersion =
      (PFN_vkEnumerateInstanceVersion)vkGetInstanceProcAddr(VK_NULL_HANDLE, "vkEnumerateInstanceVersion");
  if (!vkCreateInstance || !vkEnumerateInstanceLayerProperties || !p_vkEnumerateInstanceVersion) {
    snprintf(g_reason, sizeof g_reason, "the Vulkan loader is older than Vulkan 1.1");
    return 0;
  }
  return 1;
}

static int vk_init(void) {
  if (g_inited) return 0;
  g_inited = 1;
  g_forked = 0;
  g_reason[0] = 0;
  if (!g_atfork_registered && pthread_atfork(NULL, NULL, on_fork_child) == 0) g_atfork_registered = 1;
  if (!load_loader()) return 0;
  uint32_t loader_version = 0;
  p_vkEnumerateInstanceVersion(&loader_version);
  if (loader_version < VK_API_VERSION_1_2) {
    snprintf(g_reason, sizeof g_reason, "Vulkan loader is %u.%u; devharness needs 1.2",
             VK_API_VERSION_MAJOR(loader_version), VK_API_VERSION_MINOR(loader_version));
    return 0;
  }
  const char* want_val = getenv("DEVHARNESS_VK_VALIDATION");
  int val = want_val && strcmp(want_val, "1") == 0;
  const char* layers[1] = {"VK_LAYER_KHRONOS_validation"};
  const char* exts[1] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
  if (val) {
    uint32_t nl = 0;
    vkEnumerateInstanceLayerProperties(&nl, NULL);
    VkLayerProperties* lp = calloc(nl ? nl : 1, sizeof *lp);
    int found = 0;
    if (lp) {
      vkEnumerateInstanceLayerProperties(&nl, lp);
      for (uint32_t i = 0; i < nl; i++)
        if (strcmp(lp[i].layerName, layers[0]) == 0) found = 1;
      free(lp);
    }
    if (!found) {
      fprintf(stderr, "devharness vulkan: DEVHARNESS_VK_VALIDATION=1 but %s is not installed\n",
              layers[0]);
      val = 0;
    }
  }
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                           .pApplicationName = "devharness",
                           .pEngineName = "devharness",
                           .apiVersion = loader_version >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3
                                                                              : VK_API_VERSION_1_2};
  VkDebugUtilsMessengerCreateInfoEXT mi = {
      .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
      .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
      .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
      .pfnUserCallback = debug_cb};
  VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                             .pNext = val ? &mi : NULL,
                             .pApplicationInfo = &app,
                             .enabledLayerCount = val ? 1 : 0,
                             .ppEnabledLayerNames = val ? layers : NULL,
                             .enabledExtensionCount = val ? 1 : 0,
                             .ppEnabledExtensionNames = val ? exts : NULL};
  VkResult r = vkCreateInstance(&ci, NULL, &g_instance);
  if (r != VK_SUCCESS) {
    g_instance = VK_NULL_HANDLE;
    snprintf(g_reason, sizeof g_reason, "vkCreateInstance failed: %s%s", vk_result_name(r),
             r == VK_ERROR_INCOMPATIBLE_DRIVER ? " (no Vulkan ICD/driver installed)" : "");
    return 0;
  }
  g_validation = val;
#define DHVK_LOAD(name) name = (PFN_##name)vkGetInstanceProcAddr(g_instance, #name);
  DHVK_INSTANCE_FUNCS(DHVK_LOAD)
#undef DHVK_LOAD
#define DHVK_CHECK(name) if (!name) { snprintf(g_reason, sizeof g_reason, "Vulkan entry point %s missing", #name); return 0; }
  DHVK_INSTANCE_FUNCS(DHVK_CHECK)
#undef DHVK_CHECK
  if (val) {
    p_vkCreateDebugUtilsMessengerEXT = (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
        g_instance, "vkCreateDebugUtilsMessengerEXT");
    p_vkDestroyDebugUtilsMessengerEXT = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
        g_instance, "vkDestroyDebugUtilsMessengerEXT");
    if (p_vkCreateDebugUtilsMessengerEXT)
      p_vkCreateDebugUtilsMessengerEXT(g_instance, &mi, NULL, &g_messenger);
  }
  uint32_t np = 0;
  r = vkEnumeratePhysicalDevices(g_instance, &np, NULL);
  if (r != VK_SUCCESS || np == 0) {
    snprintf(g_reason, sizeof g_reason, "no Vulkan physical device (%s)",
             r != VK_SUCCESS ? vk_result_name(r) : "the loader found no ICD device");
    return 0;
  }
  VkPhysicalDevice* phys = calloc(np, sizeof *phys);
  if (!phys) return dh_error_set("OutOfMemoryError", "out of host memory");
  vkEnumeratePhysicalDevices(g_instance, &np, phys);
  for (uint32_t i = 0; i < np && g_num_devs < DHVK_MAX_DEVICES; i++) {
    int ok = device_setup(phys[i], g_num_devs);
    if (ok < 0) {
      fprintf(stderr, "devharness vulkan: skipping physical device %u: %s\n", i, dh_error_message());
      dh_error_clear();
      continue;
    }
    if (ok) g_num_devs++;
  }
  free(phys);
  if (g_num_devs == 0)
    snprintf(g_reason, sizeof g_reason,
             "%u Vulkan physical device%s, none with a compute queue and Vulkan 1.2 timeline "
             "semaphores", np, np == 1 ? "" : "s");
  return 0;
}

static const char* vk_unavailable_reason(void) {
  if (g_forked) return "the Vulkan backend was initialised before fork(); fork before init";
  return g_num_devs > 0 ? NULL : g_reason;
}

static void vk_shutdown(void) {
  if (g_forked) { /* the driver state is the parent's: touch nothing, forget it */
    memset(g_devs, 0, sizeof g_devs);
    g_num_devs = 0;
    g_instance = VK_NULL_HANDLE;
    g_messenger = VK_NULL_HANDLE;
    g_lib = NULL;
    g_inited = 0;
    g_forked = 0;
    return;
  }
  for (int i = 0; i < g_num_devs; i++) {
    dhvk_device_t* d = &g_devs[i];
    if (!d->device) continue;
    vkDeviceWaitIdle(d->device);
    for (dhvk_stream_t* s = d->streams; s;) {
      dhvk_stream_t* nx = s->next;
      stream_drain(d, s);
      stream_destroy_objects(d, s);
      s = nx;
    }
    for (dhvk_stream_t* s = d->dead_streams; s;) {
      dhvk_stream_t* nx = s->next;
      free(s);
      s = nx;
    }
    for (dhvk_buf_t* b = d->pinned; b;) {
      dhvk_buf_t* nx = b->next;
      buf_destroy(d, b);
      b = nx;
    }
    for (dhvk_buf_t* b = d->staging_free; b;) {
      dhvk_buf_t* nx = b->next;
      buf_destroy(d, b);
      b = nx;
    }
    pthread_mutex_destroy(&d->staging_lock);
    pthread_mutex_destroy(&d->pinned_lock);
    for (dhvk_buf_t* b = d->ws_free; b;) {
      dhvk_buf_t* nx = b->next;
      buf_destroy(d, b);
      b = nx;
    }
    pthread_mutex_destroy(&d->ws_lock);
    if (d->pipe_noop) vkDestroyPipeline(d->device, d->pipe_noop, NULL);
    if (d->pipe_fill) vkDestroyPipeline(d->device, d->pipe_fill, NULL);
    if (d->layout) vkDestroyPipelineLayout(d->device, d->layout, NULL);
    if (d->dsl) vkDestroyDescriptorSetLayout(d->device, d->dsl, NULL);
    vkDestroyDevice(d->device, NULL);
    pthread_mutex_destroy(&d->queue_lock);
    pthread_mutex_destroy(&d->lock);
    memset(d, 0, sizeof *d);
  }
  g_num_devs = 0;
  if (g_messenger && p_vkDestroyDebugUtilsMessengerEXT)
    p_vkDestroyDebugUtilsMessengerEXT(g_instance, g_messenger, NULL);
  g_messenger = VK_NULL_HANDLE;
  if (g_instance) vkDestroyInstance(g_instance, NULL);
  g_instance = VK_NULL_HANDLE;
  if (g_lib) dlclose(g_lib);
  g_lib = NULL;
  g_inited = 0;
}

/*===========================================================================
 * Attributes and target properties
 *===========================================================================*/
static int vk_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (!out) return dh_error_set("ValueError", "get_attr: out_value is NULL");
  if (kind < 0 || kind >= DH_ATTR_KIND_COUNT)
    return dh_error_set("ValueError", "unknown device attribute kind %d (valid: 0..%d)", (int)kind,
                        DH_ATTR_KIND_COUNT - 1);
  if (kind == DH_ATTR_EXIST) {
    *out = dh_any_int(!g_forked && dev.device_type == kDLVulkan && dev.device_id >= 0 &&
                      dev.device_id < g_num_devs);
    return 0;
  }
  dhvk_device_t* d = NULL;
  if (check_dev(dev, &d)) return -1;
  const VkPhysicalDeviceLimits* L = &d->props.limits;
  *out = dh_any_none();
  switch ((dh_attr_kind_t)kind) {
    case DH_ATTR_MAX_THREADS_PER_BLOCK: *out = dh_any_int(L->maxComputeWorkGroupInvocations); break;
    case DH_ATTR_WARP_SIZE: *out = dh_any_int(d->props11.subgroupSize ? d->props11.subgroupSize : 1); break;
    case DH_ATTR_MAX_SHARED_MEMORY_PER_BLOCK: *out = dh_any_int(L->maxComputeSharedMemorySize); break;
    case DH_ATTR_COMPUTE_VERSION: *out = dh_any_str(d->compute_version); break;
    case DH_ATTR_DEVICE_NAME: *out = dh_any_str(d->name); break;
    case DH_ATTR_MAX_THREAD_DIMENSIONS: *out = dh_any_str(d->dims_json); break;
    case DH_ATTR_API_VERSION: *out = dh_any_int(VK_HEADER_VERSION_COMPLETE); break;
    case DH_ATTR_DRIVER_VERSION: *out = dh_any_str(d->driver_version); break;
    case DH_ATTR_TOTAL_GLOBAL_MEMORY: *out = dh_any_int((int64_t)device_local_total(d)); break;
    case DH_ATTR_AVAILABLE_GLOBAL_MEMORY:
      if (d->has_budget) {
        VkPhysicalDeviceMemoryBudgetPropertiesEXT bp = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
        VkPhysicalDeviceMemoryProperties2 mp = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2, .pNext = &bp};
        vkGetPhysicalDeviceMemoryProperties2(d->phys, &mp);
        int64_t avail = 0;
        for (uint32_t i = 0; i < mp.memoryProperties.memoryHeapCount; i++)
          if (mp.memoryProperties.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
            avail += bp.heapBudget[i] > bp.heapUsage[i] ? (int64_t)(bp.heapBudget[i] - bp.heapUsage[i]) : 0;
        *out = dh_any_int(avail);
      }
      break;
    default: break; /* kMaxClockRate, kMultiProcessorCount, ...: None (TVM) */
  }
  return 0;
}

static int vk_get_target_property(DLDevice dev, const char* name, dh_any_t* out) {
  if (!name || !out) return dh_error_set("ValueError", "get_target_property: NULL name or out_value");
  dhvk_device_t* d = NULL;
  if (check_dev(dev, &d)) return -1;
  const VkPhysicalDeviceLimits* L = &d->props.limits;
  const VkPhysicalDeviceFeatures* F = &d->feats.features;
  uint32_t api = d->props.apiVersion;
  *out = dh_any_none();
#define B(n, v) if (strcmp(name, n) == 0) { *out = dh_any_bool(v); return 0; }
#define I(n, v) if (strcmp(name, n) == 0) { *out = dh_any_int((int64_t)(v)); return 0; }
#define S(n, v) if (strcmp(name, n) == 0) { *out = dh_any_str(v); return 0; }
  B("supports_float16", d->feats12.shaderFloat16)
  B("supports_float32", 1)
  B("supports_float64", F->shaderFloat64)
  B("supports_int8", d->feats12.shaderInt8)
  B("supports_int16", F->shaderInt16)
  B("supports_int32", 1)
  B("supports_int64", F->shaderInt64)
  B("supports_8bit_buffer", d->feats12.storageBuffer8BitAccess)
  B("supports_16bit_buffer", d->feats11.storageBuffer16BitAccess)
  B("supports_storage_buffer_storage_class", api >= VK_API_VERSION_1_1)
  B("supports_push_descriptor", d->has_push_descriptor)
  B("supports_dedicated_allocation", api >= VK_API_VERSION_1_1)
  B("supports_integer_dot_product", d->has_int_dot)
  B("supports_cooperative_matrix", d->has_coop_matrix)
  I("supported_subgroup_operations", d->props11.subgroupSupportedOperations)
  I("max_num_threads", L->maxComputeWorkGroupInvocations)
  I("max_threads_per_block", L->maxComputeWorkGroupInvocations)
  I("thread_warp_size", d->props11.subgroupSize ? d->props11.subgroupSize : 1)
  I("max_block_size_x", L->maxComputeWorkGroupSize[0])
  I("max_block_size_y", L->maxComputeWorkGroupSize[1])
  I("max_block_size_z", L->maxComputeWorkGroupSize[2])
  I("max_push_constants_size", L->maxPushConstantsSize)
  I("max_uniform_buffer_range", L->maxUniformBufferRange)
  I("max_storage_buffer_range", L->maxStorageBufferRange)
  I("max_per_stage_descriptor_storage_buffer", L->maxPerStageDescriptorStorageBuffers)
  I("max_shared_memory_per_block", L->maxComputeSharedMemorySize)
  S("device_type", d->device_type)
  S("device_name", d->name)
  S("driver_name", d->props12.driverName)
  I("driver_version", d->props.driverVersion)
  I("vulkan_api_version", api)
  I("max_spirv_version", api >= VK_API_VERSION_1_3 ? 0x10600 : api >= VK_API_VERSION_1_2 ? 0x10500 : 0x10300)
  I("vk_validation_errors", atomic_load(&g_val_errors))
  B("vk_validation_enabled", g_validation)
#undef B
#undef I
#undef S
  return 0; /* unknown or common option (kind, keys, ...): None */
}

static int vk_set_device(DLDevice dev) {
  dhvk_device_t* d = NULL;
  return check_dev(dev, &d);
}

/*===========================================================================
 * Memory
 *===========================================================================*/
static int vk_alloc_data_space(DLDevice dev, size_t nbytes, size_t alignment, DLDataType hint,
                               void** out) {
  (void)hint;
  dhvk_device_t* d = NULL;
  if (!out) return dh_error_set("ValueError", "alloc_data_space: out_ptr is NULL");
  *out = NULL;
  if (check_dev(dev, &d)) return -1;
  if (alignment & (alignment - 1))
    return dh_error_set("ValueError", "alignment %zu is not a power of two", alignment);
  dhvk_buf_t* b = NULL;
  if (buf_create(d, dev.device_id, nbytes, 0, &b)) return -1;
  if (val_check()) {
    buf_destroy(d, b);
    return -1;
  }
  *out = b;
  return 0;
}

/* Waits until every stream of d has finished the work submitted so far (not retired:
 * deferred host copies still happen at stream_sync). Used before freeing a buffer
 * that queued work may still use, as cudaFree synchronises. */
static int device_wait_all(dhvk_device_t* d) {
  int rc = 0;
  pthread_mutex_lock(&d->lock);
  for (dhvk_stream_t* s = d->streams; s && !rc; s = s->next) {
    pthread_mutex_lock(&s->lock);
    if (s->submitted) rc = sem_wait(d, s->sem, s->submitted);
    pthread_mutex_unlock(&s->lock);
  }
  pthread_mutex_unlock(&d->lock);
  return rc;
}

static int vk_free_data_space(DLDevice dev, void* ptr) {
  dhvk_device_t* d = NULL;
  if (check_dev(dev, &d)) return -1;
  if (!ptr) return 0;
  dhvk_buf_t* b = NULL;
  if (check_buf(ptr, dev.device_id, "free_data_space: ptr", &b)) return -1;
  if (b->buffer && device_wait_all(d)) return -1;
  buf_destroy(d, b);
  return val_check();
}

/* Workspaces: data-space buffers recycled through a per-device pool (as TVM's
 * WorkspacePool): free_workspace waits for the device's queued work (like
 * free_data_space), then keeps the buffer, up to DHVK_WS_CACHE bytes in all;
 * alloc_workspace reuses a pooled buffer of at least nbytes and at most twice that. */
#define DHVK_WS_CACHE ((size_t)64 << 20)

static int vk_alloc_workspace(DLDevice dev, size_t nbytes, DLDataType hint, void** out) {
  dhvk_device_t* d = NULL;
  if (!out) return dh_error_set("ValueError", "alloc_workspace: out_ptr is NULL");
  *out = NULL;
  if (check_dev(dev, &d)) return -1;
  if (nbytes > 0) {
    size_t want_max = 2 * (nbytes < 4096 ? 4096 : nbytes);
    pthread_mutex_lock(&d->ws_lock);
    dhvk_buf_t **best = NULL, **pp;
    for (pp = &d->ws_free; *pp; pp = &(*pp)->next)
      if ((*pp)->cap >= nbytes && (*pp)->cap <= want_max && (!best || (*pp)->cap < (*best)->cap))
        best = pp;
    dhvk_buf_t* b = NULL;
    if (best) {
      b = *best;
      *best = b->next;
      b->next = NULL;
      d->ws_bytes -= b->cap;
      b->size = nbytes;
    }
    pthread_mutex_unlock(&d->ws_lock);
    if (b) {
      *out = b;
      return 0;
    }
  }
  return vk_alloc_data_space(dev, nbytes, DH_TEMP_ALLOC_ALIGNMENT, hint, out);
}

static int vk_free_workspace(DLDevice dev, void* ptr) {
  dhvk_device_t* d = NULL;
  if (check_dev(dev, &d)) return -1;
  if (!ptr) return 0;
  dhvk_buf_t* b = NULL;
  if (check_buf(ptr, dev.device_id, "free_workspace: ptr", &b)) return -1;
  if (!b->buffer || b->cap > DHVK_WS_CACHE) return vk_free_data_space(dev, ptr);
  if (device_wait_all(d)) return -1;
  pthread_mutex_lock(&d->ws_lock);
  while (d->ws_free && d->ws_bytes + b->cap > DHVK_WS_CACHE) {
    dhvk_buf_t* old = d->ws_free;
    d->ws_free = old->next;
    d->ws_bytes -= old->cap;
    buf_destroy(d, old);
  }
  b->next = d->ws_free;
  d->ws_free = b;
  d->ws_bytes += b->cap;
  pthread_mutex_unlock(&d->ws_lock);
  return val_check();
}

static int vk_alloc_host(DLDevice dev, size_t nbytes, void** out) {
  dhvk_device_t* d = NULL;
  if (!out) return dh_error_set("ValueError", "alloc_host: out_ptr is NULL");
  *out = NULL;
  if (check_dev(dev, &d)) return -1;
  dhvk_buf_t* b = NULL;
  if (buf_create(d, dev.device_id, nbytes, 1, &b)) return -1;
  pthread_mutex_lock(&d->pinned_lock);
  b->next = d->pinned;
  d->pinned = b;
  pthread_mutex_unlock(&d->pinned_lock);
  *out = b->mapped;
  return 0;
}

static int vk_free_host(DLDevice dev, void* ptr) {
  dhvk_device_t* d = NULL;
  if (check_dev(dev, &d)) return -1;
  if (!ptr) return 0;
  pthread_mutex_lock(&d->pinned_lock);
  dhvk_buf_t** pp = &d->pinned;
  while (*pp && (*pp)->mapped != ptr) pp = &(*pp)->next;
  dhvk_buf_t* b = *pp;
  if (b) *pp = b->next;
  pthread_mutex_unlock(&d->pinned_lock);
  if (!b) return dh_error_set("ValueError", "free_host: %p was not returned by alloc_host on vulkan:%d",
                              ptr, (int)dev.device_id);
  /* a D2H copy may still be writing into it (see pinned_find) */
  if (device_wait_all(d)) return -1;
  buf_destroy(d, b);
  return 0;
}

/*===========================================================================
 * Copies
 *===========================================================================*/
static void cmd_host_barrier(VkCommandBuffer cb) {
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                        .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb,
                       0, NULL, 0, NULL);
}

static int range_check(const dhvk_buf_t* b, size_t off, size_t n, const char* what) {
  if (off > b->size || n > b->size - off)
    return dh_error_set("ValueError",
                        "%s range [%zu, %zu) is outside the %" PRIu64 "-byte vulkan buffer", what,
                        off, off + n, (uint64_t)b->size);
  return 0;
}

/* The pinned (alloc_host) buffer holding host bytes [p, p + n), or NULL. A D2H copy
 * into pinned memory is written there by the device directly (no staging, no
 * deferred memcpy); free_host waits for the device first. */
static dhvk_buf_t* pinned_find(dhvk_device_t* d, const void* p, size_t n, size_t* out_off) {
  dhvk_buf_t* hit = NULL;
  pthread_mutex_lock(&d->pinned_lock);
  for (dhvk_buf_t* b = d->pinned; b; b = b->next) {
    uintptr_t lo = (uintptr_t)b->mapped, q = (uintptr_t)p;
    if (q >= lo && q - lo <= b->size && n <= b->size - (q - lo)) {
      *out_off = q - lo;
      hit = b;
      break;
    }
  }
  pthread_mutex_unlock(&d->pinned_lock);
  return hit;
}

/* One queued copy on stream s of device d. Kinds: 0 H2D, 1 D2H, 2 D2D. */
static int enqueue_copy(dhvk_device_t* d, dhvk_stream_t* s, int kind, const void* host_src,
                        void* host_dst, dhvk_buf_t* src, size_t src_off, dhvk_buf_t* dst,
                        size_t dst_off, size_t nbytes) {
  dhvk_sub_t sub = {0};
  size_t pin_off = 0;
  dhvk_buf_t* pin = (kind == 1 && d->pinned) ? pinned_find(d, host_dst, nbytes, &pin_off) : NULL;
  if (pin) {
    kind = 2; /* device -> pinned buffer */
    dst = pin;
    dst_off = pin_off;
  }
  if (kind != 2 && staging_get(d, s->dev, nbytes, &sub.staging)) return -1;
  if (kind == 0) memcpy(sub.staging->mapped, host_src, nbytes);
  pthread_mutex_lock(&s->lock);
  if (stream_begin(d, s, &sub.cb)) {
    pthread_mutex_unlock(&s->lock);
    staging_put(d, sub.staging);
    return -1;
  }
  VkBufferCopy region = {.size = nbytes};
  if (kind == 0) {
    region.srcOffset = 0;
    region.dstOffset = dst_off;
    vkCmdCopyBuffer(sub.cb, sub.staging->buffer, dst->buffer, 1, &region);
  } else if (kind == 1) {
    region.srcOffset = src_off;
    region.dstOffset = 0;
    vkCmdCopyBuffer(sub.cb, src->buffer, sub.staging->buffer, 1, &region);
    cmd_host_barrier(sub.cb);
    sub.host_dst = host_dst;
    sub.host_nbytes = nbytes;
  } else {
    region.srcOffset = src_off;
    region.dstOffset = dst_off;
    vkCmdCopyBuffer(sub.cb, src->buffer, dst->buffer, 1, &region);
    if (pin) cmd_host_barrier(sub.cb);
  }
  int rc = stream_submit(d, s, &sub);
  pthread_mutex_unlock(&s->lock);
  return rc;
}

static int vk_copy_data_from_to(const void* from, size_t from_offset, void* to, size_t to_offset,
                                size_t nbytes, DLDevice dev_from, DLDevice dev_to,
                                DLDataType hint, dh_stream_t stream) {
  (void)hint;
  int from_host = dev_from.device_type == kDLCPU || dev_from.device_type == kDLCUDAHost;
  int to_host = dev_to.device_type == kDLCPU || dev_to.device_type == kDLCUDAHost;
  if (!from_host && dev_from.device_type != kDLVulkan)
    return dh_error_set("ValueError", "copy source device type %d is neither CPU nor vulkan",
                        (int)dev_from.device_type);
  if (!to_host && dev_to.device_type != kDLVulkan)
    return dh_error_set("ValueError", "copy destination device type %d is neither CPU nor vulkan",
                        (int)dev_to.device_type);
  if (!from) return dh_error_set("ValueError", "copy source pointer is NULL");
  if (!to) return dh_error_set("ValueError", "copy destination pointer is NULL");
  if (from_host && to_host) {
    if (nbytes) memmove((char*)to + to_offset, (const char*)from + from_offset, nbytes);
    return 0;
  }
  dhvk_device_t *df = NULL, *dt = NULL;
  dhvk_buf_t *bf = NULL, *bt = NULL;
  if (!from_host) {
    if (check_dev(dev_from, &df) || check_buf(from, dev_from.device_id, "copy source", &bf) ||
        range_check(bf, from_offset, nbytes, "copy source"))
      return -1;
  }
  if (!to_host) {
    if (check_dev(dev_to, &dt) || check_buf(to, dev_to.device_id, "copy destination", &bt) ||
        range_check(bt, to_offset, nbytes, "copy destination"))
      return -1;
  }
  DLDevice sdev = from_host ? dev_to : dev_from;
  dhvk_device_t* d = from_host ? dt : df;
  dhvk_stream_t* s = NULL;
  if (resolve_stream(d, sdev.device_id, stream, &s)) return -1;
  if (nbytes == 0) return 0;
  int rc;
  if (from_host) {
    rc = enqueue_copy(d, s, 0, (const char*)from + from_offset, NULL, NULL, 0, bt, to_offset, nbytes);
  } else if (to_host) {
    rc = enqueue_copy(d, s, 1, NULL, (char*)to + to_offset, bf, from_offset, NULL, 0, nbytes);
  } else if (dev_from.device_id == dev_to.device_id) {
    rc = enqueue_copy(d, s, 2, NULL, NULL, bf, from_offset, bt, to_offset, nbytes);
  } else {
    /* Across devices: through host memory, synchronously. */
    void* tmp = malloc(nbytes);
    if (!tmp) return dh_error_set("OutOfMemoryError", "no host memory for a %zu-byte bounce", nbytes);
    dhvk_stream_t* ds = dt->default_stream;
    rc = enqueue_copy(df, s, 1, NULL, tmp, bf, from_offset, NULL, 0, nbytes);
    if (!rc) {
      pthread_mutex_lock(&s->lock);
      rc = stream_drain(df, s);
      pthread_mutex_unlock(&s->lock);
    }
    if (!rc) rc = enqueue_copy(dt, ds, 0, tmp, NULL, NULL, 0, bt, to_offset, nbytes);
    if (!rc) {
      pthread_mutex_lock(&ds->lock);
      rc = stream_drain(dt, ds);
      pthread_mutex_unlock(&ds->lock);
    }
    free(tmp);
  }
  if (rc) return -1;
  return val_check();
}

/*===========================================================================
 * Streams (vtable)
 *===========================================================================*/
static int vk_create_stream(DLDevice dev, dh_stream_t* out) {
  dhvk_device_t* d = NULL;
  if (!out) return dh_error_set("ValueError", "create_stream: out_stream is NULL");
  *out = NULL;
  if (check_dev(dev, &d)) return -1;
  dhvk_stream_t* s = NULL;
  if (stream_new(d, dev.device_id, &s)) return -1;
  *out = s;
  return val_check();
}

static int vk_free_stream(DLDevice dev, dh_stream_t stream) {
  dhvk_device_t* d = NULL;
  if (check_dev(dev, &d)) return -1;
  if (!stream) return 0;
  dhvk_stream_t* s = NULL;
  if (resolve_stream(d, dev.device_id, stream, &s)) return -1;
  if (s == d->default_stream) return 0;
  pthread_mutex_lock(&s->lock);
  int rc = stream_drain(d, s);
  pthread_mutex_unlock(&s->lock);
  if (rc) return -1;
  /* Unlink, and drop waits other streams hold on this (completed) timeline. */
  pthread_mutex_lock(&d->lock);
  dhvk_stream_t** pp = &d->streams;
  while (*pp && *pp != s) pp = &(*pp)->next;
  if (*pp) *pp = s->next;
  for (dhvk_stream_t* o = d->streams; o; o = o->next) {
    pthread_mutex_lock(&o->lock);
    size_t k = 0;
    for (size_t i = 0; i < o->num_waits; i++)
      if (o->waits[i].sem != s->sem) o->waits[k++] = o->waits[i];
    o->num_waits = k;
    pthread_mutex_unlock(&o->lock);
  }
  pthread_mutex_unlock(&d->lock);
  for (int i = 0; i < DHVK_MAX_DEVICES; i++)
    if (tl_current[i] == s) tl_current[i] = NULL;
  stream_release_objects(d, s);
  pthread_mutex_lock(&d->lock);
  s->next = d->dead_streams;
  d->dead_streams = s;
  pthread_mutex_unlock(&d->lock);
  return val_check();
}

static int vk_set_stream(DLDevice dev, dh_stream_t stream) {
  dhvk_device_t* d = NULL;
  if (check_dev(dev, &d)) return -1;
  dhvk_stream_t* s = NULL;
  if (stream && resolve_stream(d, dev.device_id, stream, &s)) return -1;
  tl_current[dev.device_id] = stream;
  return 0;
}

static int vk_get_current_stream(DLDevice dev, dh_stream_t* out) {
  dhvk_device_t* d = NULL;
  if (!out) return dh_error_set("ValueError", "get_current_stream: out_stream is NULL");
  *out = NULL;
  if (check_dev(dev, &d)) return -1;
  *out = tl_current[dev.device_id];
  return 0;
}

static int vk_stream_sync(DLDevice dev, dh_stream_t stream) {
  dhvk_device_t* d = NULL;
  if (check_dev(dev, &d)) return -1;
  dhvk_stream_t* s = NULL;
  if (resolve_stream(d, dev.device_id, stream, &s)) return -1;
  pthread_mutex_lock(&s->lock);
  int rc = stream_drain(d, s);
  pthread_mutex_unlock(&s->lock);
  if (rc) return -1;
  return val_check();
}

static int vk_sync_stream_from_to(DLDevice dev, dh_stream_t src, dh_stream_t dst) {
  dhvk_device_t* d = NULL;
  if (check_dev(dev, &d)) return -1;
  dhvk_stream_t *s, *t;
  if (resolve_stream(d, dev.device_id, src, &s) || resolve_stream(d, dev.device_id, dst, &t)) return -1;
  if (s == t) return 0;
  pthread_mutex_lock(&s->lock);
  uint64_t value = s->submitted;
  VkSemaphore sem = s->sem;
  uint64_t reached = 0;
  if (value) vkGetSemaphoreCounterValue(d->device, sem, &reached);
  pthread_mutex_unlock(&s->lock);
  if (value == 0 || reached >= value) return 0; /* nothing pending on src */
  pthread_mutex_lock(&t->lock);
  int rc = 0;
  size_t i;
  for (i = 0; i < t->num_waits; i++)
    if (t->waits[i].sem == sem) break;
  if (i < t->num_waits) {
    if (t->waits[i].value < value) t->waits[i].value = value;
  } else {
    if (t->num_waits == t->cap_waits) {
      size_t cap = t->cap_waits ? 2 * t->cap_waits : 4;
      dhvk_wait_t* w = realloc(t->waits, cap * sizeof *w);
      if (!w) rc = dh_error_set("OutOfMemoryError", "out of host memory for a stream wait");
      else { t->waits = w; t->cap_waits = cap; }
    }
    if (!rc) t->waits[t->num_waits++] = (dhvk_wait_t){sem, value};
  }
  pthread_mutex_unlock(&t->lock);
  return rc;
}

/*===========================================================================
 * Module functions
 *===========================================================================*/
static dhvk_stream_t* current_stream(dhvk_device_t* d, int dev) {
  dhvk_stream_t* s = tl_current[dev];
  return s ? s : d->default_stream;
}

static int fn_noop(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self;
  if (n < 1 || args[0].type_index != DH_TYPE_DEVICE)
    return dh_error_set("TypeError", "vulkan.noop(Device dev): argument 0 must be a Device, got %s",
                        n < 1 ? "nothing" : dh_type_index_name(args[0].type_index));
  DLDevice dev = args[0].v_device;
  dhvk_device_t* d = NULL;
  if (check_dev(dev, &d) || ensure_pipelines(d)) return -1;
  dhvk_stream_t* s = current_stream(d, dev.device_id);
  dhvk_sub_t sub = {0};
  pthread_mutex_lock(&s->lock);
  int rc = stream_begin(d, s, &sub.cb);
  if (!rc) {
    vkCmdBindPipeline(sub.cb, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipe_noop);
    vkCmdDispatch(sub.cb, 1, 1, 1);
    rc = stream_submit(d, s, &sub);
  }
  pthread_mutex_unlock(&s->lock);
  if (rv) *rv = dh_any_none();
  return rc ? -1 : val_check();
}

/* Queues one fill dispatch over bytes [off, off + nbytes) of b on s; the bound range
 * (from off rounded down to minStorageBufferOffsetAlignment) must fit
 * maxStorageBufferRange. */
static int fill_chunk(dhvk_device_t* d, dhvk_stream_t* s, dhvk_buf_t* b, size_t off, size_t nbytes,
                      uint32_t value) {
  VkDeviceSize align = d->props.limits.minStorageBufferOffsetAlignment;
  if (align < 4) align = 4;
  VkDeviceSize bind_off = off / align * align;
  VkDeviceSize range = off + nbytes - bind_off;
  uint32_t pc[4] = {(uint32_t)((off - bind_off) / 4), (uint32_t)(nbytes / 4), value, 0};
  uint32_t groups = (pc[1] + 63) / 64;
  uint32_t max_groups = d->props.limits.maxComputeWorkGroupCount[0];
  if (groups > 4096) groups = 4096;
  if (groups > max_groups) groups = max_groups;
  dhvk_sub_t sub = {0};
  pthread_mutex_lock(&s->lock);
  int rc = stream_begin(d, s, &sub.cb);
  if (!rc) {
    VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = s->dpool,
                                      .descriptorSetCount = 1,
                                      .pSetLayouts = &d->dsl};
    VkResult r = vkAllocateDescriptorSets(d->device, &ai, &sub.ds);
    if (r != VK_SUCCESS) {
      sub.ds = VK_NULL_HANDLE;
      vkEndCommandBuffer(sub.cb);
      s->free_cbs[s->num_free_cbs++] = sub.cb;
      rc = vk_fail(r, "vkAllocateDescriptorSets");
    } else {
      VkDescriptorBufferInfo bi = {.buffer = b->buffer, .offset = bind_off, .range = range};
      VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                .dstSet = sub.ds,
                                .dstBinding = 0,
                                .descriptorCount = 1,
                                .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                .pBufferInfo = &bi};
      vkUpdateDescriptorSets(d->device, 1, &w, 0, NULL);
      vkCmdBindPipeline(sub.cb, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipe_fill);
      vkCmdBindDescriptorSets(sub.cb, VK_PIPELINE_BIND_POINT_COMPUTE, d->layout, 0, 1, &sub.ds, 0,
                              NULL);
      vkCmdPushConstants(sub.cb, d->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, pc);
      vkCmdDispatch(sub.cb, groups, 1, 1);
      rc = stream_submit(d, s, &sub);
    }
  }
  pthread_mutex_unlock(&s->lock);
  return rc;
}

static int fn_fill(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self;
  if (n < 2 || args[0].type_index != DH_TYPE_DL_TENSOR_PTR || args[1].type_index != DH_TYPE_INT)
    return dh_error_set("TypeError",
                        "vulkan.fill(DLTensorPtr dst, Int value): got %d argument%s (%s, %s)", (int)n,
                        n == 1 ? "" : "s", n > 0 ? dh_type_index_name(args[0].type_index) : "-",
                        n > 1 ? dh_type_index_name(args[1].type_index) : "-");
  const DLTensor* t = args[0].v_ptr;
  if (!t) return dh_error_set("TypeError", "vulkan.fill: dst is a NULL DLTensor");
  dhvk_device_t* d = NULL;
  if (check_dev(t->device, &d)) return -1;
  int dev = t->device.device_id;
  dhvk_buf_t* b = NULL;
  if (check_buf(t->data, dev, "vulkan.fill: dst->data", &b)) return -1;
  if (!dh_tensor_is_contiguous(t)) return dh_error_set("ValueError", "vulkan.fill: dst is not contiguous");
  size_t nbytes;
  if (dh_tensor_nbytes(t, &nbytes)) return -1;
  size_t off = (size_t)t->byte_offset;
  if (off % 4 || nbytes % 4)
    return dh_error_set("ValueError",
                        "vulkan.fill: byte_offset (%zu) and nbytes (%zu) must be multiples of 4", off,
                        nbytes);
  if (range_check(b, off, nbytes, "vulkan.fill: dst")) return -1;
  if (rv) *rv = dh_any_none();
  if (nbytes == 0) return 0;
  if (ensure_pipelines(d)) return -1;
  /* One dispatch per chunk that fits a storage-buffer descriptor (maxStorageBufferRange). */
  VkDeviceSize align = d->props.limits.minStorageBufferOffsetAlignment;
  if (align < 4) align = 4;
  VkDeviceSize max_range = d->props.limits.maxStorageBufferRange;
  size_t chunk = max_range > 2 * align ? (size_t)((max_range - align) / 4 * 4) : 4;
  dhvk_stream_t* s = current_stream(d, dev);
  for (size_t done = 0; done < nbytes;) {
    size_t len = nbytes - done < chunk ? nbytes - done : chunk;
    if (fill_chunk(d, s, b, off + done, len, (uint32_t)args[1].v_int64)) return -1;
    done += len;
  }
  return val_check();
}

static int fn_echo(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self;
  if (n < 1 || args[0].type_index != DH_TYPE_INT)
    return dh_error_set("TypeError", "vulkan.echo(Int index, any...): argument 0 must be Int, got %s",
                        n < 1 ? "nothing" : dh_type_index_name(args[0].type_index));
  int64_t i = args[0].v_int64;
  if (i < 0 || i >= (int64_t)n - 1)
    return dh_error_set("IndexError", "vulkan.echo: index %" PRId64 " out of range (%d argument%s after it)",
                        i, (int)n - 1, n - 1 == 1 ? "" : "s");
  *rv = args[1 + i];
  return 0;
}

static const char* any_str(const dh_any_t* a, char* buf) {
  if (a->type_index == DH_TYPE_RAW_STR) return a->v_c_str;
  if (a->type_index == DH_TYPE_SMALL_STR) {
    memcpy(buf, a->v_bytes, 8);
    buf[a->small_str_len < 8 ? a->small_str_len : 7] = 0;
    return buf;
  }
  return NULL;
}

static int fn_raise(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self;
  (void)rv;
  char b0[9], b1[9];
  const char* kind = n >= 1 ? any_str(&args[0], b0) : NULL;
  const char* msg = n >= 2 ? any_str(&args[1], b1) : NULL;
  if (!kind || !msg)
    return dh_error_set("TypeError", "vulkan.raise(RawStr kind, RawStr message): got %d argument%s",
                        (int)n, n == 1 ? "" : "s");
  return dh_error_set(kind, "%s", msg);
}

static const dh_backend_function_t k_functions[] = {
    {DH_FUNC_NOOP, fn_noop}, {DH_FUNC_FILL, fn_fill}, {DH_FUNC_ECHO, fn_echo}, {DH_FUNC_RAISE, fn_raise}};

/*===========================================================================
 * Events (timestamp queries)
 *===========================================================================*/
static int vk_event_create(DLDevice dev, dh_event_t* out) {
  dhvk_device_t* d = NULL;
  if (!out) return dh_error_set("ValueError", "event_create: out_event is NULL");
  *out = NULL;
  if (check_dev(dev, &d)) return -1;
  if (d->timestamp_bits == 0)
    return dh_error_set("NotImplementedError", "vulkan:%d's compute queue has no timestamps",
                        (int)dev.device_id);
  dhvk_event_t* e = calloc(1, sizeof *e);
  if (!e) return dh_error_set("OutOfMemoryError", "out of host memory for an event");
  VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                              .queryType = VK_QUERY_TYPE_TIMESTAMP,
                              .queryCount = 1};
  VkResult r = vkCreateQueryPool(d->device, &qi, NULL, &e->pool);
  if (r != VK_SUCCESS) {
    free(e);
    return vk_fail(r, "vkCreateQueryPool");
  }
  e->magic = DHVK_EVENT_MAGIC;
  e->dev = dev.device_id;
  *out = e;
  return val_check();
}

static int check_event(dh_event_t ev, int dev, dhvk_event_t** out) {
  dhvk_event_t* e = ev;
  if (!e || e->magic != DHVK_EVENT_MAGIC || e->dev != dev)
    return dh_error_set("ValueError", "%p is not a vulkan:%d event", ev, dev);
  *out = e;
  return 0;
}

static int vk_event_record(DLDevice dev, dh_event_t ev, dh_stream_t stream) {
  dhvk_device_t* d = NULL;
  dhvk_event_t* e = NULL;
  dhvk_stream_t* s = NULL;
  if (check_dev(dev, &d) || check_event(ev, dev.device_id, &e) ||
      resolve_stream(d, dev.device_id, stream, &s))
    return -1;
  dhvk_sub_t sub = {0};
  pthread_mutex_lock(&s->lock);
  int rc = stream_begin(d, s, &sub.cb);
  if (!rc) {
    vkCmdResetQueryPool(sub.cb, e->pool, 0, 1);
    vkCmdWriteTimestamp(sub.cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, e->pool, 0);
    rc = stream_submit(d, s, &sub);
  }
  pthread_mutex_unlock(&s->lock);
  if (rc) return -1;
  e->recorded = 1;
  return val_check();
}

static int event_value(dhvk_device_t* d, dhvk_event_t* e, uint64_t* out) {
  VkResult r = vkGetQueryPoolResults(d->device, e->pool, 0, 1, sizeof *out, out, sizeof *out,
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
  if (r != VK_SUCCESS) return vk_fail(r, "vkGetQueryPoolResults");
  if (d->timestamp_bits < 64) *out &= (1ull << d->timestamp_bits) - 1;
  return 0;
}

static int vk_event_elapsed_ms(DLDevice dev, dh_event_t start, dh_event_t end, double* out_ms) {
  dhvk_device_t* d = NULL;
  dhvk_event_t *a = NULL, *b = NULL;
  if (!out_ms) return dh_error_set("ValueError", "event_elapsed_ms: out_ms is NULL");
  if (check_dev(dev, &d) || check_event(start, dev.device_id, &a) || check_event(end, dev.device_id, &b))
    return -1;
  if (!a->recorded || !b->recorded)
    return dh_error_set("ValueError", "event_elapsed_ms: %s event was never recorded",
                        !a->recorded ? "start" : "end");
  uint64_t t0, t1;
  if (event_value(d, b, &t1) || event_value(d, a, &t0)) return -1;
  double ticks = t1 >= t0 ? (double)(t1 - t0) : -(double)(t0 - t1);
  *out_ms = ticks * d->props.limits.timestampPeriod / 1e6;
  return val_check();
}

static int vk_event_free(DLDevice dev, dh_event_t ev) {
  dhvk_device_t* d = NULL;
  dhvk_event_t* e = NULL;
  if (!ev) return 0;
  if (check_dev(dev, &d) || check_event(ev, dev.device_id, &e)) return -1;
  if (e->recorded) {
    uint64_t v;
    event_value(d, e, &v); /* the query must not be pending when the pool dies */
    dh_error_clear();
  }
  vkDestroyQueryPool(d->device, e->pool, NULL);
  e->magic = 0;
  free(e);
  return 0;
}

/*===========================================================================
 * Raw twin: the same operations through Vulkan directly
 *===========================================================================*/
typedef struct raw_ctx {
  dhvk_device_t* d;
  dh_raw_op_t op;
  size_t nbytes;
  uint32_t flags;
  VkCommandPool pool;
  VkCommandBuffer cb, ts_begin, ts_end;
  VkFence fence;
  VkQueryPool qp;
  VkSemaphore sem; /* idle timeline for STREAM_SYNC */
  dhvk_buf_t *dev_a, *dev_b, *staging;
  void* host;      /* pageable host buffer (NULL when pinned: staging->mapped) */
} raw_ctx_t;

static void raw_teardown(void* p) {
  raw_ctx_t* c = p;
  if (!c) return;
  dhvk_device_t* d = c->d;
  /* run() always waits for its last submission, so nothing is pending here. */
  if (c->fence) vkDestroyFence(d->device, c->fence, NULL);
  if (c->pool) vkDestroyCommandPool(d->device, c->pool, NULL);
  if (c->qp) vkDestroyQueryPool(d->device, c->qp, NULL);
  if (c->sem) vkDestroySemaphore(d->device, c->sem, NULL);
  buf_destroy(d, c->dev_a);
  buf_destroy(d, c->dev_b);
  buf_destroy(d, c->staging);
  free(c->host);
  free(c);
}

static int raw_setup(DLDevice dev, dh_raw_op_t op, size_t nbytes, uint32_t flags, void** out) {
  dhvk_device_t* d = NULL;
  if (!out) return dh_error_set("ValueError", "raw setup: out_ctx is NULL");
  *out = NULL;
  if (check_dev(dev, &d)) return -1;
  if (op < DH_RAW_COPY_H2D || op > DH_RAW_LAUNCH)
    return dh_error_set("NotImplementedError", "vulkan raw twin has no op %d", (int)op);
  raw_ctx_t* c = calloc(1, sizeof *c);
  if (!c) return dh_error_set("OutOfMemoryError", "out of host memory");
  c->d = d;
  c->op = op;
  c->nbytes = nbytes ? nbytes : 4;
  c->flags = flags;
  int id = dev.device_id;
  VkResult r;
  if (op == DH_RAW_STREAM_SYNC) {
    VkSemaphoreTypeCreateInfo ti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                    .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE, .initialValue = 1};
    VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &ti};
    r = vkCreateSemaphore(d->device, &si, NULL, &c->sem);
    if (r != VK_SUCCESS) { raw_teardown(c); return vk_fail(r, "vkCreateSemaphore"); }
    *out = c;
    return 0;
  }
  if (op == DH_RAW_LAUNCH && ensure_pipelines(d)) { raw_teardown(c); return -1; }
  if (op != DH_RAW_LAUNCH) {
    if (buf_create(d, id, c->nbytes, 0, &c->dev_a)) { raw_teardown(c); return -1; }
    if (op == DH_RAW_COPY_D2D) {
      if (buf_create(d, id, c->nbytes, 0, &c->dev_b)) { raw_teardown(c); return -1; }
    } else {
      if (buf_create(d, id, c->nbytes, 1, &c->staging)) { raw_teardown(c); return -1; }
      if (!(flags & DH_RAW_PINNED)) {
        c->host = calloc(1, c->nbytes);
        if (!c->host) { raw_teardown(c); return dh_error_set("OutOfMemoryError", "out of host memory"); }
      }
    }
  }
  VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                .queueFamilyIndex = d->queue_family};
  VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  if ((r = vkCreateCommandPool(d->device, &pi, NULL, &c->pool)) != VK_SUCCESS ||
      (r = vkCreateFence(d->device, &fi, NULL, &c->fence)) != VK_SUCCESS) {
    raw_teardown(c);
    return vk_fail(r, "raw setup (command pool, fence)");
  }
  VkCommandBuffer cbs[3];
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                    .commandPool = c->pool,
                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                    .commandBufferCount = d->timestamp_bits ? 3 : 1};
  if ((r = vkAllocateCommandBuffers(d->device, &ai, cbs)) != VK_SUCCESS) {
    raw_teardown(c);
    return vk_fail(r, "vkAllocateCommandBuffers");
  }
  c->cb = cbs[0];
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT};
  vkBeginCommandBuffer(c->cb, &bi);
  /* Order each repetition after the previous one, as a stream does. */
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                        .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT};
  vkCmdPipelineBarrier(c->cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                       0, 1, &mb, 0, NULL, 0, NULL);
  VkBufferCopy region = {.size = c->nbytes};
  switch (op) {
    case DH_RAW_COPY_H2D: vkCmdCopyBuffer(c->cb, c->staging->buffer, c->dev_a->buffer, 1, &region); break;
    case DH_RAW_COPY_D2H:
      vkCmdCopyBuffer(c->cb, c->dev_a->buffer, c->staging->buffer, 1, &region);
      cmd_host_barrier(c->cb);
      break;
    case DH_RAW_COPY_D2D: vkCmdCopyBuffer(c->cb, c->dev_a->buffer, c->dev_b->buffer, 1, &region); break;
    default:
      vkCmdBindPipeline(c->cb, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipe_noop);
      vkCmdDispatch(c->cb, 1, 1, 1);
      break;
  }
  vkEndCommandBuffer(c->cb);
  if (d->timestamp_bits) {
    VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 2};
    if ((r = vkCreateQueryPool(d->device, &qi, NULL, &c->qp)) != VK_SUCCESS) {
      raw_teardown(c);
      return vk_fail(r, "vkCreateQueryPool");
    }
    c->ts_begin = cbs[1];
    c->ts_end = cbs[2];
    vkBeginCommandBuffer(c->ts_begin, &bi);
    vkCmdResetQueryPool(c->ts_begin, c->qp, 0, 2);
    vkCmdWriteTimestamp(c->ts_begin, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, c->qp, 0);
    vkEndCommandBuffer(c->ts_begin);
    vkBeginCommandBuffer(c->ts_end, &bi);
    vkCmdPipelineBarrier(c->ts_end, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                         0, 1, &mb, 0, NULL, 0, NULL);
    vkCmdWriteTimestamp(c->ts_end, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, c->qp, 1);
    vkEndCommandBuffer(c->ts_end);
  }
  if (val_check()) { raw_teardown(c); return -1; }
  *out = c;
  return 0;
}

static int raw_submit(raw_ctx_t* c, VkCommandBuffer cb, VkFence fence) {
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
  pthread_mutex_lock(&c->d->queue_lock);
  VkResult r = vkQueueSubmit(c->d->queue, 1, &si, fence);
  pthread_mutex_unlock(&c->d->queue_lock);
  return r == VK_SUCCESS ? 0 : vk_fail(r, "vkQueueSubmit");
}

static int raw_run(void* p, uint32_t repeat, double* out_ms) {
  raw_ctx_t* c = p;
  if (!c) return dh_error_set("ValueError", "raw run: ctx is NULL");
  dhvk_device_t* d = c->d;
  if (out_ms) *out_ms = -1;
  if (c->op == DH_RAW_STREAM_SYNC) {
    uint64_t v = 1;
    VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                              .semaphoreCount = 1, .pSemaphores = &c->sem, .pValues = &v};
    for (uint32_t i = 0; i < repeat; i++) {
      VkResult r = vkWaitSemaphores(d->device, &wi, DHVK_WAIT_NS);
      if (r != VK_SUCCESS) return vk_fail(r, "vkWaitSemaphores");
    }
    return 0;
  }
  int timed = out_ms && c->qp;
  void* staging = c->staging ? c->staging->mapped : NULL;
  if (timed && raw_submit(c, c->ts_begin, VK_NULL_HANDLE)) return -1;
  for (uint32_t i = 0; i < repeat; i++) {
    if (c->op == DH_RAW_COPY_H2D && c->host) memcpy(staging, c->host, c->nbytes);
    if (raw_submit(c, c->cb, (!timed && i + 1 == repeat) ? c->fence : VK_NULL_HANDLE)) return -1;
  }
  if (timed && raw_submit(c, c->ts_end, c->fence)) return -1;
  if (repeat == 0 && !timed) return 0;
  VkResult r = vkWaitForFences(d->device, 1, &c->fence, VK_TRUE, DHVK_WAIT_NS);
  if (r != VK_SUCCESS) return vk_fail(r, "vkWaitForFences");
  vkResetFences(d->device, 1, &c->fence);
  if (c->op == DH_RAW_COPY_D2H && c->host)
    for (uint32_t i = 0; i < repeat; i++) memcpy(c->host, staging, c->nbytes);
  if (timed) {
    uint64_t ts[2];
    r = vkGetQueryPoolResults(d->device, c->qp, 0, 2, sizeof ts, ts, sizeof ts[0],
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (r != VK_SUCCESS) return vk_fail(r, "vkGetQueryPoolResults");
    *out_ms = (double)(ts[1] - ts[0]) * d->props.limits.timestampPeriod / 1e6;
  }
  return val_check();
}

static const dh_raw_twin_t k_raw = {
    .struct_size = sizeof(dh_raw_twin_t),
    .api_name = "Vulkan",
    .setup = raw_setup,
    .run = raw_run,
    .teardown = raw_teardown,
};

/*===========================================================================
 * Entry
 *===========================================================================*/
static const dh_backend_t k_backend = {
    .struct_size = sizeof(dh_backend_t),
    .abi_major = DH_BACKEND_ABI_MAJOR,
    .abi_minor = DH_BACKEND_ABI_MINOR,
    .name = "vulkan",
    .description = "Vulkan compute through the Vulkan loader (buffers, timeline-semaphore streams, "
                   "SPIR-V noop/fill)",
    .device_type = kDLVulkan,
    .caps = DH_CAP_ASYNC_COPY | DH_CAP_EVENT_TIMING | DH_CAP_PINNED_HOST,
    .target_kind = "vulkan",
    .init = vk_init,
    .shutdown = vk_shutdown,
    .unavailable_reason = vk_unavailable_reason,
    .get_attr = vk_get_attr,
    .get_target_property = vk_get_target_property,
    .set_device = vk_set_device,
    .alloc_data_space = vk_alloc_data_space,
    .free_data_space = vk_free_data_space,
    .alloc_workspace = vk_alloc_workspace,
    .free_workspace = vk_free_workspace,
    .alloc_host = vk_alloc_host,
    .free_host = vk_free_host,
    .copy_data_from_to = vk_copy_data_from_to,
    .create_stream = vk_create_stream,
    .free_stream = vk_free_stream,
    .set_stream = vk_set_stream,
    .get_current_stream = vk_get_current_stream,
    .stream_sync = vk_stream_sync,
    .sync_stream_from_to = vk_sync_stream_from_to,
    .functions = k_functions,
    .num_functions = sizeof k_functions / sizeof k_functions[0],
    .event_create = vk_event_create,
    .event_record = vk_event_record,
    .event_elapsed_ms = vk_event_elapsed_ms,
    .event_free = vk_event_free,
    .raw = &k_raw,
};

const dh_backend_t* dh_backend_entry(void);
__attribute__((visibility("default"))) const dh_backend_t* dh_backend_entry(void) { return &k_backend; }
