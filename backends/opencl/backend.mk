# backends/opencl/backend.mk — the OpenCL backend plugin (libdevharness_opencl.so),
# linked to the Khronos ICD loader (ocl-icd-opencl-dev, opencl-headers).
# Built against OpenCL 1.2 (CL_TARGET_OPENCL_VERSION=120, also the default in
# opencl_internal.h) so the plugin also runs on 1.2-only drivers; 2.0+ queries are made
# only when supported. One file per job (opencl_internal.h lists them); the objects are
# built with -fvisibility=hidden so dh_backend_entry is the plugin's only export.
OPENCL_SRCS := backends/opencl/opencl_error.c backends/opencl/opencl_handles.c \
               backends/opencl/opencl_queue.c backends/opencl/opencl_device.c \
               backends/opencl/opencl_memory.c backends/opencl/opencl_stream.c \
               backends/opencl/opencl_kernels.c backends/opencl/opencl_raw.c \
               backends/opencl/opencl_backend.c
$(OBJDIR)/backends/opencl/%.o: CPPFLAGS += -DCL_TARGET_OPENCL_VERSION=120
$(OBJDIR)/backends/opencl/%.o: CFLAGS += -fvisibility=hidden
$(eval $(call dh_plugin,opencl,$(OPENCL_SRCS),-lOpenCL))
