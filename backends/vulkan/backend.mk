# backends/vulkan/backend.mk — the Vulkan backend plugin (libdevharness_vulkan.so).
# The Vulkan loader (libvulkan.so.1) is dlopen'd at init, so the plugin loads and
# reports "libvulkan.so.1 not found" on machines without it. Compute shaders in
# backends/vulkan/shaders/*.comp are compiled by glslc to SPIR-V word lists
# ($(BUILD)/gen/vulkan/*.spv.inc) that vulkan_kernels.c #includes.
# One file per job (see vulkan_internal.h); the objects are compiled with
# -fvisibility=hidden so the plugin exports only dh_backend_entry.
GLSLC ?= glslc
VK_SRCS    := backends/vulkan/vulkan_loader.c backends/vulkan/vulkan_device.c \
              backends/vulkan/vulkan_buffers.c \
              backends/vulkan/vulkan_memory.c backends/vulkan/vulkan_stream.c \
              backends/vulkan/vulkan_kernels.c backends/vulkan/vulkan_raw.c \
              backends/vulkan/vulkan_backend.c
VK_GEN     := $(BUILD)/gen/vulkan
VK_SHADERS := $(wildcard backends/vulkan/shaders/*.comp)
VK_SPV     := $(patsubst backends/vulkan/shaders/%.comp,$(VK_GEN)/%.spv.inc,$(VK_SHADERS))

$(VK_GEN)/%.spv.inc: backends/vulkan/shaders/%.comp | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(GLSLC) --target-env=vulkan1.2 -O -mfmt=num -o $@ $<

$(call obj,backends/vulkan/vulkan_kernels.c): $(VK_SPV)
$(OBJDIR)/backends/vulkan/%.o: CPPFLAGS += -I$(VK_GEN)
$(OBJDIR)/backends/vulkan/%.o: CFLAGS += -fvisibility=hidden

$(eval $(call dh_plugin,vulkan,$(VK_SRCS) $(DH_ENV_BYTES_SRC),-ldl))
