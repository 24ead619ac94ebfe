/*
 * backends/vulkan/vulkan_stream.c — streams: one command pool, descriptor pool and timeline
 * semaphore each; every operation is one submission ordered on the stream's timeline;
 * retirement (deferred host copies, staging, descriptor sets, command buffers);
 * stream_sync, sync_stream_from_to, the per-thread current stream, and events
 * (timestamp queries). See vulkan_internal.h (Streams).
 */
#include "vulkan_internal.h"

#define DH_VULKAN_EVENT_MAGIC 0x564b4556u  /* "VKEV" */

typedef struct dh_vulkan_event {
  uint32_t magic;
  int dev;
  VkQueryPool pool;
  int recorded;
} dh_vulkan_event_t;

/* The current stream, per thread and per device (set_stream / get_current_stream), is
 * tvm-ffi's environment stream (backend.h dh_env_get_stream). */
static DLDevice vk_dev(int id) {
  DLDevice v = {kDLVulkan, id};
  return v;
}

/*===========================================================================
 * Streams
 *===========================================================================*/
int dh_vulkan_resolve_stream(dh_vulkan_device_t* d, int dev, dh_stream_t stream, dh_vulkan_stream_t** out) {
  if (!stream) {
    *out = d->default_stream;
    return 0;
  }
  dh_vulkan_stream_t* s = stream;
  if (s->magic != DH_VULKAN_STREAM_MAGIC)
    return dh_error_set(DH_KIND_VALUE_ERROR, "stream %p is not a vulkan stream", stream);
  if (s->dev != dev)
    return dh_error_set(DH_KIND_VALUE_ERROR, "stream %p belongs to vulkan:%d, not vulkan:%d", stream,
                        s->dev, dev);
  *out = s;
  return 0;
}

/* Destroys a stream's Vulkan objects and lock; the record stays (magic 0). */
static void stream_release_objects(dh_vulkan_device_t* d, dh_vulkan_stream_t* s) {
  s->magic = 0;
  if (s->dpool) dh_vulkan_fn.vkDestroyDescriptorPool(d->device, s->dpool, NULL);
  if (s->pool) dh_vulkan_fn.vkDestroyCommandPool(d->device, s->pool, NULL);
  if (s->sem) dh_vulkan_fn.vkDestroySemaphore(d->device, s->sem, NULL);
  s->dpool = VK_NULL_HANDLE;
  s->pool = VK_NULL_HANDLE;
  s->sem = VK_NULL_HANDLE;
  free(s->waits);
  s->waits = NULL;
  pthread_mutex_destroy(&s->lock);
}

static void stream_destroy_objects(dh_vulkan_device_t* d, dh_vulkan_stream_t* s) {
  stream_release_objects(d, s);
  free(s);
}

int dh_vulkan_stream_new(dh_vulkan_device_t* d, int dev, dh_vulkan_stream_t** out) {
  pthread_mutex_lock(&d->lock);
  dh_vulkan_stream_t* s = d->dead_streams;
  if (s) {
    /* A freed stream, drained, with its command pool, descriptor pool, timeline
     * semaphore (value s->submitted reached) and lock intact: reuse them as they are,
     * as a live stream reuses its command buffers once its timeline says they are done. */
    d->dead_streams = s->next;
    s->dev = dev;
    s->num_waits = 0;
    s->magic = DH_VULKAN_STREAM_MAGIC;
    s->next = d->streams;
    d->streams = s;
    pthread_mutex_unlock(&d->lock);
    *out = s;
    return 0;
  }
  pthread_mutex_unlock(&d->lock);
  s = calloc(1, sizeof *s);
  if (!s) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "out of host memory for a stream");
  pthread_mutex_init(&s->lock, NULL);
  s->dev = dev;
  VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                .queueFamilyIndex = d->queue_family};
  VkResult r = dh_vulkan_fn.vkCreateCommandPool(d->device, &pi, NULL, &s->pool);
  if (r != VK_SUCCESS) goto fail;
  VkDescriptorPoolSize ps = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                             .descriptorCount = DH_VULKAN_MAX_INFLIGHT};
  VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                    .flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT,
                                    .maxSets = DH_VULKAN_MAX_INFLIGHT,
                                    .poolSizeCount = 1,
                                    .pPoolSizes = &ps};
  r = dh_vulkan_fn.vkCreateDescriptorPool(d->device, &dpi, NULL, &s->dpool);
  if (r != VK_SUCCESS) goto fail;
  VkSemaphoreTypeCreateInfo ti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                  .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
                                  .initialValue = 0};
  VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &ti};
  r = dh_vulkan_fn.vkCreateSemaphore(d->device, &si, NULL, &s->sem);
  if (r != VK_SUCCESS) goto fail;
  s->magic = DH_VULKAN_STREAM_MAGIC;
  pthread_mutex_lock(&d->lock);
  s->next = d->streams;
  d->streams = s;
  pthread_mutex_unlock(&d->lock);
  *out = s;
  return 0;
fail:
  stream_destroy_objects(d, s);
  return dh_vulkan_fail(r, "creating a stream (command pool, descriptor pool, timeline semaphore)");
}

/* Retires completed submissions in order (stream locked). upto: value known reached,
 * or 0 to query the semaphore. */
static void stream_retire(dh_vulkan_device_t* d, dh_vulkan_stream_t* s, uint64_t upto) {
  if (s->sub_count == 0) return;
  uint64_t done = upto;
  if (!done && dh_vulkan_fn.vkGetSemaphoreCounterValue(d->device, s->sem, &done) != VK_SUCCESS) return;
  uint64_t known = done < s->submitted ? done : s->submitted;
  if (known > s->reached) s->reached = known;
  while (s->sub_count) {
    dh_vulkan_sub_t* sub = &s->subs[s->sub_head];
    if (sub->value > done) break;
    if (sub->host_dst && sub->staging && sub->host_nbytes)
      memcpy(sub->host_dst, sub->staging->mapped, sub->host_nbytes);
    dh_vulkan_staging_put(d, sub->staging);
    if (sub->ds) dh_vulkan_fn.vkFreeDescriptorSets(d->device, s->dpool, 1, &sub->ds);
    if (!sub->prerecorded) s->free_cbs[s->num_free_cbs++] = sub->cb;
    memset(sub, 0, sizeof *sub);
    s->sub_head = (s->sub_head + 1) % DH_VULKAN_MAX_INFLIGHT;
    s->sub_count--;
  }
}

static int sem_wait(dh_vulkan_device_t* d, VkSemaphore sem, uint64_t value) {
  VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                            .semaphoreCount = 1,
                            .pSemaphores = &sem,
                            .pValues = &value};
  VkResult r = dh_vulkan_fn.vkWaitSemaphores(d->device, &wi, DH_VULKAN_WAIT_NS);
  if (r == VK_TIMEOUT)
    return dh_error_set(DH_KIND_RUNTIME_ERROR, "timed out after 60 s waiting for timeline value %" PRIu64,
                        value);
  if (r != VK_SUCCESS) return dh_vulkan_fail(r, "vkWaitSemaphores");
  return 0;
}

/* Waits for everything submitted on s and retires it (stream locked). */
int dh_vulkan_stream_drain(dh_vulkan_device_t* d, dh_vulkan_stream_t* s) {
  if (s->submitted && sem_wait(d, s->sem, s->submitted) != 0) return -1;
  stream_retire(d, s, s->submitted ? s->submitted : 1);
  return 0;
}

/* Makes room for one more in-flight submission (stream locked): retires what has
 * completed, and waits for the oldest submission if the ring is full. */
int dh_vulkan_stream_make_room(dh_vulkan_device_t* d, dh_vulkan_stream_t* s) {
  stream_retire(d, s, 0);
  if (s->sub_count == DH_VULKAN_MAX_INFLIGHT) {
    uint64_t oldest = s->subs[s->sub_head].value;
    if (sem_wait(d, s->sem, oldest) != 0) return -1;
    stream_retire(d, s, 0);
  }
  return 0;
}

/* Gets a command buffer in the recording state (stream locked). Makes room for one
 * more in-flight submission first. */
int dh_vulkan_stream_begin(dh_vulkan_device_t* d, dh_vulkan_stream_t* s, VkCommandBuffer* out) {
  if (dh_vulkan_stream_make_room(d, s)) return -1;
  VkCommandBuffer cb;
  if (s->num_free_cbs) {
    cb = s->free_cbs[--s->num_free_cbs];
  } else {
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = s->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VkResult r = dh_vulkan_fn.vkAllocateCommandBuffers(d->device, &ai, &cb);
    if (r != VK_SUCCESS) return dh_vulkan_fail(r, "vkAllocateCommandBuffers");
  }
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  VkResult r = dh_vulkan_fn.vkBeginCommandBuffer(cb, &bi);
  if (r != VK_SUCCESS) {
    s->free_cbs[s->num_free_cbs++] = cb;
    return dh_vulkan_fail(r, "vkBeginCommandBuffer");
  }
  *out = cb;
  return 0;
}

/* Submits cb on d's queue (vkQueueSubmit under d->queue_lock), waiting on s's previous
 * timeline value and on s->waits, signalling sig on s's timeline (stream locked).
 * Returns the VkResult; stream_submit handles failures. */
static VkResult queue_submit_waits(dh_vulkan_device_t* d, dh_vulkan_stream_t* s, VkCommandBuffer cb,
                                   uint64_t sig) {
  size_t nw = s->num_waits + 1;
  VkSemaphore wsem[nw];
  uint64_t wval[nw];
  VkPipelineStageFlags wstage[nw];
  uint32_t n = 0;
  /* In-stream order: wait for the stream's previous submission, unless it is known to
   * be done (after a stream_sync, as the raw twin's submissions, which wait on
   * nothing). */
  if (s->submitted > s->reached) {
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
  VkResult r = dh_vulkan_fn.vkQueueSubmit(d->queue, 1, &si, VK_NULL_HANDLE);
  pthread_mutex_unlock(&d->queue_lock);
  return r;
}

/* Ends (unless sub->prerecorded) and submits sub->cb (stream locked). On failure the submission's resources
 * are released. */
int dh_vulkan_stream_submit(dh_vulkan_device_t* d, dh_vulkan_stream_t* s, dh_vulkan_sub_t* sub) {
  VkResult r = sub->prerecorded ? VK_SUCCESS : dh_vulkan_fn.vkEndCommandBuffer(sub->cb);
  uint64_t sig = s->submitted + 1;
  if (r == VK_SUCCESS) r = queue_submit_waits(d, s, sub->cb, sig);
  if (r != VK_SUCCESS) {
    dh_vulkan_staging_put(d, sub->staging);
    if (sub->ds) dh_vulkan_fn.vkFreeDescriptorSets(d->device, s->dpool, 1, &sub->ds);
    if (!sub->prerecorded) s->free_cbs[s->num_free_cbs++] = sub->cb;
    return dh_vulkan_fail(r, "vkQueueSubmit");
  }
  s->submitted = sig;
  s->num_waits = 0;
  sub->value = sig;
  s->subs[(s->sub_head + s->sub_count) % DH_VULKAN_MAX_INFLIGHT] = *sub;
  s->sub_count++;
  return 0;
}

/* Waits until every stream of d has finished the work submitted so far (not retired:
 * deferred host copies still happen at stream_sync). Used before freeing a buffer
 * that queued work may still use, as cudaFree synchronises. */
int dh_vulkan_device_wait_all(dh_vulkan_device_t* d) {
  int rc = 0;
  pthread_mutex_lock(&d->lock);
  for (dh_vulkan_stream_t* s = d->streams; s && !rc; s = s->next) {
    pthread_mutex_lock(&s->lock);
    if (s->submitted) rc = sem_wait(d, s->sem, s->submitted);
    pthread_mutex_unlock(&s->lock);
  }
  pthread_mutex_unlock(&d->lock);
  return rc;
}

int dh_vulkan_queue_quiesce(dh_vulkan_device_t* d) {
  pthread_mutex_lock(&d->queue_lock);
  VkResult r = dh_vulkan_fn.vkQueueWaitIdle(d->queue);
  pthread_mutex_unlock(&d->queue_lock);
  return r == VK_SUCCESS ? 0 : dh_vulkan_fail(r, "vkQueueWaitIdle");
}

/* At shutdown (device idle). */
void dh_vulkan_streams_destroy_all(dh_vulkan_device_t* d) {
  for (dh_vulkan_stream_t* s = d->streams; s;) {
    dh_vulkan_stream_t* nx = s->next;
    dh_vulkan_stream_drain(d, s);
    stream_destroy_objects(d, s);
    s = nx;
  }
  for (dh_vulkan_stream_t* s = d->dead_streams; s;) {
    dh_vulkan_stream_t* nx = s->next;
    stream_destroy_objects(d, s);
    s = nx;
  }
  d->streams = d->dead_streams = NULL;
}

/*===========================================================================
 * Streams (vtable)
 *===========================================================================*/
int dh_vulkan_create_stream(DLDevice dev, dh_stream_t* out) {
  dh_vulkan_device_t* d = NULL;
  if (!out) return dh_error_set(DH_KIND_VALUE_ERROR, "create_stream: out_stream is NULL");
  *out = NULL;
  if (dh_vulkan_check_dev(dev, &d)) return -1;
  dh_vulkan_stream_t* s = NULL;
  if (dh_vulkan_stream_new(d, dev.device_id, &s)) return -1;
  *out = s;
  return dh_vulkan_val_check();
}

int dh_vulkan_free_stream(DLDevice dev, dh_stream_t stream) {
  dh_vulkan_device_t* d = NULL;
  if (dh_vulkan_check_dev(dev, &d)) return -1;
  if (!stream) return 0;
  dh_vulkan_stream_t* s = NULL;
  if (dh_vulkan_resolve_stream(d, dev.device_id, stream, &s)) return -1;
  if (s == d->default_stream) return 0;
  pthread_mutex_lock(&s->lock);
  int rc = dh_vulkan_stream_drain(d, s);
  pthread_mutex_unlock(&s->lock);
  if (rc) return -1;
  /* Invalidate the handle, unlink, and drop waits other streams hold on this
   * (completed) timeline. */
  pthread_mutex_lock(&d->lock);
  s->magic = 0;
  dh_vulkan_stream_t** pp = &d->streams;
  while (*pp && *pp != s) pp = &(*pp)->next;
  if (*pp) *pp = s->next;
  for (dh_vulkan_stream_t* o = d->streams; o; o = o->next) {
    pthread_mutex_lock(&o->lock);
    size_t k = 0;
    for (size_t i = 0; i < o->num_waits; i++)
      if (o->waits[i].sem != s->sem) o->waits[k++] = o->waits[i];
    o->num_waits = k;
    pthread_mutex_unlock(&o->lock);
  }
  pthread_mutex_unlock(&d->lock);
  for (int i = 0; i < DH_VULKAN_MAX_DEVICES; i++)
    if (dh_env_get_stream(vk_dev(i)) == (dh_stream_t)s) dh_env_set_stream(vk_dev(i), NULL);
  /* The drain above saw s's last timeline value reached, but lavapipe's queue thread
   * may still be inside that submission (it locks the semaphore's mutex after
   * signalling, and cleans the submission up afterwards), and submissions of other
   * streams queued before the waits were dropped may reference s->sem: destroying the
   * semaphore or command pool now would be a use-after-free in the driver (valgrind saw
   * it: invalid read in pthread_mutex_lock on the queue thread). So nothing is
   * destroyed: the stream is parked with its objects for the next create_stream to
   * reuse (dh_vulkan_stream_new), and destroyed at shutdown after the device is idle. Only
   * this stream's own work is waited for, not the whole queue. Its handle stays
   * invalid (magic 0) until the record is handed out again. */
  pthread_mutex_lock(&d->lock);
  s->next = d->dead_streams;
  d->dead_streams = s;
  pthread_mutex_unlock(&d->lock);
  return dh_vulkan_val_check();
}

int dh_vulkan_set_stream(DLDevice dev, dh_stream_t stream) {
  dh_vulkan_device_t* d = NULL;
  if (dh_vulkan_check_dev(dev, &d)) return -1;
  dh_vulkan_stream_t* s = NULL;
  if (stream && dh_vulkan_resolve_stream(d, dev.device_id, stream, &s)) return -1;
  return dh_env_set_stream(dev, stream);
}

int dh_vulkan_get_current_stream(DLDevice dev, dh_stream_t* out) {
  dh_vulkan_device_t* d = NULL;
  if (!out) return dh_error_set(DH_KIND_VALUE_ERROR, "get_current_stream: out_stream is NULL");
  *out = NULL;
  if (dh_vulkan_check_dev(dev, &d)) return -1;
  *out = dh_env_get_stream(dev);
  return 0;
}

int dh_vulkan_stream_sync(DLDevice dev, dh_stream_t stream) {
  dh_vulkan_device_t* d = NULL;
  if (dh_vulkan_check_dev(dev, &d)) return -1;
  dh_vulkan_stream_t* s = NULL;
  if (dh_vulkan_resolve_stream(d, dev.device_id, stream, &s)) return -1;
  pthread_mutex_lock(&s->lock);
  int rc = dh_vulkan_stream_drain(d, s);
  pthread_mutex_unlock(&s->lock);
  if (rc) return -1;
  return dh_vulkan_val_check();
}

int dh_vulkan_sync_stream_from_to(DLDevice dev, dh_stream_t src, dh_stream_t dst) {
  dh_vulkan_device_t* d = NULL;
  if (dh_vulkan_check_dev(dev, &d)) return -1;
  dh_vulkan_stream_t *s, *t;
  if (dh_vulkan_resolve_stream(d, dev.device_id, src, &s) || dh_vulkan_resolve_stream(d, dev.device_id, dst, &t)) return -1;
  if (s == t) return 0;
  pthread_mutex_lock(&s->lock);
  uint64_t value = s->submitted;
  VkSemaphore sem = s->sem;
  uint64_t reached = 0;
  if (value) dh_vulkan_fn.vkGetSemaphoreCounterValue(d->device, sem, &reached);
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
      dh_vulkan_wait_t* w = realloc(t->waits, cap * sizeof *w);
      if (!w) rc = dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "out of host memory for a stream wait");
      else { t->waits = w; t->cap_waits = cap; }
    }
    if (!rc) t->waits[t->num_waits++] = (dh_vulkan_wait_t){sem, value};
  }
  pthread_mutex_unlock(&t->lock);
  return rc;
}

dh_vulkan_stream_t* dh_vulkan_current_stream(dh_vulkan_device_t* d, int dev) {
  dh_vulkan_stream_t* s = NULL;
  /* the handle may have been set through tvm-ffi directly: check it is ours */
  if (dh_vulkan_resolve_stream(d, dev, dh_env_get_stream(vk_dev(dev)), &s) != 0) return NULL;
  return s;
}

/*===========================================================================
 * Events (timestamp queries)
 *===========================================================================*/
int dh_vulkan_event_create(DLDevice dev, dh_event_t* out) {
  dh_vulkan_device_t* d = NULL;
  if (!out) return dh_error_set(DH_KIND_VALUE_ERROR, "event_create: out_event is NULL");
  *out = NULL;
  if (dh_vulkan_check_dev(dev, &d)) return -1;
  if (d->timestamp_bits == 0)
    return dh_error_set(DH_KIND_NOT_IMPLEMENTED_ERROR, "vulkan:%d's compute queue has no timestamps",
                        (int)dev.device_id);
  dh_vulkan_event_t* e = calloc(1, sizeof *e);
  if (!e) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "out of host memory for an event");
  VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                              .queryType = VK_QUERY_TYPE_TIMESTAMP,
                              .queryCount = 1};
  VkResult r = dh_vulkan_fn.vkCreateQueryPool(d->device, &qi, NULL, &e->pool);
  if (r != VK_SUCCESS) {
    free(e);
    return dh_vulkan_fail(r, "vkCreateQueryPool");
  }
  e->magic = DH_VULKAN_EVENT_MAGIC;
  e->dev = dev.device_id;
  *out = e;
  return dh_vulkan_val_check();
}

static int check_event(dh_event_t ev, int dev, dh_vulkan_event_t** out) {
  dh_vulkan_event_t* e = ev;
  if (!e || e->magic != DH_VULKAN_EVENT_MAGIC || e->dev != dev)
    return dh_error_set(DH_KIND_VALUE_ERROR, "%p is not a vulkan:%d event", ev, dev);
  *out = e;
  return 0;
}

int dh_vulkan_event_record(DLDevice dev, dh_event_t ev, dh_stream_t stream) {
  dh_vulkan_device_t* d = NULL;
  dh_vulkan_event_t* e = NULL;
  dh_vulkan_stream_t* s = NULL;
  if (dh_vulkan_check_dev(dev, &d) || check_event(ev, dev.device_id, &e) ||
      dh_vulkan_resolve_stream(d, dev.device_id, stream, &s))
    return -1;
  dh_vulkan_sub_t sub = {0};
  pthread_mutex_lock(&s->lock);
  int rc = dh_vulkan_stream_begin(d, s, &sub.cb);
  if (!rc) {
    dh_vulkan_fn.vkCmdResetQueryPool(sub.cb, e->pool, 0, 1);
    dh_vulkan_fn.vkCmdWriteTimestamp(sub.cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, e->pool, 0);
    rc = dh_vulkan_stream_submit(d, s, &sub);
  }
  pthread_mutex_unlock(&s->lock);
  if (rc) return -1;
  e->recorded = 1;
  return dh_vulkan_val_check();
}

static int event_value(dh_vulkan_device_t* d, dh_vulkan_event_t* e, uint64_t* out) {
  VkResult r = dh_vulkan_fn.vkGetQueryPoolResults(d->device, e->pool, 0, 1, sizeof *out, out, sizeof *out,
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
  if (r != VK_SUCCESS) return dh_vulkan_fail(r, "vkGetQueryPoolResults");
  if (d->timestamp_bits < 64) *out &= (1ull << d->timestamp_bits) - 1;
  return 0;
}

int dh_vulkan_event_elapsed_ms(DLDevice dev, dh_event_t start, dh_event_t end, double* out_ms) {
  dh_vulkan_device_t* d = NULL;
  dh_vulkan_event_t *a = NULL, *b = NULL;
  if (!out_ms) return dh_error_set(DH_KIND_VALUE_ERROR, "event_elapsed_ms: out_ms is NULL");
  if (dh_vulkan_check_dev(dev, &d) || check_event(start, dev.device_id, &a) || check_event(end, dev.device_id, &b))
    return -1;
  if (!a->recorded || !b->recorded)
    return dh_error_set(DH_KIND_VALUE_ERROR, "event_elapsed_ms: %s event was never recorded",
                        !a->recorded ? "start" : "end");
  uint64_t t0, t1;
  if (event_value(d, b, &t1) || event_value(d, a, &t0)) return -1;
  double ticks = t1 >= t0 ? (double)(t1 - t0) : -(double)(t0 - t1);
  *out_ms = ticks * d->props.limits.timestampPeriod / 1e6;
  return dh_vulkan_val_check();
}

int dh_vulkan_event_free(DLDevice dev, dh_event_t ev) {
  dh_vulkan_device_t* d = NULL;
  dh_vulkan_event_t* e = NULL;
  if (!ev) return 0;
  if (dh_vulkan_check_dev(dev, &d) || check_event(ev, dev.device_id, &e)) return -1;
  if (e->recorded) {
    uint64_t v;
    event_value(d, e, &v); /* the query must not be pending when the pool dies */
    dh_error_clear();
    /* The result being available does not mean the queue thread is done with the
     * submission that wrote it (see dh_vulkan_queue_quiesce). */
    dh_vulkan_queue_quiesce(d);
    dh_error_clear();
  }
  dh_vulkan_fn.vkDestroyQueryPool(d->device, e->pool, NULL);
  e->magic = 0;
  free(e);
  return 0;
}
