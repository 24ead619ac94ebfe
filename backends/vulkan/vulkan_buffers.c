/*
 * backends/vulkan/vulkan_buffers.c — buffers (VkBuffer + its own VkDeviceMemory), the
 * data-space handle check, memory-type choice and the per-device staging cache. Below
 * vulkan_stream.c (which returns staging buffers when a submission completes) and
 * vulkan_memory.c; calls only vulkan_device.c and the loader. See vulkan_internal.h
 * (Memory).
 */
#include "vulkan_internal.h"

/*===========================================================================
 * Handles and memory types
 *===========================================================================*/
int dh_vulkan_check_buf(const void* p, int dev, const char* what, dh_vulkan_buf_t** out) {
  const dh_vulkan_buf_t* b = p;
  if (!b) return dh_error_set(DH_KIND_VALUE_ERROR, "%s is NULL", what);
  if (b->magic != DH_VULKAN_BUF_MAGIC)
    return dh_error_set(DH_KIND_VALUE_ERROR, "%s %p is not a vulkan data-space handle", what, p);
  if (dev >= 0 && b->dev != dev)
    return dh_error_set(DH_KIND_VALUE_ERROR, "%s belongs to vulkan:%d, not vulkan:%d", what, b->dev, dev);
  *out = (dh_vulkan_buf_t*)b;
  return 0;
}

static uint32_t find_type(const VkPhysicalDeviceMemoryProperties* m, uint32_t bits,
                          VkMemoryPropertyFlags want) {
  for (uint32_t i = 0; i < m->memoryTypeCount; i++)
    if ((bits & (1u << i)) && (m->memoryTypes[i].propertyFlags & want) == want) return i;
  return UINT32_MAX;
}

/*===========================================================================
 * Buffers
 *===========================================================================*/
/* host: 1 = HOST_VISIBLE|HOST_COHERENT mapped (staging / pinned), 0 = device-local. */
int dh_vulkan_buf_create(dh_vulkan_device_t* d, int dev, size_t nbytes, int host, dh_vulkan_buf_t** out) {
  dh_vulkan_buf_t* b = calloc(1, sizeof *b);
  if (!b) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "out of host memory for a buffer record");
  b->magic = DH_VULKAN_BUF_MAGIC;
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
    return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR,
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
  VkResult r = dh_vulkan_fn.vkCreateBuffer(d->device, &bi, NULL, &b->buffer);
  if (r != VK_SUCCESS) {
    free(b);
    return dh_vulkan_fail(r, "vkCreateBuffer");
  }
  VkMemoryRequirements req;
  dh_vulkan_fn.vkGetBufferMemoryRequirements(d->device, b->buffer, &req);
  VkMemoryPropertyFlags want = host ? (VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                       VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)
                                    : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  uint32_t type = find_type(&d->mem, req.memoryTypeBits, want);
  if (type == UINT32_MAX && !host) type = find_type(&d->mem, req.memoryTypeBits, 0);
  if (type == UINT32_MAX) {
    dh_vulkan_fn.vkDestroyBuffer(d->device, b->buffer, NULL);
    free(b);
    return dh_error_set(DH_KIND_RUNTIME_ERROR, "vulkan:%d has no %s memory type for a buffer", dev,
                        host ? "HOST_VISIBLE|HOST_COHERENT" : "usable");
  }
  VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                             .allocationSize = req.size,
                             .memoryTypeIndex = type};
  r = dh_vulkan_fn.vkAllocateMemory(d->device, &ai, NULL, &b->memory);
  if (r != VK_SUCCESS) {
    dh_vulkan_fn.vkDestroyBuffer(d->device, b->buffer, NULL);
    free(b);
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY)
      return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "cannot allocate %zu bytes on vulkan:%d: %s",
                          nbytes, dev, dh_vulkan_result_name(r));
    return dh_vulkan_fail(r, "vkAllocateMemory");
  }
  r = dh_vulkan_fn.vkBindBufferMemory(d->device, b->buffer, b->memory, 0);
  if (r == VK_SUCCESS && host) r = dh_vulkan_fn.vkMapMemory(d->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped);
  if (r != VK_SUCCESS) {
    dh_vulkan_fn.vkDestroyBuffer(d->device, b->buffer, NULL);
    dh_vulkan_fn.vkFreeMemory(d->device, b->memory, NULL);
    free(b);
    return dh_vulkan_fail(r, host ? "vkBindBufferMemory/vkMapMemory" : "vkBindBufferMemory");
  }
  *out = b;
  return 0;
}

void dh_vulkan_buf_destroy(dh_vulkan_device_t* d, dh_vulkan_buf_t* b) {
  if (!b) return;
  if (b->buffer) dh_vulkan_fn.vkDestroyBuffer(d->device, b->buffer, NULL);
  if (b->memory) dh_vulkan_fn.vkFreeMemory(d->device, b->memory, NULL); /* implicitly unmaps */
  b->magic = 0;
  free(b);
}

/*===========================================================================
 * Staging cache: host-visible buffers are expensive to create and first touch (page
 * faults on every use of fresh memory), so retired ones of up to DH_VULKAN_STAGING_BUF_MAX
 * bytes are kept per device, DH_VULKAN_STAGING_CACHE bytes in all, and reused for copies of
 * up to their size; the least recently returned go first. Capacities are powers of two
 * from 64 KiB. The total holds two of the largest: an H2D and a D2H in flight at once on
 * two streams (a bidirectional copy) each hold one. With room for one only, or with the
 * most recently returned evicted first, every 256 MiB bidirectional copy created, first
 * touched and destroyed a 256 MiB staging buffer (bench copy/bidir/pageable on
 * lavapipe: harness/raw 2.2-3.3; now about 1.0).
 *===========================================================================*/
#define DH_VULKAN_STAGING_MIN ((size_t)64 << 10)
#define DH_VULKAN_STAGING_BUF_MAX ((size_t)256 << 20)
#define DH_VULKAN_STAGING_CACHE (2 * DH_VULKAN_STAGING_BUF_MAX)

int dh_vulkan_staging_get(dh_vulkan_device_t* d, int dev, size_t nbytes, dh_vulkan_buf_t** out) {
  size_t cap = DH_VULKAN_STAGING_MIN;
  while (cap < nbytes && cap < ((size_t)1 << 62)) cap <<= 1;
  if (d->max_alloc && cap > d->max_alloc) cap = nbytes;
  pthread_mutex_lock(&d->staging_lock);
  dh_vulkan_buf_t **best = NULL, **pp;
  for (pp = &d->staging_free; *pp; pp = &(*pp)->next)
    if ((*pp)->size >= nbytes && (*pp)->size <= 2 * cap && (!best || (*pp)->size < (*best)->size))
      best = pp;
  if (best) {
    dh_vulkan_buf_t* b = *best;
    *best = b->next;
    b->next = NULL;
    d->staging_bytes -= b->size;
    pthread_mutex_unlock(&d->staging_lock);
    *out = b;
    return 0;
  }
  pthread_mutex_unlock(&d->staging_lock);
  return dh_vulkan_buf_create(d, dev, cap, 1, out);
}

void dh_vulkan_staging_put(dh_vulkan_device_t* d, dh_vulkan_buf_t* b) {
  if (!b) return;
  pthread_mutex_lock(&d->staging_lock);
  if (b->size <= DH_VULKAN_STAGING_BUF_MAX) {
    /* Evict the least recently returned (the list's tail: returns go to the head)
     * until it fits. Evicting from the head threw away the buffer returned just before,
     * which the same work needs again next (an H2D and a D2H of a bidirectional copy
     * return theirs one after the other). */
    while (d->staging_free && d->staging_bytes + b->size > DH_VULKAN_STAGING_CACHE) {
      dh_vulkan_buf_t** tail = &d->staging_free;
      while ((*tail)->next) tail = &(*tail)->next;
      dh_vulkan_buf_t* old = *tail;
      *tail = NULL;
      d->staging_bytes -= old->size;
      dh_vulkan_buf_destroy(d, old);
    }
    b->next = d->staging_free;
    d->staging_free = b;
    d->staging_bytes += b->size;
    b = NULL;
  }
  pthread_mutex_unlock(&d->staging_lock);
  dh_vulkan_buf_destroy(d, b);
}
