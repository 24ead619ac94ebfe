/*
 * backends/vulkan/vulkan_raw.c — the raw twin (api_name "Vulkan"): the same operations
 * through Vulkan directly, as pre-recorded command buffers whose last submission signals
 * a timeline semaphore the host waits on (vkWaitSemaphores: the primitive the harness's
 * streams wait with, and the one Khronos recommends over fences since Vulkan 1.2), with
 * timestamp queries for device time; the baseline the bench compares the DeviceAPI path
 * against (backend.h dh_raw_twin_t).
 *
 *  H2D pageable: memcpy into a persistently mapped host-visible staging buffer, then the
 *      pre-recorded vkCmdCopyBuffer (the source is free once the memcpy is done, so this
 *      also meets DH_RAW_HOST_SOURCE_RELEASED). H2D pinned: the device reads the
 *      host-visible buffer directly; with DH_RAW_HOST_SOURCE_RELEASED a pinned source of
 *      up to dh_vulkan_stage_pinned_max is a second host-visible buffer memcpy'd into the
 *      staging one first (as the backend stages it), a larger one is read directly and
 *      every copy waited for.
 *  BIDIR: the D2H (b -> staging2) is submitted first, then the pageable source is
 *      memcpy'd into staging while it runs, then the H2D (staging -> a) is submitted,
 *      with no barrier between the two, so the device may overlap them (one queue
 *      here); the harness issues its two copies in the same order (bench/suites/copy.c). With
 *      DH_RAW_HOST_SOURCE_RELEASED a pinned source of up to dh_vulkan_stage_pinned_max is
 *      memcpy'd from a second buffer as for H2D; a larger one is read directly, and the
 *      one wait at the end is the wait the harness's H2D makes.
 * Every buffer is written in setup (device buffers by a one-time copy from staging).
 */
#include "vulkan_internal.h"

/*===========================================================================
 * Raw twin: the same operations through Vulkan directly
 *===========================================================================*/

typedef struct raw_ctx {
  dh_vulkan_device_t* d;
  dh_raw_op_t op;
  size_t nbytes;
  uint32_t flags;
  VkCommandPool pool;
  VkCommandBuffer cb, ts_begin, ts_end;
  VkCommandBuffer cb2; /* BIDIR: the H2D half (cb holds the D2H half) */
  VkSemaphore done; /* timeline signalled by run()'s last submission, value done_value */
  uint64_t done_value;
  VkQueryPool qp;
  VkSemaphore sem; /* idle timeline for STREAM_SYNC */
  dh_vulkan_buf_t *dev_a, *dev_b, *staging;
  dh_vulkan_buf_t *staging2, *pin_src; /* BIDIR D2H side; pinned source under the contract */
  void* host;      /* pageable host buffer, or pin_src->mapped (NULL when pinned: staging->mapped) */
  void* host2;     /* BIDIR pageable D2H destination */
  int wait_each;   /* DH_RAW_HOST_SOURCE_RELEASED, large pinned: wait for every copy */
} raw_ctx_t;

static void raw_teardown(void* p) {
  raw_ctx_t* c = p;
  if (!c) return;
  dh_vulkan_device_t* d = c->d;
  /* run() always waits for its last submission, so nothing is pending here; but the
   * queue thread may still be finishing it (semaphore mutex, cleanup): let the
   * queue go idle before destroying what it used (see dh_vulkan_queue_quiesce). */
  if (dh_vulkan_queue_quiesce(d)) dh_error_clear();
  if (c->done) dh_vulkan_fn.vkDestroySemaphore(d->device, c->done, NULL);
  if (c->pool) dh_vulkan_fn.vkDestroyCommandPool(d->device, c->pool, NULL);
  if (c->qp) dh_vulkan_fn.vkDestroyQueryPool(d->device, c->qp, NULL);
  if (c->sem) dh_vulkan_fn.vkDestroySemaphore(d->device, c->sem, NULL);
  dh_vulkan_buf_destroy(d, c->dev_a);
  dh_vulkan_buf_destroy(d, c->dev_b);
  dh_vulkan_buf_destroy(d, c->staging);
  dh_vulkan_buf_destroy(d, c->staging2);
  if (c->pin_src) dh_vulkan_buf_destroy(d, c->pin_src);
  else free(c->host);
  free(c->host2);
  free(c);
}

/* The buffers of a copy op (raw_setup): device buffers, staging written once, and the
 * host side the flags ask for. -1 with the error set; the caller tears c down. */
static int raw_buffers(raw_ctx_t* c, int id) {
  dh_vulkan_device_t* d = c->d;
  dh_raw_op_t op = c->op;
  uint32_t flags = c->flags;
  int bidir = op == DH_RAW_COPY_BIDIR;
  size_t an = (c->nbytes + 4095) & ~(size_t)4095;
  if (dh_vulkan_buf_create(d, id, c->nbytes, 0, &c->dev_a)) return -1;
  if ((op == DH_RAW_COPY_D2D || bidir) && dh_vulkan_buf_create(d, id, c->nbytes, 0, &c->dev_b))
    return -1;
  /* Staging exists for every copy op: for D2D it only writes the device buffers once. */
  if (dh_vulkan_buf_create(d, id, c->nbytes, 1, &c->staging)) return -1;
  /* Written: untouched pages of a fresh allocation may all map the kernel's zero page,
   * and a copy reading them reads one cached page instead of nbytes of memory. */
  memset(c->staging->mapped, 0x5a, c->nbytes);
  if (bidir) {
    if (dh_vulkan_buf_create(d, id, c->nbytes, 1, &c->staging2)) return -1;
    memset(c->staging2->mapped, 0xa5, c->nbytes);
  }
  if (op == DH_RAW_COPY_H2D && (flags & DH_RAW_PINNED) && (flags & DH_RAW_HOST_SOURCE_RELEASED) &&
      c->nbytes > dh_vulkan_stage_pinned_max) {
    c->wait_each = 1; /* the device reads the pinned buffer; each copy is waited for */
  } else if ((op == DH_RAW_COPY_H2D || (bidir && c->nbytes <= dh_vulkan_stage_pinned_max)) &&
             (flags & DH_RAW_PINNED) && (flags & DH_RAW_HOST_SOURCE_RELEASED)) {
    if (dh_vulkan_buf_create(d, id, c->nbytes, 1, &c->pin_src)) return -1;
    c->host = c->pin_src->mapped;
    memset(c->host, 0x5a, c->nbytes);
  } else if (op != DH_RAW_COPY_D2D && !(flags & DH_RAW_PINNED)) {
    /* 4096-aligned like the bench's harness side, and written (no zero-page reads). */
    c->host = aligned_alloc(4096, an);
    if (bidir) c->host2 = aligned_alloc(4096, an);
    if (!c->host || (bidir && !c->host2))
      return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "out of host memory");
    memset(c->host, 0x5a, c->nbytes);
    if (bidir) memset(c->host2, 0xa5, c->nbytes);
  }
  return 0;
}

/* Submits cb; with signal, the submission signals c->done at the next value. */
static int raw_submit(raw_ctx_t* c, VkCommandBuffer cb, int signal) {
  uint64_t v = c->done_value + 1;
  VkTimelineSemaphoreSubmitInfo ti = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                      .signalSemaphoreValueCount = 1,
                                      .pSignalSemaphoreValues = &v};
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                     .pNext = signal ? &ti : NULL,
                     .commandBufferCount = 1,
                     .pCommandBuffers = &cb,
                     .signalSemaphoreCount = signal ? 1 : 0,
                     .pSignalSemaphores = signal ? &c->done : NULL};
  pthread_mutex_lock(&c->d->queue_lock);
  VkResult r = dh_vulkan_fn.vkQueueSubmit(c->d->queue, 1, &si, VK_NULL_HANDLE);
  pthread_mutex_unlock(&c->d->queue_lock);
  if (r != VK_SUCCESS) return dh_vulkan_fail(r, "vkQueueSubmit");
  if (signal) c->done_value = v;
  return 0;
}

/* Waits until the last signalling submission is done. */
static int raw_wait(raw_ctx_t* c) {
  VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                            .semaphoreCount = 1, .pSemaphores = &c->done, .pValues = &c->done_value};
  VkResult r = dh_vulkan_fn.vkWaitSemaphores(c->d->device, &wi, DH_VULKAN_WAIT_NS);
  return r == VK_SUCCESS ? 0 : dh_vulkan_fail(r, "vkWaitSemaphores");
}

/* Writes the device buffers once from staging (a one-time command buffer, waited for
 * with c->done). -1 with the error set; the caller tears c down. */
static int raw_write_device(raw_ctx_t* c, const VkBufferCopy* region) {
  dh_vulkan_device_t* d = c->d;
  VkResult r;
  /* Write the device buffers once, from staging (one-time command buffer). */
  VkCommandBuffer once;
  VkCommandBufferAllocateInfo oi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                    .commandPool = c->pool,
                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                    .commandBufferCount = 1};
  if ((r = dh_vulkan_fn.vkAllocateCommandBuffers(d->device, &oi, &once)) != VK_SUCCESS)
    return dh_vulkan_fail(r, "vkAllocateCommandBuffers");
  VkCommandBufferBeginInfo ob = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  dh_vulkan_fn.vkBeginCommandBuffer(once, &ob);
  dh_vulkan_fn.vkCmdCopyBuffer(once, c->staging->buffer, c->dev_a->buffer, 1, region);
  if (c->dev_b) dh_vulkan_fn.vkCmdCopyBuffer(once, c->staging->buffer, c->dev_b->buffer, 1, region);
  dh_vulkan_fn.vkEndCommandBuffer(once);
  int rc = raw_submit(c, once, 1) || raw_wait(c) ? -1 : 0;
  dh_vulkan_fn.vkFreeCommandBuffers(d->device, c->pool, 1, &once);
  return rc;
}

/* Records a barrier that orders what cb does next after everything before it (each
 * repetition after the previous one, as a stream does). */
static void record_order_barrier(VkCommandBuffer cb) {
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                        .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT};
  dh_vulkan_fn.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                                    0, 1, &mb, 0, NULL, 0, NULL);
}

/* STREAM_SYNC: an idle timeline semaphore to wait on. -1 with the error set. */
static int raw_sync_setup(raw_ctx_t* c) {
  VkSemaphoreTypeCreateInfo ti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                  .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE, .initialValue = 1};
  VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &ti};
  VkResult r = dh_vulkan_fn.vkCreateSemaphore(c->d->device, &si, NULL, &c->sem);
  return r == VK_SUCCESS ? 0 : dh_vulkan_fail(r, "vkCreateSemaphore");
}

/* The command pool, the timeline semaphore run() signals, and four command buffers
 * (the op, timestamp begin and end, BIDIR's H2D half). -1 with the error set. */
static int raw_pool(raw_ctx_t* c, VkCommandBuffer cbs[4]) {
  dh_vulkan_device_t* d = c->d;
  VkResult r;
  VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                .queueFamilyIndex = d->queue_family};
  VkSemaphoreTypeCreateInfo dti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                   .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
  VkSemaphoreCreateInfo dsi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &dti};
  if ((r = dh_vulkan_fn.vkCreateCommandPool(d->device, &pi, NULL, &c->pool)) != VK_SUCCESS ||
      (r = dh_vulkan_fn.vkCreateSemaphore(d->device, &dsi, NULL, &c->done)) != VK_SUCCESS)
    return dh_vulkan_fail(r, "raw setup (command pool, timeline semaphore)");
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                    .commandPool = c->pool,
                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                    .commandBufferCount = 4};
  if ((r = dh_vulkan_fn.vkAllocateCommandBuffers(d->device, &ai, cbs)) != VK_SUCCESS)
    return dh_vulkan_fail(r, "vkAllocateCommandBuffers");
  return 0;
}

/* Records the op into c->cb (re-submittable): the ordering barrier, then the copy or
 * the empty dispatch; BIDIR's H2D half goes into h2d_half, kept as c->cb2. */
static void record_op(raw_ctx_t* c, VkCommandBuffer h2d_half, const VkCommandBufferBeginInfo* bi) {
  VkBufferCopy region = {.size = c->nbytes};
  VkCommandBuffer cb = c->cb;
  dh_vulkan_fn.vkBeginCommandBuffer(cb, bi);
  record_order_barrier(cb);
  switch (c->op) {
    case DH_RAW_COPY_H2D: dh_vulkan_fn.vkCmdCopyBuffer(cb, c->staging->buffer, c->dev_a->buffer, 1, &region); break;
    case DH_RAW_COPY_D2H:
      dh_vulkan_fn.vkCmdCopyBuffer(cb, c->dev_a->buffer, c->staging->buffer, 1, &region);
      dh_vulkan_cmd_host_barrier(cb);
      break;
    case DH_RAW_COPY_D2D: dh_vulkan_fn.vkCmdCopyBuffer(cb, c->dev_a->buffer, c->dev_b->buffer, 1, &region); break;
    case DH_RAW_COPY_BIDIR:
      dh_vulkan_fn.vkCmdCopyBuffer(cb, c->dev_b->buffer, c->staging2->buffer, 1, &region);
      dh_vulkan_cmd_host_barrier(cb);
      c->cb2 = h2d_half;
      dh_vulkan_fn.vkBeginCommandBuffer(c->cb2, bi);
      dh_vulkan_fn.vkCmdCopyBuffer(c->cb2, c->staging->buffer, c->dev_a->buffer, 1, &region);
      dh_vulkan_fn.vkEndCommandBuffer(c->cb2);
      break;
    default:
      dh_vulkan_fn.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, c->d->pipe_noop);
      dh_vulkan_fn.vkCmdDispatch(cb, 1, 1, 1);
      break;
  }
  dh_vulkan_fn.vkEndCommandBuffer(cb);
}

/* Where the device has timestamps: the query pool and the command buffers that write
 * the batch's begin and end times. -1 with the error set. */
static int record_timestamps(raw_ctx_t* c, VkCommandBuffer begin, VkCommandBuffer end,
                             const VkCommandBufferBeginInfo* bi) {
  dh_vulkan_device_t* d = c->d;
  if (!d->timestamp_bits) return 0;
  VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                              .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 2};
  VkResult r = dh_vulkan_fn.vkCreateQueryPool(d->device, &qi, NULL, &c->qp);
  if (r != VK_SUCCESS) return dh_vulkan_fail(r, "vkCreateQueryPool");
  c->ts_begin = begin;
  c->ts_end = end;
  dh_vulkan_fn.vkBeginCommandBuffer(c->ts_begin, bi);
  dh_vulkan_fn.vkCmdResetQueryPool(c->ts_begin, c->qp, 0, 2);
  dh_vulkan_fn.vkCmdWriteTimestamp(c->ts_begin, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, c->qp, 0);
  dh_vulkan_fn.vkEndCommandBuffer(c->ts_begin);
  dh_vulkan_fn.vkBeginCommandBuffer(c->ts_end, bi);
  record_order_barrier(c->ts_end);
  dh_vulkan_fn.vkCmdWriteTimestamp(c->ts_end, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, c->qp, 1);
  dh_vulkan_fn.vkEndCommandBuffer(c->ts_end);
  return 0;
}

/* Everything but STREAM_SYNC: buffers or pipelines, the pool, the device buffers
 * written once, the recorded op and timestamps. -1 with the error set. */
static int raw_record(raw_ctx_t* c, int id) {
  if (c->op == DH_RAW_LAUNCH && dh_vulkan_ensure_pipelines(c->d)) return -1;
  if (c->op != DH_RAW_LAUNCH && raw_buffers(c, id)) return -1;
  VkCommandBuffer cbs[4];
  if (raw_pool(c, cbs)) return -1;
  c->cb = cbs[0];
  VkBufferCopy region = {.size = c->nbytes};
  if (c->dev_a && raw_write_device(c, &region)) return -1;
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT};
  record_op(c, cbs[3], &bi);
  return record_timestamps(c, cbs[1], cbs[2], &bi);
}

static int raw_setup(DLDevice dev, dh_raw_op_t op, size_t nbytes, uint32_t flags, void** out) {
  dh_vulkan_device_t* d = NULL;
  if (!out) return dh_error_set(DH_KIND_VALUE_ERROR, "raw setup: out_ctx is NULL");
  *out = NULL;
  if (dh_vulkan_check_dev(dev, &d)) return -1;
  if (op < DH_RAW_COPY_H2D || op > DH_RAW_COPY_BIDIR)
    return dh_error_set(DH_KIND_NOT_IMPLEMENTED_ERROR, "vulkan raw twin has no op %d", (int)op);
  raw_ctx_t* c = calloc(1, sizeof *c);
  if (!c) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "out of host memory");
  c->d = d;
  c->op = op;
  c->nbytes = nbytes ? nbytes : 4;
  c->flags = flags;
  int rc = op == DH_RAW_STREAM_SYNC ? raw_sync_setup(c) : raw_record(c, dev.device_id) || dh_vulkan_val_check();
  if (rc) {
    raw_teardown(c);
    return -1;
  }
  *out = c;
  return 0;
}

static int raw_run(void* p, uint32_t repeat, double* out_ms) {
  raw_ctx_t* c = p;
  if (!c) return dh_error_set(DH_KIND_VALUE_ERROR, "raw run: ctx is NULL");
  dh_vulkan_device_t* d = c->d;
  if (out_ms) *out_ms = -1;
  if (c->op == DH_RAW_STREAM_SYNC) {
    uint64_t v = 1;
    VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                              .semaphoreCount = 1, .pSemaphores = &c->sem, .pValues = &v};
    for (uint32_t i = 0; i < repeat; i++) {
      VkResult r = dh_vulkan_fn.vkWaitSemaphores(d->device, &wi, DH_VULKAN_WAIT_NS);
      if (r != VK_SUCCESS) return dh_vulkan_fail(r, "vkWaitSemaphores");
    }
    return 0;
  }
  int timed = out_ms && c->qp && c->op != DH_RAW_COPY_BIDIR;
  void* staging = c->staging ? c->staging->mapped : NULL;
  if (timed && raw_submit(c, c->ts_begin, 0)) return -1;
  for (uint32_t i = 0; i < repeat; i++) {
    if (c->cb2) { /* BIDIR: D2H first, the H2D's memcpy while it runs, then the H2D */
      if (raw_submit(c, c->cb, 0)) return -1;
      if (c->host) memcpy(staging, c->host, c->nbytes);
      if (raw_submit(c, c->cb2, !timed && i + 1 == repeat)) return -1;
      continue;
    }
    if (c->op == DH_RAW_COPY_H2D && c->host) memcpy(staging, c->host, c->nbytes);
    if (c->wait_each) {
      /* Under the contract a large pinned source is free only once its copy is done. */
      if (raw_submit(c, c->cb, 1) || raw_wait(c)) return -1;
      continue;
    }
    if (raw_submit(c, c->cb, !timed && i + 1 == repeat)) return -1;
  }
  if (timed && raw_submit(c, c->ts_end, 1)) return -1;
  if (repeat == 0 && !timed) return 0;
  VkResult r = VK_SUCCESS;
  /* wait_each: every copy was waited for already */
  if ((timed || !c->wait_each) && raw_wait(c)) return -1;
  if (c->op == DH_RAW_COPY_D2H && c->host)
    for (uint32_t i = 0; i < repeat; i++) memcpy(c->host, staging, c->nbytes);
  if (c->op == DH_RAW_COPY_BIDIR && c->host2)
    for (uint32_t i = 0; i < repeat; i++) memcpy(c->host2, c->staging2->mapped, c->nbytes);
  if (timed) {
    uint64_t ts[2];
    r = dh_vulkan_fn.vkGetQueryPoolResults(d->device, c->qp, 0, 2, sizeof ts, ts, sizeof ts[0],
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (r != VK_SUCCESS) return dh_vulkan_fail(r, "vkGetQueryPoolResults");
    *out_ms = (double)(ts[1] - ts[0]) * d->props.limits.timestampPeriod / 1e6;
  }
  return dh_vulkan_val_check();
}

const dh_raw_twin_t dh_vulkan_raw_twin = DH_RAW_TWIN("Vulkan", raw_setup, raw_run, raw_teardown);
