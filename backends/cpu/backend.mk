# backends/cpu/backend.mk — the host CPU plugin, libdevharness_cpu.so (hwloc).
$(eval $(call dh_plugin,cpu,backends/cpu/cpu.c,-lhwloc))

# Only dh_backend_entry is exported.
$(OBJDIR)/backends/cpu/%.o: CFLAGS += -fvisibility=hidden
