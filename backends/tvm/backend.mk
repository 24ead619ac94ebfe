# backends/tvm/backend.mk — TVM DeviceAPIs as devharness backends (README.md here).
#
#   libdevharness_tvm.so        one plugin, its device sets: TVM's own DeviceAPIs
#                               (tvm-cpu:0, tvm-cuda:N where a driver is), those of the
#                               libraries of its option --tvm-lib and of the TVM RPC
#                               servers of --rpc (ABI 1.6; env fallbacks
#                               DEVHARNESS_TVM_LIBS, DEVHARNESS_TVM_RPC)
#   tvm/libdh_tvm_adapter.so    the C++ adapter against TVM's device_api.h, linked to
#                               libtvm_runtime.so / libtvm_ffi.so by SONAME and dlopened by
#                               the plugin after it loads TVM's libraries by path
#
# The plugin links nothing from TVM, so it loads (and its sets say why they have no
# device) when the apache-tvm package is absent. The venv paths are compiled in as
# defaults (DEVHARNESS_TVM_ROOT / DEVHARNESS_TVM_FFI_ROOT override them at run time). The
# adapter is built when the venv has TVM's headers; else the sets report it missing.

DH_TVM_SRCS    := $(patsubst %,backends/tvm/%.c,tvm_tracker tvm_options tvm_device tvm_memory tvm_stream tvm_libs tvm_raw tvm_backend)
DH_TVM_ADAPTER := $(PLUGINDIR)/tvm/libdh_tvm_adapter.so
DH_TVM_OBJS    := $(call obj,$(DH_TVM_SRCS)) $(call obj,$(DH_HOST_MEMCPY_TWIN_SRC))
$(call obj,$(DH_TVM_SRCS)): CFLAGS += -fvisibility=hidden
$(call obj,$(DH_TVM_SRCS)): CPPFLAGS += -DDH_TVM_ROOT_DEFAULT='"$(TVM_ROOT)"' -DDH_TVM_FFI_ROOT_DEFAULT='"$(TVM_FFI_ROOT)"'

# TVM's own cpu and cuda were once plugins of their own: a build or install tree of then
# still has them, and they would claim tvm-cpu and tvm-cuda before this plugin (whose
# sets would then be refused as duplicates), so building or installing it removes them.
DH_TVM_OLD_PLUGINS := libdevharness_tvm-cpu.so libdevharness_tvm-cuda.so

PLUGINS += $(PLUGINDIR)/libdevharness_tvm.so
$(PLUGINDIR)/libdevharness_tvm.so: $(DH_TVM_OBJS) $(RUNTIME_LIB)
	@mkdir -p $(@D)
	rm -f $(addprefix $(@D)/,$(DH_TVM_OLD_PLUGINS))
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
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/lib/devharness/,$(DH_TVM_OLD_PLUGINS))
	install -m 755 $(DH_TVM_ADAPTER) $(DESTDIR)$(PREFIX)/lib/devharness/tvm/
$(DH_TVM_ADAPTER): $(call obj,backends/tvm/tvm_adapter.cc)
	@mkdir -p $(@D)
	$(CXX) -shared $(LDFLAGS) -o $@ $^ -L$(TVM_ROOT)/lib -L$(TVM_FFI_ROOT)/lib -ltvm_runtime -ltvm_ffi
