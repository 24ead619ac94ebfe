/*
 * backends/vulkan/vulkan_device.c — devices: the Vulkan instance (with the validation layer
 * and its debug-utils messenger under DEVHARNESS_VK_VALIDATION=1), physical-device
 * selection and VkDevice creation, init/shutdown, fork detection, device attributes
 * (TVM DeviceAPI::GetAttr) and vulkan target-kind properties. See vulkan_internal.h.
 */
#include "backends/common/env_bytes.h"
#include "vulkan_internal.h"

#include <stdatomic.h>

/*===========================================================================
 * Globals
 *===========================================================================*/
static VkInstance g_instance;
static VkDebugUtilsMessengerEXT g_messenger;
static int g_validation;
static int g_inited;
static char g_reason[512];
static dh_vulkan_device_t g_devs[DH_VULKAN_MAX_DEVICES];
static int g_num_devs;
static atomic_ulong g_val_errors;
static atomic_ulong g_val_reported;
static pthread_mutex_t g_val_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_val_first[1024];
/* Set in a child forked after init: the driver's threads and queues did not survive the
 * fork, so every entry fails cleanly instead of hanging (fork before init instead). */
static volatile int g_forked;
static int g_atfork_registered;
static const dh_vulkan_device_hooks_t* g_hooks; /* from dh_vulkan_device_init */
static void on_fork_child(void) {
  if (g_inited) g_forked = 1;
}

/*===========================================================================
 * Validation and device lookup
 *===========================================================================*/
/* Fails the call when the validation layer reported errors since the last check. */
int dh_vulkan_val_check(void) {
  if (!g_validation) return 0;
  unsigned long n = atomic_load(&g_val_errors);
  unsigned long seen = atomic_load(&g_val_reported);
  if (n == seen) return 0;
  if (!atomic_compare_exchange_strong(&g_val_reported, &seen, n)) return 0;
  pthread_mutex_lock(&g_val_lock);
  char first[sizeof g_val_first];
  memcpy(first, g_val_first, sizeof first);
  pthread_mutex_unlock(&g_val_lock);
  return dh_error_set(DH_KIND_RUNTIME_ERROR, "Vulkan validation error (%lu so far): %s", n, first);
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

int dh_vulkan_check_dev(DLDevice dev, dh_vulkan_device_t** out) {
  if (g_forked)
    return dh_error_set(DH_KIND_RUNTIME_ERROR,
                        "the Vulkan backend was initialised before this process was forked; a "
                        "forked child cannot use it (fork before init)");
  if (dev.device_type != kDLVulkan)
    return dh_error_set(DH_KIND_VALUE_ERROR, "device type %d is not vulkan (%d)", (int)dev.device_type,
                        (int)kDLVulkan);
  if (DH_BACKEND_CHECK_DEVICE(dev, g_num_devs, "vulkan device id %d out of range (%d device%s)",
                              (int)dev.device_id, g_num_devs, g_num_devs == 1 ? "" : "s") != 0)
    return -1;
  *out = &g_devs[dev.device_id];
  return 0;
}

static VkDeviceSize device_local_total(const dh_vulkan_device_t* d) {
  VkDeviceSize t = 0;
  for (uint32_t i = 0; i < d->mem.memoryHeapCount; i++)
    if (d->mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) t += d->mem.memoryHeaps[i].size;
  if (t == 0)
    for (uint32_t i = 0; i < d->mem.memoryHeapCount; i++) t += d->mem.memoryHeaps[i].size;
  return t;
}

/*===========================================================================
 * Lifecycle
 *===========================================================================*/
#define DH_VULKAN_VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"

static int has_ext(const VkExtensionProperties* e, uint32_t n, const char* name) {
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(e[i].extensionName, name) == 0) return 1;
  return 0;
}

static void decode_driver_version(dh_vulkan_device_t* d) {
  uint32_t v = d->props.driverVersion;
  if (d->props.vendorID == 0x10DE) /* NVIDIA: 10.8.8.6 */
    snprintf(d->driver_version, sizeof d->driver_version, "%u.%u.%u.%u", (v >> 22) & 0x3ff,
             (v >> 14) & 0xff, (v >> 6) & 0xff, v & 0x3f);
  else
    snprintf(d->driver_version, sizeof d->driver_version, "%u.%u.%u", VK_API_VERSION_MAJOR(v),
             VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
}

/* The first queue family of d->phys with compute queues, and its timestamp bits.
 * 1 when there is one, 0 when not (the device is skipped). */
static int find_compute_queue(dh_vulkan_device_t* d) {
  uint32_t nq = 0;
  dh_vulkan_fn.vkGetPhysicalDeviceQueueFamilyProperties(d->phys, &nq, NULL);
  VkQueueFamilyProperties qf[nq ? nq : 1];
  dh_vulkan_fn.vkGetPhysicalDeviceQueueFamilyProperties(d->phys, &nq, qf);
  for (uint32_t i = 0; i < nq; i++) {
    if ((qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && qf[i].queueCount > 0) {
      d->queue_family = i;
      d->timestamp_bits = qf[i].timestampValidBits;
      return 1;
    }
  }
  return 0;
}

/* Vulkan 1.1/1.2 properties and the largest allocation (maintenance3) of d->phys. */
static void query_properties(dh_vulkan_device_t* d) {
  VkPhysicalDeviceMaintenance3Properties m3 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  d->props12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES;
  d->props12.pNext = &m3;
  d->props11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES;
  d->props11.pNext = &d->props12;
  VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                    .pNext = &d->props11};
  dh_vulkan_fn.vkGetPhysicalDeviceProperties2(d->phys, &p2);
  d->props11.pNext = NULL;
  d->props12.pNext = NULL;
  d->max_alloc = m3.maxMemoryAllocationSize;
}

/* Vulkan 1.0/1.1/1.2 features of d->phys. */
static void query_features(dh_vulkan_device_t* d) {
  d->feats12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  d->feats11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  d->feats11.pNext = &d->feats12;
  d->feats.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  d->feats.pNext = &d->feats11;
  dh_vulkan_fn.vkGetPhysicalDeviceFeatures2(d->phys, &d->feats);
  d->feats.pNext = NULL;
  d->feats11.pNext = NULL;
}

/* The PCI function of d (VK_EXT_pci_bus_info), "" for a CPU device, else pci_why. */
static void query_pci_bus_id(dh_vulkan_device_t* d, int has_pci_info) {
  d->pci_bus_id[0] = d->pci_why[0] = '\0';
  if (d->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) return;
  if (!has_pci_info) {
    snprintf(d->pci_why, sizeof d->pci_why, "the device does not offer VK_EXT_pci_bus_info");
    return;
  }
  VkPhysicalDevicePCIBusInfoPropertiesEXT pci = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT};
  VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &pci};
  dh_vulkan_fn.vkGetPhysicalDeviceProperties2(d->phys, &p2);
  snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "%04x:%02x:%02x.%x", pci.pciDomain & 0xffffu,
           pci.pciBus & 0xffu, pci.pciDevice & 0x1fu, pci.pciFunction & 0x7u);
}

/* The device extensions the backend reports or uses. 0, or -1 OutOfMemoryError. */
static int query_extensions(dh_vulkan_device_t* d) {
  uint32_t ne = 0;
  dh_vulkan_fn.vkEnumerateDeviceExtensionProperties(d->phys, NULL, &ne, NULL);
  VkExtensionProperties* ext = calloc(ne ? ne : 1, sizeof *ext);
  if (!ext) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "out of host memory");
  dh_vulkan_fn.vkEnumerateDeviceExtensionProperties(d->phys, NULL, &ne, ext);
  d->has_budget = has_ext(ext, ne, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  d->has_push_descriptor = has_ext(ext, ne, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  d->has_int_dot = has_ext(ext, ne, "VK_KHR_shader_integer_dot_product") ||
                   d->props.apiVersion >= VK_API_VERSION_1_3;
  d->has_coop_matrix = has_ext(ext, ne, "VK_KHR_cooperative_matrix") ||
                       has_ext(ext, ne, "VK_NV_cooperative_matrix");
  query_pci_bus_id(d, has_ext(ext, ne, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME));
  free(ext);
  return 0;
}

/* The logical device with one compute queue and timeline semaphores, its queue and
 * locks. 0, or -1 with the error set. */
static int create_logical_device(dh_vulkan_device_t* d) {
  float prio = 1.0f;
  VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                .queueFamilyIndex = d->queue_family,
                                .queueCount = 1,
                                .pQueuePriorities = &prio};
  VkPhysicalDeviceVulkan12Features en12 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .timelineSemaphore = VK_TRUE};
  VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                           .pNext = &en12,
                           .queueCreateInfoCount = 1,
                           .pQueueCreateInfos = &qi};
  VkResult r = dh_vulkan_fn.vkCreateDevice(d->phys, &di, NULL, &d->device);
  if (r != VK_SUCCESS) return dh_vulkan_fail(r, "vkCreateDevice");
  dh_vulkan_fn.vkGetDeviceQueue(d->device, d->queue_family, 0, &d->queue);
  pthread_mutex_init(&d->queue_lock, NULL);
  pthread_mutex_init(&d->lock, NULL);
  pthread_mutex_init(&d->staging_lock, NULL);
  pthread_mutex_init(&d->pinned_lock, NULL);
  pthread_mutex_init(&d->ws_lock, NULL);
  return 0;
}

/* The attribute strings of d: name, compute version, work-group dims, driver version,
 * device type. */
static void fill_strings(dh_vulkan_device_t* d) {
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
}

/* Sets up g_devs[idx] for phys; returns 1 when usable, 0 to skip, -1 on error. */
static int device_setup(VkPhysicalDevice phys, int idx) {
  dh_vulkan_device_t* d = &g_devs[idx];
  memset(d, 0, sizeof *d);
  d->phys = phys;
  dh_vulkan_fn.vkGetPhysicalDeviceProperties(phys, &d->props);
  if (d->props.apiVersion < VK_API_VERSION_1_2) return 0;
  if (!find_compute_queue(d)) return 0;
  query_properties(d);
  query_features(d);
  if (!d->feats12.timelineSemaphore) return 0;
  dh_vulkan_fn.vkGetPhysicalDeviceMemoryProperties(phys, &d->mem);
  if (query_extensions(d) != 0 || create_logical_device(d) != 0) return -1;
  fill_strings(d);
  if (g_hooks->stream_new(d, idx, &d->default_stream) != 0) {
    dh_vulkan_fn.vkDestroyDevice(d->device, NULL);
    d->device = VK_NULL_HANDLE;
    return -1;
  }
  return 1;
}

size_t dh_vulkan_stage_pinned_max = DH_VULKAN_H2D_STAGE_MAX;

/* Whether DEVHARNESS_VK_VALIDATION=1 asks for the Khronos validation layer and it is
 * installed (when it is not, says so on stderr and answers 0). */
static int validation_wanted(void) {
  const char* want_val = getenv("DEVHARNESS_VK_VALIDATION");
  if (!(want_val && strcmp(want_val, "1") == 0)) return 0;
  uint32_t nl = 0;
  dh_vulkan_fn.vkEnumerateInstanceLayerProperties(&nl, NULL);
  VkLayerProperties* lp = calloc(nl ? nl : 1, sizeof *lp);
  int found = 0;
  if (lp) {
    dh_vulkan_fn.vkEnumerateInstanceLayerProperties(&nl, lp);
    for (uint32_t i = 0; i < nl; i++)
      if (strcmp(lp[i].layerName, DH_VULKAN_VALIDATION_LAYER) == 0) found = 1;
    free(lp);
  }
  if (!found)
    fprintf(stderr, "devharness vulkan: DEVHARNESS_VK_VALIDATION=1 but %s is not installed\n",
            DH_VULKAN_VALIDATION_LAYER);
  return found;
}

/* The instance (Vulkan 1.3 when the loader has it, else 1.2), with the validation layer
 * and its messenger when val; its entry points loaded. 0, or -1 with g_reason set. */
static int create_instance(uint32_t loader_version, int val) {
  const char* layers[1] = {DH_VULKAN_VALIDATION_LAYER};
  const char* exts[1] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
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
  VkResult r = dh_vulkan_fn.vkCreateInstance(&ci, NULL, &g_instance);
  if (r != VK_SUCCESS) {
    g_instance = VK_NULL_HANDLE;
    snprintf(g_reason, sizeof g_reason, "vkCreateInstance failed: %s%s", dh_vulkan_result_name(r),
             r == VK_ERROR_INCOMPATIBLE_DRIVER ? " (no Vulkan ICD/driver installed)" : "");
    return -1;
  }
  g_validation = val;
  if (!dh_vulkan_loader_load_instance(g_instance, val, g_reason, sizeof g_reason)) return -1;
  if (val && dh_vulkan_fn.vkCreateDebugUtilsMessengerEXT)
    dh_vulkan_fn.vkCreateDebugUtilsMessengerEXT(g_instance, &mi, NULL, &g_messenger);
  return 0;
}

/* Sets up every usable physical device of the instance (at most DH_VULKAN_MAX_DEVICES;
 * one that fails is skipped with a line on stderr); g_reason says why when none is.
 * 0, or -1 OutOfMemoryError. */
static int setup_devices(void) {
  uint32_t np = 0;
  VkResult r = dh_vulkan_fn.vkEnumeratePhysicalDevices(g_instance, &np, NULL);
  if (r != VK_SUCCESS || np == 0) {
    snprintf(g_reason, sizeof g_reason, "no Vulkan physical device (%s)",
             r != VK_SUCCESS ? dh_vulkan_result_name(r) : "the loader found no ICD device");
    return 0;
  }
  VkPhysicalDevice* phys = calloc(np, sizeof *phys);
  if (!phys) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "out of host memory");
  dh_vulkan_fn.vkEnumeratePhysicalDevices(g_instance, &np, phys);
  dh_vulkan_loader_pin_icds(); /* the ICDs stay loaded after vkDestroyInstance (vulkan_internal.h) */
  for (uint32_t i = 0; i < np && g_num_devs < DH_VULKAN_MAX_DEVICES; i++) {
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

int dh_vulkan_device_init(const dh_vulkan_device_hooks_t* hooks) {
  if (g_inited) return 0;
  g_hooks = hooks;
  g_inited = 1;
  g_forked = 0;
  g_reason[0] = 0;
  if (!g_atfork_registered && pthread_atfork(NULL, NULL, on_fork_child) == 0) g_atfork_registered = 1;
  /* Each step below sets g_reason when it fails: the backend then has no device. */
  if (dh_common_env_bytes(DH_VULKAN_STAGE_PINNED_MAX_ENV, DH_VULKAN_H2D_STAGE_MAX, &dh_vulkan_stage_pinned_max,
                          g_reason, sizeof g_reason) != 0)
    return 0;
  if (!dh_vulkan_loader_open(g_reason, sizeof g_reason)) return 0;
  uint32_t loader_version = 0;
  dh_vulkan_fn.vkEnumerateInstanceVersion(&loader_version);
  if (loader_version < VK_API_VERSION_1_2) {
    snprintf(g_reason, sizeof g_reason, "Vulkan loader is %u.%u; devharness needs 1.2",
             VK_API_VERSION_MAJOR(loader_version), VK_API_VERSION_MINOR(loader_version));
    return 0;
  }
  if (create_instance(loader_version, validation_wanted()) != 0) return 0;
  return setup_devices();
}

const char* dh_vulkan_unavailable_reason(void) {
  if (g_forked) return "the Vulkan backend was initialised before fork(); fork before init";
  return g_num_devs > 0 ? NULL : g_reason;
}

void dh_vulkan_shutdown(void) {
  if (g_forked) { /* the driver state is the parent's: touch nothing, forget it */
    memset(g_devs, 0, sizeof g_devs);
    g_num_devs = 0;
    g_instance = VK_NULL_HANDLE;
    g_messenger = VK_NULL_HANDLE;
    dh_vulkan_loader_forget();
    g_inited = 0;
    g_forked = 0;
    return;
  }
  for (int i = 0; i < g_num_devs; i++) {
    dh_vulkan_device_t* d = &g_devs[i];
    if (!d->device) continue;
    dh_vulkan_fn.vkDeviceWaitIdle(d->device);
    g_hooks->release(d);
    dh_vulkan_fn.vkDestroyDevice(d->device, NULL);
    pthread_mutex_destroy(&d->queue_lock);
    pthread_mutex_destroy(&d->lock);
    memset(d, 0, sizeof *d);
  }
  g_num_devs = 0;
  if (g_messenger && dh_vulkan_fn.vkDestroyDebugUtilsMessengerEXT)
    dh_vulkan_fn.vkDestroyDebugUtilsMessengerEXT(g_instance, g_messenger, NULL);
  g_messenger = VK_NULL_HANDLE;
  if (g_instance) dh_vulkan_fn.vkDestroyInstance(g_instance, NULL);
  g_instance = VK_NULL_HANDLE;
  dh_vulkan_loader_close();
  g_inited = 0;
}

/*===========================================================================
 * Attributes and target properties
 *===========================================================================*/
int dh_vulkan_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  if (!out) return dh_error_set(DH_KIND_VALUE_ERROR, "get_attr: out_value is NULL");
  if (kind < 0 || kind >= DH_ATTR_KIND_COUNT)
    return dh_error_set(DH_KIND_VALUE_ERROR, "unknown device attribute kind %d (valid: 0..%d)", (int)kind,
                        DH_ATTR_KIND_COUNT - 1);
  if (kind == DH_ATTR_EXIST) {
    *out = dh_any_int(!g_forked && dev.device_type == kDLVulkan && dev.device_id >= 0 &&
                      dev.device_id < g_num_devs);
    return 0;
  }
  dh_vulkan_device_t* d = NULL;
  if (dh_vulkan_check_dev(dev, &d)) return -1;
  const VkPhysicalDeviceLimits* L = &d->props.limits;
  *out = dh_any_none();
  switch ((dh_attr_kind_t)kind) {
    case DH_ATTR_MAX_THREADS_PER_BLOCK: *out = dh_any_int(L->maxComputeWorkGroupInvocations); break;
    case DH_ATTR_WARP_SIZE: *out = dh_any_int(d->props11.subgroupSize ? d->props11.subgroupSize : 1); break;
    case DH_ATTR_MAX_SHARED_MEMORY_PER_BLOCK: *out = dh_any_int(L->maxComputeSharedMemorySize); break;
    case DH_ATTR_COMPUTE_VERSION: *out = dh_any_str(d->compute_version); break;
    case DH_ATTR_DEVICE_NAME: *out = dh_any_str(d->name); break;
    case DH_ATTR_MAX_THREAD_DIMENSIONS: *out = dh_any_str(d->dims_json); break;
    /* The device's VkPhysicalDeviceProperties.apiVersion (packed as VK_MAKE_API_VERSION;
     * `devharness info` prints it decoded, 1.3.230), not the header's: TVM answers
     * VK_HEADER_VERSION, the loader header it was built with (backends/vulkan/README.md). */
    case DH_ATTR_API_VERSION: *out = dh_any_int(d->props.apiVersion); break;
    case DH_ATTR_DRIVER_VERSION: *out = dh_any_str(d->driver_version); break;
    case DH_ATTR_TOTAL_GLOBAL_MEMORY: *out = dh_any_int((int64_t)device_local_total(d)); break;
    case DH_ATTR_AVAILABLE_GLOBAL_MEMORY:
      if (d->has_budget) {
        VkPhysicalDeviceMemoryBudgetPropertiesEXT bp = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
        VkPhysicalDeviceMemoryProperties2 mp = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2, .pNext = &bp};
        dh_vulkan_fn.vkGetPhysicalDeviceMemoryProperties2(d->phys, &mp);
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

int dh_vulkan_get_target_property(DLDevice dev, const char* name, dh_any_t* out) {
  if (!name || !out) return dh_error_set(DH_KIND_VALUE_ERROR, "get_target_property: NULL name or out_value");
  dh_vulkan_device_t* d = NULL;
  if (dh_vulkan_check_dev(dev, &d)) return -1;
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

int dh_vulkan_set_device(DLDevice dev) {
  dh_vulkan_device_t* d = NULL;
  return dh_vulkan_check_dev(dev, &d);
}
