# backends/cpu/backend.mk — the host CPU plugin, libdevharness_cpu.so (hwloc).
# One file per job (cpu_internal.h lists them); the raw twin is shared with tvm-cpu
# (backends/common/host_memcpy_twin.c).
DH_CPU_SRCS := backends/cpu/cpu_device.c backends/cpu/cpu_memory.c backends/cpu/cpu_stream.c \
               backends/cpu/cpu_kernels.c backends/cpu/cpu_raw.c backends/cpu/cpu_backend.c \
               $(DH_HOST_MEMCPY_TWIN_SRC)
$(eval $(call dh_plugin,cpu,$(DH_CPU_SRCS),-lhwloc))

# Only dh_backend_entry is exported.
$(OBJDIR)/backends/cpu/%.o: CFLAGS += -fvisibility=hidden
