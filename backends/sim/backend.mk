# backends/sim/backend.mk — the simulated accelerator plugin, libdevharness_sim.so.
#
# SIM_CORE_SRCS: the sim without its entry point. Faulty backends (conformance tests)
# link it with a file of their own that exports dh_backend_entry (see backends/sim/sim.h):
#   $(eval $(call dh_plugin,faulty_x,$(SIM_CORE_SRCS) tests/.../faulty_x.c,))
# Such a file includes "backends/sim/sim.h" (the top Makefile has -I.).
SIM_CORE_SRCS := backends/sim/sim_device.c backends/sim/sim_stream.c backends/sim/sim_memory.c \
                 backends/sim/sim_kernels.c backends/sim/sim_launch.c backends/sim/sim_raw.c \
                 backends/sim/sim_backend.c

$(eval $(call dh_plugin,sim,$(SIM_CORE_SRCS) backends/sim/sim_entry.c,))

# Only dh_backend_entry is exported; the sim's internals stay private to each plugin.
$(OBJDIR)/backends/sim/%.o: CFLAGS += -fvisibility=hidden
