/* runtime/names.c — TVM's names: device types (DLDeviceType, as tvm-ffi's
 * Device.DEVICE_TYPE_TO_NAME spells them) and the names and value types of
 * DeviceAttrKind (docs/contract.md §Attributes). A leaf: every runtime file may call it,
 * it calls none of them (tests/layering/call_graph.t). */
#include "devharness/device_api.h"

static const struct {
  const char* name;
  int32_t type_index;
  int is_json;
} kAttrInfo[DH_ATTR_KIND_COUNT] = {
    [DH_ATTR_EXIST] = {"exist", DH_TYPE_INT, 0},
    [DH_ATTR_MAX_THREADS_PER_BLOCK] = {"max_threads_per_block", DH_TYPE_INT, 0},
    [DH_ATTR_WARP_SIZE] = {"warp_size", DH_TYPE_INT, 0},
    [DH_ATTR_MAX_SHARED_MEMORY_PER_BLOCK] = {"max_shared_memory_per_block", DH_TYPE_INT, 0},
    [DH_ATTR_COMPUTE_VERSION] = {"compute_version", DH_TYPE_RAW_STR, 0},
    [DH_ATTR_DEVICE_NAME] = {"device_name", DH_TYPE_RAW_STR, 0},
    [DH_ATTR_MAX_CLOCK_RATE] = {"max_clock_rate", DH_TYPE_INT, 0},
    [DH_ATTR_MULTI_PROCESSOR_COUNT] = {"multi_processor_count", DH_TYPE_INT, 0},
    [DH_ATTR_MAX_THREAD_DIMENSIONS] = {"max_thread_dimensions", DH_TYPE_RAW_STR, 1},
    [DH_ATTR_MAX_REGISTERS_PER_BLOCK] = {"max_registers_per_block", DH_TYPE_INT, 0},
    [DH_ATTR_GCN_ARCH] = {"gcn_arch", DH_TYPE_RAW_STR, 0},
    [DH_ATTR_API_VERSION] = {"api_version", DH_TYPE_INT, 0},
    [DH_ATTR_DRIVER_VERSION] = {"driver_version", DH_TYPE_RAW_STR, 0},
    [DH_ATTR_L2_CACHE_SIZE_BYTES] = {"l2_cache_size_bytes", DH_TYPE_INT, 0},
    [DH_ATTR_TOTAL_GLOBAL_MEMORY] = {"total_global_memory", DH_TYPE_INT, 0},
    [DH_ATTR_AVAILABLE_GLOBAL_MEMORY] = {"available_global_memory", DH_TYPE_INT, 0},
    [DH_ATTR_IMAGE_PITCH_ALIGNMENT] = {"image_pitch_alignment", DH_TYPE_INT, 0},
};

const char* dh_attr_kind_name(int32_t kind) {
  if (kind < 0 || kind >= DH_ATTR_KIND_COUNT) return "unknown";
  return kAttrInfo[kind].name;
}

int32_t dh_attr_kind_type(int32_t kind) {
  if (kind < 0 || kind >= DH_ATTR_KIND_COUNT) return -1;
  return kAttrInfo[kind].type_index;
}

int dh_attr_kind_is_json(int32_t kind) {
  if (kind < 0 || kind >= DH_ATTR_KIND_COUNT) return 0;
  return kAttrInfo[kind].is_json;
}

const char* dh_device_type_name(int32_t t) {
  switch (t) {
    case 1: return "cpu";
    case 2: return "cuda";
    case 3: return "cuda_host";
    case 4: return "opencl";
    case 7: return "vulkan";
    case 8: return "metal";
    case 9: return "vpi";
    case 10: return "rocm";
    case 11: return "rocm_host";
    case 12: return "ext_dev";
    case 13: return "cuda_managed";
    case 14: return "oneapi";
    case 15: return "webgpu";
    case 16: return "hexagon";
    case 17: return "maia";
    case 18: return "trn";
    default: return "unknown";
  }
}
