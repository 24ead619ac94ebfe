# backends/opencl/backend.mk — the OpenCL backend plugin (libdevharness_opencl.so),
# linked to the Khronos ICD loader (ocl-icd-opencl-dev, opencl-headers).
# Built against OpenCL 1.2 (CL_TARGET_OPENCL_VERSION=120, set in opencl.c) so the
# plugin also runs on 1.2-only drivers; 2.0+ queries are made only when supported.
OPENCL_SRCS := backends/opencl/opencl.c
$(OBJDIR)/backends/opencl/%.o: CPPFLAGS += -DCL_TARGET_OPENCL_VERSION=120
$(eval $(call dh_plugin,opencl,$(OPENCL_SRCS),-lOpenCL))
