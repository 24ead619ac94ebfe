# backends/tvm/backend.mk — TVM's own DeviceAPIs as devharness backends (README.md here).
#
#   libdevharness_tvm-cpu.so    TVM's CPU DeviceAPI  (devices tvm-cpu:N)
#   libdevharness_tvm-cuda.so   TVM's CUDA DeviceAPI (devices tvm-cuda:N, where a driver is)
#   tvm/libdh_tvm_adapter.so    the C++ adapter against TVM's device_api.h, linked to
#                               libtvm_runtime.so / libtvm_ffi.so by SONAME and dlopened by
#                               the plugins after they load TVM's libraries by path
#
# The plugins link nothing from TVM, so they load (and say why they have no device) when
# the apache-tvm package is absent. The venv paths are compiled in as defaults
# (DEVHARNESS_TVM_ROOT / DEVHARNESS_TVM_FFI_ROOT override them at run time). The adapter
# is built when the venv has TVM's headers; else the plugins report it missing.

# Every C file is compiled twice, once per flavour (-DDH_TVM_CUDA=0 / 1), into
# $(OBJDIR)/backends/tvm/cpu/ and $(OBJDIR)/backends/tvm/cuda/ (tvm_internal.h).
DH_TVM_ROOMS   := tvm_tracker tvm_device tvm_memory tvm_stream tvm_libs tvm_raw tvm_backend
DH_TVM_ADAPTER := $(PLUGINDIR)/tvm/libdh_tvm_adapter.so
DH_TVM_CPU_OBJS  := $(patsubst %,$(OBJDIR)/backends/tvm/cpu/%.o,$(DH_TVM_ROOMS)) \
                    $(call obj,$(DH_HOST_MEMCPY_TWIN_SRC))
DH_TVM_CUDA_OBJS := $(patsubst %,$(OBJDIR)/backends/tvm/cuda/%.o,$(DH_TVM_ROOMS))

$(OBJDIR)/backends/tvm/cpu/%.o: backends/tvm/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DDH_TVM_CUDA=0 $(CFLAGS) -MMD -MP -c $< -o $@
$(OBJDIR)/backends/tvm/cuda/%.o: backends/tvm/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DDH_TVM_CUDA=1 $(CFLAGS) -MMD -MP -c $< -o $@
$(DH_TVM_CPU_OBJS) $(DH_TVM_CUDA_OBJS): CFLAGS += -fvisibility=hidden
$(DH_TVM_CPU_OBJS) $(DH_TVM_CUDA_OBJS): CPPFLAGS += -DDH_TVM_ROOT_DEFAULT='"$(TVM_ROOT)"' -DDH_TVM_FFI_ROOT_DEFAULT='"$(TVM_FFI_ROOT)"'

PLUGINS += $(PLUGINDIR)/libdevharness_tvm-cpu.so $(PLUGINDIR)/libdevharness_tvm-cuda.so
$(PLUGINDIR)/libdevharness_tvm-cpu.so: $(DH_TVM_CPU_OBJS) $(RUNTIME_LIB)
	@mkdir -p $(@D)
	$(CC) -shared $(LDFLAGS) -o $@ $(filter %.o,$^) -L$(LIBDIR) -ldevharness -Wl,-rpath,'$$ORIGIN/..' -ljansson -ldl
$(PLUGINDIR)/libdevharness_tvm-cuda.so: $(DH_TVM_CUDA_OBJS) $(RUNTIME_LIB)
	@mkdir -p $(@D)
	$(CC) -shared $(LDFLAGS) -o $@ $(filter %.o,$^) -L$(LIBDIR) -ldevharness -Wl,-rpath,'$$ORIGIN/..' -ljansson -ldl

$(call obj,backends/tvm/tvm_adapter.cc): CPPFLAGS += -isystem $(TVM_ROOT)/include -isystem $(TVM_FFI_ROOT)/include
# -fno-sanitize=vptr: under UBSan the vptr checks need UBSan's C++ runtime, which the
# C programs that dlopen the adapter do not carry (mk/sanitizers.mk).
$(call obj,backends/tvm/tvm_adapter.cc): CXXFLAGS += -fvisibility=hidden \
    $(if $(findstring undefined,$(EXTRA_CFLAGS)),-fno-sanitize=vptr)

ALL_TARGETS += $(DH_TVM_ADAPTER)
install: install-tvm-adapter
.PHONY: install-tvm-adapter
install-tvm-adapter: $(DH_TVM_ADAPTER)
	install -d $(DESTDIR)$(PREFIX)/lib/devharness/tvm
	install -m 755 $(DH_TVM_ADAPTER) $(DESTDIR)$(PREFIX)/lib/devharness/tvm/
$(DH_TVM_ADAPTER): $(call obj,backends/tvm/tvm_adapter.cc)
	@mkdir -p $(@D)
	$(CXX) -shared $(LDFLAGS) -o $@ $^ -L$(TVM_ROOT)/lib -L$(TVM_FFI_ROOT)/lib -ltvm_runtime -ltvm_ffi
