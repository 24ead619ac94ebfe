# backends/cuda/backend.mk — the CUDA backend plugin libdevharness_cuda.so.
#
# Built only when nvcc is found. The plugin links no CUDA library: it dlopens
# libcuda.so.1 at run time (backends/cuda/cuda_device.c); <cuda.h> is used for types
# only. The kernels (kernels.cu) are compiled by nvcc into a fatbin (SASS for sm_75,
# sm_80, sm_86, sm_89, sm_90a plus compute_90 PTX for newer GPUs), turned into a C
# array header in $(BUILD)/gen/cuda/ with od + sed (coreutils; no xxd needed) and
# embedded in the plugin.
#
#   NVCC=/path/to/nvcc        choose the compiler (default: nvcc on PATH, else
#                             /usr/local/cuda/bin/nvcc)
#   CUDA_INCLUDE=/dir         where cuda.h lives (default: next to nvcc)
#   DH_CUDA_GENCODE=...       override the -gencode list
#
# Defines DH_CUDA_ENABLED (1 or empty) and DH_CUDA_PLUGIN for tests/backends/cuda/.

NVCC ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)

CUDA_INCLUDE ?= $(if $(strip $(NVCC)),$(patsubst %/cuda.h,%,$(abspath $(firstword $(wildcard \
                    $(dir $(realpath $(NVCC)))../include/cuda.h \
                    /usr/local/cuda/include/cuda.h /usr/include/cuda.h)))))

# Why the cuda backend is not built is said once per build folder (the note's stamp is
# $(BUILD)/.cuda-not-built), not on every make.
ifeq ($(strip $(NVCC)),)
DH_CUDA_SKIP_WHY := nvcc not found (set NVCC=)
DH_CUDA_ENABLED :=
else ifeq ($(wildcard $(CUDA_INCLUDE)/cuda.h),)
DH_CUDA_SKIP_WHY := cuda.h not found next to $(NVCC) (set CUDA_INCLUDE=)
DH_CUDA_ENABLED :=
else
DH_CUDA_ENABLED := 1

DH_CUDA_GENCODE ?= -gencode arch=compute_75,code=sm_75 \
                   -gencode arch=compute_80,code=sm_80 \
                   -gencode arch=compute_86,code=sm_86 \
                   -gencode arch=compute_89,code=sm_89 \
                   -gencode arch=compute_90a,code=sm_90a \
                   -gencode arch=compute_90,code=compute_90

DH_CUDA_SRCS   := backends/cuda/cuda_device.c backends/cuda/cuda_memory.c \
                  backends/cuda/cuda_stream.c backends/cuda/cuda_kernels.c \
                  backends/cuda/cuda_raw.c backends/cuda/cuda_backend.c
DH_CUDA_GENDIR := $(BUILD)/gen/cuda
DH_CUDA_PLUGIN := $(PLUGINDIR)/libdevharness_cuda.so

$(eval $(call dh_plugin,cuda,$(DH_CUDA_SRCS) $(DH_ENV_BYTES_SRC),-ldl))

$(call obj,$(DH_CUDA_SRCS)): CPPFLAGS += -isystem $(CUDA_INCLUDE) -I$(DH_CUDA_GENDIR)
$(call obj,$(DH_CUDA_SRCS)): CFLAGS += -fvisibility=hidden
$(call obj,backends/cuda/cuda_kernels.c): $(DH_CUDA_GENDIR)/kernels_fatbin.h

$(DH_CUDA_GENDIR)/kernels.fatbin: backends/cuda/kernels.cu backends/cuda/backend.mk
	@mkdir -p $(@D)
	$(NVCC) --fatbin -O3 $(DH_CUDA_GENCODE) -o $@ $<

# C array of the fatbin; 16-byte aligned for cuModuleLoadData.
$(DH_CUDA_GENDIR)/kernels_fatbin.h: $(DH_CUDA_GENDIR)/kernels.fatbin
	@mkdir -p $(@D)
	{ echo '/* generated from backends/cuda/kernels.cu by backends/cuda/backend.mk */'; \
	  echo 'static const unsigned char dh_cuda_fatbin[] __attribute__((aligned(16))) = {'; \
	  od -An -v -tx1 $< | sed -e 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '};'; } > $@.tmp && mv $@.tmp $@
endif

ifneq ($(DH_CUDA_SKIP_WHY),)
ALL_TARGETS += $(BUILD)/.cuda-not-built
$(BUILD)/.cuda-not-built:
	@mkdir -p $(@D)
	@echo "devharness: the cuda backend is not built: $(DH_CUDA_SKIP_WHY)"
	@touch $@
endif
