/*
 * backends/vulkan/vulkan_kernels.c — kernels: the compute shaders (shaders/NAME.comp, compiled
 * by glslc at build time to $(BUILD)/gen/vulkan/NAME.spv.inc), their pipelines (built
 * lazily once per device) and the module functions noop and fill (backend.h; echo and
 * raise are the runtime's dh_backend_func_echo / dh_backend_func_raise).
 */
#include "vulkan_internal.h"

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
 * Pipelines (lazy, once per device)
 *===========================================================================*/
static int make_pipeline(dh_vulkan_device_t* d, const uint32_t* code, size_t size, VkPipeline* out) {
  VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                 .codeSize = size,
                                 .pCode = code};
  VkShaderModule mod;
  VkResult r = dh_vulkan_fn.vkCreateShaderModule(d->device, &mi, NULL, &mod);
  if (r != VK_SUCCESS) return dh_vulkan_fail(r, "vkCreateShaderModule");
  VkComputePipelineCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = mod,
                .pName = "main"},
      .layout = d->layout};
  r = dh_vulkan_fn.vkCreateComputePipelines(d->device, VK_NULL_HANDLE, 1, &ci, NULL, out);
  dh_vulkan_fn.vkDestroyShaderModule(d->device, mod, NULL);
  if (r != VK_SUCCESS) return dh_vulkan_fail(r, "vkCreateComputePipelines");
  return 0;
}

int dh_vulkan_ensure_pipelines(dh_vulkan_device_t* d) {
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
    r = dh_vulkan_fn.vkCreateDescriptorSetLayout(d->device, &li, NULL, &d->dsl);
    if (r != VK_SUCCESS) { rc = dh_vulkan_fail(r, "vkCreateDescriptorSetLayout"); goto out; }
  }
  if (!d->layout) {
    VkPushConstantRange pc = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = 16};
    VkPipelineLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 1,
                                     .pSetLayouts = &d->dsl,
                                     .pushConstantRangeCount = 1,
                                     .pPushConstantRanges = &pc};
    r = dh_vulkan_fn.vkCreatePipelineLayout(d->device, &li, NULL, &d->layout);
    if (r != VK_SUCCESS) { rc = dh_vulkan_fail(r, "vkCreatePipelineLayout"); goto out; }
  }
  if (!d->pipe_noop && (rc = make_pipeline(d, k_spv_noop, sizeof k_spv_noop, &d->pipe_noop))) goto out;
  if (!d->pipe_fill && (rc = make_pipeline(d, k_spv_fill, sizeof k_spv_fill, &d->pipe_fill))) goto out;
  d->pipelines_ready = 1;
out:
  pthread_mutex_unlock(&d->lock);
  return rc;
}

/* At shutdown (device idle). */
void dh_vulkan_pipelines_destroy(dh_vulkan_device_t* d) {
  if (d->pipe_noop) dh_vulkan_fn.vkDestroyPipeline(d->device, d->pipe_noop, NULL);
  if (d->pipe_fill) dh_vulkan_fn.vkDestroyPipeline(d->device, d->pipe_fill, NULL);
  if (d->layout) dh_vulkan_fn.vkDestroyPipelineLayout(d->device, d->layout, NULL);
  if (d->dsl) dh_vulkan_fn.vkDestroyDescriptorSetLayout(d->device, d->dsl, NULL);
}

/*===========================================================================
 * Module functions
 *===========================================================================*/

/* Records s->noop_cb (stream locked, pipelines ready). It is allocated from the
 * stream's pool, so it is freed with the stream (free_stream waits for the queue to
 * go idle first). */
static int record_noop(dh_vulkan_device_t* d, dh_vulkan_stream_t* s) {
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                    .commandPool = s->pool,
                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                    .commandBufferCount = 1};
  VkCommandBuffer cb;
  VkResult r = dh_vulkan_fn.vkAllocateCommandBuffers(d->device, &ai, &cb);
  if (r != VK_SUCCESS) return dh_vulkan_fail(r, "vkAllocateCommandBuffers (noop)");
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT};
  r = dh_vulkan_fn.vkBeginCommandBuffer(cb, &bi);
  if (r == VK_SUCCESS) {
    dh_vulkan_fn.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipe_noop);
    dh_vulkan_fn.vkCmdDispatch(cb, 1, 1, 1);
    r = dh_vulkan_fn.vkEndCommandBuffer(cb);
  }
  if (r != VK_SUCCESS) {
    dh_vulkan_fn.vkFreeCommandBuffers(d->device, s->pool, 1, &cb);
    return dh_vulkan_fail(r, "recording the noop command buffer");
  }
  s->noop_cb = cb;
  return 0;
}

static int fn_noop(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self;
  if (n < 1 || args[0].type_index != DH_TYPE_DEVICE)
    return dh_error_set(DH_KIND_TYPE_ERROR, "vulkan.noop(Device dev): argument 0 must be a Device, got %s",
                        n < 1 ? "nothing" : dh_type_index_name(args[0].type_index));
  DLDevice dev = args[0].v_device;
  dh_vulkan_device_t* d = NULL;
  if (dh_vulkan_check_dev(dev, &d) || dh_vulkan_ensure_pipelines(d)) return -1;
  dh_vulkan_stream_t* s = dh_vulkan_current_stream(d, dev.device_id);
  if (s == NULL) return -1;
  /* The noop kernel's command buffer never changes (bind + dispatch; ordering comes
   * from the submission's wait on the stream's timeline), so it is recorded once per
   * stream with SIMULTANEOUS_USE (it may be pending several times) and resubmitted,
   * as a direct Vulkan user (and the raw twin) would: per launch this saves a command
   * buffer reset, begin, two recorded commands and end (on lavapipe each recorded
   * command is an allocation, and the reset frees them). */
  dh_vulkan_sub_t sub = {.prerecorded = 1};
  pthread_mutex_lock(&s->lock);
  int rc = dh_vulkan_stream_make_room(d, s);
  if (!rc && !s->noop_cb) rc = record_noop(d, s);
  if (!rc) {
    sub.cb = s->noop_cb;
    rc = dh_vulkan_stream_submit(d, s, &sub);
  }
  pthread_mutex_unlock(&s->lock);
  if (rv) *rv = dh_any_none();
  return rc ? -1 : dh_vulkan_val_check();
}

/* Queues one fill dispatch over bytes [off, off + nbytes) of b on s; the bound range
 * (from off rounded down to minStorageBufferOffsetAlignment) must fit
 * maxStorageBufferRange. */
static int fill_chunk(dh_vulkan_device_t* d, dh_vulkan_stream_t* s, dh_vulkan_buf_t* b, size_t off, size_t nbytes,
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
  dh_vulkan_sub_t sub = {0};
  pthread_mutex_lock(&s->lock);
  int rc = dh_vulkan_stream_begin(d, s, &sub.cb);
  if (!rc) {
    VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = s->dpool,
                                      .descriptorSetCount = 1,
                                      .pSetLayouts = &d->dsl};
    VkResult r = dh_vulkan_fn.vkAllocateDescriptorSets(d->device, &ai, &sub.ds);
    if (r != VK_SUCCESS) {
      sub.ds = VK_NULL_HANDLE;
      dh_vulkan_fn.vkEndCommandBuffer(sub.cb);
      s->free_cbs[s->num_free_cbs++] = sub.cb;
      rc = dh_vulkan_fail(r, "vkAllocateDescriptorSets");
    } else {
      VkDescriptorBufferInfo bi = {.buffer = b->buffer, .offset = bind_off, .range = range};
      VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                .dstSet = sub.ds,
                                .dstBinding = 0,
                                .descriptorCount = 1,
                                .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                .pBufferInfo = &bi};
      dh_vulkan_fn.vkUpdateDescriptorSets(d->device, 1, &w, 0, NULL);
      dh_vulkan_fn.vkCmdBindPipeline(sub.cb, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipe_fill);
      dh_vulkan_fn.vkCmdBindDescriptorSets(sub.cb, VK_PIPELINE_BIND_POINT_COMPUTE, d->layout, 0, 1, &sub.ds, 0,
                              NULL);
      dh_vulkan_fn.vkCmdPushConstants(sub.cb, d->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, pc);
      dh_vulkan_fn.vkCmdDispatch(sub.cb, groups, 1, 1);
      rc = dh_vulkan_stream_submit(d, s, &sub);
    }
  }
  pthread_mutex_unlock(&s->lock);
  return rc;
}

static int fn_fill(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self;
  if (n < 2 || dh_any_as_tensor(&args[0]) == NULL || args[1].type_index != DH_TYPE_INT)
    return dh_error_set(DH_KIND_TYPE_ERROR,
                        "vulkan.fill(DLTensorPtr dst, Int value): got %d argument%s (%s, %s)", (int)n,
                        n == 1 ? "" : "s", n > 0 ? dh_type_index_name(args[0].type_index) : "-",
                        n > 1 ? dh_type_index_name(args[1].type_index) : "-");
  const DLTensor* t = dh_any_as_tensor(&args[0]);
  if (!t) return dh_error_set(DH_KIND_TYPE_ERROR, "vulkan.fill: dst is a NULL DLTensor");
  dh_vulkan_device_t* d = NULL;
  if (dh_vulkan_check_dev(t->device, &d)) return -1;
  int dev = t->device.device_id;
  dh_vulkan_buf_t* b = NULL;
  if (dh_vulkan_check_buf(t->data, dev, "vulkan.fill: dst->data", &b)) return -1;
  if (!dh_tensor_is_contiguous(t)) return dh_error_set(DH_KIND_VALUE_ERROR, "vulkan.fill: dst is not contiguous");
  size_t nbytes;
  if (dh_tensor_nbytes(t, &nbytes)) return -1;
  size_t off = (size_t)t->byte_offset;
  if (off % 4 || nbytes % 4)
    return dh_error_set(DH_KIND_VALUE_ERROR,
                        "vulkan.fill: byte_offset (%zu) and nbytes (%zu) must be multiples of 4", off,
                        nbytes);
  if (dh_vulkan_range_check(b, off, nbytes, "vulkan.fill: dst")) return -1;
  if (rv) *rv = dh_any_none();
  if (nbytes == 0) return 0;
  if (dh_vulkan_ensure_pipelines(d)) return -1;
  /* One dispatch per chunk that fits a storage-buffer descriptor (maxStorageBufferRange). */
  VkDeviceSize align = d->props.limits.minStorageBufferOffsetAlignment;
  if (align < 4) align = 4;
  VkDeviceSize max_range = d->props.limits.maxStorageBufferRange;
  size_t chunk = max_range > 2 * align ? (size_t)((max_range - align) / 4 * 4) : 4;
  dh_vulkan_stream_t* s = dh_vulkan_current_stream(d, dev);
  if (s == NULL) return -1;
  for (size_t done = 0; done < nbytes;) {
    size_t len = nbytes - done < chunk ? nbytes - done : chunk;
    if (fill_chunk(d, s, b, off + done, len, (uint32_t)args[1].v_int64)) return -1;
    done += len;
  }
  return dh_vulkan_val_check();
}

/* pci_bus_id(Device) -> Str (backend.h DH_FUNC_PCI_BUS_ID), found at device init. */
static int fn_pci_bus_id(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self;
  if (n != 1 || args[0].type_index != DH_TYPE_DEVICE)
    return dh_error_set(DH_KIND_TYPE_ERROR, "vulkan.pci_bus_id(Device dev): argument 0 must be a Device, got %s",
                        n < 1 ? "nothing" : dh_type_index_name(args[0].type_index));
  dh_vulkan_device_t* d = NULL;
  if (dh_vulkan_check_dev(args[0].v_device, &d)) return -1;
  if (d->pci_why[0])
    return dh_error_set(DH_KIND_RUNTIME_ERROR, "vulkan.pci_bus_id: vulkan:%d: %s", (int)args[0].v_device.device_id,
                        d->pci_why);
  if (rv) *rv = dh_any_str(d->pci_bus_id);
  return 0;
}

const dh_backend_function_t dh_vulkan_functions[] = {
    {DH_FUNC_NOOP, fn_noop},
    {DH_FUNC_FILL, fn_fill},
    {DH_FUNC_ECHO, dh_backend_func_echo},
    {DH_FUNC_RAISE, dh_backend_func_raise},
    {DH_FUNC_PCI_BUS_ID, fn_pci_bus_id}};
