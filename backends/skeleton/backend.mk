# backends/skeleton/backend.mk — the skeleton backend, libdevharness_skeleton.so: every
# entry present, every answer "not implemented", no device (README.md here). It is the
# folder to copy when starting a backend (docs/adding-a-backend.md), so it is built and
# tested but kept out of the plugin folder: a default run does not load a template.
# Load it with `devharness conformance --plugin $(BUILD)/lib/skeleton/libdevharness_skeleton.so`.
# A copy for backend foo uses `$(eval $(call dh_plugin,foo,$(FOO_SRCS),-lfoo))` instead.
DH_SKELETON_SRCS := backends/skeleton/skeleton_device.c backends/skeleton/skeleton_memory.c \
                    backends/skeleton/skeleton_stream.c backends/skeleton/skeleton_kernels.c \
                    backends/skeleton/skeleton_raw.c backends/skeleton/skeleton_backend.c
DH_SKELETON_PLUGIN := $(LIBDIR)/skeleton/libdevharness_skeleton.so

ALL_TARGETS += $(DH_SKELETON_PLUGIN)
$(DH_SKELETON_PLUGIN): $(call obj,$(DH_SKELETON_SRCS)) $(RUNTIME_LIB)
	@mkdir -p $(@D)
	$(CC) -shared $(LDFLAGS) -o $@ $(filter %.o,$^) -L$(LIBDIR) -ldevharness \
	    -Wl,-rpath,'$$ORIGIN/..'

# Only dh_backend_entry is exported.
$(OBJDIR)/backends/skeleton/%.o: CFLAGS += -fvisibility=hidden
