/*
 * backends/vulkan/vulkan_loader.c — the Vulkan loader: dlopen of libvulkan.so.1 (in init,
 * never in a constructor, so a process may fork before init), the entry-point table
 * dh_vulkan_fn (every Vulkan call goes through it: VK_NO_PROTOTYPES, nothing links against
 * libvulkan), and VkResult names for error messages. See vulkan_internal.h.
 */
#include "vulkan_internal.h"

#include <dlfcn.h>
#include <link.h>
#include <string.h>

dh_vulkan_fns_t dh_vulkan_fn;
static void* g_lib;

int dh_vulkan_loader_open(char* reason, size_t reason_size) {
  g_lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!g_lib) {
    const char* e = dlerror();
    snprintf(reason, reason_size, "libvulkan.so.1 not found (Vulkan loader): %s",
             e ? e : "dlopen failed");
    return 0;
  }
  *(void**)&dh_vulkan_fn.vkGetInstanceProcAddr = dlsym(g_lib, "vkGetInstanceProcAddr");
  if (!dh_vulkan_fn.vkGetInstanceProcAddr) {
    snprintf(reason, reason_size, "libvulkan.so.1 has no vkGetInstanceProcAddr");
    return 0;
  }
#define DH_VULKAN_LOAD(name) \
  dh_vulkan_fn.name = (PFN_##name)dh_vulkan_fn.vkGetInstanceProcAddr(VK_NULL_HANDLE, #name);
  DH_VULKAN_GLOBAL_FUNCS(DH_VULKAN_LOAD)
#undef DH_VULKAN_LOAD
  dh_vulkan_fn.vkEnumerateInstanceVersion = (PFN_vkEnumerateInstanceVersion)dh_vulkan_fn.vkGetInstanceProcAddr(
      VK_NULL_HANDLE, "vkEnumerateInstanceVersion");
  if (!dh_vulkan_fn.vkCreateInstance || !dh_vulkan_fn.vkEnumerateInstanceLayerProperties ||
      !dh_vulkan_fn.vkEnumerateInstanceVersion) {
    snprintf(reason, reason_size, "the Vulkan loader is older than Vulkan 1.1");
    return 0;
  }
  return 1;
}

int dh_vulkan_loader_load_instance(VkInstance instance, int debug_utils, char* reason,
                                   size_t reason_size) {
#define DH_VULKAN_LOAD(name) dh_vulkan_fn.name = (PFN_##name)dh_vulkan_fn.vkGetInstanceProcAddr(instance, #name);
  DH_VULKAN_INSTANCE_FUNCS(DH_VULKAN_LOAD)
#undef DH_VULKAN_LOAD
#define DH_VULKAN_CHECK(name) if (!dh_vulkan_fn.name) { snprintf(reason, reason_size, "Vulkan entry point %s missing", #name); return 0; }
  DH_VULKAN_INSTANCE_FUNCS(DH_VULKAN_CHECK)
#undef DH_VULKAN_CHECK
  if (debug_utils) {
    dh_vulkan_fn.vkCreateDebugUtilsMessengerEXT = (PFN_vkCreateDebugUtilsMessengerEXT)dh_vulkan_fn.vkGetInstanceProcAddr(
        instance, "vkCreateDebugUtilsMessengerEXT");
    dh_vulkan_fn.vkDestroyDebugUtilsMessengerEXT = (PFN_vkDestroyDebugUtilsMessengerEXT)dh_vulkan_fn.vkGetInstanceProcAddr(
        instance, "vkDestroyDebugUtilsMessengerEXT");
  }
  return 1;
}

/* dl_iterate_phdr callback of dh_vulkan_loader_pin_icds: pins an object that defines
 * vk_icdGetInstanceProcAddr itself (an ICD; the loader and the layers do not export it). */
static int pin_if_icd(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  (void)data;
  if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0') return 0;
  void* h = dlopen(info->dlpi_name, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (h == NULL) return 0;
  void* sym = dlsym(h, "vk_icdGetInstanceProcAddr");
  Dl_info where;
  if (sym != NULL && dladdr(sym, &where) != 0 && where.dli_fname != NULL &&
      strcmp(where.dli_fname, info->dlpi_name) == 0) {
    void* pin = dlopen(info->dlpi_name, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD | RTLD_NODELETE);
    if (pin != NULL) dlclose(pin);
  }
  dlclose(h);
  return 0;
}

void dh_vulkan_loader_pin_icds(void) { dl_iterate_phdr(pin_if_icd, NULL); }

void dh_vulkan_loader_close(void) {
  if (g_lib) dlclose(g_lib);
  g_lib = NULL;
}

void dh_vulkan_loader_forget(void) { g_lib = NULL; }

/*===========================================================================
 * VkResult names and errors
 *===========================================================================*/
const char* dh_vulkan_result_name(VkResult r) {
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
int dh_vulkan_fail(VkResult r, const char* what) {
  const char* kind = (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY)
                         ? DH_KIND_OUT_OF_MEMORY_ERROR : DH_KIND_RUNTIME_ERROR;
  return dh_error_set(kind, "%s failed: %s (%d)", what, dh_vulkan_result_name(r), (int)r);
}

